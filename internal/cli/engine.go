package cli

import (
	"context"
	"flag"
	"path/filepath"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/protocol"
	"github.com/endodoi/endodoi/store"
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
		tables := fs.String("egtb", "", "`folder` of endgame databases to play perfectly from (default: egtb in the data folder of endodoi serve)")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("engine reads commands from standard input and takes no arguments (got %q)", args[0])
			}
			if *tables == "" {
				*tables = filepath.Join(store.DefaultDataDir(), "egtb")
			}
			session := protocol.NewSession(engineVersion)
			// Only databases already there: a build would take the
			// cores a match gives the engine.
			session.UseTablebases(egtb.NewLibrary(*tables, egtb.LibraryOptions{}))
			return protocol.Serve(ctx, env.Stdin, env.Stdout, session)
		}
	},
}

// engineVersion is what the handshake reports after "id name endodoi".
const engineVersion = "dev"
