package engine

import (
	"context"
	"math/rand/v2"
	"sync/atomic"
	"testing"

	"github.com/endodoi/endodoi/internal/oracle"
	"github.com/endodoi/endodoi/rules"
)

func randomPosition(rng *rand.Rand, holes, seeds int) rules.Position {
	south := make([]int, holes)
	north := make([]int, holes)
	for i := 0; i < seeds; i++ {
		if rng.IntN(2) == 0 {
			south[rng.IntN(holes)]++
		} else {
			north[rng.IntN(holes)]++
		}
	}
	p, _ := rules.NewPositionFromRows(south, north, rules.Side(rng.IntN(2)), 0, 0)
	return p
}

// TestExactScoresMatchBruteForce: exact scores are the game's values, with
// one search thread and with two (which share the table and the marks of
// the moves being searched).
func TestExactScoresMatchBruteForce(t *testing.T) {
	for _, threads := range []int{1, 2} {
		testExactScores(t, threads)
	}
}

func testExactScores(t *testing.T, threads int) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant, MaxLaps: 100}
		e, err := New(Config{Rules: r, HashMiB: 1, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		checked, inexact := 0, 0
		for i := 0; i < 300; i++ {
			holes := 2 + rng.IntN(2)
			p := randomPosition(rng, holes, 1+rng.IntN(6))
			bf := oracle.Solver{Rules: r, Budget: 300_000}
			v, ok := bf.Value(p)
			if !ok {
				continue
			}
			want := Score(v) * Seed
			e.NewGame()
			res, err := e.Search(context.Background(), p, nil, Limits{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Exact {
				// Paths without a repetition can outlast MaxDepth even on
				// tiny boards; such scores are estimates.
				inexact++
				continue
			}
			if res.Score != want {
				t.Errorf("%s (%s, %d threads): engine %s, brute force %s, pv %v", p, variant, threads, res.Score, want, res.PV)
			}
			checked++
		}
		t.Logf("%s, %d threads: %d exact scores checked, %d inexact", variant, threads, checked, inexact)
		if inexact > checked/20 {
			t.Errorf("%s: %d of %d scores inexact", variant, inexact, checked+inexact)
		}
		if checked < 150 {
			t.Errorf("%s: only %d positions checked", variant, checked)
		}
	}
}

func TestSearchStartPositions(t *testing.T) {
	for _, holes := range []int{6, 8, 10} {
		p, _ := rules.NewPosition(holes, 4)
		e, _ := New(Config{})
		res, err := e.Search(context.Background(), p, nil, Limits{Depth: 8}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if !p.IsLegal(res.Move, rules.DefaultRules()) {
			t.Errorf("%d holes: illegal best move %s", holes, res.Move)
		}
		t.Logf("%d holes: depth %d score %s nodes %d nps %d pv %v", holes, res.Depth, res.Score, res.Nodes, res.NPS(), res.PV)
	}
}

func TestScoreString(t *testing.T) {
	for s, want := range map[Score]string{0: "0", 300: "+3", -200: "-2", 350: "+3.5", 325: "+3.25", 4: "+0.04", -15: "-0.15"} {
		if got := s.String(); got != want {
			t.Errorf("Score(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}

// TestForcedWinsAndSaves: positions where exactly one move wins (or, for
// the saves, avoids losing) with best play on both sides; the engine must
// find it. The values are checked here by the brute force over histories,
// not taken from the engine.
func TestForcedWinsAndSaves(t *testing.T) {
	r := rules.DefaultRules()
	for _, tc := range []struct {
		pos  string
		want string // the only move that wins (or saves the draw)
		save bool   // the best is a draw; every other move loses
	}{
		{"2,2,1,0/1,0,1,0 s 10 10", "c", false},
		{"2,1,0,2/0,1,0,1 s 10 10", "b", false},
		{"1,0,1,2/0,0,0,0 s 10 10", "a", false},
		{"1,2,1,0/1,0,1,0 s 10 10", "c", false},
		{"1,1,1,0/1,1,0,0 s 10 10", "c", false},
		{"2,1,1,0/1,0,1,0 s 10 10", "c", true},
		{"1,0,1,1/0,1,0,0 s 10 10", "c", true},
		{"1,1,1,0/0,1,0,0 s 10 10", "c", true},
	} {
		p := rules.MustParsePosition(tc.pos)
		want, _ := rules.ParseMove(tc.want)
		// Captures so far are equal, so a move wins when its value is
		// positive and draws when it is 0.
		for _, m := range p.LegalMoves(r) {
			q, _ := p.Play(m, r)
			bf := oracle.Solver{Rules: r, Budget: 3_000_000}
			after, ok := bf.ValueAfter(q, map[rules.Position]int{p: 1, q: 1})
			if !ok {
				t.Fatalf("%s: brute force gave up on %s", tc.pos, m)
			}
			v := Score(q.Captured(rules.South)-p.Captured(rules.South)-after) * Seed
			switch {
			case m == want && !tc.save && v <= 0, m == want && tc.save && v != 0:
				t.Fatalf("%s: %s is worth %s, not the %s the test claims", tc.pos, m, v, map[bool]string{true: "draw", false: "win"}[tc.save])
			case m != want && v >= 0:
				t.Fatalf("%s: %s is worth %s; the test needs it to lose", tc.pos, m, v)
			}
		}
		e, _ := New(Config{HashMiB: 4})
		res, err := e.Search(context.Background(), p, nil, Limits{Depth: 60}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Move != want {
			t.Errorf("%s: engine plays %s (%s, exact %v), want %s", tc.pos, res.Move, res.Score, res.Exact, want)
		}
	}
}

func TestQuiescence(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	r := rules.DefaultRules()
	plain, _ := New(Config{HashMiB: 1})
	quiet, _ := New(Config{HashMiB: 1, Quiescence: 2})
	differ := 0
	for i := 0; i < 50; i++ {
		p := randomPosition(rng, 6, 20+rng.IntN(20))
		if !p.HasLegalMove(r) {
			continue
		}
		plain.NewGame()
		quiet.NewGame()
		a, _ := plain.Search(context.Background(), p, nil, Limits{Depth: 2}, nil)
		b, _ := quiet.Search(context.Background(), p, nil, Limits{Depth: 2}, nil)
		if !p.IsLegal(b.Move, r) {
			t.Fatalf("%s: illegal move %s with quiescence", p, b.Move)
		}
		if b.Nodes <= a.Nodes && a.Score != b.Score {
			t.Errorf("%s: quiescence changed the score without searching more", p)
		}
		if a.Score != b.Score {
			differ++
		}
	}
	if differ == 0 {
		t.Error("quiescence never changed a depth-2 score: it is not searching")
	}
}

// TestHistoryBounded runs many searches on one engine, as a long analysis
// session does, and checks that the history heuristic stays within
// histMax, below the weight of a capture in the move order.
func TestHistoryBounded(t *testing.T) {
	if histMax >= 1<<20 {
		t.Fatalf("histMax %d is not below a captured seed's weight 1<<20", histMax)
	}
	var s searcher
	for i := range 100_000 {
		s.rewardHistory(i%3, MaxDepth-i%7)
	}
	for i, h := range s.hist {
		if h < 0 || h > histMax {
			t.Fatalf("after 100000 deep cutoffs, hist[%d] = %d, outside 0 to %d", i, h, histMax)
		}
	}

	e, err := New(Config{Threads: 2, HashMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := rules.NewPosition(6, 4)
	r := rules.DefaultRules()
	rounds := 40
	if testing.Short() {
		rounds = 10
	}
	for i := range rounds {
		if _, err := e.Search(context.Background(), p, nil, Limits{Depth: 9}, nil); err != nil {
			t.Fatal(err)
		}
		moves := p.LegalMoves(r)
		if len(moves) == 0 {
			p, _ = rules.NewPosition(6+i%3, 4)
			continue
		}
		p, _ = p.Play(moves[i%len(moves)], r)
	}
	used := false
	for t0, s := range e.searchers {
		for i, h := range s.hist {
			if h < 0 || h > histMax {
				t.Errorf("thread %d: hist[%d] = %d, outside 0 to %d", t0, i, h, histMax)
			}
			used = used || h > 0
		}
	}
	if !used {
		t.Error("the searches taught the history nothing: the test checks nothing")
	}
}

// TestFixedDepthScoresMatchMinimax: at depths 1 to 3, from an empty table
// and again with the first search's entries in it, the search's score is a
// plain full-width minimax over the same evaluation, whatever the order in
// which the frontier nodes try their moves and wherever they cut off.
func TestFixedDepthScoresMatchMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, variant := range []rules.Variant{rules.Standard, rules.Cross} {
		r := rules.Rules{Variant: variant, MaxLaps: 100}
		e, err := New(Config{Rules: r, HashMiB: 1})
		if err != nil {
			t.Fatal(err)
		}
		checked := 0
		for i := 0; i < 400; i++ {
			// Most boards have more seeds than frontierMinSeeds a hole,
			// so that the frontier nodes score their moves as played;
			// the others order them.
			holes := 3 + rng.IntN(6)
			p := randomPosition(rng, holes, holes*(1+rng.IntN(6))+rng.IntN(holes))
			if !p.HasLegalMove(r) {
				continue
			}
			var want [4]Score
			for depth := 1; depth <= 3; depth++ {
				want[depth] = minimax(&e.weights, r, p, depth, nil, true)
				e.NewGame()
				// The second search finds the first one's moves in the
				// table and tries them first.
				for _, again := range []bool{false, true} {
					res, err := e.Search(context.Background(), p, nil, Limits{Depth: depth}, nil)
					if err != nil {
						t.Fatal(err)
					}
					if res.Score != want[depth] {
						t.Fatalf("%s (%s) at depth %d (searched again: %v): search %s, minimax %s", p, variant, depth, again, res.Score, want[depth])
					}
					checked++
				}
			}
			// A search this small is searched again to prove its score,
			// which orders every frontier node's moves: alone, the first
			// search scores them as played. A root searched to depth 1
			// after depth 3 finds the deeper search's best move in the
			// table and scores it first (a root takes no value from the
			// table, and its children are leaves).
			e.NewGame()
			var stop atomic.Bool
			s := e.newSearcher(0, p, nil, &stop, 0)
			for _, depth := range []int{3, 1} {
				if v, _ := s.negamax(&p, 0, depth, 0, -Infinity, Infinity); v != want[depth] {
					t.Fatalf("%s (%s) at depth %d: negamax %s, minimax %s", p, variant, depth, v, want[depth])
				}
			}
		}
		if checked < 1500 {
			t.Errorf("%s: only %d searches checked", variant, checked)
		}
	}
}

// minimax is the search's value of p to depth plies without pruning: a
// repetition of a position on the path scores 0, the end of the game the
// seeds left to the other side, the horizon the evaluation. path holds the
// positions between the root and p; the root itself is left off, as the
// search leaves it.
func minimax(w *Weights, r rules.Rules, p rules.Position, depth int, path []rules.Position, root bool) Score {
	for _, q := range path {
		if q == p {
			return 0
		}
	}
	if p.RowSeeds(p.ToMove()) == 0 {
		return -Score(p.OnBoard()) * Seed
	}
	if depth == 0 {
		return w.evaluate(&p)
	}
	if !root {
		path = append(path, p)
	}
	mover := p.ToMove()
	best := -Infinity
	for _, m := range p.LegalMoves(r) {
		q, _ := p.Play(m, r)
		gain := Score(q.Captured(mover)-p.Captured(mover)) * Seed
		best = max(best, gain-minimax(w, r, q, depth-1, path[:len(path):len(path)], false))
	}
	if best == -Infinity {
		return -Score(p.OnBoard()) * Seed
	}
	return best
}
