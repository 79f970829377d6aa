package cli

import (
	"context"
	"flag"
)

var replayCommand = &command{
	name:     "replay",
	summary:  "check a game record and print its final position, score and result",
	usage:    "<file | ->",
	examples: []string{"endodoi replay game.txt", "endodoi replay - < game.json"},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		return func(ctx context.Context, env Env, args []string) error {
			return usagef("not yet")
		}
	},
}
