package tune

// The tune command's options (endodoi tune): what they set of a Config,
// read and checked here so that the command only wires them.

import (
	"errors"
	"flag"
	"fmt"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// Flags are the tune command's options, but the rules'.
type Flags struct {
	boards, start                         *string
	pairs, depth, passes, workers, verify *int
	step, accept                          *float64
	seed                                  *uint64
}

// AddFlags defines the tune command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	f.boards = fs.String("boards", "6,8", "holes per row of the boards played, comma-separated")
	f.pairs = fs.Int("pairs", 300, "game pairs per candidate match (each opening played with both sides)")
	f.depth = fs.Int("depth", 5, "fixed search depth of both sides")
	f.passes = fs.Int("passes", 4, "passes over all weights")
	f.step = fs.Float64("step", 0.1, "first step of each weight, in seeds; halved after a pass without gain")
	f.accept = fs.Float64("accept", 0.52, "score a candidate needs against the current weights to be kept")
	f.seed = fs.Uint64("seed", 1, "seed of the random openings")
	f.workers = fs.Int("workers", 2, "games played at once")
	f.start = fs.String("start", "", "starting weights RowSeeds,Occupied,Singletons,Targets,Tempo in hundredths of a seed (default: the engine's)")
	f.verify = fs.Int("verify", 1000, "game pairs of the final match of the tuned against the starting weights (0 to skip)")
	return f
}

// Config checks the options and returns the tuning they describe under
// r, the weights it starts from and the game pairs of its final match; an
// error is a mistake in them.
func (f *Flags) Config(r rules.Rules) (Config, engine.Weights, int, error) {
	holes, err := ParseBoards(*f.boards)
	if err != nil {
		return Config{}, engine.Weights{}, 0, fmt.Errorf("--boards: %v", err)
	}
	if *f.pairs < 1 || *f.depth < 1 || *f.depth > 30 || *f.passes < 1 || *f.step <= 0 || *f.workers < 1 || *f.verify < 0 {
		return Config{}, engine.Weights{}, 0, errors.New("--pairs, --passes, --step and --workers must be positive, --depth from 1 to 30")
	}
	start := engine.DefaultWeights
	if *f.start != "" {
		if start, err = ParseWeights(*f.start); err != nil {
			return Config{}, engine.Weights{}, 0, fmt.Errorf("--start: %v", err)
		}
	}
	cfg := Config{Rules: r, Boards: holes, Pairs: *f.pairs, Depth: *f.depth, OpeningPlies: 2, Passes: *f.passes,
		Step: engine.Score(*f.step * float64(engine.Seed)), Accept: *f.accept, Seed: *f.seed, Workers: *f.workers}
	return cfg, start, *f.verify, nil
}
