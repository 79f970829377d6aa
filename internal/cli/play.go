package cli

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/store"
)

var playCommand = &command{
	name:    "play",
	summary: "play a game in the terminal against the engine, or between two people",
	usage: "[--level N] [--holes H] [--seeds S] [--position P] [--side south|north|random] [--first south|north]\n" +
		"                    [--two-players] [--laps] [--save FILE] [--variant V] [--max-laps L]",
	examples: []string{
		"endodoi play --holes 6 --level 3",
		"endodoi play --side north --laps --save game.txt",
		"endodoi play --two-players --holes 6",
		"endodoi play --position '3,0,1/2,2,2 n 5 7' --side north",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		f := terminal.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("play takes no operands (got %q); give a start with --position", args[0])
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			cfg, err := f.Config(r)
			if err != nil {
				return usagef("%v", err)
			}
			// The databases endodoi serve has built, if any.
			lib := egtb.NewLibrary(filepath.Join(store.DefaultDataDir(), "egtb"), egtb.LibraryOptions{})
			if tb := lib.Get(cfg.Game.Start().Holes(), r); tb != nil {
				cfg.Tablebase = tb
			}
			s, err := terminal.NewSession(cfg, env.Stdin, env.Stdout)
			if err != nil {
				return err
			}
			return s.Run(ctx)
		}
	},
}
