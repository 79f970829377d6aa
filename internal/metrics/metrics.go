// Package metrics is a server's metrics, in Prometheus's format, for a
// site's monitoring (docs/deploy.md): the API's requests, the moves, the
// live connections, the searches, the store's commits and connection
// pool, and the notices between instances. It counts what the server
// tells it and reads the rest when scraped; it knows no HTTP (the server
// labels each request by the route it matched, never by its path, which
// holds game IDs and invite codes).
package metrics

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/bus"

	"github.com/prometheus/client_golang/prometheus"

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

// Metrics are a server's metrics; a nil *Metrics counts nothing, for a
// server without them.
type Metrics struct {
	requests *prometheus.CounterVec   // route, method, code
	latency  *prometheus.HistogramVec // route, method
	moves    *prometheus.CounterVec   // kind
	// The moves' counters by kind, looked up once.
	localMoves, computerMoves, onlineMoves prometheus.Counter
	searchWait                             *prometheus.HistogramVec // outcome
	commitTime, commitBatch                prometheus.Histogram
	noticeLag                              prometheus.Histogram
}

// Sources are what the metrics read of a server when scraped.
type Sources struct {
	// Live counts the live connections by role, and the games they
	// watch.
	Live func() (players, spectators, pending, games int)
	// Slots says how many searches may run at once, run now and wait.
	Slots func() (slots, busy, queued int)
	// Bus, when other instances share the store, carries their notices:
	// their lag (NoticeHeard), whether this instance hears them, and the
	// bus's outages and lost notices are measured. nil for a store alone.
	Bus bus.Bus
}

// New registers the metrics of a server over st in reg; it returns nil,
// counting nothing, without reg. A metric that cannot be registered (one
// of that name is there already: reg is another server's) is logged and
// left out.
func New(reg prometheus.Registerer, st store.Store, src Sources, log *slog.Logger) *Metrics {
	if reg == nil {
		return nil
	}
	m := &Metrics{
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
		&liveCollector{src.Live}}
	cs = append(cs, searchGauges(src.Slots)...)
	cs = append(cs, prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "endodoi_store_write_failures_total",
		Help: "Writes the store failed to make for a reason other than the data (the disk, the database server).",
	}, func() float64 { return float64(st.WriteFailures()) }))
	if p, ok := st.(store.Pooled); ok {
		cs = append(cs, &poolCollector{p: p})
	}
	if b := src.Bus; b != nil {
		cs = append(cs, m.noticeLag, prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "endodoi_notice_listening",
			Help: "1 while this instance hears the other instances' notices.",
		}, func() float64 {
			if b.Listening() != nil {
				return 0
			}
			return 1
		}), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "endodoi_bus_outages_total",
			Help: "Times the message bus (NATS, Redis) was lost or could not be reached; 0 on PostgreSQL's NOTIFY.",
		}, func() float64 { return float64(b.Stats().Outages) }), prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "endodoi_bus_notices_dropped_total",
			Help: "Notices the message bus (NATS, Redis) could not publish, caught up on through the database; 0 on PostgreSQL's NOTIFY.",
		}, func() float64 { return float64(b.Stats().Dropped) }))
	}
	for _, c := range cs {
		if err := reg.Register(c); err != nil {
			log.Error("registering a metric", "err", err)
		}
	}
	if o, ok := st.(store.Observable); ok {
		o.SetObserver(m)
	}
	return m
}

// Request counts a request answered with code by the handler of route,
// which took took; a live connection, counted as it is upgraded
// (Upgraded), is not counted again.
func (m *Metrics) Request(route, method string, code int, took time.Duration) {
	if m == nil {
		return
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(code)).Inc()
	m.latency.WithLabelValues(route, method).Observe(took.Seconds())
}

// Upgraded counts a request of route upgraded to a live connection.
func (m *Metrics) Upgraded(route, method string) {
	if m != nil {
		m.requests.WithLabelValues(route, method, "101").Inc()
	}
}

// searchGauges read the search slots when scraped.
func searchGauges(slots func() (slots, busy, queued int)) []prometheus.Collector {
	slot := func(i int) func() float64 {
		return func() float64 {
			var n [3]int
			n[0], n[1], n[2] = slots()
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

// Changed counts change c of game g if it is a move.
func (m *Metrics) Changed(g *play.Game, c play.Change) {
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

// SearchWaited observes the wait for a search slot that ended with err.
func (m *Metrics) SearchWaited(took time.Duration, err error) {
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
func (m *Metrics) Committed(writes int, took time.Duration) {
	m.commitTime.Observe(took.Seconds())
	m.commitBatch.Observe(float64(writes))
}

// NoticeHeard observes the lag of a notice sent at sent (Unix
// microseconds), handled at now; a notice from an instance that does not
// tell its time has sent 0.
func (m *Metrics) NoticeHeard(sent int64, now time.Time) {
	if m == nil || sent <= 0 {
		return
	}
	// Two machines' clocks differ a little: a notice never arrives early.
	m.noticeLag.Observe(max(0, now.Sub(time.UnixMicro(sent))).Seconds())
}

// liveCollector counts the live connections when scraped.
type liveCollector struct {
	counts func() (players, spectators, pending, games int)
}

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
	players, spectators, pending, games := c.counts()
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(players), "player")
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(spectators), "spectator")
	ch <- prometheus.MustNewConstMetric(liveConnsDesc, prometheus.GaugeValue, float64(pending), "pending")
	ch <- prometheus.MustNewConstMetric(liveGamesDesc, prometheus.GaugeValue, float64(games))
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
