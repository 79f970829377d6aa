package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

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
	usage:   "[--addr host:port] [--host name]... [--data folder] [--db postgres://...] [--behind-proxy] [--egtb folder]",
	examples: []string{
		"endodoi serve",
		"endodoi serve --addr 127.0.0.1:9000 --data ./games",
		"endodoi serve --addr 0.0.0.0:8080   # reachable from other devices on the network",
		"endodoi serve --host endodoi.example.org   # behind a proxy that keeps the Host header",
		"endodoi serve --db postgres://endodoi@db.example.org:5432/endodoi   # games in PostgreSQL, shared by several servers",
	},
	setup: func(fs *flag.FlagSet) func(ctx context.Context, env Env, args []string) error {
		addr := fs.String("addr", DefaultAddr, "`host:port` to listen on")
		data := fs.String("data", defaultDataDir(), "`folder` for the games database (games.db)")
		behindProxy := fs.Bool("behind-proxy", false, "the server is reached through a proxy on this machine or network (docs/scaling.md): count requests against the client named in X-Forwarded-For")
		db := fs.String("db", "", "a PostgreSQL `URL` to keep the games in instead of games.db (docs/scaling.md)")
		var hosts hostList
		fs.Var(&hosts, "host", "a `name` the server answers to, besides its address, localhost and the loopback addresses (repeatable)")
		tables := fs.String("egtb", "", "`folder` of endgame databases (endodoi egtb build) for the analysis, hints and levels 9-10 (default: egtb in the data folder)")
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
			return serve(ctx, env, *addr, hosts, *data, *db, *tables, server.Options{TrustProxy: *behindProxy})
		}
	},
}

// defaultDataDir is the folder for the games database: the user's data
// folder as the platform names it, or ./endodoi-data if there is none.
func defaultDataDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "endodoi")
	}
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		if d, err := os.UserConfigDir(); err == nil {
			return filepath.Join(d, "endodoi")
		}
	default:
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, ".local", "share", "endodoi")
		}
	}
	return "endodoi-data"
}

// serve runs the browser game until ctx is cancelled or the process is
// interrupted, then lets the requests in flight finish.
func serve(ctx context.Context, env Env, addr string, hosts []string, data, dbURL, tables string, opt server.Options) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := os.MkdirAll(data, 0o755); err != nil {
		return fmt.Errorf("data folder: %w", err)
	}
	where := filepath.Join(data, "games.db")
	if dbURL != "" {
		where = store.RedactURL(dbURL)
	}
	st, err := store.OpenURL(ctx, dbURL, data)
	if err != nil {
		return err
	}
	defer st.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another endodoi running? choose another with --addr)", addr, err)
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, nil))
	mux := http.NewServeMux()
	api := server.NewWithOptions(st, log, opt)
	_, err = os.Stat(tables)
	useTables := err == nil
	if useTables {
		api.UseTablebases(tables)
	}
	// The server's own work (clocks, heartbeat, live connections) ends
	// before the store closes, on every way out.
	apiCtx, stopAPI := context.WithCancel(ctx)
	if err := api.Start(apiCtx); err != nil {
		stopAPI()
		ln.Close()
		return fmt.Errorf("starting the server: %w", err)
	}
	defer func() { stopAPI(); api.Close() }()
	mux.Handle("/api/", api)
	mux.Handle("/", web.Handler())
	srv := &http.Server{
		Handler:           server.HostCheck(addr, hosts, mux),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      server.MaxAnalysisTime + 30*time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	fmt.Fprintf(env.Stdout, "endodoi: play at http://%s/\n", browserAddr(ln.Addr()))
	if !loopback(ln.Addr()) {
		fmt.Fprintf(env.Stderr, "endodoi: WARNING: listening on %s, reachable from other computers: anyone who can reach it can see every game, and play or change those played on one device (online games are protected by their seats)\n", ln.Addr())
	}
	fmt.Fprintf(env.Stdout, "endodoi: games are kept in %s; press Ctrl-C to stop\n", where)
	if useTables {
		fmt.Fprintf(env.Stdout, "endodoi: endgame databases from %s\n", tables)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	stopAPI()
	api.Close()
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

// hostList collects the repeated --host flag.
type hostList []string

func (h *hostList) String() string { return strings.Join(*h, ",") }

func (h *hostList) Set(v string) error {
	v = strings.TrimSpace(v)
	if v == "" || strings.ContainsAny(v, "/ :@") {
		return fmt.Errorf("%q is not a host name (give the name alone, without scheme or port)", v)
	}
	*h = append(*h, v)
	return nil
}

// loopback reports whether the server listens on this computer only.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// browserAddr is the address to type into a browser: a wildcard host
// becomes this computer's loopback address.
func browserAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
