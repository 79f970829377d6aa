package egtb

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/rules"
)

// undetermined marks a value not yet found while a count is being solved.
// No value is -128: values lie in [-MaxSeeds, MaxSeeds].
const undetermined = math.MinInt8

// noExit is the best exit payoff of a position without capturing moves.
// It never equals a level's ±k, and -noExit exceeds every k.
const noExit = math.MinInt8

// chunkSize is how many consecutive boards a worker takes at a time.
const chunkSize = 1 << 14

// offBlockBits: the offsets of the predecessor lists are 4 bytes a position,
// relative to a base every 2^offBlockBits positions, so that a count may
// have more than 2^32 moves within it.
const offBlockBits = 20

// move is one legal move of a position being expanded: either an exit (a
// capture, leaving the count) with its payoff for the mover, or a move
// within the count to the child with index child (South to move, mirrored).
type move struct {
	exit   bool
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
	cur   board    // the board being expanded
	moves [rules.MaxHoles]move
}

func newExpander(holes, n int, r rules.Rules, lower [][]int8) *expander {
	return &expander{holes: holes, n: n, laps: r.Laps(), cross: r.Variant == rules.Cross, lower: lower}
}

// seek sets the board being expanded to the board of rank i.
func (e *expander) seek(i uint64) {
	var b [2 * rules.MaxHoles]int
	if err := Unrank(b[:2*e.holes], e.n, i); err != nil {
		panic(err) // callers pass ranks below the count's size
	}
	for j := range b {
		e.cur[j] = uint8(b[j])
	}
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
// leaves out the exits' payoffs (and the lookups they take). It allocates
// nothing.
func (e *expander) expand(payoffs bool) int {
	count := 0
	for j := 0; j < e.holes; j++ {
		if e.cur[j] == 0 {
			continue
		}
		c := e.cur
		gain, ok := c.sow(e.holes, j, e.laps, e.cross)
		if !ok {
			continue // endless: not a legal move
		}
		// After the move North is to move: the child is the mirror image.
		m := &e.moves[count]
		count++
		if gain == 0 {
			m.exit, m.payoff, m.child = false, 0, c.mirrorRank(e.holes)
			continue
		}
		m.exit, m.child, m.payoff = true, 0, 0
		if payoffs {
			m.payoff = gain - int(e.lower[e.n-gain][c.mirrorRank(e.holes)])
		}
	}
	return count
}

// layerSolver solves one seed count: the working arrays of the retrograde
// propagation.
type layerSolver struct {
	holes, n int
	r        rules.Rules
	lower    [][]int8
	size     uint64
	workers  int
	progress func(done uint64) // called with work units done, from any goroutine

	values    []int8  // the result: undetermined while being solved
	remaining []uint8 // moves within the count not yet known to lose at the current level
	bestExit  []int8  // best payoff of a capturing move (or -n with no legal move), noExit if none
	// The predecessor lists: preds[end(t-1):end(t)] are the positions
	// moving to t, where end(t) = base[t>>offBlockBits] + rel[t] once the
	// lists are filled (before, rel counts and then marks each list's
	// start).
	rel   []uint32
	base  []uint64
	preds []uint32
	edges uint64   // moves within the count: the length of preds
	depth []uint16 // optional: plies to the capture that realises the value
	// scratch, when not nil, keeps the predecessor lists in a file rather
	// than in memory (a count too large for the memory allowed).
	scratch *scratch
}

// solveLayer returns the values of every board of n seeds on the given
// number of holes, South to move, given the values of every smaller count in
// lower, and the number of moves within the count. With wantDepth it also
// returns, for each position, how many plies
// of best play lead to the capture (or game end) that realises its value,
// saturated at 65535; a position worth 0 gets 0.
//
// When the predecessor lists could take more than memory bytes (0: no
// limit), they are kept in a scratch file in dir instead (see scratch).
func solveLayer(ctx context.Context, holes, n int, r rules.Rules, lower [][]int8, workers int, wantDepth bool, memory uint64, dir string, progress func(uint64)) (values []int8, depth []uint16, edges uint64, onDisk bool, err error) {
	size := Size(holes, n)
	// Ranks are stored as uint32.
	if size == 0 || size >= math.MaxUint32 {
		return nil, nil, 0, false, fmt.Errorf("egtb: %d seeds on %d holes a row (%d positions) is beyond this solver", n, holes, size)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if progress == nil {
		progress = func(uint64) {}
	}
	s := &layerSolver{holes: holes, n: n, r: r, lower: lower, size: size, workers: workers, progress: progress}
	if memory > 0 && layerMemory(holes, n, lower) > memory {
		sc, err := newScratch(dir, holes, n, r, size, workers, memory-min(memory, fixedMemory(size, lower)))
		if err != nil {
			return nil, nil, 0, false, err
		}
		defer sc.close()
		s.scratch = sc
	}
	if err := s.expandAll(ctx); err != nil {
		return nil, nil, 0, false, err
	}
	if edges, err = s.layout(); err != nil {
		return nil, nil, 0, false, err
	}
	if s.scratch != nil {
		s.preds, err = s.scratch.fill(ctx, s)
	} else {
		err = s.fillPredecessors(ctx, edges)
	}
	if err != nil {
		return nil, nil, 0, false, err
	}
	if wantDepth {
		s.depth = hugepages.Make[uint16](int(size))
	}
	if err := s.propagate(ctx); err != nil {
		return nil, nil, 0, false, err
	}
	return s.values, s.depth, edges, s.scratch != nil, nil
}

// layerMemory is the most memory count n's working arrays can take, with
// every move within the count in the predecessor lists in memory, and the
// smaller counts' values.
func layerMemory(holes, n int, lower [][]int8) uint64 {
	size := Size(holes, n)
	return fixedMemory(size, lower) + 4*size*uint64(holes)
}

// fixedMemory is the memory a count of size positions takes besides its
// predecessor lists: values, moves remaining, best exits, offsets, and
// the smaller counts' values.
func fixedMemory(size uint64, lower [][]int8) uint64 {
	m := 7 * size
	for _, v := range lower {
		m += uint64(len(v))
	}
	return m
}

// parallel runs f over the boards of the count in chunks, on s.workers
// goroutines, each with its own expander positioned on the chunk's first
// board and with the worker's number. It stops early when ctx is
// cancelled.
func (s *layerSolver) parallel(ctx context.Context, f func(w int, e *expander, lo, hi uint64)) error {
	var next atomic.Uint64
	var wg sync.WaitGroup
	for w := 0; w < s.workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := newExpander(s.holes, s.n, s.r, s.lower)
			for ctx.Err() == nil {
				lo := next.Add(chunkSize) - chunkSize
				if lo >= s.size {
					return
				}
				hi := min(lo+chunkSize, s.size)
				e.seek(lo)
				f(w, e, lo, hi)
				s.progress(hi - lo)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// expandAll plays every position's moves once: it records the best exit
// payoff and the number of moves within the count, and counts each
// position's predecessors in rel[t]. With a scratch file, it also writes
// each move within the count to the scratch's edge files.
func (s *layerSolver) expandAll(ctx context.Context) error {
	s.remaining = hugepages.Make[uint8](int(s.size))
	s.bestExit = hugepages.Make[int8](int(s.size))
	s.rel = hugepages.Make[uint32](int(s.size))
	return s.parallel(ctx, func(w int, e *expander, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			count := e.expand(true)
			best, within := noExit, 0
			if count == 0 {
				best = -s.n // rule 8: the board goes to the last mover
			}
			for k := 0; k < count; k++ {
				m := &e.moves[k]
				if m.exit {
					best = max(best, m.payoff)
					continue
				}
				within++
				atomic.AddUint32(&s.rel[m.child], 1)
				if s.scratch != nil {
					s.scratch.add(w, uint32(m.child), uint32(i))
				}
			}
			s.bestExit[i] = int8(best)
			s.remaining[i] = uint8(within)
			if i+1 < hi {
				e.cur.next()
			}
		}
	})
}

// layout turns the counts of predecessors in rel into the starts of their
// lists and returns the number of moves within the count.
func (s *layerSolver) layout() (uint64, error) {
	s.base = make([]uint64, s.size>>offBlockBits+1)
	var total uint64
	for t := range s.size {
		block := t >> offBlockBits
		if t&(1<<offBlockBits-1) == 0 {
			s.base[block] = total
		}
		count := uint64(s.rel[t])
		s.rel[t] = uint32(total - s.base[block])
		total += count
		if total-s.base[block] >= math.MaxUint32 {
			return 0, fmt.Errorf("egtb: %d seeds on %d holes a row: more than 2^32 moves within %d positions", s.n, s.holes, 1<<offBlockBits)
		}
	}
	s.edges = total
	return total, nil
}

// start returns where t's predecessor list starts, before it is filled.
func (s *layerSolver) start(t uint64) uint64 {
	if t == s.size {
		return s.edges
	}
	return s.base[t>>offBlockBits] + uint64(s.rel[t])
}

// end returns where t's predecessor list ends, once it is filled.
func (s *layerSolver) end(t uint64) uint64 {
	return s.base[t>>offBlockBits] + uint64(s.rel[t])
}

// claim returns the next free place in t's predecessor list (safe for
// concurrent use).
func (s *layerSolver) claim(t uint64) uint64 {
	return s.base[t>>offBlockBits] + uint64(atomic.AddUint32(&s.rel[t], 1)-1)
}

// fillPredecessors fills the predecessor lists in memory by playing every
// position's moves again.
func (s *layerSolver) fillPredecessors(ctx context.Context, edges uint64) error {
	s.preds = hugepages.Make[uint32](int(edges))
	// rel[t] marks the start of t's list; each fill moves it on, so that
	// it ends at the end of t's list.
	return s.parallel(ctx, func(_ int, e *expander, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			count := e.expand(false)
			for k := 0; k < count; k++ {
				if m := &e.moves[k]; !m.exit {
					s.preds[s.claim(m.child)] = uint32(i)
				}
			}
			if i+1 < hi {
				e.cur.next()
			}
		}
	})
}

// predecessors returns the positions with a move to t within the count
// (once per such move).
func (s *layerSolver) predecessors(t uint32) []uint32 {
	var lo uint64
	if t > 0 {
		lo = s.end(uint64(t) - 1)
	}
	return s.preds[lo:s.end(uint64(t))]
}

// propagate finds the values level by level, k = n down to 1: first the
// positions whose best capture is worth exactly +k (won at level k), or
// whose moves all lose already and whose best capture is worth exactly -k
// (lost at level k); then, through the predecessor lists, every position
// with a move to a lost one is won, and every position whose every move is
// won for the opponent at level k or more, and whose captures are worth -k
// or less, is lost. The positions never reached are worth 0.
func (s *layerSolver) propagate(ctx context.Context) error {
	s.values = hugepages.Make[int8](int(s.size))
	for i := range s.values {
		s.values[i] = undetermined
	}
	// The positions are taken round by round: those determined by the
	// captures, then those determined by the previous round. Within a round
	// the order does not matter; with the lists in a file, the round is
	// sorted so that the file is read in order.
	round := make([]uint32, 0, 1024)
	next := make([]uint32, 0, 1024)
	perLevel := s.size / uint64(max(s.n, 1))
	for k := s.n; k >= 1; k-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		for round = s.seeds(round[:0], k); len(round) > 0; round, next = next, round[:0] {
			if s.scratch != nil {
				slices.Sort(round)
			}
			var err error
			if next, err = s.propagateRound(ctx, round, next, k); err != nil {
				return err
			}
		}
		s.progress(perLevel)
	}
	for i, v := range s.values {
		if v == undetermined {
			s.values[i] = 0
		}
	}
	s.progress(s.size - perLevel*uint64(s.n))
	return nil
}

// propagateRound determines, at level k, the positions with moves to the
// positions of round, and returns them appended to next.
func (s *layerSolver) propagateRound(ctx context.Context, round, next []uint32, k int) ([]uint32, error) {
	for head, p := range round {
		if head&0xFFFF == 0 && ctx.Err() != nil {
			return next, ctx.Err()
		}
		won := s.values[p] > 0
		var d uint16
		if s.depth != nil {
			d = s.depth[p]
			if d < math.MaxUint16 {
				d++
			}
		}
		for _, r := range s.predecessors(p) {
			if s.values[r] != undetermined {
				continue
			}
			if won {
				// r's move to p loses at level k.
				s.remaining[r]--
				if s.remaining[r] != 0 || -int(s.bestExit[r]) < k {
					continue
				}
				s.values[r] = int8(-k)
			} else {
				s.values[r] = int8(k)
			}
			if s.depth != nil {
				s.depth[r] = d
			}
			next = append(next, r)
		}
	}
	return next, nil
}

// seeds appends to queue the positions determined at level k by their
// captures alone, marking their values.
func (s *layerSolver) seeds(queue []uint32, k int) []uint32 {
	parts := make([][]uint32, s.workers)
	var wg sync.WaitGroup
	step := (s.size + uint64(s.workers) - 1) / uint64(s.workers)
	for w := 0; w < s.workers; w++ {
		lo := uint64(w) * step
		hi := min(lo+step, s.size)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var out []uint32
			for i := lo; i < hi; i++ {
				b := int(s.bestExit[i])
				if s.values[i] != undetermined || (b != k && b != -k) {
					continue
				}
				if b == k {
					s.values[i] = int8(k)
				} else if s.remaining[i] == 0 {
					s.values[i] = int8(-k)
				} else {
					continue
				}
				out = append(out, uint32(i))
			}
			parts[w] = out
		}(w)
	}
	wg.Wait()
	for _, part := range parts {
		queue = append(queue, part...)
	}
	return queue
}
