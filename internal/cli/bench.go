package cli

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/engine"
)

var benchCommand = &command{
	name:    "bench",
	summary: "search a fixed set of positions; print the node count (a search signature) and speed",
	usage:   "[--depth N] [--threads T] [--hash MiB]",
	examples: []string{
		"endodoi bench",
		"endodoi bench --depth 14 --threads 2",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		depth := fs.Int("depth", engine.DefaultBenchDepth, "search depth of every position")
		threads := fs.Int("threads", 1, "search threads (the node count is a signature only with 1)")
		hash := fs.Int("hash", 16, "transposition table size in MiB")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("bench takes no arguments (got %q)", args[0])
			}
			if err := cmp.Or(inRange("depth", *depth, 1, engine.MaxDepth), inRange("threads", *threads, 1, engine.MaxThreads)); err != nil {
				return err
			}
			if *hash < 1 || *hash > engine.MaxHashMiB {
				return usagef("--hash %d out of range (1 to %d MiB)", *hash, engine.MaxHashMiB)
			}
			e, err := engine.New(engine.Config{Threads: *threads, HashMiB: *hash})
			if err != nil {
				return usagef("%v", err)
			}
			i := 0
			nodes, elapsed, err := e.Bench(ctx, *depth, func(s string, res engine.Result) {
				i++
				exact := ""
				if res.Exact {
					exact = " exact"
				}
				fmt.Fprintf(env.Stdout, "%2d  %-46s depth %2d  %-6s score %s%s  nodes %d  %v\n",
					i, s, res.Depth, res.Move, res.Score, exact, res.Nodes, res.Elapsed.Round(time.Millisecond))
			})
			if err != nil {
				return err
			}
			nps := uint64(float64(nodes) / max(elapsed.Seconds(), 1e-9))
			fmt.Fprintf(env.Stdout, "nodes %d\ntime %v\nnps %d\n", nodes, elapsed.Round(time.Millisecond), nps)
			return nil
		}
	},
}
