package engine

import (
	"fmt"
	"strings"

	"github.com/endodoi/endodoi/rules"
)

// ScoreText writes a score, marked when exact.
func ScoreText(s Score, exact bool) string {
	if exact {
		return s.String() + " exact"
	}
	return s.String()
}

// FinalText states the final result a score for p's side to move leads to:
// "expected final: South +6.5" for an estimate, "solved: South wins by 4"
// for an exact score.
func FinalText(p rules.Position, s Score, exact bool) string {
	m := rules.FinalMargin(p, s, Seed)
	abs := m
	if abs < 0 {
		abs = -abs
	}
	leader := "South"
	if m < 0 {
		leader = "North"
	}
	if exact {
		if m == 0 {
			return "solved: draw"
		}
		return fmt.Sprintf("solved: %s wins by %s", leader, strings.TrimPrefix(abs.String(), "+"))
	}
	if m == 0 {
		return "expected final: even"
	}
	return fmt.Sprintf("expected final: %s %s", leader, abs)
}
