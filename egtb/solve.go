package egtb

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"

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

	values    []int8   // the result: undetermined while being solved
	remaining []uint8  // moves within the count not yet known to lose at the current level
	bestExit  []int8   // best payoff of a capturing move (or -n with no legal move), noExit if none
	off       []uint32 // predecessor lists: preds[off[t-1]:off[t]] are the positions moving to t
	preds     []uint32
	depth     []uint16 // optional: plies to the capture that realises the value
}

// solveLayer returns the values of every board of n seeds on the given
// number of holes, South to move, given the values of every smaller count in
// lower, and the number of moves within the count. With wantDepth it also
// returns, for each position, how many plies
// of best play lead to the capture (or game end) that realises its value,
// saturated at 65535; a position worth 0 gets 0.
func solveLayer(ctx context.Context, holes, n int, r rules.Rules, lower [][]int8, workers int, wantDepth bool, progress func(uint64)) ([]int8, []uint16, uint64, error) {
	size := Size(holes, n)
	if size == 0 || size >= math.MaxUint32 || size*uint64(holes) >= math.MaxUint32 {
		return nil, nil, 0, fmt.Errorf("egtb: %d seeds on %d holes a row (%d positions) is beyond this solver", n, holes, size)
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if progress == nil {
		progress = func(uint64) {}
	}
	s := &layerSolver{holes: holes, n: n, r: r, lower: lower, size: size, workers: workers, progress: progress}
	if err := s.expandAll(ctx); err != nil {
		return nil, nil, 0, err
	}
	if err := s.fillPredecessors(ctx); err != nil {
		return nil, nil, 0, err
	}
	edges := uint64(len(s.preds))
	if wantDepth {
		s.depth = make([]uint16, size)
	}
	if err := s.propagate(ctx); err != nil {
		return nil, nil, 0, err
	}
	return s.values, s.depth, edges, nil
}

// parallel runs f over the boards of the count in chunks, on s.workers
// goroutines, each with its own expander positioned on the chunk's first
// board. It stops early when ctx is cancelled.
func (s *layerSolver) parallel(ctx context.Context, f func(e *expander, lo, hi uint64)) error {
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
				f(e, lo, hi)
				s.progress(hi - lo)
			}
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// expandAll plays every position's moves once: it records the best exit
// payoff and the number of moves within the count, and counts each
// position's predecessors in off[t+1].
func (s *layerSolver) expandAll(ctx context.Context) error {
	s.remaining = make([]uint8, s.size)
	s.bestExit = make([]int8, s.size)
	s.off = make([]uint32, s.size+1)
	return s.parallel(ctx, func(e *expander, lo, hi uint64) {
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
				atomic.AddUint32(&s.off[m.child+1], 1)
			}
			s.bestExit[i] = int8(best)
			s.remaining[i] = uint8(within)
			if i+1 < hi {
				e.cur.next()
			}
		}
	})
}

// fillPredecessors turns the counts in off into offsets and fills preds by
// playing every position's moves again.
func (s *layerSolver) fillPredecessors(ctx context.Context) error {
	var total uint64
	for t := uint64(1); t <= s.size; t++ {
		total += uint64(s.off[t])
		if total >= math.MaxUint32 {
			return fmt.Errorf("egtb: %d seeds on %d holes a row: more than 2^32 moves within the count", s.n, s.holes)
		}
		s.off[t] = uint32(total)
	}
	s.preds = make([]uint32, total)
	// off[t] is now the start of t's list; each fill moves it on, so that
	// it ends at the start of t+1's list, the end of t's.
	return s.parallel(ctx, func(e *expander, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			count := e.expand(false)
			for k := 0; k < count; k++ {
				if m := &e.moves[k]; !m.exit {
					at := atomic.AddUint32(&s.off[m.child], 1) - 1
					s.preds[at] = uint32(i)
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
	var lo uint32
	if t > 0 {
		lo = s.off[t-1]
	}
	return s.preds[lo:s.off[t]]
}

// propagate finds the values level by level, k = n down to 1: first the
// positions whose best capture is worth exactly +k (won at level k), or
// whose moves all lose already and whose best capture is worth exactly -k
// (lost at level k); then, through the predecessor lists, every position
// with a move to a lost one is won, and every position whose every move is
// won for the opponent at level k or more, and whose captures are worth -k
// or less, is lost. The positions never reached are worth 0.
func (s *layerSolver) propagate(ctx context.Context) error {
	s.values = make([]int8, s.size)
	for i := range s.values {
		s.values[i] = undetermined
	}
	queue := make([]uint32, 0, 1024)
	perLevel := s.size / uint64(max(s.n, 1))
	for k := s.n; k >= 1; k-- {
		if err := ctx.Err(); err != nil {
			return err
		}
		queue = s.seeds(queue[:0], k)
		for head := 0; head < len(queue); head++ {
			if head&0xFFFF == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			p := queue[head]
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
				queue = append(queue, r)
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
