package arena

// The arena command's options (endodoi arena): what they set of a
// Config, read and checked here so that the command only wires them.

import (
	"cmp"
	"flag"
	"fmt"

	"github.com/endodoi/endodoi/rules"
)

// Flags are the arena command's options, but the rules'.
type Flags struct {
	games, holes, seeds, plies, balanced, concurrency, maxPlies *int
	seed                                                        *uint64
	sprt                                                        *string
	// Quiet says to print no progress.
	Quiet *bool
}

// AddFlags defines the arena command's options on fs.
func AddFlags(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	f.games = fs.Int("games", 100, "number of games, two per opening (one with each player as South)")
	f.holes = fs.Int("holes", rules.DefaultHoles, "holes per row")
	f.seeds = fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
	f.plies = fs.Int("openings-plies", DefaultOpeningPlies, "random plies played from the start to make each opening")
	f.balanced = fs.Int("balanced", 0, "keep only openings whose expected final margin (depth-10 search) is within this many seeds; 0 keeps all")
	f.seed = fs.Uint64("seed", 1, "seed of the random openings (and of level players' randomness)")
	f.concurrency = fs.Int("concurrency", 1, "games played at once")
	f.maxPlies = fs.Int("max-plies", DefaultMaxPlies, "a game reaching this many plies is stopped and counted as a draw")
	f.sprt = fs.String("sprt", "", "stop early with an SPRT: `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05)")
	f.Quiet = fs.Bool("quiet", false, "print no progress on standard error")
	return f
}

// Config checks the options and returns the match they describe under r
// between the two players of specs (ParseSpec); an error is a mistake in
// them.
func (f *Flags) Config(specs [2]string, r rules.Rules) (Config, [2]Spec, error) {
	var players [2]Spec
	for i, a := range specs {
		var err error
		if players[i], err = ParseSpec(a); err != nil {
			return Config{}, players, fmt.Errorf("player %c %q: %v; %s", 'A'+i, a, err, SpecSyntax)
		}
	}
	inRange := func(name string, v, lo, hi int) error {
		if v < lo || v > hi {
			return fmt.Errorf("--%s %d out of range (%d to %d)", name, v, lo, hi)
		}
		return nil
	}
	if err := cmp.Or(inRange("games", *f.games, 1, MaxGames), inRange("holes", *f.holes, rules.MinHoles, rules.MaxHoles),
		inRange("seeds", *f.seeds, rules.MinStartSeeds, rules.MaxStartSeeds), inRange("openings-plies", *f.plies, 0, MaxOpeningPlies),
		inRange("concurrency", *f.concurrency, 1, MaxConcurrency)); err != nil {
		return Config{}, players, err
	}
	switch {
	case *f.balanced < 0:
		return Config{}, players, fmt.Errorf("--balanced %d: want 0 (all openings) or a number of seeds", *f.balanced)
	case *f.maxPlies <= *f.plies:
		return Config{}, players, fmt.Errorf("--max-plies %d must be more than --openings-plies %d", *f.maxPlies, *f.plies)
	}
	cfg := Config{Rules: r, Holes: *f.holes, Seeds: *f.seeds, Games: *f.games, OpeningPlies: *f.plies,
		Seed: *f.seed, Concurrency: *f.concurrency, MaxPlies: *f.maxPlies, Balanced: *f.balanced}
	if *f.sprt != "" {
		sc, err := ParseSPRT(*f.sprt)
		if err != nil {
			return Config{}, players, fmt.Errorf("--sprt %q: %v", *f.sprt, err)
		}
		cfg.SPRT = &sc
	}
	return cfg, players, nil
}
