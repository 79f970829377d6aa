package egtb

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// TestUnmoveFindsEveryPredecessor: for every board of small counts, the
// predecessors found by playing moves backwards are exactly those found by
// playing every board's moves forwards, each as many times as it has moves
// to the board, under both variants and lap caps small enough to forbid
// some moves.
func TestUnmoveFindsEveryPredecessor(t *testing.T) {
	type game struct{ holes, maxSeeds int }
	games := []game{{2, 14}, {3, 12}, {4, 10}, {5, 8}, {6, 7}}
	if testing.Short() {
		games = games[:3]
	}
	for _, g := range games {
		for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
			for _, laps := range []int{1, 2, 3, 7, rules.DefaultMaxLaps} {
				r := rules.Rules{Variant: variant, MaxLaps: laps}
				for n := 1; n <= g.maxSeeds; n++ {
					checkUnmove(t, g.holes, n, r)
				}
			}
		}
	}
}

func checkUnmove(t *testing.T, holes, n int, r rules.Rules) {
	t.Helper()
	size := Size(holes, n)
	lower := make([][]int8, n)
	for k := range lower {
		lower[k] = make([]int8, Size(holes, k))
	}
	want := make([][]uint64, size)
	e := newExpander(holes, n, r, lower)
	e.seek(0)
	for i := range size {
		count := e.expand(false)
		for _, m := range e.moves[:count] {
			if !m.exit {
				want[m.child] = append(want[m.child], i)
			}
		}
		if i+1 < size {
			e.cur.next()
		}
	}
	u := newUnmover(holes, r.Laps(), r.Variant == rules.Cross)
	e.seek(0)
	for i := range size {
		got := slices.Clone(u.predecessors(&e.cur))
		slices.Sort(got)
		slices.Sort(want[i])
		if !slices.Equal(got, want[i]) {
			t.Fatalf("%d holes, %d seeds, %s, board %v: predecessors %v, want %v", holes, n, r, e.cur[:2*holes], got, want[i])
		}
		if i+1 < size {
			e.cur.next()
		}
	}
}

// BenchmarkUnmove finds the predecessors of every position of 12 seeds on
// 2×6 (1,352,078 positions), as the builder's propagation does for each
// position it determines.
func BenchmarkUnmove(b *testing.B) {
	const holes, n = 6, 12
	size := Size(holes, n)
	e := newExpander(holes, n, rules.DefaultRules(), nil)
	u := newUnmover(holes, rules.DefaultMaxLaps, false)
	var preds uint64
	for b.Loop() {
		e.seek(0)
		for i := range size {
			preds += uint64(len(u.predecessors(&e.cur)))
			if i+1 < size {
				e.cur.next()
			}
		}
	}
	b.ReportMetric(float64(preds)/b.Elapsed().Seconds(), "predecessors/s")
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

// TestUnmoveLargeBoards checks un-moving on random boards of 7 to 16 holes
// a row, beyond the exhaustive test's: each move within the count of a
// random board has the board among its child's predecessors, and each
// predecessor found of a random board has a move to it.
func TestUnmoveLargeBoards(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for trial := 0; trial < 20000; trial++ {
		holes := 7 + rng.IntN(10)
		n := 1 + rng.IntN(2*holes) // ranks of more overflow on 2×16
		r := rules.Rules{Variant: rules.Variant(rng.IntN(2)), MaxLaps: []int{1, 2, 3, 7, rules.DefaultMaxLaps}[rng.IntN(5)]}
		e := newExpander(holes, n, r, nil)
		u := newUnmover(holes, r.Laps(), r.Variant == rules.Cross)
		e.seek(rng.Uint64N(Size(holes, n)))
		p := e.cur.rank(holes)
		var child board
		for _, m := range e.moves[:e.expandInto(&e.moves, false)] {
			if m.exit {
				continue
			}
			child.setRank(holes, n, m.child)
			if !slices.Contains(u.predecessors(&child), p) {
				t.Fatalf("%d holes, %s: board %v is not found a predecessor of its child %v", holes, r, e.cur[:2*holes], child[:2*holes])
			}
		}
		var target board
		target.setRank(holes, n, rng.Uint64N(Size(holes, n)))
		want := target.rank(holes)
		for _, q := range slices.Clone(u.predecessors(&target)) {
			e.seek(q)
			found := false
			for _, m := range e.moves[:e.expandInto(&e.moves, false)] {
				found = found || (!m.exit && m.child == want)
			}
			if !found {
				t.Fatalf("%d holes, %s: predecessor %v has no move to %v", holes, r, e.cur[:2*holes], target[:2*holes])
			}
		}
	}
}
