package rules_test

import (
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestParseSide(t *testing.T) {
	for in, want := range map[string]rules.Side{"south": rules.South, "S": rules.South, "North": rules.North, "n": rules.North} {
		if got, err := rules.ParseSide(in); err != nil || got != want {
			t.Errorf("ParseSide(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "random", "east", "sn"} {
		if _, err := rules.ParseSide(in); err == nil {
			t.Errorf("ParseSide(%q) took it", in)
		}
	}
}
