package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
	"github.com/endodoi/endodoi/web"
)

// DefaultAddr is where the browser game listens unless told otherwise:
// this computer only.
const DefaultAddr = "127.0.0.1:8080"

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
		addr := fs.String("addr", DefaultAddr, "`host:port` to listen on")
		data := fs.String("data", store.DefaultDataDir(), "`folder` for the games database (games.db)")
		behindProxy := fs.Bool("behind-proxy", false, "the server is reached through a proxy on this machine or network (docs/scaling.md): count requests against the client named in X-Forwarded-For")
		db := fs.String("db", "", "a PostgreSQL `URL` to keep the games in instead of games.db (docs/scaling.md)")
		busURL := fs.String("bus", "", "with --db, a message bus `URL` (nats://host:4222 or redis://host:6379, ?channel=name) to carry the notices between the servers instead of PostgreSQL's NOTIFY (docs/scaling.md)")
		var hosts server.HostList
		fs.Var(&hosts, "host", "a `name` the server answers to, besides its address, localhost and the loopback addresses (repeatable)")
		tables := fs.String("egtb", "", "`folder` of endgame databases for the analysis, hints and levels 9-10 (default: egtb in the data folder)")
		build := fs.Bool("egtb-build", true, "build the small endgame databases a board lacks, in the background on one core, when the board is first played")
		site := server.AddSiteFlags(fs)
		limits := server.AddLimitFlags(fs)
		signIns := fs.Int("signins-per-minute", 0, "for a test deployment only (endodoi loadtest --lobby): let one client address sign up or sign in `n` times a minute, in bursts of n (default 0: 10 at once, then one every 6 s)")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			if *tables == "" {
				*tables = filepath.Join(*data, "egtb")
			}
			if *db != "" && !store.IsPostgresURL(*db) {
				return usagef("--db %s: want a postgres:// URL", store.RedactURL(*db))
			}
			if *busURL != "" && (*db == "" || !bus.IsURL(*busURL)) {
				return usagef("--bus: want a nats:// or redis:// URL, with --db postgres://...: a server alone on games.db has no other servers to tell")
			}
			cfg := server.ListenConfig{Addr: *addr, Hosts: hosts, Site: web.Handler(), Options: server.Options{TrustProxy: *behindProxy, ClientLimits: limits.Limits()}}
			if err := site.Apply(fs, &cfg, *data); err != nil {
				return usagef("%v", err)
			}
			if *signIns < 0 || *signIns > maxSignInsPerMinute {
				return usagef("--signins-per-minute %d out of range (0 to %d)", *signIns, maxSignInsPerMinute)
			}
			if *signIns > 0 {
				cfg.Options.Accounts.SignInRate = server.Rate{PerSecond: float64(*signIns) / 60, Burst: *signIns}
			}
			cfg.Log = slog.New(slog.NewTextHandler(env.Stderr, nil))
			cfg.Tablebases = egtb.NewLibrary(*tables, egtb.LibraryOptions{AutoBuild: *build, Logger: cfg.Log})
			if *busURL != "" {
				b, err := bus.Open(*busURL, cfg.Log)
				if err != nil {
					return usagef("--bus: %v", err)
				}
				defer b.Close()
				cfg.Options.Bus = b
			}
			return serve(ctx, env, *db, *data, cfg)
		}
	},
}

// maxSignInsPerMinute bounds --signins-per-minute: enough for a lobby
// load test of thousands of players from one address.
const maxSignInsPerMinute = 100_000

// serve runs the browser game until ctx is cancelled or the process is
// interrupted, then lets the requests in flight finish.
func serve(ctx context.Context, env Env, dbURL, data string, cfg server.ListenConfig) error {
	defer cfg.Tablebases.Close()
	ctx, stop := interruptible(ctx)
	defer stop()
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	st, err := store.OpenURL(ctx, dbURL, data)
	if err != nil {
		return err
	}
	defer st.Close()
	cfg.StoreName, cfg.Out, cfg.Warn = store.Name(dbURL, data), env.Stdout, env.Stderr
	if err := server.ListenAndServe(ctx, st, cfg); err != nil {
		return err
	}
	// The store finishes the writes in flight when it closes; only then
	// is the count of failed ones final.
	if err := st.Close(); err != nil {
		return err
	}
	if n := st.WriteFailures(); n > 0 {
		fmt.Fprintf(env.Stdout, "endodoi: stopped; %d writes failed (see the log above)\n", n)
		return nil
	}
	fmt.Fprintln(env.Stdout, "endodoi: stopped; every move was saved")
	return nil
}
