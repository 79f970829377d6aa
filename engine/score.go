package engine

import "fmt"

// Score is a capture margin in hundredths of a seed, from the side to
// move's view.
type Score int32

// Seed is one seed in Score units.
const Seed Score = 100

const (
	// Infinity bounds every score.
	Infinity Score = 1 << 20
)

// Seeds returns the score as a number of seeds.
func (s Score) Seeds() float64 { return float64(s) / float64(Seed) }

// String formats the score in seeds with an explicit sign and no more
// decimals than it needs: "+3.5", "-2", "+0.25", "0".
func (s Score) String() string {
	if s == 0 {
		return "0"
	}
	switch {
	case s%Seed == 0:
		return fmt.Sprintf("%+d", s/Seed)
	case s%(Seed/10) == 0:
		return fmt.Sprintf("%+.1f", s.Seeds())
	}
	return fmt.Sprintf("%+.2f", s.Seeds())
}
