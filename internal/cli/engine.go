package cli

import (
	"context"
	"flag"

	"github.com/endodoi/endodoi/protocol"
)

var engineCommand = &command{
	name:    "engine",
	summary: "speak the engine protocol on standard input and output (for GUIs and bots)",
	usage:   "< commands",
	examples: []string{
		"endodoi engine",
		"printf 'endodoi\\nisready\\n' | endodoi engine",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("engine reads commands from standard input and takes no arguments (got %q)", args[0])
			}
			return protocol.Serve(ctx, env.Stdin, env.Stdout, protocol.NewSession(engineVersion))
		}
	},
}

// engineVersion is what the handshake reports after "id name endodoi".
const engineVersion = "dev"
