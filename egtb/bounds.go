package egtb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/internal/prefetch"
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
//
// Bounds searches without memory; a Bounder searches the same position at
// growing depths faster, and gives the same bounds.
func (tb *Tablebase) Bounds(ctx context.Context, p rules.Position, depth int) (lo, hi int, nodes uint64, err error) {
	if p.Holes() != tb.holes {
		return 0, 0, 0, ErrBeyond
	}
	b := &bounder{tb: tb, root: p}
	n := p.OnBoard()
	return b.bounds(ctx, depth, -n, n)
}

// A Bounder runs Bounds on one position at growing depths, with a table
// that each search leaves to the next:
//
//   - the best move found in every position, tried first next time (any
//     order of the moves gives the same bounds);
//   - the bound found for a position reached by a capture, at the same
//     remaining depth, for the same kind of bound. Such a position's bound
//     does not depend on the path to it: only positions with as many seeds
//     on the board can repeat it or anything after it, and every position
//     before a capture has more.
//
// Its bounds are those of Bounds at the same depth, found with fewer
// positions searched. A Bounder is not safe for concurrent use.
type Bounder struct {
	b bounder
}

// NewBounder returns a Bounder of p with a table of about tableMiB MiB
// (at least 1).
func (tb *Tablebase) NewBounder(p rules.Position, tableMiB int) (*Bounder, error) {
	if p.Holes() != tb.holes {
		return nil, ErrBeyond
	}
	return &Bounder{b: bounder{tb: tb, root: p, table: newBoundsTable(tableMiB)}}, nil
}

// clone returns a Bounder of the same position with a copy of bd's table,
// to search beside bd.
func (bd *Bounder) clone() *Bounder {
	c := &Bounder{b: bounder{tb: bd.b.tb, root: bd.b.root}}
	if t := bd.b.table; t != nil {
		c.b.table = &boundsTable{slots: slices.Clone(t.slots), mask: t.mask, mib: t.mib}
	}
	return c
}

// Bounds is Tablebase.Bounds of the Bounder's position at depth.
func (bd *Bounder) Bounds(ctx context.Context, depth int) (lo, hi int, nodes uint64, err error) {
	n := bd.b.root.OnBoard()
	return bd.b.bounds(ctx, depth, -n, n)
}

// Within is Bounds at depth given bounds lo <= hi of the value (for the
// side to move) known already: those of a shallower depth, or of an
// earlier run. Its searches look only within them, and so search fewer
// positions than Bounds. When lo and hi are a shallower depth's bounds,
// Within's are Bounds' at depth: a deeper horizon scores nothing worse for
// the lower bound and nothing better for the upper, so Bounds' lie within
// them. Otherwise the bounds returned are the tighter of each pair. A
// search that finds the lower bound above hi, or the upper below lo,
// proves that lo and hi were not bounds of the value, and Within returns
// an error wrapping ErrNotBounds.
func (bd *Bounder) Within(ctx context.Context, depth, lo, hi int) (int, int, uint64, error) {
	if lo > hi {
		return 0, 0, 0, fmt.Errorf("%w: %d above %d", ErrNotBounds, lo, hi)
	}
	return bd.b.bounds(ctx, depth, lo, hi)
}

// WithinSideBySide is Within with its two searches run at once, the upper
// bound's by other, a Bounder of the same position (see Clone) that keeps
// its own table: on two cores, about the time of the longer search rather
// than of both. The upper search looks within (lo-1, hi+1), not above the
// lower bound just found, so it may search a few more positions than
// Within's; the bounds are the same.
func (bd *Bounder) WithinSideBySide(ctx context.Context, other *Bounder, depth, lo, hi int) (int, int, uint64, error) {
	if lo > hi {
		return 0, 0, 0, fmt.Errorf("%w: %d above %d", ErrNotBounds, lo, hi)
	}
	if other.b.root != bd.b.root || other.b.tb != bd.b.tb {
		return 0, 0, 0, errors.New("egtb: WithinSideBySide needs a Bounder of the same position over the same databases")
	}
	n := bd.b.root.OnBoard()
	lo, hi = max(lo, -n), min(hi, n)
	type side struct {
		v     int
		nodes uint64
		err   error
	}
	upper := make(chan side, 1)
	go func() {
		v, nodes, err := other.b.test(ctx, depth, false, lo-1, hi+1)
		upper <- side{v, nodes, err}
	}()
	l, nodes, err := bd.b.test(ctx, depth, true, lo-1, hi+1)
	u := <-upper
	nodes += u.nodes
	switch {
	case err != nil:
		return 0, 0, nodes, err
	case u.err != nil:
		return 0, 0, nodes, u.err
	case l > hi:
		return 0, 0, nodes, fmt.Errorf("%w: the lower bound at depth %d is above %+d", ErrNotBounds, depth, hi)
	case u.v < lo || u.v < l:
		return 0, 0, nodes, fmt.Errorf("%w: the upper bound at depth %d is below %+d", ErrNotBounds, depth, max(lo, l))
	}
	return max(l, lo), min(u.v, hi), nodes, nil
}

// Best returns the move the last lower bound's search found best at the
// root, as its table keeps it, or NoMove when it keeps none: the move to
// try first for a certificate's lower bound.
func (bd *Bounder) Best() rules.Move {
	t := bd.b.table
	if t == nil {
		return rules.NoMove
	}
	if e := t.slot(&bd.b.root); e.holds(&bd.b.root) {
		return e.move[1]
	}
	return rules.NoMove
}

// Clone returns a Bounder of the same position with a copy of bd's table,
// to search beside bd (WithinSideBySide).
func (bd *Bounder) Clone() *Bounder { return bd.clone() }

// ErrNotBounds is wrapped by Within's error for bounds given to it that
// its search proves wrong.
var ErrNotBounds = errors.New("the bounds given are not bounds of the value")

// AtLeast reports whether the lower bound of Bounds at depth is at least
// v, by the lower bound's search alone with a null window at v: much
// cheaper than Bounds, to confirm a value found otherwise. When it is,
// bound is a proven lower bound of the value, v or more.
func (bd *Bounder) AtLeast(ctx context.Context, depth, v int) (ok bool, bound int, nodes uint64, err error) {
	r, nodes, err := bd.b.test(ctx, depth, true, v-1, v)
	return err == nil && r >= v, r, nodes, err
}

// AtMost reports whether the upper bound of Bounds at depth is at most v,
// as AtLeast does for the lower. When it is, bound is a proven upper bound
// of the value, v or less.
func (bd *Bounder) AtMost(ctx context.Context, depth, v int) (ok bool, bound int, nodes uint64, err error) {
	r, nodes, err := bd.b.test(ctx, depth, false, v, v+1)
	return err == nil && r <= v, r, nodes, err
}

// test runs one of the searches from b.root within (alpha, beta).
func (b *bounder) test(ctx context.Context, depth int, pessimist bool, alpha, beta int) (int, uint64, error) {
	b.ctx, b.nodes, b.err, b.path = ctx, 0, nil, b.path[:0]
	b.pessimist = pessimist
	r := b.search(b.root, depth, 0, alpha, beta, true)
	return r, b.nodes, b.err
}

// bounds runs the two searches from b.root, each within the bounds lo0
// and hi0 known before (see Bounder.Within).
func (b *bounder) bounds(ctx context.Context, depth, lo0, hi0 int) (lo, hi int, nodes uint64, err error) {
	b.ctx, b.nodes, b.err, b.path = ctx, 0, nil, b.path[:0]
	p := b.root
	n := p.OnBoard()
	lo0, hi0 = max(lo0, -n), min(hi0, n)
	b.pessimist = true
	lo = b.search(p, depth, 0, lo0-1, hi0+1, true)
	if b.err != nil {
		return 0, 0, b.nodes, b.err
	}
	if lo > hi0 {
		return 0, 0, b.nodes, fmt.Errorf("%w: the lower bound at depth %d is above %+d", ErrNotBounds, depth, hi0)
	}
	lo = max(lo, lo0)
	b.pessimist = false
	hi = b.search(p, depth, 0, lo-1, hi0+1, true)
	if b.err != nil {
		return 0, 0, b.nodes, b.err
	}
	if hi < lo {
		// The upper search scores the horizon no worse than the lower.
		return 0, 0, b.nodes, fmt.Errorf("%w: the upper bound at depth %d is below %+d", ErrNotBounds, depth, lo)
	}
	return lo, min(hi, hi0), b.nodes, nil
}

type bounder struct {
	tb        *Tablebase
	ctx       context.Context
	root      rules.Position
	pessimist bool // horizon scored against the root's side (lower bound)
	path      []rules.Position
	nodes     uint64
	err       error
	table     *boundsTable // nil: no memory from one search to the next
}

type boundChild struct {
	pos  rules.Position
	gain int
}

// search returns p's value for its side to move under the horizon rule,
// fail-soft within (alpha, beta). free tells that p's value does not
// depend on the path: p is the root or follows a capture.
func (b *bounder) search(p rules.Position, depth, ply int, alpha, beta int, free bool) int {
	if b.nodes++; b.nodes&0xFFF == 0 && b.err == nil {
		b.err = b.ctx.Err()
	}
	if b.err != nil {
		return 0
	}
	board := p.OnBoard()
	if ply > 0 && b.onPath(&p) {
		return 0
	}
	if ply > 0 {
		if v, ok := b.tb.Probe(&p); ok {
			return v
		}
	}
	r := b.tb.rules
	if depth <= 0 {
		// The horizon is scored against the side of the search's
		// pessimism, or as the game's end; the legal moves are looked
		// for only where that makes a difference.
		if (p.ToMove() == b.root.ToMove()) == b.pessimist || !p.HasLegalMove(r) {
			return -board
		}
		return board
	}
	if depth == 1 {
		return b.frontier(&p, board, ply, alpha, beta)
	}
	hint := rules.NoMove
	var slot *boundsEntry
	if b.table != nil && depth >= minTableDepth {
		slot = b.table.slot(&p)
		if slot.holds(&p) {
			hint = slot.move[b2i(b.pessimist)]
			if free && slot.depth == int16(depth) && slot.pessimist == b.pessimist {
				switch v := int(slot.value); {
				case slot.flag == flagExact,
					slot.flag == flagLower && v >= beta,
					slot.flag == flagUpper && v <= alpha:
					return v
				}
			}
		}
	}
	// The moves, played in place, in order of what they capture, most
	// first (a stable insertion sort: equal gains keep the row order), the
	// table's move before all.
	var kids [rules.MaxHoles]boundChild
	var moves [rules.MaxHoles]rules.Move
	count := 0
	mover := p.ToMove()
	before := p.Captured(mover)
	childSlots := b.table != nil && depth-1 >= minTableDepth
	for j := range p.Holes() {
		c := &kids[count]
		m := rules.NewMove(mover, j)
		if p.PlayTo(&c.pos, m, r) != nil {
			continue
		}
		c.gain = c.pos.Captured(mover) - before
		// What the child's search reads first, the databases' value and
		// its table slot, is asked for while its elder siblings are
		// searched.
		b.tb.prefetch(&c.pos)
		if childSlots {
			prefetch.Line(unsafe.Pointer(b.table.slot(&c.pos)))
		}
		moves[count] = m
		key := sortKey(c, m, hint)
		for i := count; i > 0 && sortKey(&kids[i-1], moves[i-1], hint) < key; i-- {
			kids[i], kids[i-1] = kids[i-1], kids[i]
			moves[i], moves[i-1] = moves[i-1], moves[i]
		}
		count++
	}
	if count == 0 {
		return -board
	}
	b.path = append(b.path, p)
	alpha0 := alpha
	best, bestMove := -board-1, rules.NoMove
	for i := 0; i < count; i++ {
		c := &kids[i]
		v := c.gain - b.search(c.pos, depth-1, ply+1, c.gain-beta, c.gain-alpha, c.gain > 0)
		if v > best {
			best, bestMove = v, moves[i]
			if v > alpha {
				alpha = v
				if v >= beta {
					break
				}
			}
		}
	}
	b.path = b.path[:len(b.path)-1]
	if slot != nil && b.err == nil {
		slot.store(&p, bestMove, free, depth, b.pessimist, alpha0, beta, best)
	}
	return best
}

// frontier is search one ply from the horizon (where the table is not
// used): each move is scored as soon as it is played, in row order, and
// the node stops at the first that cuts off, without playing the others to
// order them. The order changes which positions are searched, not the
// value.
func (b *bounder) frontier(p *rules.Position, board, ply int, alpha, beta int) int {
	mover := p.ToMove()
	before := p.Captured(mover)
	// Each move is played before the one before it is scored, so that
	// the databases' value of the child, if they hold it, is on its way
	// from memory meanwhile.
	var kids [2]rules.Position
	j := b.playNext(p, 0, &kids[0])
	if j < 0 {
		return -board // no legal move
	}
	b.path = append(b.path, *p)
	best := -board - 1
	for i := 0; j >= 0; i++ {
		c := &kids[i&1]
		j = b.playNext(p, j, &kids[(i+1)&1])
		gain := c.Captured(mover) - before
		best = max(best, gain-b.search(*c, 0, ply+1, gain-beta, gain-alpha, gain > 0))
		if best >= beta {
			break
		}
		alpha = max(alpha, best)
	}
	b.path = b.path[:len(b.path)-1]
	return best
}

// playNext plays into dst the first legal move of p from column j on, asks
// for the databases' value of the position it leads to, and returns the
// column after it, or -1 if there is none.
func (b *bounder) playNext(p *rules.Position, j int, dst *rules.Position) int {
	mover := p.ToMove()
	for ; j < p.Holes(); j++ {
		if p.PlayTo(dst, rules.NewMove(mover, j), b.tb.rules) == nil {
			b.tb.prefetch(dst)
			return j + 1
		}
	}
	return -1
}

// onPath reports whether p is on the search path. Only the positions since
// the path's last capture can be p: a capture changes the seeds captured,
// which only grow along the path.
func (b *bounder) onPath(p *rules.Position) bool {
	captured := p.Captured(rules.South) + p.Captured(rules.North)
	for i := len(b.path) - 1; i >= 0; i-- {
		q := &b.path[i]
		if q.Captured(rules.South)+q.Captured(rules.North) != captured {
			return false
		}
		if *q == *p {
			return true
		}
	}
	return false
}

// minTableDepth is the least remaining depth at which a Bounder uses its
// table: nearer the horizon, searching again costs less than the table.
const minTableDepth = 3

// sortKey is a child's place in the move order: the table's move first,
// then by seeds captured.
func sortKey(c *boundChild, m, hint rules.Move) int {
	if m == hint {
		return 1 << 30
	}
	return c.gain
}

// boundsTable is a Bounder's memory: one entry a slot, each for the
// position it names in full, so that no two positions are ever confused.
type boundsTable struct {
	slots []boundsEntry
	mask  uint64
	mib   int // the size asked for
}

type boundsEntry struct {
	board     [2 * rules.MaxHoles / 4]uint64 // as the position packs it
	toMove    rules.Side
	used      bool
	move      [2]rules.Move // the best move found, or NoMove, by kind of bound (upper, lower)
	pessimist bool          // the kind of bound the value is
	flag      uint8         // how value relates to the search's result
	depth     int16         // the remaining depth of value; 0 for none
	value     int16
}

const (
	flagNone  = iota
	flagExact // the result was value
	flagLower // the result was at least value (the search failed high)
	flagUpper // the result was at most value (the search failed low)
)

func newBoundsTable(mib int) *boundsTable {
	n := uint64(max(mib, 1)) << 20 / uint64(unsafe.Sizeof(boundsEntry{}))
	size := uint64(1)
	for size*2 <= n {
		size *= 2
	}
	return &boundsTable{slots: hugepages.Make[boundsEntry](int(size)), mask: size - 1, mib: max(mib, 1)}
}

// slot returns the slot of p.
func (t *boundsTable) slot(p *rules.Position) *boundsEntry {
	x := uint64(p.ToMove()) + 0x9E3779B97F4A7C15
	for _, w := range p.Packed() {
		x = (x ^ w) * 0xBF58476D1CE4E5B9
		x ^= x >> 31
	}
	return &t.slots[x&t.mask]
}

// holds reports whether e is p's entry.
func (e *boundsEntry) holds(p *rules.Position) bool {
	return e.used && e.toMove == p.ToMove() && e.board == p.Packed()
}

// store records p's best move and, when p's value does not depend on the
// path (free), the search's result best within the window (alpha, beta).
// A position of the other kind keeps the value it has.
func (e *boundsEntry) store(p *rules.Position, move rules.Move, free bool, depth int, pessimist bool, alpha, beta, best int) {
	if !e.holds(p) {
		*e = boundsEntry{board: p.Packed(), toMove: p.ToMove(), used: true, move: [2]rules.Move{rules.NoMove, rules.NoMove}}
	}
	if best > alpha {
		// After a fail low every move failed: none is known best.
		e.move[b2i(pessimist)] = move
	}
	if !free {
		return
	}
	e.depth, e.pessimist, e.value = int16(depth), pessimist, int16(best)
	switch {
	case best <= alpha:
		e.flag = flagUpper
	case best >= beta:
		e.flag = flagLower
	default:
		e.flag = flagExact
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
