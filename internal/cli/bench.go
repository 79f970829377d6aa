package cli

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// benchPositions are searched by "endodoi bench": starts and middle games
// of the traditional board sizes and a few small endgames.
var benchPositions = []string{
	"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0",
	"4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0",
	"4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4 s 0 0",
	"6,6,2,7,0,6/1,0,6,6,0,1 n 7 0",
	"0,6,4,0,3,2,1,0,2,0/1,7,2,6,4,1,1,5,2,4 s 27 2",
	"2,0,6,1,2,2,2,4,4,2/5,3,3,1,5,2,6,5,4,2 s 1 4",
	"4,2,3,0,3,6,2,7,9/6,7,3,6,8,6,7,3,2 n 9 10",
	"0,0,2,0,1,1,1,1/0,1,1,1,1,0,0,0 s 17 21",
	"3,1,0,2,0,1/0,2,1,0,3,1 n 12 18",
	"1,0,2,0,0,1/0,1,0,2,0,0 s 20 19",
}

// DefaultBenchDepth is the depth "endodoi bench" searches each position to.
const defaultBenchDepth = 12

var benchCommand = &command{
	name:    "bench",
	summary: "search a fixed set of positions; print the node count (a search signature) and speed",
	usage:   "[--depth N] [--threads T] [--hash MiB]",
	examples: []string{
		"endodoi bench",
		"endodoi bench --depth 14 --threads 2",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		depth := fs.Int("depth", defaultBenchDepth, "search depth of every position")
		threads := fs.Int("threads", 1, "search threads (the node count is a signature only with 1)")
		hash := fs.Int("hash", 16, "transposition table size in MiB")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("bench takes no arguments (got %q)", args[0])
			}
			if *depth < 1 || *depth > engine.MaxDepth {
				return usagef("--depth %d out of range (1 to %d)", *depth, engine.MaxDepth)
			}
			if *threads < 1 || *threads > engine.MaxThreads {
				return usagef("--threads %d out of range (1 to %d)", *threads, engine.MaxThreads)
			}
			if *hash < 1 || *hash > engine.MaxHashMiB {
				return usagef("--hash %d out of range (1 to %d MiB)", *hash, engine.MaxHashMiB)
			}
			e, err := engine.New(engine.Config{Threads: *threads, HashMiB: *hash})
			if err != nil {
				return usagef("%v", err)
			}
			var nodes uint64
			var elapsed time.Duration
			for i, s := range benchPositions {
				p := rules.MustParsePosition(s)
				e.NewGame()
				res, err := e.Search(ctx, p, nil, engine.Limits{Depth: *depth}, nil)
				if err != nil {
					return err
				}
				if ctx.Err() != nil {
					return ctx.Err()
				}
				nodes += res.Nodes
				elapsed += res.Elapsed
				exact := ""
				if res.Exact {
					exact = " exact"
				}
				fmt.Fprintf(env.Stdout, "%2d  %-46s depth %2d  %-6s score %s%s  nodes %d  %v\n",
					i+1, s, res.Depth, res.Move, res.Score, exact, res.Nodes, res.Elapsed.Round(time.Millisecond))
			}
			nps := uint64(float64(nodes) / max(elapsed.Seconds(), 1e-9))
			fmt.Fprintf(env.Stdout, "nodes %d\ntime %v\nnps %d\n", nodes, elapsed.Round(time.Millisecond), nps)
			return nil
		}
	},
}
