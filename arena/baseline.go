package arena

import (
	"context"
	"errors"

	"github.com/endodoi/endodoi/rules"
)

// baseline is a plain fixed-depth alpha-beta (negamax) search, written
// independently of package engine as a yardstick. Its value of a position
// is the future capture margin for the side to move: the seeds it will
// capture minus the seeds its opponent will, over the searched plies only
// (0 at the horizon). A position where the side to move has no legal move
// is worth minus the seeds on the board, which the sweep gives to the last
// mover; a position that repeats one earlier in the game or on the search
// path is worth 0. Moves are tried in row order and the first of equally
// good moves is chosen, so the player is deterministic.
type baseline struct {
	name  string
	depth int
	r     rules.Rules

	seen  map[rules.Position]bool // the game's positions, the current one included
	path  []rules.Position        // positions on the search path below the root
	moves [][rules.MaxHoles]rules.Move
}

func newBaseline(name string, depth int, r rules.Rules) *baseline {
	return &baseline{
		name:  name,
		depth: depth,
		r:     r,
		seen:  map[rules.Position]bool{},
		moves: make([][rules.MaxHoles]rules.Move, depth+1),
	}
}

func (b *baseline) Name() string { return b.name }

func (b *baseline) NewGame(ctx context.Context, r rules.Rules, start rules.Position) error {
	b.r = r
	return nil
}

func (b *baseline) Close() error { return nil }

func (b *baseline) Move(ctx context.Context, g *rules.Game) (rules.Move, error) {
	clear(b.seen)
	for i := 0; i <= g.Ply(); i++ {
		b.seen[g.PositionAt(i)] = true
	}
	b.path = b.path[:0]
	m, _ := b.best(g.Position())
	if m == rules.NoMove {
		return m, errors.New("baseline: no legal move")
	}
	return m, ctx.Err()
}

// best returns the best move in p and its value.
func (b *baseline) best(p rules.Position) (rules.Move, int) {
	const inf = 1 << 30
	moves := p.AppendLegalMoves(b.moves[0][:0], b.r)
	best, bestValue := rules.NoMove, -inf
	alpha := -inf
	for _, m := range moves {
		v := b.child(p, m, b.depth-1, alpha, inf)
		if v > bestValue {
			best, bestValue = m, v
			if v > alpha {
				alpha = v
			}
		}
	}
	return best, bestValue
}

// child returns the value for p's side to move of playing m in p, searching
// the resulting position depth plies deep, within the window (alpha, beta)
// of p's side's values (fail-hard).
func (b *baseline) child(p rules.Position, m rules.Move, depth, alpha, beta int) int {
	q, err := p.Play(m, b.r)
	if err != nil {
		panic("baseline: legal move failed: " + err.Error())
	}
	me, opp := p.ToMove(), q.ToMove()
	gain := (q.Captured(me) - p.Captured(me)) - (q.Captured(opp) - p.Captured(opp))
	if b.repeats(q) {
		return gain
	}
	// value = gain - v(q); value > alpha ⇔ v(q) < gain - alpha.
	return gain - b.negamax(q, depth, gain-beta, gain-alpha)
}

func (b *baseline) repeats(q rules.Position) bool {
	if b.seen[q] {
		return true
	}
	for _, x := range b.path {
		if x == q {
			return true
		}
	}
	return false
}

// negamax returns p's value for its side to move, searched depth plies
// deep, within the window (alpha, beta) (fail-hard).
func (b *baseline) negamax(p rules.Position, depth, alpha, beta int) int {
	ply := len(b.path) + 1
	moves := p.AppendLegalMoves(b.moves[ply][:0], b.r)
	if len(moves) == 0 {
		return clamp(-p.OnBoard(), alpha, beta)
	}
	if depth == 0 {
		return clamp(0, alpha, beta)
	}
	b.path = append(b.path, p)
	defer func() { b.path = b.path[:len(b.path)-1] }()
	for _, m := range moves {
		v := b.child(p, m, depth-1, alpha, beta)
		if v >= beta {
			return beta
		}
		if v > alpha {
			alpha = v
		}
	}
	return alpha
}

func clamp(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}
