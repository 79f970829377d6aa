package cli

import (
	"cmp"
	"context"
	"flag"

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
			return e.WriteBench(ctx, env.Stdout, *depth)
		}
	},
}
