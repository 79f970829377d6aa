package rules

// Side is one of the two players.
type Side uint8

// The two players. South owns the bottom row and moves first unless a
// series says otherwise.
const (
	South Side = 0
	North Side = 1
)

// Opponent returns the other player.
func (s Side) Opponent() Side { return s ^ 1 }

// String returns "South" or "North".
func (s Side) String() string {
	if s == North {
		return "North"
	}
	return "South"
}

// Letter returns the side's letter in position notation: 's' or 'n'.
func (s Side) Letter() byte {
	if s == North {
		return 'n'
	}
	return 's'
}
