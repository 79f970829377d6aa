package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// defaultSolveMemory is the memory, in GiB, a complete solution may take
// before solve searches instead.
const defaultSolveMemory = 10

var solveCommand = &command{
	name:    "solve",
	summary: "find the game-theoretic value of a start or position with best play on both sides",
	usage:   "[--egtb DIR] [--memory GiB] [--time D] [--variant V] [--max-laps L] <holes> <seeds> | <position>",
	examples: []string{
		"endodoi solve 3 3",
		"endodoi solve --variant cross 4 2",
		"endodoi solve '2,0,1/1,1,0 s 0 0'",
		"endodoi solve --egtb egtb --time 10m 6 4",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		dir := fs.String("egtb", "", "directory of endgame databases to read (and, for a complete solution, to write)")
		memory := fs.Float64("memory", defaultSolveMemory, "GiB a complete solution may use; beyond it, search from the position with the databases")
		searchTime := fs.Duration("time", time.Minute, "how long to search when a complete solution does not fit")
		workers := fs.Int("workers", 0, "worker goroutines (default: one per core)")
		quiet := fs.Bool("quiet", false, "no progress bar")
		return func(ctx context.Context, env Env, args []string) error {
			var p rules.Position
			var err error
			if len(args) == 0 {
				return usagef("want a board (holes a row and seeds a hole) or a position")
			}
			if len(args) == 2 {
				h, errH := strconv.Atoi(args[0])
				s, errS := strconv.Atoi(args[1])
				if errH == nil && errS == nil {
					if p, err = rules.NewPosition(h, s); err != nil {
						return usagef("%v", err)
					}
					args = nil
				}
			}
			if args != nil {
				if p, err = positionOperand(args); err != nil {
					return err
				}
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			if *memory <= 0 {
				return usagef("--memory %v: want a positive number of GiB", *memory)
			}
			if *searchTime <= 0 {
				return usagef("--time %v: want a positive duration", *searchTime)
			}
			if *workers < 0 {
				return usagef("--workers %d: want 0 (one per core) or more", *workers)
			}
			if p.OnBoard() > egtb.MaxSeeds {
				return fmt.Errorf("%d seeds on the board: the solver handles at most %d", p.OnBoard(), egtb.MaxSeeds)
			}
			var progress io.Writer
			if !*quiet {
				progress = env.Stderr
			}
			return solve(ctx, env.Stdout, progress, p, r, solveOptions{dir: *dir, memory: *memory, searchTime: *searchTime, workers: *workers})
		}
	},
}

type solveOptions struct {
	dir        string
	memory     float64 // GiB
	searchTime time.Duration
	workers    int
}

// solveMemory estimates the bytes a complete in-memory solution of every
// count up to n seeds takes: the values and depths of every count, and the
// largest count's working arrays with some room for the garbage collector
// (36 bytes a position; 2×5×3 peaked at 9.0 GiB against 9.5 estimated).
func solveMemory(holes, n int) float64 {
	return 3*float64(egtb.CumulativeSize(holes, n)) + 36*float64(egtb.Size(holes, n))
}

func solve(ctx context.Context, w, progress io.Writer, p rules.Position, r rules.Rules, opt solveOptions) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	holes, n := p.Holes(), p.OnBoard()
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "board: %d holes a row, %d seeds on the board, %s\n", holes, n, r)
	need := solveMemory(holes, n)
	if need > opt.memory*(1<<30) {
		fmt.Fprintf(w, "method: search with the endgame databases (a complete solution would take about %.1f GiB, more than --memory %.4g)\n", need/(1<<30), opt.memory)
		return solveBySearch(ctx, w, p, r, opt)
	}
	positions := egtb.CumulativeSize(holes, n)
	fmt.Fprintf(w, "method: retrograde analysis of every position with up to %d seeds on the board: %d positions with South to move (as many with North, their mirror images)\n",
		n, positions)
	bar := newProgressBar(progress)
	start := time.Now()
	tb, err := egtb.Build(ctx, egtb.Options{Holes: holes, MaxSeeds: n, Rules: r, Dir: opt.dir, Workers: opt.workers, Depths: true,
		Progress: func(pr egtb.Progress) {
			bar.draw(fmt.Sprintf("%d of %d seeds", pr.Seeds, pr.MaxSeeds), pr.Done, pr.Total, pr.Elapsed)
		}})
	bar.end()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("interrupted")
		}
		return err
	}
	printMemory(w, start)
	v, err := tb.Value(p)
	if err != nil {
		return err
	}
	return printSolution(w, tb, p, v, "")
}

// printMemory prints the time since start and the memory taken from the
// system.
func printMemory(w io.Writer, start time.Time) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "time %v, memory %.2f GiB\n", time.Since(start).Round(time.Millisecond), float64(ms.Sys)/(1<<30))
}

// printLine prints a principal variation from p and where it ends.
func printLine(w io.Writer, p rules.Position, line []rules.Move, r rules.Rules) {
	if len(line) == 0 {
		fmt.Fprintf(w, "principal variation: none\n")
	} else {
		fmt.Fprintf(w, "principal variation (%d moves): %s\n", len(line), moveList(line))
	}
	end := p
	for _, m := range line {
		end, _ = end.Play(m, r)
	}
	if !end.HasLegalMove(r) {
		f := end.Final()
		fmt.Fprintf(w, "it ends: %s has no legal move; %s\n", end.ToMove(), resultText(f.Captured(rules.South), f.Captured(rules.North)))
		return
	}
	fmt.Fprintf(w, "it reaches %s, where the best moves go round a cycle: the repetition rule ends the game with the seeds on the board counting for neither\n", end)
}

// printSolution prints the principal variation (from the databases when tb
// is not nil), the result and the value line that ends solve's output.
func printSolution(w io.Writer, tb *egtb.Tablebase, p rules.Position, v int, note string) error {
	if tb != nil {
		pv, err := tb.PV(p, 400)
		if err != nil {
			return err
		}
		printLine(w, p, pv, tb.Rules())
	}
	fmt.Fprintf(w, "result: %s%s\n", egtb.Describe(p, v), note)
	fmt.Fprintf(w, "value %s\n", signed(egtb.SouthValue(p, v)))
	return nil
}

// solveBySearch searches p with the engine and the databases in opt.dir
// for up to half the time, then with bounding searches of growing depth,
// which confirm the engine's value or, when it found none, bound it.
func solveBySearch(ctx context.Context, w io.Writer, p rules.Position, r rules.Rules, opt solveOptions) error {
	dir := opt.dir
	if dir == "" {
		dir = defaultEGTBDir
	}
	tb, err := openTablebase(dir, p.Holes(), r)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "databases: %s, up to %d seeds on the board\n", dir, tb.MaxSeeds())
	if v, err := tb.Value(p); err == nil {
		return printSolution(w, tb, p, v, "")
	}
	start := time.Now()
	e, err := engine.New(engine.Config{Rules: r, Tablebase: tb, HashMiB: 256})
	if err != nil {
		return err
	}
	// The engine's search and the bounds run side by side, one core each.
	// The bounds, deeper and deeper until they meet, are a second,
	// independent proof (no transposition table) when the engine proves
	// the value, and the best that is known when it does not; once they
	// meet, the engine's search is not needed any more.
	sctx, stopSearch := context.WithCancel(ctx)
	defer stopSearch()
	type searched struct {
		res engine.Result
		err error
	}
	done := make(chan searched, 1)
	go func() {
		res, err := e.Search(sctx, p, nil, engine.Limits{MoveTime: opt.searchTime}, nil)
		done <- searched{res, err}
	}()
	bctx, cancel := context.WithDeadline(ctx, start.Add(opt.searchTime))
	defer cancel()
	n := p.OnBoard()
	lo, hi, depth := -n, n, 0
	for d := 1; d <= engine.MaxDepth && lo < hi; d++ {
		began := time.Now()
		l, h, nodes, err := tb.Bounds(bctx, p, d)
		if err != nil {
			break
		}
		lo, hi, depth = max(lo, l), min(hi, h), d
		a, b := egtb.SouthValue(p, lo), egtb.SouthValue(p, hi)
		fmt.Fprintf(w, "bounds at depth %d: %s to %s (%d nodes, %v)\n", d, signed(min(a, b)), signed(max(a, b)),
			nodes, time.Since(began).Round(time.Millisecond))
	}
	if lo == hi {
		stopSearch()
	}
	got := <-done
	if ctx.Err() != nil {
		return fmt.Errorf("interrupted")
	}
	res := got.res
	if got.err != nil && !errors.Is(got.err, context.Canceled) {
		return got.err
	}
	fmt.Fprintf(w, "engine search: depth %d, %d nodes, %v, score %s%s\n", res.Depth, res.Nodes, res.Elapsed.Round(time.Millisecond),
		res.Score, map[bool]string{true: " (exact)", false: " (estimate)"}[res.Exact])
	exact := res.Exact && res.Score%engine.Seed == 0
	v := int(res.Score / engine.Seed)
	switch {
	case exact && lo == hi && lo != v:
		return fmt.Errorf("the engine's exact %+d and the bounds' %+d disagree", v, lo)
	case exact && lo == hi:
		fmt.Fprintf(w, "the bounds confirm the engine's value at depth %d\n", depth)
	case exact:
		fmt.Fprintf(w, "the bounds did not meet in the time left; the value rests on the engine's search alone\n")
	case lo == hi:
		v, exact = lo, true
	}
	if exact && !res.Exact {
		printMemory(w, start)
		fmt.Fprintf(w, "the line the engine expects (its score is an estimate, the line is not proven best): %s\n", moveList(res.PV))
		return printSolution(w, nil, p, v, "")
	}
	if exact {
		// The engine's line ends where the databases take over: go on
		// with theirs.
		line := res.PV
		end := p
		for i, m := range line {
			q, err := end.Play(m, r)
			if err != nil {
				line = line[:i]
				break
			}
			end = q
		}
		if _, err := tb.Value(end); err == nil {
			more, _ := tb.PV(end, 400)
			line = append(line, more...)
		}
		printMemory(w, start)
		printLine(w, p, line, r)
		return printSolution(w, nil, p, v, "")
	}
	printMemory(w, start)
	a, b := egtb.SouthValue(p, lo), egtb.SouthValue(p, hi)
	if a > b {
		a, b = b, a
	}
	fmt.Fprintf(w, "not solved: searched %v; the bounds of depth %d hold, the engine's estimate is %s\n", opt.searchTime, depth, res.Score)
	fmt.Fprintf(w, "value unknown, between %s and %s\n", signed(a), signed(b))
	return nil
}
