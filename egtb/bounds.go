package egtb

import (
	"context"
	"slices"

	"github.com/endodoi/endodoi/rules"
)

// Bounds returns proven bounds on the value of p for the side to move, by
// two alpha-beta searches depth plies deep that take the databases' exact
// values where they hold a position, score a repetition on the search path
// 0, and score every position left unresolved at the horizon as badly (for
// the lower bound) or as well (for the upper) as its seeds on the board
// allow: a player can win at most all of them and lose at most all of them.
//
// The bounds are sound because a search whose horizon values are all below
// (above) the true values returns a value below (above) the true one, and
// because, with no game history, scoring the first repetition 0 gives the
// same value as playing on to the third: no capture happens inside a cycle.
// They tighten, or stay, as depth grows. nodes counts the positions
// searched; a cancelled ctx returns its error.
func (tb *Tablebase) Bounds(ctx context.Context, p rules.Position, depth int) (lo, hi int, nodes uint64, err error) {
	if p.Holes() != tb.holes {
		return 0, 0, 0, ErrBeyond
	}
	b := &bounder{tb: tb, ctx: ctx, root: p.ToMove()}
	n := p.OnBoard()
	b.pessimist = true
	lo = b.search(p, depth, 0, -n-1, n+1)
	if b.err != nil {
		return 0, 0, b.nodes, b.err
	}
	b.pessimist = false
	hi = b.search(p, depth, 0, lo-1, n+1)
	if b.err != nil {
		return 0, 0, b.nodes, b.err
	}
	return lo, max(hi, lo), b.nodes, nil
}

type bounder struct {
	tb        *Tablebase
	ctx       context.Context
	root      rules.Side
	pessimist bool // horizon scored against the root's side (lower bound)
	path      []rules.Position
	nodes     uint64
	err       error
}

type boundChild struct {
	pos  rules.Position
	gain int
}

// search returns p's value for its side to move under the horizon rule,
// fail-soft within (alpha, beta).
func (b *bounder) search(p rules.Position, depth, ply int, alpha, beta int) int {
	if b.nodes++; b.nodes&0xFFF == 0 && b.err == nil {
		b.err = b.ctx.Err()
	}
	if b.err != nil {
		return 0
	}
	board := p.OnBoard()
	if ply > 0 && slices.Contains(b.path, p) {
		return 0
	}
	if ply > 0 {
		if v, ok := b.tb.Probe(&p); ok {
			return v
		}
	}
	r := b.tb.rules
	if !p.HasLegalMove(r) {
		return -board
	}
	if depth <= 0 {
		if (p.ToMove() == b.root) == b.pessimist {
			return -board
		}
		return board
	}
	var kids [rules.MaxHoles]boundChild
	count := 0
	mover := p.ToMove()
	for _, m := range p.LegalMoves(r) {
		q, _ := p.Play(m, r)
		kids[count] = boundChild{pos: q, gain: q.Captured(mover) - p.Captured(mover)}
		count++
	}
	slices.SortStableFunc(kids[:count], func(x, y boundChild) int { return y.gain - x.gain })
	b.path = append(b.path, p)
	defer func() { b.path = b.path[:len(b.path)-1] }()
	best := -board - 1
	for i := 0; i < count; i++ {
		c := &kids[i]
		v := c.gain - b.search(c.pos, depth-1, ply+1, c.gain-beta, c.gain-alpha)
		if v > best {
			best = v
			if v > alpha {
				alpha = v
				if v >= beta {
					break
				}
			}
		}
	}
	return best
}
