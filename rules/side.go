package rules

import (
	"fmt"
	"strings"
)

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

// ParseSide reads a side's name or letter, in any case: "south" or "s",
// "north" or "n".
func ParseSide(s string) (Side, error) {
	switch strings.ToLower(s) {
	case "south", "s":
		return South, nil
	case "north", "n":
		return North, nil
	}
	return South, fmt.Errorf("%q: want south or north", s)
}
