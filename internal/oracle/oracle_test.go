package oracle

import (
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestValue(t *testing.T) {
	r := rules.DefaultRules()
	for _, tc := range []struct {
		pos  string
		want int
	}{
		// No legal move: the board goes to North, who moved last.
		{"0,0/1,0 s 0 0", -1},
		// a sows into b, empty and South's: it captures B's 2 seeds and
		// the sowing seed; North is left without seeds.
		{"1,0/2,0 s 0 0", 3},
		// A single seed chases round the board: whoever captures first.
		{"1,0/0,0 s 4 4", 1},
	} {
		s := &Solver{Rules: r, Budget: 10_000}
		got, ok := s.Value(rules.MustParsePosition(tc.pos))
		if !ok || got != tc.want {
			t.Errorf("Value(%s) = %d, %v; want %d", tc.pos, got, ok, tc.want)
		}
	}
}

func TestBudget(t *testing.T) {
	s := &Solver{Rules: rules.DefaultRules(), Budget: 3}
	if _, ok := s.Value(rules.MustParsePosition("4,4,4/4,4,4 s 0 0")); ok {
		t.Error("a 3-node budget solved the 3-hole start")
	}
}

func TestMoveValuesAgreeWithValue(t *testing.T) {
	for _, pos := range []string{"1,2/2,0 s 0 0", "2,0,1/1,1,0 n 3 1", "3,3/3,3 s 0 0"} {
		p := rules.MustParsePosition(pos)
		s := &Solver{Rules: rules.DefaultRules(), Budget: 200_000}
		vals, ok := s.MoveValues(p, nil)
		if !ok {
			t.Fatalf("%s: gave up", pos)
		}
		best := -1 << 30
		for _, v := range vals {
			best = max(best, v)
		}
		s.Budget = 200_000
		if v, ok := s.Value(p); !ok || v != best {
			t.Errorf("%s: Value %d (%v), best move value %d", pos, v, ok, best)
		}
	}
}
