package cli

import (
	"context"
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/engine"
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
			tb, err := openTablebase(env, *egtbDir, p.Holes(), r)
			if err != nil {
				return err
			}
			cfg := engine.Config{Rules: r, Threads: *threads}
			if tb != nil {
				cfg.Tablebase = tb // only a non-nil one: a nil pointer in the interface would be probed
			}
			e, err := engine.New(cfg)
			if err != nil {
				return err
			}
			return e.WriteAnalysis(ctx, env.Stdout, unlessQuiet(env.Stderr, !*verbose), p, lim, k)
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
