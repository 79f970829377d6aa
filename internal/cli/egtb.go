package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

var egtbCommand = &command{
	name:    "egtb",
	summary: "build, probe and verify endgame databases (exact values of every endgame)",
	usage: "build --holes H --max-seeds N [--dir D] [--memory GiB] [--variant V] [--max-laps L] [--workers W]\n" +
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
		dir := fs.String("dir", egtb.DefaultDir, "directory of the database files, created by build; relative to the working directory")
		holes := fs.Int("holes", 0, "build, verify: holes a row of the board")
		maxSeeds := fs.Int("max-seeds", 0, fmt.Sprintf("build: solve every position with up to this many seeds on the board (0 to %d)", egtb.MaxSeeds))
		seeds := fs.Int("seeds", -1, "verify: check only this seed count (-1: every count found)")
		workers := fs.Int("workers", 0, "build, verify: worker goroutines (default: one per core)")
		memory := fs.Float64("memory", 0, "build: GiB the build may take; a build that needs more is refused before it starts (default: the machine's memory)")
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
			progress := unlessQuiet(env.Stderr, *quiet)
			sub, args := args[0], args[1:]
			switch sub {
			case "build":
				if len(args) > 0 {
					return usagef("build takes no arguments (got %q)", args[0])
				}
				if !set["holes"] || !set["max-seeds"] {
					return usagef("build needs --holes and --max-seeds")
				}
				if err := cmp.Or(inRange("holes", *holes, rules.MinHoles, rules.MaxHoles), inRange("max-seeds", *maxSeeds, 0, egtb.MaxSeeds)); err != nil {
					return err
				}
				if *memory < 0 || (set["memory"] && *memory == 0) {
					return usagef("--memory %v: want a positive number of GiB", *memory)
				}
				limit := uint64(*memory * (1 << 30))
				if !set["memory"] {
					limit = egtb.MachineMemory()
				}
				return egtbBuild(ctx, env, progress, egtb.Options{Holes: *holes, MaxSeeds: *maxSeeds, Rules: r, Dir: *dir, Workers: *workers,
					Memory: limit})
			case "probe":
				if len(args) == 0 {
					return usagef("probe wants a position")
				}
				p, err := positionOperand(args)
				if err != nil {
					return err
				}
				tb, err := egtb.Open(*dir, p.Holes(), r)
				if err != nil {
					return err
				}
				return tb.WriteProbe(env.Stdout, p)
			case "verify":
				if len(args) > 0 {
					return usagef("verify takes no arguments (got %q)", args[0])
				}
				if !set["holes"] {
					return usagef("verify needs --holes")
				}
				if err := inRange("holes", *holes, rules.MinHoles, rules.MaxHoles); err != nil {
					return err
				}
				return egtbVerify(ctx, env, progress, *dir, *holes, *seeds, r, *workers)
			}
			return usagef("unknown subcommand %q: want build, probe or verify", sub)
		}
	},
}

func egtbBuild(ctx context.Context, env Env, progress io.Writer, opt egtb.Options) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	bar := terminal.NewProgressBar(progress)
	opt.Progress = func(p egtb.Progress) { bar.Draw(p.String()+"  "+p.Rate(), p.Done, p.Total, p.Elapsed) }
	_, rep, err := egtb.BuildWithReport(ctx, opt)
	bar.End()
	if err != nil {
		return err
	}
	rep.Write(env.Stdout)
	return nil
}

func egtbVerify(ctx context.Context, env Env, progress io.Writer, dir string, holes, seeds int, r rules.Rules, workers int) error {
	ctx, stop := interruptible(ctx)
	defer stop()
	tb, err := egtb.Open(dir, holes, r)
	if err != nil {
		return err
	}
	bar := terminal.NewProgressBar(progress)
	rep, err := tb.VerifyCounts(ctx, egtb.VerifyOptions{Seeds: seeds, Workers: workers,
		Progress: func(p egtb.Progress) { bar.Draw(fmt.Sprintf("%d seeds", p.Seeds), p.Done, p.Total, p.Elapsed) },
		Checked:  func(c egtb.CountCheck) { bar.End(); fmt.Fprintln(env.Stdout, c) }})
	bar.End()
	if err != nil {
		return err
	}
	if err := rep.Err(); err != nil {
		return err
	}
	fmt.Fprintln(env.Stdout, rep)
	return nil
}
