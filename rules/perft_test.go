package rules_test

import (
	"context"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestPerftParallel(t *testing.T) {
	for _, r := range []rules.Rules{rules.DefaultRules(), {Variant: rules.Cross, MaxLaps: 3}} {
		p, _ := rules.NewPosition(6, 4)
		const depth = 5
		want := make([]uint64, depth+1)
		rules.PerftCounts(p, r, want)
		for _, workers := range []int{0, 1, 3, 20} {
			counts, divided, err := rules.PerftParallel(context.Background(), p, r, depth, workers)
			if err != nil {
				t.Fatal(err)
			}
			for d := range want {
				if counts[d] != want[d] {
					t.Errorf("%v, %d workers: counts[%d] = %d, want %d", r, workers, d, counts[d], want[d])
				}
			}
			var sum uint64
			for _, mc := range divided {
				q, err := p.Play(mc.Move, r)
				if err != nil {
					t.Fatalf("divided by an illegal move %v", mc.Move)
				}
				if n := rules.Perft(q, depth-1, r); n != mc.Count {
					t.Errorf("%v: below %v: %d, want %d", r, mc.Move, mc.Count, n)
				}
				sum += mc.Count
			}
			if sum != want[depth] || len(divided) != len(p.LegalMoves(r)) {
				t.Errorf("%v: divided %v sums to %d, want %d", r, divided, sum, want[depth])
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, _ := rules.NewPosition(8, 4)
	if _, _, err := rules.PerftParallel(ctx, p, rules.DefaultRules(), 30, 1); err == nil {
		t.Error("a cancelled perft did not fail")
	}
	if counts, _, err := rules.PerftParallel(context.Background(), p, rules.DefaultRules(), 0, 0); err != nil || len(counts) != 1 || counts[0] != 1 {
		t.Errorf("depth 0: %v, %v", counts, err)
	}
}
