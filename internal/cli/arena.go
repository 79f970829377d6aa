package cli

import (
	"context"
	"errors"
	"flag"
	"os"
	"os/signal"

	"github.com/endodoi/endodoi/arena"
	"github.com/endodoi/endodoi/internal/terminal"
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
		f := arena.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 2 {
				return usagef("want two players, A and B (got %d arguments); %s", len(args), arena.SpecSyntax)
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			cfg, specs, err := f.Config([2]string(args), r)
			if err != nil {
				return usagef("%v", err)
			}
			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			pp := arena.NewProgressPrinter(env.Stderr, terminal.IsTerminal(env.Stderr), cfg.Games)
			defer pp.Finish()
			var progress func(arena.Stats)
			if !*f.Quiet {
				progress = pp.Update
			}
			st, err := arena.Run(ctx, cfg, specs[0].Factory(r, cfg.Seed), specs[1].Factory(r, ^cfg.Seed), progress)
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
