package cli

import (
	"context"
	"flag"

	"github.com/endodoi/endodoi/rules"
)

var applyCommand = &command{
	name:    "apply",
	summary: "apply moves to positions: one '<position> <move>' line in, one position line out",
	usage:   "[--variant V] [--max-laps L] < lines",
	examples: []string{
		"echo '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 c' | endodoi apply",
		"endodoi apply --variant cross < moves.txt",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("apply reads standard input and takes no arguments (got %q)", args[0])
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			return rules.ApplyLines(ctx, env.Stdin, env.Stdout, r)
		}
	},
}
