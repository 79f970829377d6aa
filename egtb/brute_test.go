package egtb

import (
	"context"
	"testing"

	"github.com/endodoi/endodoi/internal/oracle"
	"github.com/endodoi/endodoi/rules"
)

// TestBuildMatchesBruteForce compares every position of the tiny boards'
// databases, both sides to move, with the brute force over histories
// (package oracle).
func TestBuildMatchesBruteForce(t *testing.T) {
	for _, tc := range []struct {
		holes, seeds int
		budget       int
		laps         int
	}{
		{2, 10, 300_000, 100},
		{3, 8, 300_000, 100},
		{4, 4, 300_000, 100},
		// A low lap cap makes many moves endless, and so many games end
		// with moves left on the board but none legal.
		{3, 7, 300_000, 3},
	} {
		for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
			r := rules.Rules{Variant: variant, MaxLaps: tc.laps}
			tb, err := Build(context.Background(), Options{Holes: tc.holes, MaxSeeds: tc.seeds, Rules: r})
			if err != nil {
				t.Fatal(err)
			}
			checked, gaveUp, nonZero := 0, 0, 0
			bf := &oracle.Solver{Rules: r}
			board := make([]int, 2*tc.holes)
			for n := 0; n <= tc.seeds; n++ {
				for i := uint64(0); i < Size(tc.holes, n); i++ {
					if err := Unrank(board, n, i); err != nil {
						t.Fatal(err)
					}
					for _, side := range []rules.Side{rules.South, rules.North} {
						p, err := rules.NewPositionFromRows(board[:tc.holes], board[tc.holes:], side, 0, 0)
						if err != nil {
							t.Fatal(err)
						}
						bf.Budget = tc.budget
						want, ok := bf.Value(p)
						if !ok {
							gaveUp++
							continue
						}
						got, err := tb.Value(p)
						if err != nil {
							t.Fatal(err)
						}
						if got != want {
							t.Errorf("%s (%s): database %d, brute force %d", p, variant, got, want)
						}
						checked++
						if want != 0 {
							nonZero++
						}
					}
				}
			}
			t.Logf("%d holes, %d seeds, %s: %d positions checked (%d non-zero), brute force gave up on %d", tc.holes, tc.seeds, variant, checked, nonZero, gaveUp)
			if gaveUp > checked/10 {
				t.Errorf("brute force gave up on %d positions of %d", gaveUp, checked+gaveUp)
			}
		}
	}
}
