package serve

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/server"
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
	Options server.Options
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
	// TLS, if not nil, serves HTTPS on Addr (tls.go).
	TLS *TLSConfig
	// DrainTime is how long the server keeps serving once ctx ends while
	// /readyz answers 503, so that a load balancer sends it nothing new;
	// only if /readyz was probed (shutdown.go).
	DrainTime time.Duration
	// ShutdownTimeout bounds the stop from ctx's end, DrainTime
	// included; 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// MetricsAddr, if not empty, is the host:port that serves the
	// server's metrics at /metrics (metrics.go), apart from the site;
	// it sets Options.Metrics.
	MetricsAddr string
}

// HTTP server limits of ListenAndServe. A request's headers are bounded
// more tightly by the API (server.MaxHeaderBytes); WriteTimeout leaves
// room for the longest analysis.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = server.MaxAnalysisTime + 30*time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 1 << 20
)

// ListenAndServe serves the API over st, and cfg.Site beside it, on
// cfg.Addr (over HTTPS with cfg.TLS) until ctx ends; then it stops as
// shutdown.go says, within cfg.ShutdownTimeout, and returns nil. Load
// balancers' probes are answered on /healthz and /readyz (health.go).
// Once listening it writes to cfg.Out the address to open in a browser
// and where the games and endgame databases are kept, and to cfg.Warn a
// warning when the address is reachable from other computers. It does not
// close st: the caller closes it afterwards, which finishes the writes
// still queued.
func ListenAndServe(ctx context.Context, st store.Store, cfg ListenConfig) error {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	hosts := cfg.Hosts
	var tlsSet *tlsSetup
	if cfg.TLS != nil {
		var err error
		if tlsSet, err = cfg.TLS.setup(log); err != nil {
			return err
		}
		hosts = append(slices.Clone(hosts), cfg.TLS.Domains...)
	}
	// The addresses are checked before the start's work, and taken only
	// once it is done: a listener accepts connections as soon as it
	// exists, and those made before it is served would wait, where a
	// client should be refused at once and try again.
	if err := checkFree(cfg); err != nil {
		return err
	}
	stopMetrics, err := listenMetrics(&cfg, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	raiseFileLimit(log)
	api := server.NewWithOptions(st, log, cfg.Options)
	if cfg.Tablebases != nil {
		api.UseTablebases(cfg.Tablebases)
	}
	// The requests and the API's own work outlive ctx: the stop ends
	// them in its own time. Both end on every way out, before the caller
	// closes the store.
	base, cancelBase := context.WithCancel(context.WithoutCancel(ctx))
	apiCtx, stopAPI := context.WithCancel(base)
	if err := api.Start(apiCtx); err != nil {
		stopAPI()
		cancelBase()
		return fmt.Errorf("starting the server: %w", err)
	}
	defer func() { stopAPI(); cancelBase(); api.Close() }()
	if err := api.WaitListening(ctx); err != nil && ctx.Err() == nil {
		log.Warn("serving without hearing the other instances yet; /readyz says not ready", "err", err)
	}
	ln, plainLn, err := listen(cfg)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	if cfg.Site != nil {
		site := cfg.Site
		if cfg.TLS == nil {
			site = LocalhostPages(site)
		}
		mux.Handle("/", site)
	}
	probes := &health{api: api, log: log}
	handler := probes.wrap(HostCheck(cfg.Addr, hosts, mux))
	if tlsSet != nil {
		handler = withHSTS(handler)
	}
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	running := []served{{srv: srv, ln: ln}}
	if tlsSet != nil {
		srv.TLSConfig = tlsSet.config
		running[0].tls = true
	}
	if plainLn != nil {
		port := ln.Addr().(*net.TCPAddr).Port
		redirect := probes.wrap(tlsSet.challenges(HostCheck(cfg.TLS.HTTPAddr, hosts, redirectHTTPS(port))))
		plain := plainHTTPServer(redirect, log)
		plain.BaseContext = srv.BaseContext
		running = append(running, served{srv: plain, ln: plainLn})
	}
	writeStartup(cfg, ln.Addr())
	if plainLn != nil && cfg.Out != nil {
		fmt.Fprintf(cfg.Out, "endodoi: plain HTTP on %s redirects to HTTPS\n", plainLn.Addr())
	}
	done := make(chan error, len(running))
	for _, r := range running {
		go func() {
			if r.tls {
				done <- r.srv.ServeTLS(r.ln, "", "")
				return
			}
			done <- r.srv.Serve(r.ln)
		}()
	}
	stop := stopping{log: log, probes: probes, running: running, done: done, stopAPI: stopAPI, cancel: cancelBase,
		drain: cfg.DrainTime, timeout: cfg.ShutdownTimeout, api: api}
	select {
	case err := <-done:
		stop.waited = 1
		stop.now()
		return fmt.Errorf("serving: %w", err)
	case <-ctx.Done():
	}
	return stop.run()
}

// listen listens on cfg.Addr, and on cfg.TLS.HTTPAddr for plain HTTP
// when it is set (plainLn nil otherwise).
func listen(cfg ListenConfig) (ln, plainLn net.Listener, err error) {
	ln, err = net.Listen("tcp", cfg.Addr)
	if err != nil {
		return nil, nil, fmt.Errorf("listening on %s: %w (is another endodoi running? choose another with --addr)", cfg.Addr, err)
	}
	if cfg.TLS != nil && cfg.TLS.HTTPAddr != "" {
		if plainLn, err = net.Listen("tcp", cfg.TLS.HTTPAddr); err != nil {
			ln.Close()
			return nil, nil, fmt.Errorf("listening on %s for plain HTTP: %w (choose another with --http-addr, or --http-addr off)", cfg.TLS.HTTPAddr, err)
		}
	}
	return ln, plainLn, nil
}

// checkFree says whether ListenAndServe could listen on its addresses
// now, by listening on them and closing the listeners at once.
func checkFree(cfg ListenConfig) error {
	ln, plainLn, err := listen(cfg)
	if err != nil {
		return err
	}
	ln.Close()
	if plainLn != nil {
		plainLn.Close()
	}
	return nil
}

// served is an HTTP server and its listener.
type served struct {
	srv *http.Server
	ln  net.Listener
	tls bool // HTTPS, with srv.TLSConfig
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
	url := "http://" + browserAddr(addr, "localhost") + "/"
	if t := cfg.TLS; t != nil {
		// The certificate may name the address rather than localhost.
		url = "https://" + browserAddr(addr, "127.0.0.1") + "/"
		if len(t.Domains) > 0 {
			// The certificate names the domain, not the address.
			host := t.Domains[0]
			if port := addr.(*net.TCPAddr).Port; port != 443 {
				host = net.JoinHostPort(host, fmt.Sprint(port))
			}
			url = "https://" + host + "/"
		}
	}
	fmt.Fprintf(out, "endodoi: play at %s\n", url)
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
// listening on a: a wildcard host, and over plain HTTP a loopback one,
// becomes local, this computer's name for itself. Over plain HTTP that is
// localhost, which browsers treat as secure, so that passkeys work there
// (LocalhostPages).
func browserAddr(a net.Addr, local string) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() && !(tcp.IP.IsLoopback() && local == "localhost") {
		return a.String()
	}
	return net.JoinHostPort(local, fmt.Sprint(tcp.Port))
}

// LocalhostPages sends a browser that opens a page at a loopback address
// (http://127.0.0.1:PORT/...) to the same page at http://localhost:PORT/:
// browsers treat localhost as a secure context and WebAuthn accepts it as
// a relying party, never an IP address, so passkeys work there. Only the
// navigations of browsers to pages are sent (GET or HEAD, not under
// /api/, Sec-Fetch-Mode navigate or, without it, asking for HTML): the
// API, the page's files, bots and other programs are served where they
// ask.
func LocalhostPages(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil && (r.Method == http.MethodGet || r.Method == http.MethodHead) &&
			!strings.HasPrefix(r.URL.Path, "/api/") && navigation(r) {
			host, port, err := net.SplitHostPort(r.Host)
			if err != nil {
				host, port = r.Host, ""
			}
			if ip := net.ParseIP(strings.Trim(host, "[]")); ip != nil && ip.IsLoopback() {
				to := "localhost"
				if port != "" {
					to = net.JoinHostPort(to, port)
				}
				http.Redirect(w, r, "http://"+to+r.URL.RequestURI(), http.StatusFound)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// navigation reports whether r is a browser opening a page.
func navigation(r *http.Request) bool {
	if mode := r.Header.Get("Sec-Fetch-Mode"); mode != "" {
		return mode == "navigate"
	}
	return strings.Contains(r.Header.Get("Accept"), "text/html")
}

// lowFileLimit is an open-file limit worth a warning: a public site
// holds a file for each live connection.
const lowFileLimit = 4096

// raiseFileLimit raises the open-file limit before the server starts, so
// that its default MaxLive follows, and warns when it is still low.
func raiseFileLimit(log *slog.Logger) {
	n, err := limits.RaiseFileLimit()
	switch {
	case err != nil:
		log.Warn("raising the open-file limit", "limit", n, "err", err)
	case n > 0 && n < lowFileLimit:
		log.Warn("the open-file limit is low; raise the hard limit (LimitNOFILE) for more live connections", "limit", n, "max_live", limits.MaxLiveForFiles(n))
	}
}
