package cli

import (
	"context"
	"flag"
	"strconv"

	"github.com/endodoi/endodoi/rules"
)

// maxPerftDepth bounds perft's depth; the counts grow about sixfold a ply.
const maxPerftDepth = 40

var perftCommand = &command{
	name:    "perft",
	summary: "count the legal move sequences of each length from a position",
	usage:   "[--variant V] [--max-laps L] [--divide] [--stats] <position> <depth>",
	examples: []string{
		"endodoi perft '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0' 6",
		"endodoi perft --divide start 5",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		divide := fs.Bool("divide", false, "also print the count at the full depth below each first move")
		showStats := fs.Bool("stats", false, "print time and moves per second to standard error")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) < 2 {
				return usagef("want a position and a depth")
			}
			depth, err := strconv.Atoi(args[len(args)-1])
			if err != nil || depth < 1 || depth > maxPerftDepth {
				return usagef("depth %q: want a whole number from 1 to %d", args[len(args)-1], maxPerftDepth)
			}
			p, r, err := rf.positionAndRules(args[:len(args)-1])
			if err != nil {
				return err
			}
			return rules.WritePerft(ctx, env.Stdout, unlessQuiet(env.Stderr, !*showStats), p, r, depth, *divide)
		}
	},
}
