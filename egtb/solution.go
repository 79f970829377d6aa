package egtb

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// DefaultDir is where Solve looks for databases to search with when
// SolveOptions.Dir is empty: a directory "egtb" under the working
// directory.
const DefaultDir = "egtb"

// SolveOptions configure Solve.
type SolveOptions struct {
	Rules rules.Rules
	// Dir is where a complete solution writes its databases (empty: it
	// keeps them in memory) and where a search reads them (empty:
	// DefaultDir).
	Dir string
	// Memory is the bytes a complete solution may take; beyond it, Solve
	// searches from the position with the databases in Dir.
	Memory float64
	// SearchTime bounds a search.
	SearchTime time.Duration
	// Workers of a complete solution; 0 means one per core.
	Workers int
	// BoundsMiB is the MiB of the bounding search's table when searching
	// (0: DefaultBoundsMiB); the tests of an engine's value take twice
	// that, a copy for each.
	BoundsMiB int
	// Search is the engine's search of p with tb's help, run until ctx is
	// done or it proves p's value, beside the bounding searches. Without
	// it the bounding searches have both cores: the lower and the upper
	// bound's searches of each depth run side by side.
	Search func(ctx context.Context, tb *Tablebase, p rules.Position) (EngineResult, error)
	// Progress, if not nil, receives a complete solution's progress.
	Progress func(Progress)
	// Bound, if not nil, receives each bounding search's result as it
	// comes.
	Bound func(Bound)
	// Checkpoint, if not empty, is a folder where a search writes its
	// bounding search's progress (see SaveCheckpoint) at most every
	// CheckpointEvery (0: a minute) and when it stops, and from which it
	// resumes when the folder holds a checkpoint of the same position.
	Checkpoint      string
	CheckpointEvery time.Duration
}

// EngineResult is what the engine's search found.
type EngineResult struct {
	Depth   int
	Nodes   uint64
	Elapsed time.Duration
	// Score is the future capture margin for the side to move, in
	// hundredths of a seed; Exact when it is proven.
	Score int
	Exact bool
	PV    []rules.Move
	// ScoreText is Score as the engine writes it, for the report.
	ScoreText string
}

// Bound is the result of a bounding search (Tablebase.Bounds) of one
// depth: the value lies between Lo and Hi, from South's view, Lo <= Hi.
type Bound struct {
	Depth   int
	Lo, Hi  int
	Nodes   uint64
	Elapsed time.Duration
	// Test, when not empty, tells that this was a test of one side of the
	// bounds ("lower" or "upper") at the engine's exact value, Target from
	// South's view (Bounder.AtLeast, AtMost), and Held whether the bound
	// reached it.
	Test   string
	Target int
	Held   bool
	// Resumed tells that these are the bounds of a checkpoint the search
	// resumed from, with the nodes and time of the runs before; Cold that
	// the checkpoint's table was not there, and the search goes on without;
	// Deeper that the checkpoint was made over databases of fewer counts
	// (the search goes on over these, cold).
	Resumed, Cold, Deeper bool
}

// Method is how Solve went about a position.
type Method int

// Solve's methods.
const (
	// Complete is retrograde analysis of every position with up to the
	// position's seeds on the board.
	Complete Method = iota
	// Searched is the engine's search with the databases in Dir, side by
	// side with bounding searches.
	Searched
)

// Solution is what Solve found.
type Solution struct {
	Method Method
	// Memory is the estimated bytes of a complete solution.
	Memory float64
	// Positions is the positions (South to move) a complete solution
	// solved.
	Positions uint64
	// Databases is the databases a search read; nil for Complete.
	Databases *Tablebase
	// Solved reports that Value, for the side to move, is proven.
	Solved bool
	Value  int
	// PV is the line of best play, when Solved; PVProven is false when
	// it is the engine's expectation rather than a proof.
	PV       []rules.Move
	PVProven bool
	// Engine is the engine's search, when one ran.
	Engine *EngineResult
	// Best is the move the bounding search found best for the lower
	// bound, NoMove if none: where the bounds met, a move that keeps the
	// value.
	Best rules.Move
	// Bounds is the deepest bounding search; Confirmed reports that the
	// bounds met at the engine's exact value.
	Bounds    Bound
	Confirmed bool
	Elapsed   time.Duration
}

// SolveMemory estimates the bytes a complete in-memory solution of every
// count up to n seeds takes: the values and depths of every count, and the
// largest count's working arrays and queues with some room for the garbage
// collector (12 bytes a position; 2×5×2 peaked at 200 MB against 210
// estimated).
func SolveMemory(holes, n int) float64 {
	return 3*float64(CumulativeSize(holes, n)) + 12*float64(Size(holes, n))
}

// searches reports whether Solve searches from p rather than solve every
// position up to p's seeds: when that would take more than opt.Memory.
func (opt SolveOptions) searches(p rules.Position) bool {
	return SolveMemory(p.Holes(), p.OnBoard()) > opt.Memory
}

// maxPV bounds the principal variations Solve reads from the databases.
const maxPV = 400

// Solve finds p's game-theoretic value: by retrograde analysis of every
// position with up to p's seeds on the board when that fits in
// opt.Memory, otherwise by the engine's search (opt.Search) with the
// databases in opt.Dir for up to opt.SearchTime, beside bounding searches
// of growing depth, which confirm the engine's value or, when it finds
// none, bound it.
func Solve(ctx context.Context, p rules.Position, opt SolveOptions) (Solution, error) {
	if p.OnBoard() > MaxSeeds {
		return Solution{}, fmt.Errorf("%d seeds on the board: the solver handles at most %d", p.OnBoard(), MaxSeeds)
	}
	sol := Solution{Memory: SolveMemory(p.Holes(), p.OnBoard()), Best: rules.NoMove}
	start := time.Now()
	if opt.searches(p) {
		sol.Method = Searched
		err := solveBySearch(ctx, p, opt, &sol)
		sol.Elapsed = time.Since(start)
		return sol, err
	}
	sol.Positions = CumulativeSize(p.Holes(), p.OnBoard())
	tb, err := Build(ctx, Options{Holes: p.Holes(), MaxSeeds: p.OnBoard(), Rules: opt.Rules, Dir: opt.Dir,
		Workers: opt.Workers, Depths: true, Progress: opt.Progress})
	if err != nil {
		return sol, err
	}
	err = sol.fromDatabases(tb, p)
	sol.Elapsed = time.Since(start)
	return sol, err
}

// fromDatabases sets the solution from databases that hold p.
func (sol *Solution) fromDatabases(tb *Tablebase, p rules.Position) error {
	v, err := tb.Value(p)
	if err != nil {
		return err
	}
	pv, err := tb.PV(p, maxPV)
	if err != nil {
		return err
	}
	sol.Solved, sol.Value, sol.PV, sol.PVProven = true, v, pv, true
	return nil
}

func solveBySearch(ctx context.Context, p rules.Position, opt SolveOptions, sol *Solution) error {
	dir := opt.Dir
	if dir == "" {
		dir = DefaultDir
	}
	tb, err := Open(dir, p.Holes(), opt.Rules)
	if err != nil {
		return err
	}
	sol.Databases = tb
	if _, err := tb.Value(p); err == nil {
		return sol.fromDatabases(tb, p)
	}
	start := time.Now()
	// The engine's search and the bounds run side by side, one core each.
	// The bounds, deeper and deeper until they meet, are a second,
	// independent proof when the engine proves the value (their own code
	// and table, which keeps values only where they cannot depend on the
	// path), and the best that is known when it does not; once they meet,
	// the engine's search is not needed any more.
	sctx, stopSearch := context.WithDeadline(ctx, start.Add(opt.SearchTime))
	defer stopSearch()
	type searched struct {
		res EngineResult
		err error
	}
	done := make(chan searched, 1)
	// proved is closed when the engine's search ends with an exact value:
	// then the bounds stop their search of all values for a test of that
	// one (confirm).
	proved := make(chan struct{})
	go func() {
		if opt.Search == nil {
			// The bounds alone, on both cores.
			done <- searched{}
			return
		}
		res, err := opt.Search(sctx, tb, p)
		if err == nil && res.Exact && res.Score%100 == 0 {
			close(proved)
		}
		done <- searched{res, err}
	}()
	bctx, cancel := context.WithDeadline(ctx, start.Add(opt.SearchTime))
	defer cancel()
	fctx, stopFull := context.WithCancel(bctx)
	defer stopFull()
	go func() {
		select {
		case <-proved:
			stopFull()
		case <-fctx.Done():
		}
	}()
	n := p.OnBoard()
	lo, hi := -n, n
	sol.Bounds = Bound{Lo: -n, Hi: n}
	tableMiB := opt.BoundsMiB
	if tableMiB <= 0 {
		tableMiB = DefaultBoundsMiB
	}
	bd, err := tb.NewBounder(p, tableMiB)
	if err != nil {
		return err
	}
	depth := 0 // the deepest bounds found
	cp := Checkpoint{Lo: lo, Hi: hi}
	if opt.Checkpoint != "" {
		c, err := LoadCheckpoint(opt.Checkpoint, bd)
		switch {
		case err == nil:
			cp, depth, lo, hi = c, c.Depth, c.Lo, c.Hi
			sol.setBounds(p, Bound{Depth: depth, Nodes: c.Nodes, Elapsed: c.Elapsed, Resumed: true, Cold: c.Cold, Deeper: c.Deeper}, lo, hi)
			if opt.Bound != nil {
				opt.Bound(sol.Bounds)
			}
		case !errors.Is(err, ErrNoCheckpoint):
			return err
		}
	}
	every := opt.CheckpointEvery
	if every <= 0 {
		every = time.Minute
	}
	saved, savedDepth := time.Now(), depth
	save := func() error {
		if opt.Checkpoint == "" || savedDepth == depth {
			return nil
		}
		saved, savedDepth = time.Now(), depth
		cp.Depth, cp.Lo, cp.Hi = depth, lo, hi
		if err := SaveCheckpoint(opt.Checkpoint, bd, cp); err != nil {
			return fmt.Errorf("the checkpoint: %w", err)
		}
		return nil
	}
	var upper *Bounder // without the engine, the upper bound's searcher
	if opt.Search == nil {
		upper = bd.Clone()
	}
	for d := depth + 1; d <= maxBoundsDepth && lo < hi; d++ {
		began := time.Now()
		// Each depth's bounds lie within the last's: its searches look
		// only there.
		var l, h int
		var nodes uint64
		var err error
		if upper != nil {
			l, h, nodes, err = bd.WithinSideBySide(fctx, upper, d, lo, hi)
		} else {
			l, h, nodes, err = bd.Within(fctx, d, lo, hi)
		}
		if errors.Is(err, ErrNotBounds) {
			return fmt.Errorf("%w (resumed from a checkpoint with wrong bounds?)", err)
		}
		if err != nil {
			break
		}
		lo, hi, depth = max(lo, l), min(hi, h), d
		cp.Nodes += nodes
		cp.Elapsed += time.Since(began)
		sol.setBounds(p, Bound{Depth: d, Nodes: nodes, Elapsed: time.Since(began)}, lo, hi)
		if opt.Bound != nil {
			opt.Bound(sol.Bounds)
		}
		if time.Since(saved) >= every {
			if err := save(); err != nil {
				return err
			}
		}
	}
	if err := save(); err != nil {
		return err
	}
	if lo == hi {
		stopSearch()
	}
	sol.Best = bd.Best()
	got := <-done
	if err := ctx.Err(); err != nil {
		return err
	}
	if got.err != nil && !errors.Is(got.err, context.Canceled) && !errors.Is(got.err, context.DeadlineExceeded) {
		return fmt.Errorf("the engine's search: %w", got.err)
	}
	res := got.res
	if opt.Search != nil {
		sol.Engine = &res
	}
	exact := res.Exact && res.Score%100 == 0
	v := res.Score / 100
	if exact && (v < lo || v > hi) {
		return fmt.Errorf("the engine's exact %+d lies outside the bounds %+d to %+d", v, lo, hi)
	}
	if exact && lo < hi {
		lo, hi = sol.confirm(bctx, p, bd, v, lo, hi, depth+1, opt.Bound)
	}
	switch {
	case exact && lo == hi && lo != v:
		return fmt.Errorf("the engine's exact %+d and the bounds' %+d disagree", v, lo)
	case exact && lo == hi:
		sol.Confirmed = true
	case lo == hi:
		v, exact = lo, true
	}
	if !exact {
		return nil
	}
	sol.Solved, sol.Value = true, v
	if !res.Exact {
		// Proven by the bounds alone: the engine's line is its estimate.
		sol.PV = res.PV
		return nil
	}
	// The engine's line ends where the databases take over: go on with
	// theirs.
	line := append([]rules.Move(nil), res.PV...)
	end := p
	for i, m := range line {
		q, err := end.Play(m, opt.Rules)
		if err != nil {
			line = line[:i]
			break
		}
		end = q
	}
	if _, err := tb.Value(end); err == nil {
		more, _ := tb.PV(end, maxPV)
		line = append(line, more...)
	}
	sol.PV, sol.PVProven = line, true
	return nil
}

// setBounds records the bounds lo and hi of p's side to move in
// sol.Bounds, from South's view, with the rest of b.
func (sol *Solution) setBounds(p rules.Position, b Bound, lo, hi int) {
	x, y := SouthValue(p, lo), SouthValue(p, hi)
	b.Lo, b.Hi = min(x, y), max(x, y)
	sol.Bounds = b
}

// confirm tests the engine's exact value v (for p's side to move) with
// the bounding searches, given bounds lo < hi already found, from depth
// from on: the lower bound with AtLeast and the upper with AtMost, side by
// side on one core each (the engine's is free now), each deepening until
// it reaches v or ctx is done. It returns the bounds then, and reports
// each test to report, if not nil.
func (sol *Solution) confirm(ctx context.Context, p rules.Position, bd *Bounder, v, lo, hi, from int, report func(Bound)) (int, int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	depths := [2]int{}
	var nodes uint64
	began := time.Now()
	test := func(bd *Bounder, lower bool) {
		defer wg.Done()
		for d := from; d <= maxBoundsDepth; d++ {
			t0 := time.Now()
			var ok bool
			var bound int
			var n uint64
			var err error
			if lower {
				ok, bound, n, err = bd.AtLeast(ctx, d, v)
			} else {
				ok, bound, n, err = bd.AtMost(ctx, d, v)
			}
			if err != nil {
				return
			}
			mu.Lock()
			nodes += n
			b := Bound{Depth: d, Nodes: n, Elapsed: time.Since(t0), Test: "upper", Target: SouthValue(p, v), Held: ok}
			if lower {
				b.Test = "lower"
			}
			if ok && lower {
				lo = max(lo, bound)
			}
			if ok && !lower {
				hi = min(hi, bound)
			}
			if ok {
				depths[b2i(lower)] = d
			}
			x, y := SouthValue(p, lo), SouthValue(p, hi)
			b.Lo, b.Hi = min(x, y), max(x, y)
			if report != nil {
				report(b)
			}
			mu.Unlock()
			if ok {
				return
			}
		}
	}
	upper := bd
	if lo < v && hi > v {
		upper = bd.clone() // before either side writes to bd's table
	}
	if lo < v {
		wg.Add(1)
		go test(bd, true)
	}
	if hi > v {
		wg.Add(1)
		go test(upper, false)
	}
	wg.Wait()
	if d := max(depths[0], depths[1]); d > 0 {
		sol.setBounds(p, Bound{Depth: d, Nodes: nodes, Elapsed: time.Since(began)}, lo, hi)
	}
	return lo, hi
}

// DefaultBoundsMiB is the table of Solve's bounding searches unless
// SolveOptions say otherwise.
const DefaultBoundsMiB = 512

// maxBoundsDepth bounds the bounding searches' depth, as the engine's
// search is.
const maxBoundsDepth = 200
