package cli

import (
	"context"
	"flag"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/tune"
)

var tuneCommand = &command{
	name:    "tune",
	summary: "tune the evaluation weights by self-play (for engine developers)",
	usage:   "[--boards 6,8] [--pairs N] [--depth D] [--passes P] [--step S] [--accept F] [--seed X] [--verify N]",
	examples: []string{
		"endodoi tune --pairs 300 --depth 5 --passes 4",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		boards := fs.String("boards", "6,8", "holes per row of the boards played, comma-separated")
		pairs := fs.Int("pairs", 300, "game pairs per candidate match (each opening played with both sides)")
		depth := fs.Int("depth", 5, "fixed search depth of both sides")
		passes := fs.Int("passes", 4, "passes over all weights")
		step := fs.Float64("step", 0.1, "first step of each weight, in seeds; halved after a pass without gain")
		accept := fs.Float64("accept", 0.52, "score a candidate needs against the current weights to be kept")
		seed := fs.Uint64("seed", 1, "seed of the random openings")
		workers := fs.Int("workers", 2, "games played at once")
		startFlag := fs.String("start", "", "starting weights RowSeeds,Occupied,Singletons,Targets,Tempo in hundredths of a seed (default: the engine's)")
		verify := fs.Int("verify", 1000, "game pairs of the final match of the tuned against the starting weights (0 to skip)")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("tune takes no arguments (got %q)", args[0])
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			holes, err := tune.ParseBoards(*boards)
			if err != nil {
				return usagef("--boards: %v", err)
			}
			if *pairs < 1 || *depth < 1 || *depth > 30 || *passes < 1 || *step <= 0 || *workers < 1 || *verify < 0 {
				return usagef("--pairs, --passes, --step and --workers must be positive, --depth from 1 to 30")
			}
			start := engine.DefaultWeights
			if *startFlag != "" {
				var err error
				if start, err = tune.ParseWeights(*startFlag); err != nil {
					return usagef("--start: %v", err)
				}
			}
			cfg := tune.Config{Rules: r, Boards: holes, Pairs: *pairs, Depth: *depth, OpeningPlies: 2, Passes: *passes,
				Step: engine.Score(*step * float64(engine.Seed)), Accept: *accept, Seed: *seed, Workers: *workers}
			return tune.WriteRun(ctx, env.Stdout, cfg, start, *verify)
		}
	},
}
