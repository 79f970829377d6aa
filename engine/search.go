package engine

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/rules"
)

// MaxDepth is the deepest iteration the search runs.
const MaxDepth = 200

// maxPly bounds the search path, game-history positions excluded.
const maxPly = MaxDepth + 8

// Config sets up an Engine.
type Config struct {
	Rules   rules.Rules
	Threads int      // search threads; 0 means 1
	HashMiB int      // transposition table size; 0 means DefaultHashMiB
	Weights *Weights // evaluation weights; nil means DefaultWeights
	// Quiescence is how many plies of capturing moves the search looks at
	// beyond its horizon (0 for none).
	Quiescence int
	// Tablebase, if not nil, gives the exact values of endgames. The search
	// takes them, as proven scores, at every position with fewer seeds on
	// the board than the root; a root the tablebase holds is answered from
	// it at once, with a move that realises its value.
	Tablebase Tablebase
	// Book takes the values of the opening book of proven values (package
	// book) as a tablebase too: near the start of a solved board the
	// engine then knows the exact value and a move that keeps it.
	Book bool
}

// DefaultHashMiB is the default transposition table size.
const DefaultHashMiB = 64

// MaxThreads and MaxHashMiB bound the configuration.
const (
	MaxThreads = 64
	MaxHashMiB = 16 << 10
)

// Limits bound one search. With no limit at all the search runs to
// MaxDepth or until the game's end is solved, or until its context is
// cancelled.
type Limits struct {
	Depth    int           // deepest iteration; 0 for no limit
	MoveTime time.Duration // time to search; 0 for no limit
	Nodes    uint64        // nodes to search; 0 for no limit
	// Infinite keeps searching after the score is exact or MaxDepth is
	// reached, until the context is cancelled (analysis mode).
	Infinite bool
}

// Info reports a finished iteration of the search.
type Info struct {
	Depth   int
	Score   Score // future capture margin for the side to move
	Exact   bool  // the score is the game-theoretic value, not an estimate
	Nodes   uint64
	Elapsed time.Duration
	PV      []rules.Move // the principal variation, best move first
}

// NPS returns the nodes searched per second.
func (i Info) NPS() uint64 {
	if i.Elapsed <= 0 {
		return 0
	}
	return uint64(float64(i.Nodes) / i.Elapsed.Seconds())
}

// Result is the outcome of a search: the best move found and the last
// completed iteration's report. Move is rules.NoMove when the side to move
// has no legal move.
type Result struct {
	Move rules.Move
	Info
}

// Engine searches positions. Its transposition table carries knowledge
// from one search to the next within a game; call NewGame between games.
// An Engine runs one search at a time.
type Engine struct {
	cfg     Config
	tb      Tablebase // cfg.Tablebase and the book, or nil
	weights Weights
	tt      *table
	busy    *busyTable // with more than one thread: the moves being searched
	mu      sync.Mutex // held during a search

	searchers []*searcher // by thread, reused
}

// New returns an engine with the given configuration.
func New(cfg Config) (*Engine, error) {
	if err := cfg.Rules.Validate(); err != nil {
		return nil, err
	}
	if cfg.Threads == 0 {
		cfg.Threads = 1
	}
	if cfg.Threads < 1 || cfg.Threads > MaxThreads {
		return nil, fmt.Errorf("threads %d out of range (1 to %d)", cfg.Threads, MaxThreads)
	}
	if cfg.HashMiB == 0 {
		cfg.HashMiB = DefaultHashMiB
	}
	if cfg.HashMiB < 1 || cfg.HashMiB > MaxHashMiB {
		return nil, fmt.Errorf("hash size %d MiB out of range (1 to %d)", cfg.HashMiB, MaxHashMiB)
	}
	e := &Engine{cfg: cfg, weights: DefaultWeights, tt: newTable(cfg.HashMiB)}
	if cfg.Threads > 1 {
		e.busy = new(busyTable)
	}
	e.tb = cfg.Tablebase
	if cfg.Book {
		if b := book.For(cfg.Rules); b != nil {
			e.tb = Tablebases{cfg.Tablebase, b}
		}
	}
	if cfg.Weights != nil {
		e.weights = *cfg.Weights
	}
	return e, nil
}

// Config returns the engine's configuration.
func (e *Engine) Config() Config { return e.cfg }

// NewGame forgets what earlier searches learnt.
func (e *Engine) NewGame() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.tt.clear()
	for _, s := range e.searchers {
		s.hist = [len(s.hist)]int32{}
	}
}

// ErrNoPosition is returned for a zero Position.
var ErrNoPosition = errors.New("engine: no position to search")

// Search looks for the best move in p. history holds the game's positions
// before p, oldest first, for the repetition rule; it may be nil. report, if
// not nil, is called after each completed iteration from the searching
// goroutine. Search returns when a limit is reached, the score is exact (unless
// lim.Infinite), or ctx is cancelled; it always returns a legal move when
// there is one.
func (e *Engine) Search(ctx context.Context, p rules.Position, history []rules.Position, lim Limits, report func(Info)) (Result, error) {
	if p.Holes() < rules.MinHoles {
		return Result{}, ErrNoPosition
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	start := time.Now()
	e.tt.newSearch()
	var stop atomic.Bool
	if lim.MoveTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.MoveTime)
		defer cancel()
	}
	if e.tb != nil {
		if res, ok := e.tablebaseResult(p, history, start); ok {
			if report != nil {
				report(res.Info)
			}
			if lim.Infinite {
				<-ctx.Done()
			}
			return res, nil
		}
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-done:
		}
	}()

	main := e.newSearcher(0, p, history, &stop, lim.Nodes)
	if d, ok := ctx.Deadline(); ok {
		// The search reads the clock itself too: where goroutines take
		// turns on one thread (WebAssembly), the one above does not run
		// until the search pauses.
		main.deadline = d
	}
	var wg sync.WaitGroup
	var helperNodes atomic.Uint64
	var helpersStop atomic.Bool
	main.others = &helperNodes
	for t := 1; t < e.cfg.Threads; t++ {
		h := e.newSearcher(t, p, history, &helpersStop, 0)
		h.parent = &stop
		h.published = &helperNodes
		wg.Add(1)
		go func(offset int) {
			defer wg.Done()
			h.iterate(p, Limits{Depth: MaxDepth}, start, offset, nil)
			helperNodes.Add(h.nodes % nodeBatch)
		}(t % 2)
	}
	res := main.iterate(p, lim, start, 0, report)
	helpersStop.Store(true)
	wg.Wait()
	res.Nodes = main.nodes + helperNodes.Load()
	res.Elapsed = time.Since(start)
	return res, nil
}

// proofBudget is the largest iteration, in nodes, after which an unproven
// score gets a second, proving search.
const proofBudget = 50_000

// nodeBatch is how often a search checks its limits, and how many nodes a
// helper thread adds to the shared count at a time.
const nodeBatch = 1024

// searcher is one thread's search state.
type searcher struct {
	e      *Engine
	rules  rules.Rules
	w      *Weights
	tt     *table
	busy   *busyTable
	stop   *atomic.Bool // set when this search must end
	parent *atomic.Bool // for helpers: the main search's stop flag

	nodes     uint64
	nodeLimit uint64
	deadline  time.Time // when the search must end; zero for none
	aborted   bool
	proofMode bool           // table cutoffs from proven entries only
	published *atomic.Uint64 // helpers: where they add their node counts
	others    *atomic.Uint64 // main: the helpers' node count, for reports

	tb        Tablebase
	rootBoard int // seeds on the board at the root
	total     int // all seeds, on the board and captured: the same in every position of the search

	// keys and board counts of the game's positions that occurred twice,
	// then of the search path.
	keys  []uint64
	board []int

	kids  [maxPly + 1][rules.MaxHoles]child // move lists by ply, kept to avoid clearing one per node
	pv    [maxPly + 1][maxPly + 1]rules.Move
	pvLen [maxPly + 1]int
	hist  [2 * rules.MaxHoles]int32 // history heuristic, by hole
}

// newSearcher returns thread t's searcher, set up for a search of p. The
// searchers (a few hundred KiB each) are kept from one search to the next.
func (e *Engine) newSearcher(t int, p rules.Position, history []rules.Position, stop *atomic.Bool, nodeLimit uint64) *searcher {
	for len(e.searchers) <= t {
		e.searchers = append(e.searchers, new(searcher))
	}
	s := e.searchers[t]
	// Field by field: a composite literal of this size would be built on
	// the heap.
	s.e, s.rules, s.w, s.tt, s.busy = e, e.cfg.Rules, &e.weights, e.tt, e.busy
	s.stop, s.parent, s.published, s.others = stop, nil, nil, nil
	s.nodes, s.nodeLimit, s.aborted, s.proofMode = 0, nodeLimit, false, false
	s.deadline = time.Time{}
	s.tb, s.rootBoard, s.total = e.tb, p.OnBoard(), p.Total()
	s.keys, s.board = s.keys[:0], s.board[:0]
	// A position that occurred twice in the game ends it if it occurs
	// again; one that occurred once is searched like any other (its third
	// occurrence would come after a cycle on the search path). Only
	// positions with as many seeds on the board as p can repeat.
	count := map[uint64]int{}
	for i := range history {
		h := history[i]
		if h.OnBoard() == p.OnBoard() && h.Holes() == p.Holes() {
			count[key(&h)]++
		}
	}
	for k, c := range count {
		if c >= 2 {
			s.keys = append(s.keys, k)
			s.board = append(s.board, p.OnBoard())
		}
	}
	s.keys = slices.Grow(s.keys, maxPly+1)
	s.board = slices.Grow(s.board, maxPly+1)
	return s
}

// iterate runs iterative deepening from depth 1 (plus offset, for helper
// threads) and returns the last completed iteration.
func (s *searcher) iterate(p rules.Position, lim Limits, start time.Time, offset int, report func(Info)) Result {
	res := Result{Move: rules.NoMove}
	if moves := p.LegalMoves(s.rules); len(moves) > 0 {
		res.Move = moves[0] // a legal move even if the first iteration is cut short
		res.PV = []rules.Move{moves[0]}
	} else {
		res.Exact = true
		res.Score = -Score(p.OnBoard()) * Seed
		return res
	}
	maxDepth := MaxDepth
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, MaxDepth)
	}
	prev := Score(0)
	for d := 1 + offset; d <= maxDepth; d++ {
		iterationStart := s.nodes
		var v Score
		var proven bool
		window := Score(50)
		alpha, beta := -Infinity, Infinity
		if d > 4 {
			alpha, beta = prev-window, prev+window
		}
		for {
			v, proven = s.negamax(&p, 0, d, 0, alpha, beta)
			if s.aborted {
				break
			}
			if v <= alpha && alpha > -Infinity {
				alpha = max(-Infinity, alpha-window*4)
				window *= 4
				continue
			}
			if v >= beta && beta < Infinity {
				beta = min(Infinity, beta+window*4)
				window *= 4
				continue
			}
			break
		}
		if s.aborted {
			break
		}
		if !proven && s.nodes-iterationStart < proofBudget {
			// Table entries from earlier, shallower iterations can keep a
			// small endgame from being proven: try once more with a full
			// window, taking cutoffs from proven entries only.
			s.proofMode = true
			pv, ppr := s.negamax(&p, 0, d, 0, -Infinity, Infinity)
			s.proofMode = false
			if s.aborted {
				break
			}
			// Its score and line stand either way: a full-window search
			// to the same depth, and the line now in the PV table.
			v, proven = pv, ppr
		}
		prev = v
		res.Depth = d
		res.Score = v
		res.Exact = proven
		res.Nodes = s.nodes
		if s.others != nil {
			res.Nodes += s.others.Load()
		}
		res.Elapsed = time.Since(start)
		res.PV = s.extendPV(p, s.pv[0][:s.pvLen[0]], d)
		if len(res.PV) > 0 {
			res.Move = res.PV[0]
		}
		if report != nil {
			report(res.Info)
		}
		if proven && !lim.Infinite {
			break // deeper iterations cannot change an exact score
		}
		if lim.MoveTime > 0 && time.Since(start) > lim.MoveTime/2 {
			break // the next iteration would not finish in time
		}
	}
	if lim.Infinite {
		// Analysis mode: wait for the stop even after the last iteration.
		for !s.stop.Load() && (s.parent == nil || !s.parent.Load()) {
			time.Sleep(time.Millisecond)
		}
	}
	return res
}

func (s *searcher) checkStop() {
	if s.published != nil {
		s.published.Add(nodeBatch)
	}
	if s.stop.Load() || (s.parent != nil && s.parent.Load()) || (s.nodeLimit > 0 && s.nodes >= s.nodeLimit) {
		s.aborted = true
	} else if !s.deadline.IsZero() && !time.Now().Before(s.deadline) {
		s.aborted = true
		s.stop.Store(true) // the helpers stop with the main search
	}
}

// repeated reports whether the position with key k and this many seeds on
// the board is already on the search path, or has occurred twice in the
// game. Either way it scores 0: a position that occurred twice in the game
// ends it now (rule 9), and a cycle on the search path can be repeated
// until it does, with no capture on the way (none can happen inside a
// cycle). Where leaving the cycle is better for the player to move, the
// search finds that at the cycle's first position, whose value does not
// depend on the cycle.
// mayRepeat reports whether a position with this many seeds on the board
// can repeat one on the path: captures only ever lower the count.
func (s *searcher) mayRepeat(board int) bool {
	return len(s.board) > 0 && s.board[len(s.board)-1] == board
}

func (s *searcher) repeated(k uint64, board int) bool {
	for i := len(s.keys) - 1; i >= 0; i-- {
		if s.board[i] != board {
			return false // a capture happened since: nothing before can repeat
		}
		if s.keys[i] == k {
			return true
		}
	}
	return false
}

type child struct {
	pos   rules.Position
	key   uint64 // pos's key, or 0 where it was not computed
	move  rules.Move
	order int32
}

// histMax bounds the history heuristic's values, which order the moves
// that capture alike: far below 1<<20, the weight of one captured seed in
// the move order, so that history never outranks a capture.
const histMax = 1 << 14

// histBonusMax bounds the reward of one cutoff, so that a deep one does
// not wipe out what the others taught.
const histBonusMax = histMax / 16

// rewardHistory credits the move from hole i with a cutoff at depth. The
// update is "gravity": h += bonus - h*bonus/histMax, which moves h towards
// histMax by a share of the distance and so keeps it within histMax however
// long an analysis runs.
func (s *searcher) rewardHistory(i, depth int) {
	bonus := int32(min(depth*depth, histBonusMax))
	h := s.hist[i]
	s.hist[i] = h + bonus - h*bonus/histMax
}

// generate plays the legal moves of p except skip into kids from index
// from on, orders them best first in order[from:] (first, if among them,
// before all), and returns the new count of children. With keyed, each
// child's key is computed and its table bucket fetched into the cache
// while the siblings before it are searched.
func (s *searcher) generate(p *rules.Position, kids *[rules.MaxHoles]child, order []uint8, from int, skip, first rules.Move, keyed bool) int {
	n := p.Holes()
	mover := p.ToMove()
	before := p.Captured(mover)
	count := from
	for holes := sownHoles(p); holes != 0; holes &= holes - 1 {
		j := bits.TrailingZeros32(holes)
		m := rules.NewMove(mover, j)
		if m == skip {
			continue
		}
		// Played straight into the child's slot: a failed move leaves
		// it for the next.
		c := &kids[count]
		if p.PlayTo(&c.pos, m, s.rules) != nil {
			continue
		}
		c.move = m
		c.key = 0
		if keyed {
			c.key = key(&c.pos)
			s.tt.prefetch(c.key)
		}
		c.order = int32(c.pos.Captured(mover)-before)<<20 + s.hist[m.Index(n)]
		if m == first {
			c.order = 1 << 30
		}
		// Insertion sort of the new children.
		order[count] = uint8(count)
		for i := count; i > from && kids[order[i]].order > kids[order[i-1]].order; i-- {
			order[i], order[i-1] = order[i-1], order[i]
		}
		count++
	}
	return count
}

// sownHoles returns the holes of the row of p's side to move that hold
// seeds, bit j for column j: looping over them skips the empty ones
// without a branch the processor cannot predict.
func sownHoles(p *rules.Position) uint32 {
	b := p.Packed()
	n := p.Holes()
	var all uint64 // bit i for hole i, in sowing order
	for i := 0; i < (2*n+3)/4; i++ {
		x := b[i&(len(b)-1)]
		top := ((x & lanesBelowTop) + lanesBelowTop | x) & lanesTop // the top bit of each non-empty lane
		// The lanes' bits, moved to bits 0, 16, 32 and 48, are gathered
		// into bits 48 to 51 by one multiplication: no two of its
		// partial products meet there.
		all |= ((top >> 15) * (1<<48 | 1<<33 | 1<<18 | 1<<3) >> 48 & 0xF) << (4 * i)
	}
	return uint32(all>>(n*int(p.ToMove()&1))) & (1<<n - 1)
}

// negamax returns the value of p for the side to move searched to depth
// plies within the window (alpha, beta), fail-soft, and whether the value
// rests on game ends alone. k is p's key, or 0 when the caller has not
// computed it.
func (s *searcher) negamax(p *rules.Position, k uint64, depth, ply int, alpha, beta Score) (Score, bool) {
	if depth <= 0 || ply >= maxPly {
		return s.leaf(p, ply, alpha, beta)
	}
	board, ok := s.enter(p, ply)
	if !ok {
		return 0, false
	}
	if k == 0 {
		k = key(p)
	}
	if ply > 0 && s.repeated(k, board) {
		return 0, true
	}
	// Below the root's seed count, the first position the tablebase holds
	// is the first of its count on the path: no position before it can
	// repeat, so its value is exact here.
	if s.tb != nil && ply > 0 && board < s.rootBoard {
		if v, ok := s.tb.Probe(p); ok {
			return Score(v) * Seed, true
		}
	}

	ttMove := rules.NoMove
	if e, ok := s.tt.probe(k); ok {
		ttMove = e.move
		if ply > 0 && (e.proven || e.depth >= depth && !s.proofMode) {
			switch {
			case e.bound == boundExact,
				e.bound == boundLower && e.score >= beta,
				e.bound == boundUpper && e.score <= alpha:
				return e.score, e.proven
			}
		}
	}

	// Children that are not leaves probe the table: their keys are
	// computed, and their buckets fetched, as they are played.
	keyed := depth >= 2 && ply+1 < maxPly
	n := p.Holes()
	if !keyed && s.scanFrontier(board, n) {
		return s.frontier(p, k, board, depth, ply, alpha, beta, ttMove)
	}
	kids := &s.kids[ply]
	var order [rules.MaxHoles]uint8 // search order, as indexes: children are too big to move around
	count := 0
	mover := p.ToMove()
	before := p.Captured(mover)
	// Away from the root the table's move is tried before the others are
	// even played: when it cuts off, their sowing is saved.
	staged := false
	if ply > 0 && ttMove != rules.NoMove {
		if c := &kids[0]; p.PlayTo(&c.pos, ttMove, s.rules) == nil {
			c.move, c.key = ttMove, 0
			if keyed {
				c.key = key(&c.pos)
			}
			count, staged = 1, true
		}
	}
	if !staged {
		if count = s.generate(p, kids, order[:], 0, rules.NoMove, ttMove, keyed); count == 0 {
			return -Score(board) * Seed, true
		}
	}

	// The root is left off the path: its value is what is being found, and
	// scoring a return to it as 0 would undervalue the moves that lead back
	// to it when leaving is better. A second return scores 0.
	if ply > 0 {
		s.keys = append(s.keys, k)
		s.board = append(s.board, board)
	}
	alpha0 := alpha
	best := -Infinity
	bestMove := kids[order[0]].move
	proven := true
	// With other threads, a move one of them is searching is put off to
	// the end, when its result may be in the table (simplified ABDADA).
	share := s.busy != nil && depth >= busyMinDepth
	var deferred [rules.MaxHoles]uint8
	nDeferred := 0
	for i := 0; i < count+nDeferred; i++ {
		var c *child
		if i < count {
			c = &kids[order[i]]
			if share && i > 0 && s.busy.searching(k, c.move) {
				deferred[nDeferred] = order[i]
				nDeferred++
				continue
			}
		} else {
			c = &kids[deferred[i-count]]
		}
		var mark uint64
		if share {
			mark = s.busy.enter(k, c.move)
		}
		gain := Score(c.pos.Captured(mover)-before) * Seed
		var v Score
		var pr bool
		switch {
		case i == 0 && !keyed:
			v, pr = s.leaf(&c.pos, ply+1, gain-beta, gain-alpha)
		case i == 0:
			v, pr = s.negamax(&c.pos, c.key, depth-1, ply+1, gain-beta, gain-alpha)
		case !keyed:
			v, pr = s.leaf(&c.pos, ply+1, gain-alpha-1, gain-alpha)
		default:
			v, pr = s.negamax(&c.pos, c.key, depth-1, ply+1, gain-alpha-1, gain-alpha)
		}
		v = gain - v
		if i > 0 && v > alpha && v < beta && !s.aborted {
			// The null window failed high: search again with the full one.
			if keyed {
				v, pr = s.negamax(&c.pos, c.key, depth-1, ply+1, gain-beta, gain-alpha)
			} else {
				v, pr = s.leaf(&c.pos, ply+1, gain-beta, gain-alpha)
			}
			v = gain - v
		}
		if share {
			s.busy.leave(mark)
		}
		if s.aborted {
			break
		}
		proven = proven && pr
		if v > best {
			best, bestMove = v, c.move
			if v > alpha {
				alpha = v
				s.pv[ply][ply] = c.move
				copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
				s.pvLen[ply] = s.pvLen[ply+1]
				if v >= beta {
					s.rewardHistory(c.move.Index(n), depth)
					break
				}
			}
		}
		if staged && i == count-1 {
			// The table's move did not cut off: now the others.
			count = s.generate(p, kids, order[:], count, ttMove, rules.NoMove, keyed)
			staged = false
		}
	}
	if ply > 0 {
		s.keys = s.keys[:len(s.keys)-1]
		s.board = s.board[:len(s.board)-1]
	}
	if s.aborted {
		return 0, false
	}
	s.tt.store(k, entry{score: best, depth: depth, bound: boundOf(best, alpha0, beta), proven: proven, move: bestMove})
	return best, proven
}

// frontierMinSeeds is the seeds a hole on the board above which a frontier
// node scores its moves in row order (frontier) rather than playing and
// ordering them all: at or below it the game's end is near, and the
// captures first find the game ends and repetitions that prove a score.
const frontierMinSeeds = 3

// scanFrontier reports whether a node one ply from the horizon, with board
// seeds on a board of n holes a row, is searched by frontier. Where a score
// can be proven (few seeds, endgame databases, or a proving search), the
// moves are played and ordered, captures first: a cutoff by a proven move
// then proves the node, where row order would often cut off first with a
// move whose score is only an estimate.
func (s *searcher) scanFrontier(board, n int) bool {
	return board > frontierMinSeeds*n && s.tb == nil && !s.proofMode
}

// frontier searches a node whose children are all leaves. Each move is
// played and scored at once, the table's move first and then the others in
// row order, and the node stops at the first that cuts off: most frontier
// nodes cut off at once, and ordering their moves would cost the sowing of
// every one of them for a gain that a leaf's cheap score does not repay.
func (s *searcher) frontier(p *rules.Position, k uint64, board, depth, ply int, alpha, beta Score, ttMove rules.Move) (Score, bool) {
	n := p.Holes()
	mover := p.ToMove()
	before := p.Captured(mover)
	if ply > 0 {
		s.keys = append(s.keys, k)
		s.board = append(s.board, board)
	}
	c := &s.kids[ply][0].pos
	alpha0 := alpha
	best := -Infinity
	bestMove := rules.NoMove
	proven := true
	holes := sownHoles(p)
	next := ttMove
	for {
		m := next
		if m != rules.NoMove {
			next = rules.NoMove
		} else {
			if holes == 0 {
				break
			}
			m = rules.NewMove(mover, bits.TrailingZeros32(holes))
			holes &= holes - 1
			if m == ttMove {
				continue
			}
		}
		if p.PlayTo(c, m, s.rules) != nil {
			continue
		}
		gain := Score(c.Captured(mover)-before) * Seed
		v, pr := s.leaf(c, ply+1, gain-beta, gain-alpha)
		v = gain - v
		if s.aborted {
			break
		}
		proven = proven && pr
		if v > best {
			best, bestMove = v, m
			if v > alpha {
				alpha = v
				s.pv[ply][ply] = m
				s.pvLen[ply] = ply + 1
				if v >= beta {
					s.rewardHistory(m.Index(n), depth)
					break
				}
			}
		}
	}
	if ply > 0 {
		s.keys = s.keys[:len(s.keys)-1]
		s.board = s.board[:len(s.board)-1]
	}
	if s.aborted {
		return 0, false
	}
	if bestMove == rules.NoMove {
		return -Score(board) * Seed, true // no legal move: the game is over
	}
	s.tt.store(k, entry{score: best, depth: depth, bound: boundOf(best, alpha0, beta), proven: proven, move: bestMove})
	return best, proven
}

// boundOf says what a value best, searched in the window (alpha0, beta),
// tells of the true one.
func boundOf(best, alpha0, beta Score) bound {
	switch {
	case best >= beta:
		return boundLower
	case best <= alpha0:
		return boundUpper
	}
	return boundExact
}

// enter counts a node at ply and returns the seeds on p's board, or false
// when the search is to stop.
func (s *searcher) enter(p *rules.Position, ply int) (board int, ok bool) {
	s.nodes++
	if s.nodes%nodeBatch == 0 {
		s.checkStop()
	}
	if s.aborted {
		return 0, false
	}
	s.pvLen[ply] = ply
	return s.total - p.Captured(rules.South) - p.Captured(rules.North), true // p.OnBoard(), without reading the holes
}

// leaf returns the value of p at the search's horizon: 0 for a
// repetition, the tablebase's value, the game's end, or else the static
// evaluation (after the capture search, if configured). It counts a node
// as negamax does, and whether the value rests on game ends alone.
func (s *searcher) leaf(p *rules.Position, ply int, alpha, beta Score) (Score, bool) {
	board, ok := s.enter(p, ply)
	if !ok {
		return 0, false
	}
	// The key is needed only when the last position on the path has as
	// many seeds on the board: otherwise nothing on it can repeat.
	if ply > 0 && s.mayRepeat(board) && s.repeated(key(p), board) {
		return 0, true
	}
	if s.tb != nil && ply > 0 && board < s.rootBoard {
		if v, ok := s.tb.Probe(p); ok {
			return Score(v) * Seed, true
		}
	}
	if p.RowSeeds(p.ToMove()) == 0 {
		return -Score(board) * Seed, true
	}
	if s.e.cfg.Quiescence > 0 {
		return s.quiesce(p, s.e.cfg.Quiescence, alpha, beta), false
	}
	return s.w.evaluate(p), false
}

// extendPV returns a copy of pv extended to depth moves by following the
// transposition table's best moves, where the search cut the line short
// with a table hit. It stops at a repetition or an illegal table move.
func (s *searcher) extendPV(p rules.Position, pv []rules.Move, depth int) []rules.Move {
	line := append(make([]rules.Move, 0, depth), pv...)
	seen := map[uint64]bool{}
	for _, m := range pv {
		seen[key(&p)] = true
		q, err := p.Play(m, s.rules)
		if err != nil {
			return line
		}
		p = q
	}
	for len(line) < depth {
		k := key(&p)
		if seen[k] {
			break
		}
		seen[k] = true
		e, ok := s.tt.probe(k)
		if !ok || e.move == rules.NoMove {
			break
		}
		q, err := p.Play(e.move, s.rules)
		if err != nil {
			break
		}
		line = append(line, e.move)
		p = q
	}
	return line
}

// quiesce resolves captures at the horizon: the side to move may stand on
// the static evaluation or play a capturing move.
func (s *searcher) quiesce(p *rules.Position, plies int, alpha, beta Score) Score {
	best := s.w.evaluate(p)
	if plies == 0 || best >= beta {
		return best
	}
	alpha = max(alpha, best)
	n := p.Holes()
	mover := p.ToMove()
	before := p.Captured(mover)
	for j := 0; j < n; j++ {
		q, err := p.Play(rules.NewMove(mover, j), s.rules)
		if err != nil {
			continue
		}
		gain := Score(q.Captured(mover)-before) * Seed
		if gain == 0 {
			continue
		}
		s.nodes++
		var v Score
		if q.RowSeeds(q.ToMove()) == 0 {
			v = gain + Score(q.OnBoard())*Seed
		} else {
			v = gain - s.quiesce(&q, plies-1, gain-beta, gain-alpha)
		}
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
