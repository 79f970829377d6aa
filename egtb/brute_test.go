package egtb

import (
	"context"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// brute is a plain minimax over game histories with the rules applied
// literally: no legal move gives the board to the last mover, and a
// position's third occurrence in the game ends it with the board counting
// for neither player.
//
// After a capture no earlier position can occur again (captured seeds never
// return to the board), so the game from there is the game from a fresh
// start: its values are kept in memo, by board and side to move. That is
// the only shortcut.
type brute struct {
	r    rules.Rules
	memo map[rules.Position]int
}

// fresh returns the value of p as the start of a game.
func (b *brute) fresh(p rules.Position, budget *int) (int, bool) {
	key, _ := rules.NewPositionFromRows(p.Row(rules.South), p.Row(rules.North), p.ToMove(), 0, 0)
	if v, ok := b.memo[key]; ok {
		return v, true
	}
	n := key.OnBoard()
	v, ok := b.value(key, map[rules.Position]int{key: 1}, -n-1, n+1, budget)
	if ok {
		b.memo[key] = v
	}
	return v, ok
}

// value returns the value of p for the side to move, given the occurrences
// occ of the positions of the game so far (p included), by alpha-beta: exact
// when it lies strictly between alpha and beta, otherwise a bound on the
// same side. It gives up (ok false) after budget nodes.
func (b *brute) value(p rules.Position, occ map[rules.Position]int, alpha, beta int, budget *int) (int, bool) {
	r := b.r
	if *budget--; *budget < 0 {
		return 0, false
	}
	moves := p.LegalMoves(r)
	if len(moves) == 0 {
		return -p.OnBoard(), true
	}
	best := -1 << 30
	for _, m := range moves {
		q, err := p.Play(m, r)
		if err != nil {
			panic(err)
		}
		gain := q.Captured(p.ToMove()) - p.Captured(p.ToMove())
		child, ok := 0, true
		if gain > 0 {
			child, ok = b.fresh(q, budget)
		} else {
			occ[q]++
			if occ[q] < 3 {
				child, ok = b.value(q, occ, gain-beta, gain-alpha, budget)
			}
			occ[q]--
		}
		if !ok {
			return 0, false
		}
		best = max(best, gain-child)
		if best >= beta {
			return best, true
		}
		alpha = max(alpha, best)
	}
	return best, true
}

// TestBuildMatchesBruteForce compares every position of the tiny boards'
// databases, both sides to move, with the brute force over histories.
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
			bf := &brute{r: r, memo: map[rules.Position]int{}}
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
						budget := tc.budget
						want, ok := bf.fresh(p, &budget)
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
