package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

// defaultEGTBDir is where the endgame databases live unless --dir says
// otherwise: a directory "egtb" under the working directory.
const defaultEGTBDir = egtb.DefaultDir

var egtbCommand = &command{
	name:    "egtb",
	summary: "build, probe and verify endgame databases (exact values of every endgame)",
	usage: "build --holes H --max-seeds N [--dir D] [--variant V] [--max-laps L] [--workers W]\n" +
		"       endodoi egtb probe [--dir D] [--variant V] [--max-laps L] <position>\n" +
		"       endodoi egtb verify --holes H [--seeds N] [--dir D] [--variant V] [--max-laps L]",
	examples: []string{
		"endodoi egtb build --holes 6 --max-seeds 12",
		"endodoi egtb probe '1,0,2,0,0,1/0,1,0,2,0,0 s 20 19'",
		"endodoi egtb verify --holes 6",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		dir := fs.String("dir", defaultEGTBDir, "directory of the database files, created by build; relative to the working directory")
		holes := fs.Int("holes", 0, "build, verify: holes a row of the board")
		maxSeeds := fs.Int("max-seeds", 0, fmt.Sprintf("build: solve every position with up to this many seeds on the board (0 to %d)", egtb.MaxSeeds))
		seeds := fs.Int("seeds", -1, "verify: check only this seed count (-1: every count found)")
		workers := fs.Int("workers", 0, "build, verify: worker goroutines (default: one per core)")
		quiet := fs.Bool("quiet", false, "build, verify: no progress bar")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) == 0 {
				return usagef("want a subcommand: build, probe or verify")
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if *workers < 0 {
				return usagef("--workers %d: want 0 (one per core) or more", *workers)
			}
			var progress io.Writer
			if !*quiet {
				progress = env.Stderr
			}
			sub, args := args[0], args[1:]
			switch sub {
			case "build":
				if len(args) > 0 {
					return usagef("build takes no arguments (got %q)", args[0])
				}
				if !set["holes"] || !set["max-seeds"] {
					return usagef("build needs --holes and --max-seeds")
				}
				if *holes < rules.MinHoles || *holes > rules.MaxHoles {
					return usagef("--holes %d out of range (%d to %d)", *holes, rules.MinHoles, rules.MaxHoles)
				}
				if *maxSeeds < 0 || *maxSeeds > egtb.MaxSeeds {
					return usagef("--max-seeds %d out of range (0 to %d)", *maxSeeds, egtb.MaxSeeds)
				}
				return egtbBuild(ctx, env, progress, egtb.Options{Holes: *holes, MaxSeeds: *maxSeeds, Rules: r, Dir: *dir, Workers: *workers})
			case "probe":
				if len(args) == 0 {
					return usagef("probe wants a position")
				}
				p, err := positionOperand(args)
				if err != nil {
					return err
				}
				return egtbProbe(env.Stdout, *dir, p, r)
			case "verify":
				if len(args) > 0 {
					return usagef("verify takes no arguments (got %q)", args[0])
				}
				if !set["holes"] {
					return usagef("verify needs --holes")
				}
				if *holes < rules.MinHoles || *holes > rules.MaxHoles {
					return usagef("--holes %d out of range (%d to %d)", *holes, rules.MinHoles, rules.MaxHoles)
				}
				return egtbVerify(ctx, env, progress, *dir, *holes, *seeds, r, *workers)
			}
			return usagef("unknown subcommand %q: want build, probe or verify", sub)
		}
	},
}

// interruptible returns ctx cancelled also by Ctrl-C or SIGTERM.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

func egtbBuild(ctx context.Context, env Env, progress io.Writer, opt egtb.Options) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	bar := terminal.NewProgressBar(progress)
	var last egtb.Progress
	opt.Progress = func(p egtb.Progress) {
		last = p
		rate := ""
		if p.Elapsed > 0 {
			rate = fmt.Sprintf("%.1f M pos/s", float64(p.Done)/3/p.Elapsed.Seconds()/1e6)
		}
		bar.Draw(fmt.Sprintf("%d of %d seeds  %s", p.Seeds, p.MaxSeeds, rate), p.Done, p.Total, p.Elapsed)
	}
	start := time.Now()
	tb, err := egtb.Build(ctx, opt)
	bar.End()
	if err != nil {
		if errors.Is(err, context.Canceled) {
			if last.Seeds == 0 {
				return fmt.Errorf("interrupted before any count was finished")
			}
			return fmt.Errorf("interrupted while solving %d seeds; counts 0 to %d are finished in %s: run the same command again to resume",
				last.Seeds, last.Seeds-1, opt.Dir)
		}
		return err
	}
	var positions, bytes uint64
	for n := 0; n <= opt.MaxSeeds; n++ {
		positions += egtb.Size(opt.Holes, n)
		bytes += egtb.Size(opt.Holes, n) + 40
	}
	elapsed := time.Since(start)
	egtb.WriteStats(env.Stdout, tb.Stats())
	fmt.Fprintf(env.Stdout, "built %d holes a row, 0 to %d seeds, %s: %d positions (South to move; North's are their mirror images), %d bytes in %s\n",
		opt.Holes, opt.MaxSeeds, tb.Rules(), positions, bytes, opt.Dir)
	solved := positions
	if last.Loaded > 0 {
		fmt.Fprintf(env.Stdout, "%d counts were already built and were read from their files\n", last.Loaded)
		solved = last.Total / 3
	}
	fmt.Fprintf(env.Stdout, "time %v, %.2f M positions/s\n", elapsed.Round(time.Millisecond), float64(solved)/max(elapsed.Seconds(), 1e-9)/1e6)
	return nil
}

// openTablebase opens the databases in dir for p's board under r, with an
// error that says what to build when there are none.
func openTablebase(dir string, holes int, r rules.Rules) (*egtb.Tablebase, error) {
	tb, err := egtb.Open(dir, holes, r)
	if errors.Is(err, egtb.ErrNotFound) {
		return nil, noDatabase(dir, holes, r)
	}
	return tb, err
}

// noDatabase says that dir has no databases for the board and what to
// build.
func noDatabase(dir string, holes int, r rules.Rules) error {
	return fmt.Errorf("no endgame database for %d holes a row under %s in %s; build one with: endodoi egtb build --holes %d --max-seeds N --dir %s",
		holes, r, dir, holes, dir)
}

func egtbProbe(w io.Writer, dir string, p rules.Position, r rules.Rules) error {
	tb, err := openTablebase(dir, p.Holes(), r)
	if err != nil {
		return err
	}
	v, err := tb.Value(p)
	if errors.Is(err, egtb.ErrBeyond) {
		return fmt.Errorf("%s has %d seeds on the board, but the databases in %s for %d holes a row hold positions with at most %d; build more with: endodoi egtb build --holes %d --max-seeds %d --dir %s",
			p, p.OnBoard(), dir, p.Holes(), tb.MaxSeeds(), p.Holes(), p.OnBoard(), dir)
	}
	if err != nil {
		return err
	}
	return tb.WriteProbe(w, p, v)
}

// signed writes a value with an explicit sign, and 0 as "0".
func signed(v int) string { return egtb.Signed(v) }

func egtbVerify(ctx context.Context, env Env, progress io.Writer, dir string, holes, seeds int, r rules.Rules, workers int) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	tb, err := openTablebase(dir, holes, r)
	if err != nil {
		return err
	}
	lo, hi := 0, tb.MaxSeeds()
	if seeds >= 0 {
		if seeds > tb.MaxSeeds() {
			return fmt.Errorf("--seeds %d: the databases in %s for %d holes a row hold at most %d seeds", seeds, dir, holes, tb.MaxSeeds())
		}
		lo, hi = seeds, seeds
	}
	var total uint64
	for n := lo; n <= hi; n++ {
		total += egtb.Size(holes, n)
	}
	bar := terminal.NewProgressBar(progress)
	var done atomic.Uint64
	start := time.Now()
	bad := 0
	for n := lo; n <= hi; n++ {
		var lastDraw atomic.Int64
		res, err := tb.Verify(ctx, n, 5, workers, func(d uint64) {
			all := done.Add(d)
			now := time.Since(start)
			if last := lastDraw.Load(); now-time.Duration(last) > 200*time.Millisecond && lastDraw.CompareAndSwap(last, int64(now)) {
				bar.Draw(fmt.Sprintf("%d seeds", n), all, total, now)
			}
		})
		if err != nil {
			bar.End()
			return err
		}
		bar.End()
		if res.Mismatches == 0 {
			fmt.Fprintf(env.Stdout, "%3d seeds: %d positions, ok\n", n, res.Checked)
			continue
		}
		bad++
		fmt.Fprintf(env.Stdout, "%3d seeds: %d positions, %d WRONG\n", n, res.Checked, res.Mismatches)
		for _, m := range res.Examples {
			fmt.Fprintf(env.Stdout, "    %s\n", m)
		}
	}
	if bad > 0 {
		return fmt.Errorf("%d of %d counts have wrong values", bad, hi-lo+1)
	}
	fmt.Fprintf(env.Stdout, "all %d counts verified in %v\n", hi-lo+1, time.Since(start).Round(time.Millisecond))
	return nil
}
