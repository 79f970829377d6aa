package cli

import (
	"context"
	"flag"

	"github.com/endodoi/endodoi/internal/serve"
	"github.com/endodoi/endodoi/web"
)

var serveCommand = &command{
	name:    "serve",
	summary: "play in the browser: start the game's web server (the default command)",
	usage:   "[--addr host:port] [--host name]... [--data folder] [--db postgres://...] [--bus nats://...|redis://...] [--behind-proxy] [--egtb folder] [--tls-domain name]... [--tls-cert file --tls-key file] [--http-addr host:port] [--drain d] [--shutdown-timeout d] [--live-per-client n] [--games-per-hour n] [--invites-per-hour n] [--open-invites n] [--analysis-time d] [--signins-per-minute n]",
	examples: []string{
		"endodoi serve",
		"endodoi serve --addr 127.0.0.1:9000 --data ./games",
		"endodoi serve --addr 0.0.0.0:8080   # reachable from other devices on the network",
		"endodoi serve --host endodoi.example.org   # behind a proxy that keeps the Host header",
		"endodoi serve --db postgres://endodoi@db.example.org:5432/endodoi   # games in PostgreSQL, shared by several servers",
		"endodoi serve --db postgres://endodoi@db.example.org/endodoi --bus nats://10.0.0.5:4222   # their notices on NATS (or redis://)",
		"endodoi serve --tls-domain endodoi.example.org   # a public site over HTTPS on ports 443 and 80 (docs/deploy.md)",
	},
	setup: func(fs *flag.FlagSet) func(ctx context.Context, env Env, args []string) error {
		f := serve.AddFlags(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			s, err := f.Setup(web.Handler())
			if err != nil {
				return usagef("%v", err)
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			return serve.Run(ctx, s, env.Stdout, env.Stderr)
		}
	},
}
