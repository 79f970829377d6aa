package rules_test

import (
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestDescribeSowing(t *testing.T) {
	for _, tc := range []struct {
		pos, move, want string
	}{
		{"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "c", "South plays c: 5 laps, ends in e and captures 7 (B's 6 and the last seed)"},
		{"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "e", "South plays e: 5 laps, ends in North's row (A), no capture"},
		{"1,0,0/1,0,0 s 0 0", "a", "South plays a: 1 lap, ends in b in its own row; the opposite hole B is empty: no capture"},
		{"6,0,0/0,0,1 s 0 0", "a", "South plays a: 1 lap, ends in a and captures 3 (C's 2 and the last seed)"},
	} {
		p := rules.MustParsePosition(tc.pos)
		m, _ := rules.ParseMove(tc.move)
		_, sow, err := p.Trace(m, rules.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		if got := sow.Describe(p); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.pos, tc.move, got, tc.want)
		}
	}
}

func TestLapsText(t *testing.T) {
	p := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	_, sow, err := p.Trace(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	// docs/rules.md, example 1.
	want := `  lap 1: lifted 4 from c, last seed in A (held 4: relay)  4,4,0,5,5,5/5,4,4,4,4,4
  lap 2: lifted 5 from A, last seed in F (held 4: relay)  4,4,0,5,5,5/0,5,5,5,5,5
  lap 3: lifted 5 from F, last seed in e (held 5: relay)  5,5,1,6,6,5/0,5,5,5,5,0
  lap 4: lifted 6 from e, last seed in E (held 5: relay)  5,5,1,6,0,6/1,6,6,6,6,0
  lap 5: lifted 6 from E, last seed in e (was empty: the sowing ends)  6,6,2,7,1,6/1,6,6,6,0,1
  capture: 6 seeds from B and the last seed from e
`
	if got := sow.LapsText(p); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestNumberedMoves(t *testing.T) {
	mv := func(s string) rules.Move { m, _ := rules.ParseMove(s); return m }
	moves := []rules.Move{mv("A"), mv("b"), mv("C"), mv("a")}
	if got := rules.NumberedMoves(rules.North, moves); got != "1... A 2. b C 3. a" {
		t.Errorf("North first: %q", got)
	}
	if got := rules.NumberedMoves(rules.South, moves[1:]); got != "1. b C 2. a" {
		t.Errorf("South first: %q", got)
	}
}
