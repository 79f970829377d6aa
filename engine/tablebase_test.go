package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

func buildTablebase(t *testing.T, holes, maxSeeds int, r rules.Rules) *egtb.Tablebase {
	t.Helper()
	tb, err := egtb.Build(context.Background(), egtb.Options{Holes: holes, MaxSeeds: maxSeeds, Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestSearchWithTablebase: with databases of the smallest counts, the
// search's exact scores of larger positions agree with the databases of
// every count, and most of them become exact.
func TestSearchWithTablebase(t *testing.T) {
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant, MaxLaps: 100}
		full := buildTablebase(t, 3, 10, r)
		small := buildTablebase(t, 3, 5, r)
		e, err := New(Config{Rules: r, HashMiB: 1, Tablebase: small})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(11, 12))
		exact := 0
		for i := 0; i < 100; i++ {
			p := randomPosition(rng, 3, 6+rng.IntN(5))
			if !p.HasLegalMove(r) {
				continue
			}
			want, err := full.Value(p)
			if err != nil {
				t.Fatal(err)
			}
			e.NewGame()
			res, err := e.Search(context.Background(), p, nil, Limits{Depth: 40}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Exact {
				continue
			}
			exact++
			if res.Score != Score(want)*Seed {
				t.Errorf("%s (%s): search %s exact, databases %+d", p, variant, res.Score, want)
			}
			if q, err := p.Play(res.Move, r); err != nil {
				t.Errorf("%s: illegal move %s", p, res.Move)
			} else if v, _ := full.Value(q); Score(q.Captured(p.ToMove())-p.Captured(p.ToMove())-v)*Seed != res.Score {
				t.Errorf("%s (%s): move %s is worth %d, not the %s found", p, variant, res.Move, q.Captured(p.ToMove())-p.Captured(p.ToMove())-v, res.Score)
			}
		}
		if exact < 60 {
			t.Errorf("%s: only %d exact scores", variant, exact)
		}
	}
}

// TestTablebasePlay: from positions the databases hold, the engine with
// the databases plays the winning side against a spoiler, which keeps the
// value with every move and, among such moves, steers back to positions
// already played wherever it can, so that a wandering winner would be
// caught by the repetition rule. The games must end with exactly the value
// the databases give.
func TestTablebasePlay(t *testing.T) {
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant, MaxLaps: 100}
		tb := buildTablebase(t, 4, 12, r)
		e, err := New(Config{Rules: r, HashMiB: 1, Tablebase: tb})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(13, 14))
		games, wins := 0, 0
		for games < 100 {
			p := randomPosition(rng, 4, 6+rng.IntN(7))
			v, err := tb.Value(p)
			if err != nil || !p.HasLegalMove(r) {
				continue
			}
			games++
			if v != 0 {
				wins++
			}
			g, err := rules.NewGame(p, r)
			if err != nil {
				t.Fatal(err)
			}
			for !g.Over() && g.Ply() < 500 {
				history := g.History()
				var m rules.Move
				if g.Position().ToMove() == p.ToMove() {
					res, err := e.Search(context.Background(), g.Position(), history, Limits{Depth: 20}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if !res.Exact {
						t.Fatalf("%s: inexact score in a position the databases hold", g.Position())
					}
					m = res.Move
				} else {
					m = spoil(t, tb, g, rng)
				}
				if err := g.Play(m); err != nil {
					t.Fatal(err)
				}
			}
			south, north := g.Score()
			got := (south - p.Captured(rules.South)) - (north - p.Captured(rules.North))
			if p.ToMove() == rules.North {
				got = -got
			}
			if got != v {
				t.Errorf("%s (%s): value %+d, but the game %v ended %v with a margin of %+d", p, variant, v, g.Moves(), g.Status(), got)
			}
		}
		t.Logf("%s: %d games, %d of them from won positions", variant, games, wins)
	}
}

// spoil returns a move that keeps the value of g's position and, if it
// can, leads to a position already played.
func spoil(t *testing.T, tb *egtb.Tablebase, g *rules.Game, rng *rand.Rand) rules.Move {
	t.Helper()
	p := g.Position()
	moves, err := tb.Moves(p)
	if err != nil {
		t.Fatal(err)
	}
	best := moves[0].Value
	for _, mv := range moves {
		best = max(best, mv.Value)
	}
	var keep []rules.Move
	for _, mv := range moves {
		if mv.Value != best {
			continue
		}
		q, _ := p.Play(mv.Move, g.Rules())
		for i := 0; i <= g.Ply(); i++ {
			if g.PositionAt(i) == q {
				return mv.Move
			}
		}
		keep = append(keep, mv.Move)
	}
	return keep[rng.IntN(len(keep))]
}
