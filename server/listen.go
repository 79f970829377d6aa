package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/store"
)

// ListenConfig says where ListenAndServe listens, what it serves besides
// the API, and whom it tells.
type ListenConfig struct {
	// Addr is the host:port to listen on; port 0 picks a free one.
	Addr string
	// Hosts are names the server answers to besides its address,
	// localhost and the loopback addresses (HostCheck).
	Hosts []string
	// Options are the API's limits.
	Options Options
	// Tablebases, if not nil, are the endgame databases of the analysis,
	// the hints and the strongest levels.
	Tablebases *egtb.Library
	// Site, if not nil, serves every path outside /api/: the game's page.
	Site http.Handler
	// StoreName says where the games are kept, for the startup lines.
	StoreName string
	// Out receives the startup lines; Warn the warning that the server is
	// reachable from other computers. Either may be nil.
	Out, Warn io.Writer
	// Log is the server's log; nil means slog.Default().
	Log *slog.Logger
}

// HTTP server limits of ListenAndServe. A request's headers are bounded
// more tightly by the API (MaxHeaderBytes); WriteTimeout leaves room for
// the longest analysis.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = MaxAnalysisTime + 30*time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 1 << 20
	shutdownTimeout   = 15 * time.Second
)

// ListenAndServe serves the API over st, and cfg.Site beside it, on
// cfg.Addr until ctx ends; then it lets the requests in flight finish (for
// up to 15 seconds), stops the API's own work (clocks, live connections)
// and returns nil. Once listening it writes to cfg.Out the address to open
// in a browser and where the games and endgame databases are kept, and to
// cfg.Warn a warning when the address is reachable from other computers.
// It does not close st: the caller closes it afterwards, which finishes
// the writes still queued.
func ListenAndServe(ctx context.Context, st store.Store, cfg ListenConfig) error {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listening on %s: %w (is another endodoi running? choose another with --addr)", cfg.Addr, err)
	}
	api := NewWithOptions(st, log, cfg.Options)
	if cfg.Tablebases != nil {
		api.UseTablebases(cfg.Tablebases)
	}
	// The API's own work ends on every way out, before the caller closes
	// the store.
	apiCtx, stopAPI := context.WithCancel(ctx)
	if err := api.Start(apiCtx); err != nil {
		stopAPI()
		ln.Close()
		return fmt.Errorf("starting the server: %w", err)
	}
	defer func() { stopAPI(); api.Close() }()
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	if cfg.Site != nil {
		mux.Handle("/", cfg.Site)
	}
	srv := &http.Server{
		Handler:           HostCheck(cfg.Addr, cfg.Hosts, mux),
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return ctx },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	writeStartup(cfg, ln.Addr())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return fmt.Errorf("stopping the server: %w", err)
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serving: %w", err)
	}
	return nil
}

// writeStartup writes the startup lines of a server listening on addr.
func writeStartup(cfg ListenConfig, addr net.Addr) {
	out, warn := cfg.Out, cfg.Warn
	if out == nil {
		out = io.Discard
	}
	if warn == nil {
		warn = io.Discard
	}
	fmt.Fprintf(out, "endodoi: play at http://%s/\n", browserAddr(addr))
	if !loopback(addr) {
		fmt.Fprintf(warn, "endodoi: WARNING: listening on %s, reachable from other computers: anyone who can reach it can see every game, and play or change those played on one device (online games are protected by their seats)\n", addr)
	}
	fmt.Fprintf(out, "endodoi: games are kept in %s; press Ctrl-C to stop\n", cfg.StoreName)
	if cfg.Tablebases != nil {
		fmt.Fprintf(out, "endodoi: endgame databases in %s\n", cfg.Tablebases.Dir())
	}
}

// loopback reports whether a server listening on a is reachable from this
// computer only.
func loopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// browserAddr is the address to type into a browser to reach a server
// listening on a: a wildcard host becomes this computer's loopback
// address.
func browserAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", fmt.Sprint(tcp.Port))
}
