package cli

import (
	"context"
	"flag"
	"fmt"
	"os"

	"github.com/endodoi/endodoi/web"
)

var siteCommand = &command{
	name:    "site",
	summary: "write the browser game as a static site, for any static file host, playable offline",
	usage:   "<folder>",
	examples: []string{
		"endodoi site ./public   # then serve ./public with any static file server",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 1 {
				return usagef("want one folder, got %d arguments", len(args))
			}
			dir := args[0]
			if info, err := os.Stat(dir); err == nil && !info.IsDir() {
				return fmt.Errorf("%s is not a folder", dir)
			}
			b, err := web.WriteSite(dir)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "wrote the site (version %s) to %s\n", b.Version, dir)
			fmt.Fprintln(env.Stdout, "It plays the computer, a friend on the same device, the analysis board, Learn and the puzzles in the browser;")
			fmt.Fprintln(env.Stdout, "online play and the review of games need an endodoi server and are hidden. Serve the folder over HTTPS")
			fmt.Fprintln(env.Stdout, "(or from localhost) so that it installs and plays offline; .wasm files must be sent as application/wasm.")
			return nil
		}
	},
}
