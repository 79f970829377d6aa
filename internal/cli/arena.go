package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"

	"github.com/endodoi/endodoi/arena"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

var arenaCommand = &command{
	name:    "arena",
	summary: "play a match between two engine settings or bots and measure the Elo difference",
	usage:   "[options] <playerA> <playerB>",
	examples: []string{
		"endodoi arena --games 200 --holes 6 'time=100ms' baseline",
		"endodoi arena 'level=5' 'level=4'",
		"endodoi arena 'cmd=./mybot --fast;time=50ms' 'level=10'",
		"endodoi arena --concurrency 2 --sprt 0,10 'depth=7' 'depth=6'",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		games := fs.Int("games", 100, "number of games, two per opening (one with each player as South)")
		holes := fs.Int("holes", rules.DefaultHoles, "holes per row")
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
		plies := fs.Int("openings-plies", arena.DefaultOpeningPlies, "random plies played from the start to make each opening")
		balanced := fs.Int("balanced", 0, "keep only openings whose expected final margin (depth-10 search) is within this many seeds; 0 keeps all")
		seed := fs.Uint64("seed", 1, "seed of the random openings (and of level players' randomness)")
		concurrency := fs.Int("concurrency", 1, "games played at once")
		maxPlies := fs.Int("max-plies", arena.DefaultMaxPlies, "a game reaching this many plies is stopped and counted as a draw")
		sprt := fs.String("sprt", "", "stop early with an SPRT: `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05)")
		quiet := fs.Bool("quiet", false, "print no progress on standard error")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 2 {
				return usagef("want two players, A and B (got %d arguments); %s", len(args), arena.SpecSyntax)
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			var specs [2]arena.Spec
			for i, a := range args {
				if specs[i], err = arena.ParseSpec(a); err != nil {
					return usagef("player %c %q: %v; %s", 'A'+i, a, err, arena.SpecSyntax)
				}
			}
			if err := cmp.Or(inRange("games", *games, 1, arena.MaxGames), inRange("holes", *holes, rules.MinHoles, rules.MaxHoles),
				inRange("seeds", *seeds, rules.MinStartSeeds, rules.MaxStartSeeds), inRange("openings-plies", *plies, 0, arena.MaxOpeningPlies),
				inRange("concurrency", *concurrency, 1, arena.MaxConcurrency)); err != nil {
				return err
			}
			switch {
			case *balanced < 0:
				return usagef("--balanced %d: want 0 (all openings) or a number of seeds", *balanced)
			case *maxPlies <= *plies:
				return usagef("--max-plies %d must be more than --openings-plies %d", *maxPlies, *plies)
			}
			cfg := arena.Config{
				Rules: r, Holes: *holes, Seeds: *seeds, Games: *games, OpeningPlies: *plies,
				Seed: *seed, Concurrency: *concurrency, MaxPlies: *maxPlies, Balanced: *balanced,
			}
			if *sprt != "" {
				sc, err := arena.ParseSPRT(*sprt)
				if err != nil {
					return usagef("--sprt %q: %v", *sprt, err)
				}
				cfg.SPRT = &sc
			}

			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			pp := arena.NewProgressPrinter(env.Stderr, terminal.IsTerminal(env.Stderr), *games)
			defer pp.Finish()
			var progress func(arena.Stats)
			if !*quiet {
				progress = pp.Update
			}
			st, err := arena.Run(ctx, cfg, specs[0].Factory(r, *seed), specs[1].Factory(r, ^*seed), progress)
			pp.Finish()
			interrupted := err != nil && ctx.Err() != nil
			if err != nil && !interrupted {
				return err
			}
			arena.WriteReport(env.Stdout, cfg, specs, st, interrupted)
			if interrupted {
				return errors.New("interrupted")
			}
			return nil
		}
	},
}
