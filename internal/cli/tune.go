package cli

import (
	"context"
	"flag"

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
		f := tune.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("tune takes no arguments (got %q)", args[0])
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			cfg, start, verify, err := f.Config(r)
			if err != nil {
				return usagef("%v", err)
			}
			return tune.WriteRun(ctx, env.Stdout, cfg, start, verify)
		}
	},
}
