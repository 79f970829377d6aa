package server

// The server's metrics, in Prometheus's format, for a site's monitoring
// (docs/deploy.md): the API's requests, the moves, the live connections,
// the searches, the store's commits and connection pool, and the notices
// between instances. Each server registers them in a registry of its own
// (Options.Metrics); package serve serves that registry on an address of
// its own, never on the site's.
//
// No label holds what a client chose: a request is labelled by the route
// it matched (the pattern, never the path, which holds game IDs and
// invite codes), its method among a few known ones and its status code.

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/store"
)

// The histograms' buckets, in seconds.
var (
	// latencyBuckets span what a player notices, from a move's round trip
	// to the longest analysis (MaxAnalysisTime).
	latencyBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	// commitBuckets span a commit, from a batch that fits in the page cache
	// to a disk or database server struggling.
	commitBuckets = []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5}
	// batchBuckets go up to SQLite's largest batch (256 writes).
	batchBuckets = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256}
)

// metrics are a server's metrics; a nil *metrics counts nothing, for a
// server without them.
type metrics struct {
	requests *prometheus.CounterVec   // route, method, code
	latency  *prometheus.HistogramVec // route, method
	moves    *prometheus.CounterVec   // kind
	// The moves' counters by kind, looked up once.
	localMoves, computerMoves, onlineMoves prometheus.Counter
	searchWait                             *prometheus.HistogramVec // outcome
	commitTime, commitBatch                prometheus.Histogram
	noticeLag                              prometheus.Histogram
}

// newMetrics registers the metrics of s in reg; it returns nil, counting
// nothing, without reg. A metric that cannot be registered (one of that
// name is there already: reg is another server's) is logged and left out.
func newMetrics(reg prometheus.Registerer, s *Server) *metrics {
	if reg == nil {
		return nil
	}
	m := &metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "endodoi_http_requests_total",
			Help: "API requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "endodoi_http_request_duration_seconds",
			Help:    "Time to answer an API request, by route pattern and method (live connections, which last, are left out).",
			Buckets: latencyBuckets,
		}, []string{"route", "method"}),
		moves: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "endodoi_moves_total",
			Help: "Moves played and stored, by kind: local (two people on one device), computer (the computer's own), online.",
		}, []string{"kind"}),
		searchWait: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "endodoi_search_wait_seconds",
			Help:    "Time a search (computer move, hint, analysis) waited for a slot, by outcome: run, busy (refused with 503) or gone (the client left).",
			Buckets: latencyBuckets,
		}, []string{"outcome"}),
		commitTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "endodoi_store_commit_duration_seconds",
			Help:    "Time from a store transaction's start to its commit.",
			Buckets: commitBuckets,
		}),
		commitBatch: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "endodoi_store_commit_batch_size",
			Help:    "Writes one store transaction committed (SQLite gathers those asked for together; PostgreSQL commits each alone).",
			Buckets: batchBuckets,
		}),
		noticeLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "endodoi_notice_lag_seconds",
			Help:    "Time from another instance's change to its notice being handled here, by the two instances' clocks.",
			Buckets: latencyBuckets,
		}),
	}
	m.localMoves = m.moves.WithLabelValues("local")
	m.computerMoves = m.moves.WithLabelValues("computer")
	m.onlineMoves = m.moves.WithLabelValues("online")
	cs := []prometheus.Collector{m.requests, m.latency, m.moves, m.searchWait, m.commitTime, m.commitBatch,
		&liveCollector{h: &s.live}}
	cs = append(cs, searchGauges(s.analysis)...)
	cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "endodoi_store_write_failures_total",
		Help: "Writes the store failed to make for a reason other than the data (the disk, the database server).",
	}, func() float64 { return float64(s.store.WriteFailures()) }))
	if p, ok := s.store.(store.Pooled); ok {
		cs = append(cs, &poolCollector{p: p})
	}
	// A store that several instances share (store.Postgres) hears their
	// notices on a bus.
	if s.bus != nil {
		cs = append(cs, m.noticeLag)
		cs = append(cs, s.busMetrics()...)
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			s.log.Error("registering a metric", "err", err)
		}
	}
	if o, ok := s.store.(store.Observable); ok {
		o.SetObserver(m)
	}
	return m
}

// searchGauges read the search slots when scraped.
func searchGauges(a *analysis.Service) []prometheus.Collector {
	slot := func(i int) func() float64 {
		return func() float64 {
			var n [3]int
			n[0], n[1], n[2] = a.Slots()
			return float64(n[i])
		}
	}
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "endodoi_search_slots",
			Help: "Searches that may run at once.",
		}, slot(0)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "endodoi_search_slots_busy",
			Help: "Searches running now (reviews included).",
		}, slot(1)),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "endodoi_search_queued",
			Help: "Requests waiting for a search slot now.",
		}, slot(2)),
	}
}

// instrument counts the requests next answers, and times them.
func (m *metrics) instrument(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, m: m, r: r}
		next.ServeHTTP(sw, r)
		if sw.code == http.StatusSwitchingProtocols {
			return // counted as it was upgraded
		}
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		// The router has set r.Pattern on this very request.
		route, method := routeOf(r), methodOf(r.Method)
		m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
		m.latency.WithLabelValues(route, method).Observe(time.Since(start).Seconds())
	})
}

// routeOf is the route a request matched: its pattern without the
// method, or "unmatched" for the requests the router or the guard refused.
func routeOf(r *http.Request) string {
	p := r.Pattern
	if p == "" {
		return "unmatched"
	}
	if _, path, ok := strings.Cut(p, " "); ok {
		return path
	}
	return p
}

// methodOf is a request's method as a label: a client may send any.
func methodOf(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions,
		http.MethodPatch:
		return m
	}
	return "other"
}

// statusWriter notes the status code of an answer. A live connection is
// counted as it is upgraded, not when it ends, perhaps hours later.
type statusWriter struct {
	http.ResponseWriter
	code int
	m    *metrics
	r    *http.Request
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 || w.code != http.StatusSwitchingProtocols && w.code < 200 {
		w.code = code
		if code == http.StatusSwitchingProtocols {
			w.m.requests.WithLabelValues(routeOf(w.r), methodOf(w.r.Method), "101").Inc()
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController and the WebSocket upgrade reach the
// connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observeChange is the table's OnChange: it counts the moves, then tells
// the live clients (changed).
func (s *Server) observeChange(ctx context.Context, g *play.Game, c play.Change) {
	s.metrics.changed(g, c)
	s.changed(ctx, g, c)
}

// changed counts change c of game g if it is a move.
func (m *metrics) changed(g *play.Game, c play.Change) {
	if m == nil || c.Event != "move" {
		return
	}
	switch comp := g.Info().Computer; {
	case g.Online() != nil:
		m.onlineMoves.Inc()
	case comp != nil && c.Sowing != nil && c.Sowing.Move.Side() == comp.Side:
		m.computerMoves.Inc()
	default:
		m.localMoves.Inc()
	}
}

// searchWaited observes the wait for a search slot that ended with err.
func (m *metrics) searchWaited(took time.Duration, err error) {
	if m == nil {
		return
	}
	outcome := "run"
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		outcome = "gone"
	case err != nil:
		outcome = "busy"
	}
	m.searchWait.WithLabelValues(outcome).Observe(took.Seconds())
}

// Committed implements store.Observer.
func (m *metrics) Committed(writes int, took time.Duration) {
	m.commitTime.Observe(took.Seconds())
	m.commitBatch.Observe(float64(writes))
}

// noticeSent is the time a notice is sent, as it carries it: Unix
// microseconds.
func noticeSent() int64 { return time.Now().UnixMicro() }

// noticeHeard observes the lag of a notice sent at sent (noticeSent),
// handled at now; a notice from an instance that does not tell its time
// has sent 0.
func (m *metrics) noticeHeard(sent int64, now time.Time) {
	if m == nil || sent <= 0 {
		return
	}
	// Two machines' clocks differ a little: a notice never arrives early.
	m.noticeLag.Observe(max(0, now.Sub(time.UnixMicro(sent))).Seconds())
}

// liveCollector counts the live connections when scraped.
type liveCollector struct{ h *liveHub }

var (
	liveConnsDesc = prometheus.NewDesc("endodoi_live_connections",
		"Live connections open on this instance, by role: player (a seat's), spectator, or pending (not yet said which).",
		[]string{"role"}, nil)
	liveGamesDesc = prometheus.NewDesc("endodoi_live_games",
		"Games with at least one live connection on this instance.", nil, nil)
)

func (c *liveCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- liveConnsDesc
	ch <- liveGamesDesc
}

func (c *liveCollector) Collect(ch chan<- prometheus.Metric) {
	players, spectators, pending, games := c.h.counts()
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(players), "player")
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(spectators), "spectator")
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(pending), "pending")
	ch <- prometheus.MustNewConstMetric(liveGamesDesc, prometheus.GaugeValue, float64(games))
}

// counts counts the live connections by role, and the games they watch.
func (h *liveHub) counts() (players, spectators, pending, games int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.rooms {
		players += r.seats[0] + r.seats[1]
		pending += r.fresh
		spectators += len(r.conns) - r.seats[0] - r.seats[1] - r.fresh
	}
	return players, spectators, pending, len(h.rooms)
}

// poolCollector reads the store's connection pool when scraped.
type poolCollector struct{ p store.Pooled }

var (
	poolConnsDesc = prometheus.NewDesc("endodoi_db_pool_connections",
		"The store's pooled database connections, by state: in_use or idle.", []string{"state"}, nil)
	poolMaxDesc = prometheus.NewDesc("endodoi_db_pool_max_connections",
		"The most connections the store's pool opens.", nil, nil)
	poolWaitsDesc = prometheus.NewDesc("endodoi_db_pool_waits_total",
		"Connections asked of the pool when none was free.", nil, nil)
	poolWaitTimeDesc = prometheus.NewDesc("endodoi_db_pool_wait_seconds_total",
		"Time spent waiting for a connection of the pool.", nil, nil)
)

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{poolConnsDesc, poolMaxDesc, poolWaitsDesc, poolWaitTimeDesc} {
		ch <- d
	}
}

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.p.PoolStats()
	ch <- prometheus.MustNewConstMetric(poolConnsDesc, prometheus.GaugeValue, float64(st.InUse), "in_use")
	ch <- prometheus.MustNewConstMetric(poolConnsDesc, prometheus.GaugeValue, float64(st.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(poolMaxDesc, prometheus.GaugeValue, float64(st.Max))
	ch <- prometheus.MustNewConstMetric(poolWaitsDesc, prometheus.CounterValue, float64(st.Waits))
	ch <- prometheus.MustNewConstMetric(poolWaitTimeDesc, prometheus.CounterValue, st.WaitTime.Seconds())
}
