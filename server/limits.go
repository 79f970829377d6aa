package server

import (
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/limits"
)

// Rate is a request budget: Burst requests at once, refilled at
// PerSecond (limits.Rate).
type Rate limits.Rate

// bucket is a budget of a Rate (limits.Bucket), as a live connection
// spends its messages.
type bucket struct {
	tokens float64
	last   time.Time
}

// take takes a token from the bucket, refilled at rate, or says how long
// to wait for one.
func (b *bucket) take(rate Rate, now time.Time) (bool, time.Duration) {
	lb := limits.Bucket{Tokens: b.tokens, Last: b.last}
	ok, wait := lb.Take(limits.Rate(rate), now)
	b.tokens, b.last = lb.Tokens, lb.Last
	return ok, wait
}

// Options tune the server's limits; the zero value of a field means its
// default.
type Options struct {
	// Searches is how many engine searches (computer moves, hints,
	// analyses) run at once; default one fewer than the CPUs (at least
	// one), so that moves always have a core. Each holds an engine with
	// its transposition table.
	Searches int
	// SearchQueue is how many more requests may wait for a search; beyond
	// it, or after SearchWait, a request is answered 503 with Retry-After.
	// Defaults 32 and 5 s.
	SearchQueue int
	SearchWait  time.Duration
	// Per client (IP address, or /64 for IPv6): analyses and hints,
	// computer moves, and record imports and parses. Defaults: 5/s
	// (burst 30), 10/s (burst 30), 5/s (burst 30).
	AnalysisRate, ComputerRate, RecordRate Rate
	// TrustProxy counts the requests a proxy on this machine or the local
	// network forwards against the client it names in X-Forwarded-For,
	// rather than against the proxy. Only for a server that is reached
	// through such a proxy alone.
	TrustProxy bool
	// Metrics, if not nil, is where the server registers its metrics
	// (metrics.go): a registry of its own, as every server's metrics have
	// the same names.
	Metrics prometheus.Registerer
	// ClientLimits bound what one client may hold or make (clientlimits.go).
	ClientLimits
	// Accounts tune the accounts (accounts.go).
	Accounts AccountOptions
	// Clock tells the time of the games' changes and arms the timers that
	// flag their clocks; default clock.Real. Tests move a clock.Fake.
	Clock clock.Clock
	// Bus, with a store that several instances share, carries the
	// notices between them (package bus); nil for the store's own,
	// PostgreSQL's LISTEN/NOTIFY. The caller closes it after the server.
	Bus bus.Bus
}

func (o Options) withDefaults() Options {
	def := func(r, d Rate) Rate {
		if r.PerSecond <= 0 || r.Burst <= 0 {
			return d
		}
		return r
	}
	if o.Searches <= 0 {
		o.Searches = max(1, runtime.GOMAXPROCS(0)-1)
	}
	if o.SearchQueue <= 0 {
		o.SearchQueue = 32
	}
	if o.SearchWait <= 0 {
		o.SearchWait = 5 * time.Second
	}
	o.AnalysisRate = def(o.AnalysisRate, Rate{5, 30})
	o.ComputerRate = def(o.ComputerRate, Rate{10, 30})
	o.RecordRate = def(o.RecordRate, Rate{5, 30})
	o.ClientLimits = o.ClientLimits.WithDefaults(o.Searches)
	o.Accounts = o.Accounts.withDefaults()
	if o.Clock == nil {
		o.Clock = clock.Real
	}
	return o
}

// clientOf is the client a request counts against: its IP address, or its
// /64 network for IPv6, where one host easily has many addresses. Behind a
// proxy (trustProxy), a request the proxy forwards (from a loopback or
// private address) counts against the address the proxy says it came from:
// the last one of X-Forwarded-For, the one the proxy added itself.
// untoldProxy is the one client that every request forwarded by a proxy on
// this machine counts as, when the server does not trust proxies.
var untoldProxy = netip.MustParsePrefix("100::/64") // the discard-only prefix (RFC 6666): no real client

func clientOf(r *http.Request, trustProxy bool) netip.Prefix {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Prefix{}
	}
	fwd := r.Header.Values("X-Forwarded-For")
	if !trustProxy && len(fwd) > 0 && ip.IsLoopback() {
		// A proxy on this machine that the server was not told of: its
		// clients are not the operator's own tools, exempt from the
		// limits, but strangers it cannot tell apart. They share one
		// budget until the server is started with --behind-proxy.
		return untoldProxy
	}
	if trustProxy && len(fwd) > 0 && (ip.IsLoopback() || ip.IsPrivate()) {
		hops := strings.Split(fwd[len(fwd)-1], ",")
		if last, err := netip.ParseAddr(strings.TrimSpace(hops[len(hops)-1])); err == nil {
			ip = last
		}
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// limited wraps a handler with the rate limit l per client.
func (s *Server) limited(l *limits.Limiter, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := l.Allow(clientOf(r, s.trustProxy), time.Now()); !ok {
			s.fail(w, r, limits.TooMany(wait, "too many requests of this kind; try again in a moment"))
			return
		}
		h(w, r)
	}
}
