package cli

import (
	"context"
	"errors"
	"flag"
	"log/slog"

	"github.com/endodoi/endodoi/bot"
)

var botCommand = &command{
	name:    "bot",
	summary: "play on a server as a bot account: accept challenges and play them with an engine",
	usage:   "--server URL [options] -- <engine command and its arguments>",
	examples: []string{
		"ENDODOI_BOT_TOKEN=bot_... endodoi bot --server https://example.org --level 5 -- endodoi engine",
		"endodoi bot --server https://example.org --token-file /etc/endodoi/bot-token --holes 6,8 --clocks blitz,rapid,5-30+0-10 --games 4 -- ./my-engine --threads 2",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		f := bot.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			cfg, err := f.Config(args)
			if errors.As(err, new(bot.TokenFileError)) {
				return err
			} else if err != nil {
				return usagef("%v", err)
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			cfg.Log = slog.New(slog.NewTextHandler(env.Stderr, nil))
			if err := bot.Run(ctx, cfg); !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		}
	},
}
