package rules

import (
	"fmt"
	"strings"
)

// Board limits and defaults.
const (
	MinHoles     = 2  // fewest holes per row
	MaxHoles     = 16 // most holes per row
	DefaultHoles = 8  // holes per row of the default board

	MinStartSeeds     = 1  // fewest seeds per hole in a start position
	MaxStartSeeds     = 12 // most seeds per hole in a start position
	DefaultStartSeeds = 4  // seeds per hole of the default start

	// MaxBoardSeeds is the most seeds a position may hold on its board.
	MaxBoardSeeds = 65535
	// MaxTotalSeeds is the most seeds a position may hold in all: on the
	// board and captured by both players. Moves only carry seeds from the
	// board to a player's captured count, so every position reached from a
	// valid one stays within it, and within the notation's limits.
	MaxTotalSeeds = 999_999_999

	DefaultMaxLaps = 1000      // the default lap cap (rule 7)
	MaxMaxLaps     = 1_000_000 // the largest lap cap accepted
)

// Variant selects a capture rule. The zero value is the standard game.
type Variant uint8

// The variants. To add one, add a constant here and a row to variants.
const (
	// Standard: a sowing that ends in an empty hole of the mover's own row
	// captures the opposite hole (rule 6).
	Standard Variant = iota
	// Cross is our reconstruction of Cross-Endodoi: the capture also happens
	// when the sowing ends in an empty hole of the opponent's row (rule 12).
	Cross
	numVariants
)

type variantSpec struct {
	name    string
	aliases []string
	// captureInOpponentRow: the capture of rule 6 also applies when the
	// sowing ends in the opponent's row.
	captureInOpponentRow bool
	summary              string
}

var variants = [numVariants]variantSpec{
	Standard: {name: "standard", aliases: []string{"endodoi", "en-dodoi", "default"},
		summary: "captures only when the sowing ends in the mover's own row"},
	Cross: {name: "cross", aliases: []string{"cross-endodoi", "crossendodoi"},
		captureInOpponentRow: true,
		summary:              "captures also when the sowing ends in the opponent's row"},
}

// Variants lists every variant, standard first.
func Variants() []Variant {
	vs := make([]Variant, numVariants)
	for i := range vs {
		vs[i] = Variant(i)
	}
	return vs
}

// String returns the variant's name as used in notation and options.
func (v Variant) String() string {
	if v >= numVariants {
		return fmt.Sprintf("Variant(%d)", uint8(v))
	}
	return variants[v].name
}

// Summary describes the variant's capture rule in a few words.
func (v Variant) Summary() string {
	if v >= numVariants {
		return ""
	}
	return variants[v].summary
}

// ParseVariant reads a variant's name ("standard", "cross"), ignoring case;
// a few aliases such as "cross-endodoi" are accepted too.
func ParseVariant(s string) (Variant, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for i, spec := range variants {
		if t == spec.name {
			return Variant(i), nil
		}
		for _, a := range spec.aliases {
			if t == a {
				return Variant(i), nil
			}
		}
	}
	names := make([]string, numVariants)
	for i, spec := range variants {
		names[i] = spec.name
	}
	return Standard, fmt.Errorf("unknown variant %q (known: %s)", s, strings.Join(names, ", "))
}

// MarshalText implements encoding.TextMarshaler.
func (v Variant) MarshalText() ([]byte, error) {
	if v >= numVariants {
		return nil, fmt.Errorf("rules: invalid variant %d", uint8(v))
	}
	return []byte(v.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (v *Variant) UnmarshalText(b []byte) error {
	pv, err := ParseVariant(string(b))
	if err != nil {
		return err
	}
	*v = pv
	return nil
}

// Rules holds the rules parameters. The zero value is the default ruleset:
// the standard variant with a lap cap of DefaultMaxLaps.
type Rules struct {
	Variant Variant
	// MaxLaps is the lap cap of rule 7: a sowing that has not ended after
	// MaxLaps laps is endless, and a move that would sow endlessly is not
	// legal. Zero (or, unvalidated, a negative value) means DefaultMaxLaps.
	MaxLaps int
}

// DefaultRules returns the default ruleset, in canonical form.
func DefaultRules() Rules { return Rules{Variant: Standard, MaxLaps: DefaultMaxLaps} }

// Canonical returns r in its one canonical form, the lap cap spelt out:
// Rules{} and Rules{MaxLaps: DefaultMaxLaps} play alike, and their
// canonical forms are equal, so that rules compare equal under == and
// match as map keys. Rules entering from outside (options, records, stored
// games, requests, database files) are made canonical where they enter.
func (r Rules) Canonical() Rules {
	r.MaxLaps = r.Laps()
	return r
}

// NewRules returns the canonical rules of variant v with lap cap maxLaps
// (0 for DefaultMaxLaps), or an error if they are not usable.
func NewRules(v Variant, maxLaps int) (Rules, error) {
	r := Rules{Variant: v, MaxLaps: maxLaps}
	if err := r.Validate(); err != nil {
		return Rules{}, err
	}
	return r.Canonical(), nil
}

// Laps returns the effective lap cap.
func (r Rules) Laps() int {
	if r.MaxLaps <= 0 {
		return DefaultMaxLaps
	}
	return r.MaxLaps
}

// Validate reports whether the parameters are usable.
func (r Rules) Validate() error {
	if r.Variant >= numVariants {
		return fmt.Errorf("rules: unknown variant %d", uint8(r.Variant))
	}
	if r.MaxLaps < 0 || r.MaxLaps > MaxMaxLaps {
		return fmt.Errorf("rules: lap cap %d out of range (1 to %d)", r.MaxLaps, MaxMaxLaps)
	}
	return nil
}

// captureInOpponentRow reports whether the variant captures when the
// sowing ends in the opponent's row. An unknown variant plays as Standard;
// Validate refuses it.
func (r Rules) captureInOpponentRow() bool {
	return r.Variant < numVariants && variants[r.Variant].captureInOpponentRow
}

// String describes the ruleset, e.g. "standard, max 1000 laps".
func (r Rules) String() string {
	return fmt.Sprintf("%s, max %d laps", r.Variant, r.Laps())
}
