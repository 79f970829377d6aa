package serve

// The server's metrics (Options.Metrics of package server), served on an
// address of their own (ListenConfig.MetricsAddr), never on the site's.

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// MetricsHandler serves the metrics of reg in Prometheus's text format.
func MetricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, MaxRequestsInFlight: 4})
}

// listenMetrics makes cfg's registry of metrics, with the process's own
// (memory, CPU, open files, goroutines), and serves it on
// cfg.MetricsAddr at /metrics until the returned function is called.
// Without cfg.MetricsAddr it does nothing.
func listenMetrics(cfg *ListenConfig, log *slog.Logger) (stop func(), err error) {
	if cfg.MetricsAddr == "" {
		return func() {}, nil
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s for the metrics: %w (choose another with --metrics-addr)", cfg.MetricsAddr, err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	cfg.Options.Metrics = reg
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", MetricsHandler(reg))
	profiling := addProfiling(mux, ln.Addr())
	srv := &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      readTimeout,
		IdleTimeout:       idleTimeout,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("serving the metrics", "err", err)
		}
	}()
	if cfg.Out != nil {
		fmt.Fprintf(cfg.Out, "endodoi: metrics at http://%s/metrics\n", ln.Addr())
		if profiling {
			fmt.Fprintf(cfg.Out, "endodoi: Go's profiles at http://%s/debug/pprof/\n", ln.Addr())
		}
	}
	return func() { srv.Close() }, nil
}

// checkMetricsAddr refuses a --metrics-addr that is not host:port or is
// one of the site's addresses: the site never serves its metrics.
func (f *SiteFlags) checkMetricsAddr(cfg *ListenConfig) error {
	a := f.metricsAddr
	if a == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(a); err != nil {
		return fmt.Errorf("--metrics-addr %q: want host:port, e.g. 127.0.0.1:9090", a)
	}
	if a == cfg.Addr || cfg.TLS != nil && a == cfg.TLS.HTTPAddr {
		return fmt.Errorf("--metrics-addr %s is the site's address too: the metrics need a port of their own", a)
	}
	return nil
}
