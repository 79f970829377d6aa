package egtb

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/internal/prefetch"
	"github.com/endodoi/endodoi/rules"
)

// The compact solver solves a count in one byte a position, where
// [solveLayer] takes three: the byte holds the position's value once it is
// determined, and until then a state that says all the propagation still
// needs of it. Its best exit matters only through two questions, "is it
// worth exactly +k?" (a seed at level k) and "once every move within the
// count is refuted, is it lost at level k?" (its best exit is -k or
// worse), so the state keeps the best exit only where it is negative
// (with the counter of moves within the count not yet refuted) or
// positive (without a counter, which a position that can capture for a
// gain never needs). A count whose states do not fit in the bytes a value
// leaves free is solved by solveLayer ([compactFits]).
//
// A round of the propagation is kept in lists of ranks (four bytes a
// position, eight past 2^32 positions) as long as they fit in the memory
// given; past it, the positions a round determines are only marked in
// their bytes, and a sweep over the count finds them.

// cellCodes lays out the byte a position of count n: a byte holding a
// value in [-n, n], read as a signed byte, is a position determined; the
// codes after n (read unsigned) up to 255-n are the states of a position
// not yet determined:
//
//   - open: its best capture is worth 0 (it is never lost; it is won only
//     by a move to a lost position);
//   - won b (b = 1..n): its best capture is worth +b, so it joins W_b at
//     level b if nothing decides it before;
//   - trapped c (c = 1..H): it has no capture, and c moves within the count
//     not yet refuted; it is lost as soon as c falls to 0;
//   - losing j, c (j = 1..n, c = 0..H-1): its best capture is worth -j (-n
//     with no legal move at all), with c moves within the count not yet
//     refuted; once c is 0 it is lost at level min(j, the level then);
//   - pending won, pending lost: determined at the current level, its
//     predecessors not yet looked at.
type cellCodes struct {
	n, holes                 int
	open, pendWon, pendLost  uint8
	wonBase, trapped, losing uint8 // first codes of won 1, trapped 1, losing 1,0
}

// compactCodes returns count n's layout, and false if its states do not
// fit in a byte beside its values.
func compactCodes(holes, n int) (cellCodes, bool) {
	c := cellCodes{n: n, holes: holes}
	next := n + 1
	take := func(k int) uint8 {
		at := next
		next += k
		return uint8(at)
	}
	c.open, c.pendWon, c.pendLost = take(1), take(1), take(1)
	c.wonBase = take(n)
	c.trapped = take(holes)
	c.losing = take(n * holes)
	return c, n >= 1 && next-1 <= 255-n
}

// compactFits reports whether the compact solver can solve count n on
// boards of the given holes a row: 3 + n + H + nH states beside 2n+1
// values, so up to 22 seeds on 2×8, 24 on 2×7, 27 on 2×6 (TestCompactCodes).
func compactFits(holes, n int) bool {
	_, ok := compactCodes(holes, n)
	return ok
}

// initial returns the state of a position from its expansion: its best
// exit payoff (noExit without a capture) and its moves within the count.
func (c *cellCodes) initial(best, within int) uint8 {
	switch {
	case best == noExit:
		return c.trapped + uint8(within-1)
	case best > 0:
		return c.wonBase + uint8(best-1)
	case best == 0:
		return c.open
	}
	return c.losing + uint8((-best-1)*c.holes+within)
}

// determined reports whether byte b is a value.
func (c *cellCodes) determined(b uint8) bool {
	return int(int8(b)) >= -c.n && int(int8(b)) <= c.n
}

// levelTables are the changes of a byte at level k, one table a kind of
// change, so that a change is one lookup and one compare-and-swap. A byte a
// table does not change maps to itself.
type levelTables struct {
	seed [256]uint8 // the positions the captures decide: won k to pending won, losing k,0 to pending lost
	win  [256]uint8 // a move to a lost position: every undetermined state to pending won
	dec  [256]uint8 // a move to a won position: one move fewer not refuted, pending lost at 0 if lost at level k
	done [256]uint8 // pending won to k, pending lost to -k
}

// tables fills t with level k's changes.
func (c *cellCodes) tables(k int, t *levelTables) {
	for x := range 256 {
		b := uint8(x)
		t.seed[x], t.win[x], t.dec[x], t.done[x] = b, b, b, b
		if !c.determined(b) && b != c.pendWon && b != c.pendLost {
			t.win[x] = c.pendWon
		}
	}
	t.done[c.pendWon], t.done[c.pendLost] = uint8(int8(k)), uint8(int8(-k))
	t.seed[c.wonBase+uint8(k-1)] = c.pendWon
	for m := 1; m <= c.holes; m++ {
		b := c.trapped + uint8(m-1)
		t.dec[b] = b - 1
		if m == 1 {
			t.dec[b] = c.pendLost
		}
	}
	for j := 1; j <= c.n; j++ {
		base := c.losing + uint8((j-1)*c.holes)
		if j == k {
			t.seed[base] = c.pendLost
		}
		for m := 1; m < c.holes; m++ {
			t.dec[base+uint8(m)] = base + uint8(m-1)
		}
		if j >= k {
			t.dec[base+1] = c.pendLost
		}
	}
}

// narrowRanks is the largest count whose rounds keep ranks in four bytes
// (a test lowers it).
var narrowRanks = uint64(math.MaxUint32)

// compactSolver solves one count in a byte a position, T being the type of
// a rank in its rounds.
type compactSolver[T uint32 | uint64] struct {
	countJob
	codes cellCodes
	cells sharedBytes
	t     levelTables
	edges atomic.Uint64
	// limit is the most positions a worker's part of a round holds; the
	// positions past it stay pending in their bytes, and overflow says
	// there are some.
	limit    int
	overflow atomic.Bool
	depth    []uint16 // optional, as layerSolver's
	bytes    []uint8  // cells as bytes
	mail     *mailroom
}

// solveCompact returns what solveLayer returns, in a byte a position of
// the count and at most limit ranks a worker in each of two rounds (limit
// < 1: no limit). The count must fit ([compactFits]). Depths, which need
// the rounds whole, are refused with a limit.
func solveCompact(ctx context.Context, holes, n int, r rules.Rules, lower [][]int8, workers, limit int, wantDepth bool, progress func(uint64)) (values []int8, depth []uint16, edges uint64, err error) {
	codes, ok := compactCodes(holes, n)
	if !ok {
		return nil, nil, 0, fmt.Errorf("egtb: %d seeds on %d holes a row do not fit the compact solver", n, holes)
	}
	if wantDepth && limit > 0 {
		return nil, nil, 0, fmt.Errorf("egtb: depths need the propagation's rounds whole")
	}
	size := Size(holes, n)
	if size > mailRank {
		return nil, nil, 0, fmt.Errorf("egtb: %d seeds on %d holes a row are %d positions, beyond the compact solver", n, holes, size)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if progress == nil {
		progress = func(uint64) {}
	}
	if limit < 1 {
		limit = int(min(size, 1<<62))
	}
	// A round's ranks take four bytes where the count allows.
	job := countJob{holes: holes, n: n, r: r, lower: lower, size: size, workers: workers, progress: progress}
	if size <= narrowRanks {
		s := &compactSolver[uint32]{countJob: job, codes: codes, limit: limit, mail: newMailroom(workers)}
		return s.solve(ctx, wantDepth)
	}
	s := &compactSolver[uint64]{countJob: job, codes: codes, limit: limit, mail: newMailroom(workers)}
	return s.solve(ctx, wantDepth)
}

func (s *compactSolver[T]) solve(ctx context.Context, wantDepth bool) (values []int8, depth []uint16, edges uint64, err error) {
	if err := s.expandAll(ctx); err != nil {
		return nil, nil, 0, err
	}
	if wantDepth {
		s.depth = hugepages.Make[uint16](int(s.size))
	}
	if err := s.propagate(ctx); err != nil {
		return nil, nil, 0, err
	}
	return s.cells.int8s(s.size), s.depth, s.edges.Load(), nil
}

// expandAll plays every position's moves once and sets its state.
func (s *compactSolver[T]) expandAll(ctx context.Context) error {
	s.cells = newSharedBytes(s.size)
	s.bytes = s.cells.uint8s(s.size)
	cells := s.bytes
	return s.parallel(ctx, func(e *expander, lo, hi uint64) {
		s.edges.Add(expandChunk(e, lo, hi, func(i uint64, best, within int) {
			cells[i] = s.codes.initial(best, within)
		}))
	})
}

// propagate finds the values level by level, as layerSolver.propagate
// does.
func (s *compactSolver[T]) propagate(ctx context.Context) error {
	cur, next := make(round[T], s.workers), make(round[T], s.workers)
	if uint64(s.limit) < s.size {
		// The parts are made at their limit, so that none grows by
		// copying (which leaves the garbage of every smaller copy to the
		// collector): a part's pages are taken as it is written.
		for w := range cur {
			cur[w], next[w] = make([]T, 0, s.limit), make([]T, 0, s.limit)
		}
	}
	var determined atomic.Uint64
	for k := s.n; k >= 1; k-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		s.codes.tables(k, &s.t)
		s.seeds(cur, k)
		for {
			for ; cur.len() > 0; cur, next = next, cur {
				if err := s.round(ctx, cur, next, &determined); err != nil {
					return err
				}
			}
			if !s.overflow.Swap(false) {
				break
			}
			if err := s.sweep(ctx, cur, &determined); err != nil {
				return err
			}
		}
	}
	s.zero()
	s.progress(s.size - determined.Load())
	return nil
}

// push adds r, just made pending, to a round's part, or marks the overflow.
func (s *compactSolver[T]) push(part []T, r uint64) []T {
	if len(part) < s.limit {
		if len(part) == cap(part) {
			// Grown by hand, so that a part never takes more than the limit.
			part = slices.Grow(part, min(max(len(part), 1024), s.limit-len(part)))
		}
		return append(part, T(r))
	}
	s.overflow.Store(true)
	return part
}

// eightAt reads the eight bytes from i (a multiple of 8) as one word.
func (s *compactSolver[T]) eightAt(i uint64) uint64 {
	return *(*uint64)(unsafe.Pointer(&s.cells[i>>2]))
}

// scan runs f over the count in ranges of whole words, one a worker.
func (s *compactSolver[T]) scan(f func(w int, lo, hi uint64)) {
	step := (s.size/uint64(s.workers) + 8) &^ 7
	eachWorker(s.workers, func(w int) {
		lo := min(uint64(w)*step, s.size)
		f(w, lo, min(lo+step, s.size))
	})
}

// eachWorker runs f(0) to f(workers-1) at once, and waits for them.
func eachWorker(workers int, f func(w int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	wg.Wait()
}

// seeds puts in queue, one part a worker, the positions the captures
// decide at level k, making them pending.
func (s *compactSolver[T]) seeds(queue round[T], k int) {
	cells := s.bytes
	won, lost := s.codes.wonBase+uint8(k-1), s.codes.losing+uint8((k-1)*s.holes)
	eachWorker(s.workers, func(w int) {
		out := queue[w][:0]
		for lo := uint64(w) << ownShift; lo < s.size; lo += uint64(s.workers) << ownShift {
			hi := min(lo+1<<ownShift, s.size)
			for i := lo; i < hi; i++ {
				if i&7 == 0 && i+8 <= hi && bytesMayBe(s.eightAt(i), won, lost) == 0 {
					i += 7
					continue
				}
				if b := s.t.seed[cells[i]]; b != cells[i] {
					cells[i] = b
					out = s.push(out, i)
				}
			}
		}
		queue[w] = out
	})
}

// The rounds change the bytes without atomic operations, each byte by the
// worker that owns it: the count is cut into blocks of 2^ownShift
// positions, dealt to the workers in turn; a worker's part of a round
// holds only its own positions, and the changes a worker finds for
// another's bytes are sent to it (a mailroom) in batches. A
// compare-and-swap, a move's change before, costs about as much as the
// cache miss it follows.

// ownShift makes the blocks of the count that the workers own 4,096
// positions (a test makes them smaller; at least 8, for the scans' words).
var ownShift = 12

// owner returns the worker that owns position r's byte.
func (s *compactSolver[T]) owner(r uint64) int {
	b := r >> ownShift
	if s.workers&(s.workers-1) == 0 {
		return int(b & uint64(s.workers-1))
	}
	return int(b % uint64(s.workers))
}

// A change sent to the owner of a byte is one word: the position's rank,
// whether a move to it from a lost position makes it won (mailWin; else
// a move of its is refuted), and the depth it gets if the change makes it
// pending.
const (
	mailWin        = 1 << 63
	mailDepthShift = 47
	mailRank       = 1<<mailDepthShift - 1
	mailBatch      = 1024 // changes sent at a time
)

// mailroom carries the changes between the workers of a round.
type mailroom struct {
	inbox    []chan []uint64 // a worker's batches to apply
	free     chan []uint64   // batches applied, for reuse
	finished atomic.Int32    // workers that have sent all they will send this round
	allDone  chan struct{}   // closed when every worker has
}

func newMailroom(workers int) *mailroom {
	m := &mailroom{inbox: make([]chan []uint64, workers), free: make(chan []uint64, 4*workers*workers)}
	for w := range m.inbox {
		m.inbox[w] = make(chan []uint64, 4*workers)
	}
	return m
}

// begin readies m for a round.
func (m *mailroom) begin() {
	m.finished.Store(0)
	m.allDone = make(chan struct{})
}

// batch returns an empty batch.
func (m *mailroom) batch() []uint64 {
	select {
	case b := <-m.free:
		return b[:0]
	default:
		return make([]uint64, 0, mailBatch)
	}
}

// recycle keeps b for reuse, if there is room.
func (m *mailroom) recycle(b []uint64) {
	select {
	case m.free <- b:
	default:
	}
}

// propagator is one worker's share of a round: it takes pending positions
// it owns, determines them, and decides their predecessors, its own at
// once and the others' through the mailroom.
type propagator[T uint32 | uint64] struct {
	s        *compactSolver[T]
	w        int
	u        *unmover
	b        board  // the board of rank at
	at       uint64 // b's rank, or past the count's last rank if b is not set
	seq      int
	next     int    // where the worker is in its part of the round, or its blocks in a sweep
	taken    uint64 // positions determined
	reported uint64 // of them, counted in the progress
	found    []T
	out      [][]uint64 // changes for each other worker, being gathered
	// A position's byte and its predecessors' are read at random places,
	// nearly every read a cache miss: they are asked for as the position
	// is taken and its predecessors found, and changed determineAhead
	// positions later.
	ahead [determineAhead]struct {
		p     uint64
		preds []uint64
	}
}

func (s *compactSolver[T]) newPropagator(w int, found []T) *propagator[T] {
	pr := &propagator[T]{s: s, w: w, u: newUnmover(s.holes, s.r.Laps(), s.r.Variant == rules.Cross), found: found[:0],
		at: s.size, out: make([][]uint64, s.workers)}
	for o := range pr.out {
		if o != w {
			pr.out[o] = s.mail.batch()
		}
	}
	return pr
}

// pollEvery is how many positions a worker takes between looks at its
// inbox.
const pollEvery = 64

// take finds p's predecessors; p is determined, and they decided,
// determineAhead positions later.
func (w *propagator[T]) take(p uint64) {
	s := w.s
	a := &w.ahead[w.seq%determineAhead]
	if w.seq >= determineAhead {
		w.decide(a.p, a.preds)
	}
	prefetch.Line(unsafe.Pointer(&s.bytes[p]))
	if s.depth != nil {
		prefetch.Line(unsafe.Pointer(&s.depth[p]))
	}
	w.setBoard(p)
	// The unmover's list becomes this slot's, and the slot's the unmover's.
	a.p, a.preds, w.u.out = p, w.u.predecessors(&w.b), a.preds[:0]
	for _, r := range a.preds {
		if s.owner(r) == w.w {
			prefetch.Line(unsafe.Pointer(&s.bytes[r]))
		}
	}
	w.seq++
	if w.seq%pollEvery == 0 {
		w.poll()
	}
}

// stepsAhead is how far the propagator steps its board to the next ranks
// rather than set it from the rank anew: the levels' seeds and the sweeps
// take positions in rank order, often close together, and a step costs a
// few instructions where setting the board costs a search a hole.
const stepsAhead = 8

// setBoard sets w.b to the board of rank p.
func (w *propagator[T]) setBoard(p uint64) {
	if p > w.at && p-w.at <= stepsAhead {
		for ; w.at < p; w.at++ {
			w.b.next()
		}
		return
	}
	w.b.setRank(w.s.holes, w.s.n, p)
	w.at = p
}

// finish decides the predecessors still waiting, sends the changes
// gathered for the others, and applies the changes sent to it until every
// worker has sent all it will.
func (w *propagator[T]) finish() {
	for i := max(0, w.seq-determineAhead); i < w.seq; i++ {
		a := &w.ahead[i%determineAhead]
		w.decide(a.p, a.preds)
	}
	w.seq = 0
	for o, b := range w.out {
		if o != w.w {
			w.post(o, b)
			w.out[o] = nil
		}
	}
	m := w.s.mail
	if int(m.finished.Add(1)) == w.s.workers {
		close(m.allDone)
	}
	for {
		select {
		case in := <-m.inbox[w.w]:
			w.receive(in)
		case <-m.allDone:
			// Everything sent is in the inboxes by now.
			w.poll()
			w.report()
			return
		}
	}
}

// report counts the positions determined since the last report in the
// progress.
func (w *propagator[T]) report() {
	w.s.progress(w.taken - w.reported)
	w.reported = w.taken
}

// decide determines p if it is still pending (a sweep may have taken it
// since it was listed), and changes the bytes of its predecessors: if p is
// lost they are won, if won one more of their moves is refuted.
func (w *propagator[T]) decide(p uint64, preds []uint64) {
	s := w.s
	b := s.bytes[p]
	nb := s.t.done[b]
	if nb == b {
		return
	}
	s.bytes[p] = nb
	w.taken++
	t, kind := &s.t.dec, uint64(0)
	if int8(nb) < 0 {
		t, kind = &s.t.win, mailWin
	}
	d := depthAfter(s.depth, p)
	for _, r := range preds {
		if o := s.owner(r); o == w.w {
			w.change(r, t, d)
		} else if w.out[o] = append(w.out[o], r|uint64(d)<<mailDepthShift|kind); len(w.out[o]) == mailBatch {
			w.post(o, w.out[o])
			w.out[o] = s.mail.batch()
		}
	}
}

// change changes w's own byte r as table t says, and lists r if that
// makes it pending, with depth d.
func (w *propagator[T]) change(r uint64, t *[256]uint8, d uint16) {
	s := w.s
	b := s.bytes[r]
	nb := t[b]
	if nb == b {
		return
	}
	s.bytes[r] = nb
	if nb == s.codes.pendWon || nb == s.codes.pendLost {
		if s.depth != nil {
			s.depth[r] = d
		}
		w.found = s.push(w.found, r)
	}
}

// post sends batch to worker o, applying w's own inbox while o's is full.
func (w *propagator[T]) post(o int, batch []uint64) {
	if len(batch) == 0 {
		w.s.mail.recycle(batch)
		return
	}
	m := w.s.mail
	for {
		select {
		case m.inbox[o] <- batch:
			return
		case in := <-m.inbox[w.w]:
			w.receive(in)
		}
	}
}

// poll applies the batches waiting in w's inbox.
func (w *propagator[T]) poll() {
	for {
		select {
		case in := <-w.s.mail.inbox[w.w]:
			w.receive(in)
		default:
			return
		}
	}
}

// receive applies a batch of changes to w's bytes.
func (w *propagator[T]) receive(in []uint64) {
	s := w.s
	const ahead = 8
	for i, m := range in {
		if i+ahead < len(in) {
			prefetch.Line(unsafe.Pointer(&s.bytes[in[i+ahead]&mailRank]))
		}
		t := &s.t.dec
		if m&mailWin != 0 {
			t = &s.t.win
		}
		w.change(m&mailRank, t, uint16(m>>mailDepthShift))
	}
	s.mail.recycle(in)
}

// round determines the positions of cur and puts the positions they decide
// in next, as layerSolver.propagateRound does, each worker its own.
func (s *compactSolver[T]) round(ctx context.Context, cur, next round[T], determined *atomic.Uint64) error {
	return s.work(ctx, next, determined, func(pr *propagator[T]) bool {
		part := cur[pr.w]
		if pr.next >= len(part) {
			return false
		}
		end := min(pr.next+roundChunk, len(part))
		for _, p := range part[pr.next:end] {
			pr.take(uint64(p))
		}
		pr.next = end
		return true
	})
}

// sweep determines every pending position left out of the lists, in rank
// order, and puts the positions they decide in queue.
func (s *compactSolver[T]) sweep(ctx context.Context, queue round[T], determined *atomic.Uint64) error {
	return s.work(ctx, queue, determined, func(pr *propagator[T]) bool {
		lo := uint64(pr.w+pr.next*s.workers) << ownShift
		if lo >= s.size {
			return false
		}
		pr.next++
		hi := min(lo+1<<ownShift, s.size)
		for i := lo; i < hi; i++ {
			if i&3 == 0 && i+4 <= hi {
				// The word's top half is 0, a value.
				if bytesMayBe(uint64(s.cells[i>>2]), s.codes.pendWon, s.codes.pendLost) == 0 {
					i += 3
					continue
				}
			}
			if b := s.bytes[i]; b == s.codes.pendWon || b == s.codes.pendLost {
				pr.take(i)
			}
		}
		return true
	})
}

// work runs a propagator on each worker's goroutine, fed by feed until it
// reports there is no more, and leaves the positions they decide in out,
// one part a worker.
func (s *compactSolver[T]) work(ctx context.Context, out round[T], determined *atomic.Uint64, feed func(*propagator[T]) bool) error {
	for w := range out {
		out[w] = out[w][:0]
	}
	s.mail.begin()
	eachWorker(s.workers, func(w int) {
		pr := s.newPropagator(w, out[w])
		for ctx.Err() == nil && feed(pr) {
			pr.report()
		}
		pr.finish()
		determined.Add(pr.taken)
		out[w] = pr.found
	})
	return ctx.Err()
}

// zero gives the positions no level decided their value, 0.
func (s *compactSolver[T]) zero() {
	cells := s.cells.uint8s(s.size)
	s.scan(func(_ int, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			if !s.codes.determined(cells[i]) {
				cells[i] = 0
			}
		}
	})
}
