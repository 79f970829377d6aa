package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/enginesolve"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

// defaultSolveMemory is the memory, in GiB, a complete solution may take
// before solve searches instead.
const defaultSolveMemory = 10

// maxBoundsMiB caps solve's --bounds-table: twice it, with the engine's
// largest table, still fits a machine with 64 GiB.
const maxBoundsMiB = 16 << 10

var solveCommand = &command{
	name:    "solve",
	summary: "find the game-theoretic value of a start or position with best play on both sides",
	usage:   "[--egtb DIR] [--memory GiB] [--time D] [--hash MiB] [--bounds-table MiB] [--variant V] [--max-laps L] <holes> <seeds> | <position>",
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
		hash := fs.Int("hash", enginesolve.DefaultHashMiB, fmt.Sprintf("MiB of the engine search's transposition table when searching (1 to %d): more helps a long search", engine.MaxHashMiB))
		boundsMiB := fs.Int("bounds-table", egtb.DefaultBoundsMiB, fmt.Sprintf("MiB of the bounding search's table when searching (1 to %d), twice that while it tests the engine's value", maxBoundsMiB))
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
			if err := inRange("hash", *hash, 1, engine.MaxHashMiB); err != nil {
				return err
			}
			if err := inRange("bounds-table", *boundsMiB, 1, maxBoundsMiB); err != nil {
				return err
			}
			progress := unlessQuiet(env.Stderr, *quiet)
			opt := egtb.SolveOptions{Rules: r, Dir: *dir, Memory: *memory * (1 << 30), SearchTime: *searchTime, Workers: *workers,
				BoundsMiB: *boundsMiB, Search: enginesolve.Search(r, *hash)}
			return solve(ctx, env.Stdout, progress, p, opt)
		}
	},
}

func solve(ctx context.Context, w, progress io.Writer, p rules.Position, opt egtb.SolveOptions) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	egtb.WriteSolvePlan(w, p, opt)
	bar := terminal.NewProgressBar(progress)
	opt.Progress = func(pr egtb.Progress) { bar.Draw(pr.String(), pr.Done, pr.Total, pr.Elapsed) }
	opt.Bound = func(b egtb.Bound) { fmt.Fprintln(w, b) }
	sol, err := egtb.Solve(ctx, p, opt)
	bar.End()
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("interrupted")
	case err != nil:
		return err
	}
	sol.Write(w, p, opt)
	return nil
}
