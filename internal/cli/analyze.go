package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// defaultAnalyzeTime is analyze's limit when none is given.
const defaultAnalyzeTime = 2 * time.Second

var analyzeCommand = &command{
	name:    "analyze",
	summary: "find the best moves of a position, with scores and expected lines",
	usage:   "[--depth N | --time D] [--multipv K|all] [--threads T] [--verbose] [--egtb DIR] [--variant V] [--max-laps L] <position>",
	examples: []string{
		"endodoi analyze '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0'",
		"endodoi analyze --multipv all --depth 8 '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0'",
		"endodoi analyze --time 10s --threads 2 --verbose start",
		"endodoi analyze --egtb egtb '1,0,2,0,0,1/0,1,0,2,0,0 s 20 19'",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		depth := fs.Int("depth", 0, fmt.Sprintf("search this many plies deep (1 to %d) instead of for a time", engine.MaxDepth))
		moveTime := fs.Duration("time", defaultAnalyzeTime, "search for this long (e.g. 500ms, 10s)")
		multiPV := fs.String("multipv", "1", "how many best moves to show: a number, or all")
		threads := fs.Int("threads", 1, fmt.Sprintf("search threads (1 to %d): more search deeper in the same time on more cores", engine.MaxThreads))
		verbose := fs.Bool("verbose", false, "report each completed search depth on standard error")
		egtbDir := fs.String("egtb", "", "directory of endgame databases (see 'endodoi egtb') to probe: exact values in the endgames they hold")
		return func(ctx context.Context, env Env, args []string) error {
			set := map[string]bool{}
			fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
			if len(args) == 0 {
				return usagef("want a position to analyse")
			}
			p, r, err := rf.positionAndRules(args)
			if err != nil {
				return err
			}
			var lim engine.Limits
			switch {
			case set["depth"] && set["time"]:
				return usagef("give --depth or --time, not both")
			case set["depth"]:
				if err := inRange("depth", *depth, 1, engine.MaxDepth); err != nil {
					return err
				}
				lim.Depth = *depth
			default:
				if *moveTime <= 0 {
					return usagef("--time %v: want a positive duration such as 2s", *moveTime)
				}
				lim.MoveTime = *moveTime
			}
			if err := inRange("threads", *threads, 1, engine.MaxThreads); err != nil {
				return err
			}
			k, err := parseMultiPV(*multiPV)
			if err != nil {
				return err
			}
			progress := unlessQuiet(env.Stderr, !*verbose)
			var tb *egtb.Tablebase
			if *egtbDir != "" {
				if tb, err = egtb.Open(*egtbDir, p.Holes(), r); err != nil && !errors.Is(err, egtb.ErrNotFound) {
					return err
				}
				if tb == nil {
					fmt.Fprintf(env.Stderr, "note: no endgame database for %d holes a row under %s in %s\n", p.Holes(), r, *egtbDir)
				}
			}
			return analyze(ctx, env.Stdout, progress, engine.Config{Rules: r, Threads: *threads}, p, lim, k, tb)
		}
	},
}

// parseMultiPV reads --multipv: a positive number, or "all" (returned as 0).
func parseMultiPV(s string) (int, error) {
	if strings.EqualFold(s, "all") {
		return 0, nil
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 {
		return 0, usagef("--multipv %q: want a number from 1, or all", s)
	}
	return k, nil
}

// analyze prints the k best moves of p (all of them for k == 0). progress,
// if not nil, receives a line per completed depth.
func analyze(ctx context.Context, w, progress io.Writer, cfg engine.Config, p rules.Position, lim engine.Limits, k int, tb *egtb.Tablebase) error {
	r := cfg.Rules
	mover := p.ToMove()
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "%s to move; captured so far: South %d, North %d\n", mover, p.Captured(rules.South), p.Captured(rules.North))
	moves := p.LegalMoves(r)
	if len(moves) == 0 {
		fmt.Fprintf(w, "%s\n", rules.GameOverText(p, -1))
		return nil
	}
	if tb != nil {
		cfg.Tablebase = tb
		v, err := tb.Value(p)
		switch {
		case err == nil:
			fmt.Fprintf(w, "tablebase: value %s for %s to move, %s\n", egtb.Signed(v), p.ToMove(), egtb.Describe(p, v))
		case errors.Is(err, egtb.ErrBeyond):
			fmt.Fprintf(w, "tablebase: holds up to %d seeds on the board (this position has %d); probed in the search\n", tb.MaxSeeds(), p.OnBoard())
		default:
			return err
		}
	}
	e, err := engine.New(cfg)
	if err != nil {
		return err
	}
	var report func(engine.Info)
	if progress != nil {
		report = func(info engine.Info) {
			if k == 1 {
				fmt.Fprintf(progress, "depth %d: %s  %s  nodes %d  time %dms  %s\n", info.Depth,
					info.PV[0], engine.ScoreText(info.Score, info.Exact), info.Nodes, info.Elapsed.Milliseconds(), rules.MoveList(info.PV))
			} else {
				fmt.Fprintf(progress, "depth %d: best %s  %s  (%d moves scored)\n", info.Depth, info.PV[0], engine.ScoreText(info.Score, info.Exact), len(moves))
			}
		}
	}
	lines, info, err := e.BestLines(ctx, p, nil, lim, k, report)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("the search found no move in %v", p)
	}
	elapsed := info.Elapsed.Round(time.Millisecond)
	switch {
	case k == 1:
		fmt.Fprintf(w, "search: depth %d, %d nodes, %v\n", info.Depth, info.Nodes, elapsed)
	case info.Depth == 0:
		fmt.Fprintf(w, "search: stopped before the first depth was done; the moves are unscored, %v\n", elapsed)
	default:
		fmt.Fprintf(w, "search: depth %d, %v\n", info.Depth, elapsed)
	}
	for i, l := range lines {
		fmt.Fprintf(w, "%d. %s  %s  (%s)  %s\n", i+1, l.Move, engine.ScoreText(l.Score, l.Exact), engine.FinalText(p, l.Score, l.Exact), rules.MoveList(l.PV))
	}
	return nil
}
