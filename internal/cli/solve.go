package cli

import (
	"cmp"
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
	"github.com/endodoi/endodoi/internal/terminal"
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
			var progress io.Writer
			if !*quiet {
				progress = env.Stderr
			}
			return solve(ctx, env.Stdout, progress, p, egtb.SolveOptions{Rules: r, Dir: *dir, Memory: *memory * (1 << 30),
				SearchTime: *searchTime, Workers: *workers})
		}
	},
}

func solve(ctx context.Context, w, progress io.Writer, p rules.Position, opt egtb.SolveOptions) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "board: %d holes a row, %d seeds on the board, %s\n", p.Holes(), p.OnBoard(), opt.Rules)
	if need := egtb.SolveMemory(p.Holes(), p.OnBoard()); need > opt.Memory {
		fmt.Fprintf(w, "method: search with the endgame databases (a complete solution would take about %.1f GiB, more than --memory %.4g)\n",
			need/(1<<30), opt.Memory/(1<<30))
	} else {
		fmt.Fprintf(w, "method: retrograde analysis of every position with up to %d seeds on the board: %d positions with South to move (as many with North, their mirror images)\n",
			p.OnBoard(), egtb.CumulativeSize(p.Holes(), p.OnBoard()))
	}
	bar := terminal.NewProgressBar(progress)
	opt.Progress = func(pr egtb.Progress) {
		bar.Draw(fmt.Sprintf("%d of %d seeds", pr.Seeds, pr.MaxSeeds), pr.Done, pr.Total, pr.Elapsed)
	}
	opt.Bound = func(b egtb.Bound) {
		fmt.Fprintf(w, "bounds at depth %d: %s to %s (%d nodes, %v)\n", b.Depth, signed(b.Lo), signed(b.Hi), b.Nodes, b.Elapsed.Round(time.Millisecond))
	}
	opt.Search = func(ctx context.Context, tb *egtb.Tablebase, p rules.Position) (egtb.EngineResult, error) {
		e, err := engine.New(engine.Config{Rules: opt.Rules, Tablebase: tb, HashMiB: 256})
		if err != nil {
			return egtb.EngineResult{}, err
		}
		res, err := e.Search(ctx, p, nil, engine.Limits{}, nil)
		return egtb.EngineResult{Depth: res.Depth, Nodes: res.Nodes, Elapsed: res.Elapsed, Score: int(res.Score), Exact: res.Exact, PV: res.PV}, err
	}
	sol, err := egtb.Solve(ctx, p, opt)
	bar.End()
	switch {
	case errors.Is(err, egtb.ErrNotFound):
		return noDatabase(cmp.Or(opt.Dir, egtb.DefaultDir), p.Holes(), opt.Rules)
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted")
	case err != nil:
		return err
	}
	if tb := sol.Databases; tb != nil {
		fmt.Fprintf(w, "databases: %s, up to %d seeds on the board\n", tb.Dir(), tb.MaxSeeds())
	}
	if res := sol.Engine; res != nil {
		fmt.Fprintf(w, "engine search: depth %d, %d nodes, %v, score %s%s\n", res.Depth, res.Nodes, res.Elapsed.Round(time.Millisecond),
			engine.Score(res.Score), map[bool]string{true: " (exact)", false: " (estimate)"}[res.Exact])
		switch {
		case sol.Confirmed:
			fmt.Fprintf(w, "the bounds confirm the engine's value at depth %d\n", sol.Bounds.Depth)
		case res.Exact:
			fmt.Fprintf(w, "the bounds did not meet in the time left; the value rests on the engine's search alone\n")
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "time %v, memory %.2f GiB\n", sol.Elapsed.Round(time.Millisecond), float64(ms.Sys)/(1<<30))
	if !sol.Solved {
		fmt.Fprintf(w, "not solved: searched %v; the bounds of depth %d hold, the engine's estimate is %s\n", opt.SearchTime, sol.Bounds.Depth, engine.Score(sol.Engine.Score))
		fmt.Fprintf(w, "value unknown, between %s and %s\n", signed(sol.Bounds.Lo), signed(sol.Bounds.Hi))
		return nil
	}
	if sol.PVProven {
		printLine(w, p, sol.PV, opt.Rules)
	} else {
		fmt.Fprintf(w, "the line the engine expects (its score is an estimate, the line is not proven best): %s\n", rules.MoveList(sol.PV))
	}
	fmt.Fprintf(w, "result: %s\n", egtb.Describe(p, sol.Value))
	fmt.Fprintf(w, "value %s\n", signed(egtb.SouthValue(p, sol.Value)))
	return nil
}

// printLine prints a principal variation from p and where it ends.
func printLine(w io.Writer, p rules.Position, line []rules.Move, r rules.Rules) {
	if len(line) == 0 {
		fmt.Fprintf(w, "principal variation: none\n")
	} else {
		fmt.Fprintf(w, "principal variation (%d moves): %s\n", len(line), rules.MoveList(line))
	}
	end := p
	for _, m := range line {
		end, _ = end.Play(m, r)
	}
	if !end.HasLegalMove(r) {
		f := end.Final()
		fmt.Fprintf(w, "it ends: %s has no legal move; %s\n", end.ToMove(), rules.ResultText(f.Captured(rules.South), f.Captured(rules.North)))
		return
	}
	fmt.Fprintf(w, "it reaches %s, where the best moves go round a cycle: the repetition rule ends the game with the seeds on the board counting for neither\n", end)
}
