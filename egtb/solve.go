package egtb

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/internal/prefetch"
	"github.com/endodoi/endodoi/rules"
)

// undetermined marks a value not yet found while a count is being solved.
// No value is -128: values lie in [-MaxSeeds, MaxSeeds].
const undetermined = math.MinInt8

// noExit is the best exit payoff of a position without capturing moves.
// It never equals a level's ±k, and -noExit exceeds every k.
const noExit = math.MinInt8

// expandAhead is how many positions ahead of their payoffs' reads the
// expansion runs.
const expandAhead = 8

// chunkSize is how many consecutive boards a worker takes at a time.
const chunkSize = 1 << 14

// move is one legal move of a position being expanded: either an exit (a
// capture of gain seeds, leaving the count for the child of index child in
// count n-gain) with its payoff for the mover, or a move within the count
// to the child with index child. Children are South to move, mirrored.
type move struct {
	exit   bool
	gain   int
	payoff int
	child  uint64
}

// expander plays the moves of the positions of one count. Each worker has
// its own.
type expander struct {
	holes int
	n     int
	laps  int
	cross bool
	lower [][]int8 // solved values of the counts below n
	masks *lapMasks
	cur   board // the board being expanded
	moves [rules.MaxHoles]move
}

func newExpander(holes, n int, r rules.Rules, lower [][]int8) *expander {
	return &expander{holes: holes, n: n, laps: r.Laps(), cross: r.Variant == rules.Cross, lower: lower, masks: masksFor(2 * holes)}
}

// seek sets the board being expanded to the board of rank i.
func (e *expander) seek(i uint64) {
	e.cur.setRank(e.holes, e.n, i)
}

// position returns the board being expanded as a position, South to move.
func (e *expander) position() rules.Position {
	var b [2 * rules.MaxHoles]int
	for j := range b {
		b[j] = int(e.cur[j])
	}
	p, _ := rules.NewPositionFromRows(b[:e.holes], b[e.holes:2*e.holes], rules.South, 0, 0)
	return p
}

// expand plays every legal move of the board being expanded, South to
// move, into e.moves and returns how many there are. Without payoffs it
// leaves out the exits' payoffs (and the lookups they take; see payoff).
// It allocates nothing.
func (e *expander) expand(payoffs bool) int {
	return e.expandInto(&e.moves, payoffs)
}

// expandInto is expand into moves.
func (e *expander) expandInto(moves *[rules.MaxHoles]move, payoffs bool) int {
	count := 0
	for j := 0; j < e.holes; j++ {
		if e.cur[j] == 0 {
			continue
		}
		c := e.cur
		gain, ok := c.sow(e.masks, e.holes, j, e.laps, e.cross)
		if !ok {
			continue // endless: not a legal move
		}
		m := &moves[count]
		count++
		// After the move North is to move: the child is the mirror image.
		m.exit, m.gain, m.payoff, m.child = gain != 0, gain, 0, c.mirrorRank(e.holes)
		if m.exit && payoffs {
			m.payoff = e.payoff(m)
		}
	}
	return count
}

// exits is what a build's expansion keeps of a position until the values
// its exits read have come from memory: its legal moves and moves within
// the count, counted, and its exits (captures), each as the seeds it takes
// and the child it leads to in count n-gain.
type exits struct {
	legal, within, n int
	gain             [rules.MaxHoles]int
	child            [rules.MaxHoles]uint64
}

// exitsInto plays every legal move of the board being expanded, counts
// them and those within the count into x, and keeps only the exits, whose
// values it asks for: the build needs no more of the moves within the
// count than their number (the propagation finds them again by
// un-moving).
func (e *expander) exitsInto(x *exits) {
	x.legal, x.within, x.n = 0, 0, 0
	for j := 0; j < e.holes; j++ {
		if e.cur[j] == 0 {
			continue
		}
		c := e.cur
		gain, ok := c.sow(e.masks, e.holes, j, e.laps, e.cross)
		if !ok {
			continue // endless: not a legal move
		}
		x.legal++
		if gain == 0 {
			x.within++
			continue
		}
		child := c.mirrorRank(e.holes)
		x.gain[x.n], x.child[x.n] = gain, child
		x.n++
		prefetch.Line(unsafe.Pointer(&e.lower[e.n-gain][child]))
	}
}

// best returns the best payoff of x's exits for the mover (the seeds an
// exit captures less the value of the position it leads to, for the
// opponent), noExit if it has none, -n if it has no legal move.
func (e *expander) best(x *exits) int {
	best := noExit
	if x.legal == 0 {
		best = -e.n // rule 8: the board goes to the last mover
	}
	for k := range x.n {
		best = max(best, e.exitPayoff(x.gain[k], x.child[k]))
	}
	return best
}

// payoff returns an exit's payoff for the mover: the seeds it captures less
// the value of the position it leads to, for the opponent.
func (e *expander) payoff(m *move) int {
	return e.exitPayoff(m.gain, m.child)
}

// exitPayoff is the payoff of an exit capturing gain seeds to the child
// of index child in count n-gain.
func (e *expander) exitPayoff(gain int, child uint64) int {
	return gain - int(e.lower[e.n-gain][child])
}

// countJob is what a solver of one seed count works from: the count, the
// rules, the smaller counts' values, and its workers.
type countJob struct {
	holes, n int
	r        rules.Rules
	lower    [][]int8
	size     uint64
	workers  int
	progress func(done uint64) // called with work units done, from any goroutine
}

// layerSolver solves one seed count: the working arrays of the retrograde
// propagation, three bytes a position. It solves the counts whose states
// do not fit the compact solver's byte ([compactFits]), up to 2^32
// positions.
type layerSolver struct {
	countJob
	values sharedBytes // the result (as int8): undetermined while being solved
	// exits holds two bytes a position, side by side so that one memory
	// access reads both: at 2i the moves within the count not yet known
	// to lose at the current level, at 2i+1 the best payoff of a capturing
	// move (or -n with no legal move), noExit if none.
	exits sharedBytes
	edges atomic.Uint64
	depth []uint16 // optional: plies to the capture that realises the value
}

// solveLayer returns the values of every board of n seeds on the given
// number of holes, South to move, given the values of every smaller count in
// lower, and the number of moves within the count. With wantDepth it also
// returns, for each position, how many plies of best play lead to the
// capture (or game end) that realises its value, saturated at 65535; a
// position worth 0 gets 0.
func solveLayer(ctx context.Context, holes, n int, r rules.Rules, lower [][]int8, workers int, wantDepth bool, progress func(uint64)) (values []int8, depth []uint16, edges uint64, err error) {
	size := Size(holes, n)
	// Ranks are stored as uint32.
	if size == 0 || size >= math.MaxUint32 {
		return nil, nil, 0, fmt.Errorf("egtb: %d seeds on %d holes a row (%d positions) is beyond this solver", n, holes, size)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if progress == nil {
		progress = func(uint64) {}
	}
	s := &layerSolver{countJob: countJob{holes: holes, n: n, r: r, lower: lower, size: size, workers: workers, progress: progress}}
	if err := s.expandAll(ctx); err != nil {
		return nil, nil, 0, err
	}
	if wantDepth {
		s.depth = hugepages.Make[uint16](int(size))
	}
	if err := s.propagate(ctx); err != nil {
		return nil, nil, 0, err
	}
	return s.values.int8s(size), s.depth, s.edges.Load(), nil
}

// parallel runs f over the boards of the count in chunks, on s.workers
// goroutines, each with its own expander positioned on the chunk's first
// board. It stops early when ctx is cancelled.
func (s *countJob) parallel(ctx context.Context, f func(e *expander, lo, hi uint64)) error {
	var next atomic.Uint64
	eachWorker(s.workers, func(int) {
		e := newExpander(s.holes, s.n, s.r, s.lower)
		for ctx.Err() == nil {
			lo := next.Add(chunkSize) - chunkSize
			if lo >= s.size {
				return
			}
			hi := min(lo+chunkSize, s.size)
			e.seek(lo)
			f(e, lo, hi)
			s.progress(hi - lo)
		}
	})
	return ctx.Err()
}

// expandAll plays every position's moves once: it records the best exit
// payoff and the number of moves within the count.
func (s *layerSolver) expandAll(ctx context.Context) error {
	s.exits = newSharedBytes(2 * s.size)
	exits := s.exits.uint8s(2 * s.size)
	return s.parallel(ctx, func(e *expander, lo, hi uint64) {
		s.edges.Add(expandChunk(e, lo, hi, func(i uint64, best, within int) {
			exits[2*i] = uint8(within)
			exits[2*i+1] = uint8(int8(best))
		}))
	})
}

// expandChunk expands the boards of ranks lo to hi-1, e being on the
// first, and calls record with each one's best exit payoff (-n with no
// legal move, noExit with moves but no capture) and number of moves within
// the count. It returns the number of moves within the count in all.
func expandChunk(e *expander, lo, hi uint64, record func(i uint64, best, within int)) (edges uint64) {
	// The exits' payoffs read the smaller counts' values at random
	// places, nearly every read a cache miss: they are asked for as each
	// position is expanded and read expandAhead positions later, so that
	// the misses overlap the sowing in between.
	var ahead [expandAhead]exits
	settle := func(i uint64) {
		x := &ahead[i%expandAhead]
		record(i, e.best(x), x.within)
		edges += uint64(x.within)
	}
	for i := lo; i < hi; i++ {
		if i >= lo+expandAhead {
			settle(i - expandAhead)
		}
		e.exitsInto(&ahead[i%expandAhead])
		if i+1 < hi {
			e.cur.next()
		}
	}
	for i := max(lo, hi-min(hi, expandAhead)); i < hi; i++ {
		settle(i)
	}
	return edges
}

// propagate finds the values level by level, k = n down to 1: first the
// positions whose best capture is worth exactly +k (won at level k), or
// whose moves all lose already and whose best capture is worth exactly -k
// (lost at level k); then, through their predecessors, every position
// with a move to a lost one is won, and every position whose every move is
// won for the opponent at level k or more, and whose captures are worth -k
// or less, is lost. The positions never reached are worth 0.
func (s *layerSolver) propagate(ctx context.Context) error {
	s.values = newSharedBytes(s.size)
	values := s.values.int8s(s.size)
	for i := range values {
		values[i] = undetermined
	}
	// The positions are taken round by round: those determined by the
	// captures, then those determined by the previous round. Within a round
	// the order does not matter. A round is kept as the parts the workers
	// found, not copied into one list: a round can hold a sizeable share
	// of the count.
	// The progress counts each position as its predecessors are found,
	// and the positions worth 0, which never are, at the end.
	cur, next := make(round[uint32], s.workers), make(round[uint32], s.workers)
	var determined uint64
	for k := s.n; k >= 1; k-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		for s.seeds(cur, k); cur.len() > 0; cur, next = next, cur {
			determined += uint64(cur.len())
			if err := s.propagateRound(ctx, cur, next, k); err != nil {
				return err
			}
		}
	}
	for i, v := range values {
		if v == undetermined {
			values[i] = 0
		}
	}
	s.progress(s.size - determined)
	return nil
}

// determineAhead is how many positions ahead of their predecessors' reads
// the propagation runs.
const determineAhead = 8

// roundChunk is how many positions of a round a worker takes at a time.
const roundChunk = 1 << 12

// round is the positions of one round of the propagation, in parts, one a
// worker: their ranks, 32-bit where the count allows.
type round[T uint32 | uint64] [][]T

// len returns the number of positions in r.
func (r round[T]) len() int {
	n := 0
	for _, part := range r {
		n += len(part)
	}
	return n
}

// chunk returns the c-th chunk of roundChunk positions of r, counting each
// part's chunks in turn, and false past the last.
func (r round[T]) chunk(c int) ([]T, bool) {
	for _, part := range r {
		chunks := (len(part) + roundChunk - 1) / roundChunk
		if c < chunks {
			return part[c*roundChunk : min((c+1)*roundChunk, len(part))], true
		}
		c -= chunks
	}
	return nil, false
}

// propagateRound determines, at level k, the positions with moves to the
// positions of cur, and puts them in next, one part a worker. The workers
// take the round in chunks; a position is determined by the one worker
// whose change of its value goes through.
func (s *layerSolver) propagateRound(ctx context.Context, cur, next round[uint32], k int) error {
	workers := min(s.workers, (cur.len()+roundChunk-1)/roundChunk)
	for w := range next {
		next[w] = next[w][:0]
	}
	var taken atomic.Int64
	eachWorker(workers, func(w int) {
		u := newUnmover(s.holes, s.r.Laps(), s.r.Variant == rules.Cross)
		found := next[w][:0]
		// The predecessors' values and counters are read at random
		// places, nearly every read a cache miss: they are asked for as
		// each position's predecessors are found and read
		// determineAhead positions later.
		var ahead [determineAhead]struct {
			p     uint32
			preds []uint64
		}
		var b board
		seq := 0
		for ctx.Err() == nil {
			chunk, ok := cur.chunk(int(taken.Add(1) - 1))
			if !ok {
				break
			}
			s.progress(uint64(len(chunk)))
			for _, p := range chunk {
				a := &ahead[seq%determineAhead]
				if seq >= determineAhead {
					found = s.determine(a.p, a.preds, k, found)
				}
				b.setRank(s.holes, s.n, uint64(p))
				a.p, a.preds = p, append(a.preds[:0], u.predecessors(&b)...)
				for _, r := range a.preds {
					prefetch.Line(unsafe.Pointer(&s.values[r>>2]))
					prefetch.Line(unsafe.Pointer(&s.exits[r>>1]))
				}
				seq++
			}
		}
		for i := max(0, seq-determineAhead); i < seq; i++ {
			a := &ahead[i%determineAhead]
			found = s.determine(a.p, a.preds, k, found)
		}
		next[w] = found
	})
	return ctx.Err()
}

// determine decides, at level k, the positions among p's predecessors
// (preds) that p's value now determines, and returns them appended to
// found.
func (s *layerSolver) determine(p uint32, preds []uint64, k int, found []uint32) []uint32 {
	won := int8(s.values.load(uint64(p))) > 0
	d := depthAfter(s.depth, uint64(p))
	for _, r := range preds {
		if int8(s.values.load(r)) != undetermined {
			continue
		}
		v := int8(k)
		if won {
			// r's move to p loses at level k.
			if remaining, best := s.exits.decrementPair(r); remaining != 0 || -int(best) < k {
				continue
			}
			v = int8(-k)
		}
		if !s.values.change(r, uint8(undetermined&0xFF), uint8(v)) {
			continue
		}
		if s.depth != nil {
			s.depth[r] = d
		}
		found = append(found, uint32(r))
	}
	return found
}

// depthAfter returns the depth of a position a move to p determines: p's
// depth and one, saturated (0 without depths).
func depthAfter(depth []uint16, p uint64) uint16 {
	if depth == nil {
		return 0
	}
	return min(depth[p], math.MaxUint16-1) + 1
}

// seeds puts in queue, one part a worker, the positions determined at
// level k by their captures alone, marking their values.
func (s *layerSolver) seeds(queue round[uint32], k int) {
	values, exits := s.values.int8s(s.size), s.exits.uint8s(2*s.size)
	// Most positions' best exit is not ±k: four at a time are ruled out
	// with a few word operations on their eight bytes.
	exits8 := unsafe.Slice((*uint64)(unsafe.Pointer(&s.exits[0])), s.size/4)
	step := (s.size + uint64(s.workers) - 1) / uint64(s.workers)
	eachWorker(s.workers, func(w int) {
		lo := uint64(w) * step
		hi := min(lo+step, s.size)
		out := queue[w][:0]
		for i := lo; i < hi; i++ {
			if i&3 == 0 && i+4 <= hi && !bestExitMayBe(exits8[i>>2], k) {
				i += 3 // none of these four positions has its best exit at ±k
				continue
			}
			b := int(int8(exits[2*i+1]))
			if values[i] != undetermined || (b != k && b != -k) {
				continue
			}
			if b == k {
				values[i] = int8(k)
			} else if exits[2*i] == 0 {
				values[i] = int8(-k)
			} else {
				continue
			}
			out = append(out, uint32(i))
		}
		queue[w] = out
	})
}

// bestBytes selects, in a word of exits, the four positions' best exits.
var bestBytes = func() uint64 {
	if littleEndian {
		return 0xFF00_FF00_FF00_FF00
	}
	return 0x00FF_00FF_00FF_00FF
}()

// bestExitMayBe reports whether any of the four positions whose exits the
// word x holds may have k or -k as its best exit. It never misses one; it
// may report one that is not there (a borrow of the zero-byte test), which
// the caller's check of each position then rules out.
func bestExitMayBe(x uint64, k int) bool {
	return bytesMayBe(x, uint8(k), uint8(-k))&bestBytes != 0
}

// bytesMayBe returns, in the top bit of each byte of x, whether the byte
// may be a or b: it never misses one, and may report one that is not there
// (a borrow of the zero-byte test).
func bytesMayBe(x uint64, a, b uint8) uint64 {
	const ones, tops = 0x0101_0101_0101_0101, 0x8080_8080_8080_8080
	hasZero := func(y uint64) uint64 { return (y - ones) &^ y & tops }
	return hasZero(x^ones*uint64(a)) | hasZero(x^ones*uint64(b))
}
