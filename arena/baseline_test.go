package arena

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// minimax is a plain depth-limited minimax with the baseline's evaluation
// and no pruning, to check the baseline's alpha-beta against. path holds
// the positions that count as repeated (the root included).
func minimax(p rules.Position, r rules.Rules, path []rules.Position, depth int) int {
	ms := p.LegalMoves(r)
	if len(ms) == 0 {
		return -p.OnBoard()
	}
	if depth == 0 {
		return 0
	}
	best := -1 << 30
	for _, m := range ms {
		best = max(best, moveValue(p, m, r, path, depth))
	}
	return best
}

// moveValue is the minimax value of playing m in p.
func moveValue(p rules.Position, m rules.Move, r rules.Rules, path []rules.Position, depth int) int {
	q, err := p.Play(m, r)
	if err != nil {
		panic(err)
	}
	me, op := p.ToMove(), q.ToMove()
	gain := (q.Captured(me) - p.Captured(me)) - (q.Captured(op) - p.Captured(op))
	for _, x := range path {
		if x == q {
			return gain
		}
	}
	return gain - minimax(q, r, append(path[:len(path):len(path)], q), depth-1)
}

func baselineMove(t *testing.T, pos string, depth int) rules.Move {
	t.Helper()
	g, err := rules.NewGame(rules.MustParsePosition(pos), rules.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	b := newBaseline("baseline", depth, rules.Rules{})
	if err := b.NewGame(context.Background(), g.Rules(), g.Start()); err != nil {
		t.Fatal(err)
	}
	m, err := b.Move(context.Background(), g)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestBaselineChoices(t *testing.T) {
	for _, tc := range []struct {
		pos   string
		depth []int
		want  rules.Move
		why   string
	}{
		{"1,0,1,0/3,0,0,0 s 0 0", []int{1, 2, 6}, rules.NewMove(rules.South, 2),
			"c ends in the empty d and captures A's 3 seeds plus its own (a captures nothing)"},
		{"0,2,2/0,0,0 s 0 0", []int{6, 8}, rules.NewMove(rules.South, 2),
			"after b North ends up with the last move and the sweep gives it all 4 seeds; c holds the draw"},
		{"0,1,1/1,2,2 s 0 0", []int{6}, rules.NewMove(rules.South, 2),
			"b loses 3 seeds by force, c wins 5"},
		{"2,2,2/0,2,1 s 0 0", []int{6}, rules.NewMove(rules.South, 1),
			"a and c lose 5 seeds by force, b wins 6"},
	} {
		for _, d := range tc.depth {
			if got := baselineMove(t, tc.pos, d); got != tc.want {
				t.Errorf("%s at depth %d: baseline plays %s, want %s: %s", tc.pos, d, got, tc.want, tc.why)
			}
		}
	}
}

// TestBaselineMatchesMinimax checks the alpha-beta search against plain
// minimax on random small positions: same value, and the first move in row
// order among the best.
func TestBaselineMatchesMinimax(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	r := rules.Rules{}
	for range 300 {
		h := 2 + rng.IntN(3)
		s, n := make([]int, h), make([]int, h)
		for i := range s {
			s[i], n[i] = rng.IntN(4), rng.IntN(4)
		}
		side := rules.South
		if rng.IntN(2) == 1 {
			side = rules.North
		}
		p, err := rules.NewPositionFromRows(s, n, side, 0, 0)
		if err != nil || !p.HasLegalMove(r) {
			continue
		}
		depth := 1 + rng.IntN(5)
		b := newBaseline("baseline", depth, r)
		b.seen[p] = true
		gotMove, gotValue := b.best(p)
		wantMove, wantValue := rules.NoMove, -1<<30
		for _, m := range p.LegalMoves(r) {
			if v := moveValue(p, m, r, []rules.Position{p}, depth); v > wantValue {
				wantMove, wantValue = m, v
			}
		}
		if gotMove != wantMove || gotValue != wantValue {
			t.Fatalf("%s depth %d: baseline %s (%d), minimax %s (%d)", p, depth, gotMove, gotValue, wantMove, wantValue)
		}
	}
}

func TestBaselineDeterministic(t *testing.T) {
	p, _ := rules.NewPosition(6, 4)
	a, b := baselineMove(t, p.String(), 5), baselineMove(t, p.String(), 5)
	if a != b {
		t.Errorf("two runs disagree: %s and %s", a, b)
	}
}
