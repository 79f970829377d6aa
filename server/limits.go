package server

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/rules"
)

// Rate is a request budget: Burst requests at once, refilled at PerSecond.
type Rate struct {
	PerSecond float64
	Burst     int
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
	o.ClientLimits = o.ClientLimits.withDefaults(o.Searches)
	o.Accounts = o.Accounts.withDefaults()
	if o.Clock == nil {
		o.Clock = clock.Real
	}
	return o
}

// searchSlots bounds the searches running at once and the requests
// waiting for one, so that a burst of analyses neither exhausts memory nor
// starves the moves of the CPU.
type searchSlots struct {
	run     chan struct{}
	waiting chan struct{}
	wait    time.Duration
}

func newSearchSlots(o Options) *searchSlots {
	return &searchSlots{run: make(chan struct{}, o.Searches), waiting: make(chan struct{}, o.SearchQueue), wait: o.SearchWait}
}

// busyError is the answer when no search can be run now.
func busyError() error {
	return &api.Error{Status: http.StatusServiceUnavailable, RetryAfter: 2,
		Msg: "the server is busy with other searches; try again in a moment"}
}

// acquire waits for a slot; it returns the function that frees it.
func (sl *searchSlots) acquire(ctx context.Context) (func(), error) {
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	default:
	}
	select {
	case sl.waiting <- struct{}{}:
	default:
		return nil, busyError()
	}
	defer func() { <-sl.waiting }()
	t := time.NewTimer(sl.wait)
	defer t.Stop()
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	case <-t.C:
		return nil, busyError()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// enginePool keeps idle engines, so that a search reuses a transposition
// table instead of allocating one.
type enginePool struct {
	mu   sync.Mutex
	free map[engineKey][]*engine.Engine
	idle int // engines in free
	max  int
}

type engineKey struct {
	rules   rules.Rules
	tb      *egtb.Tablebase
	perfect bool
}

// searchHashMiB is the table size of the server's engines (the API's).
const searchHashMiB = api.SearchHashMiB

func (p *enginePool) get(k engineKey) (*engine.Engine, error) {
	p.mu.Lock()
	if list := p.free[k]; len(list) > 0 {
		e := list[len(list)-1]
		p.free[k] = list[:len(list)-1]
		p.idle--
		p.mu.Unlock()
		e.NewGame()
		return e, nil
	}
	p.mu.Unlock()
	cfg := engine.Config{Rules: k.rules, HashMiB: searchHashMiB, Book: k.perfect}
	if k.tb != nil {
		cfg.Tablebase = k.tb // only a non-nil one: a nil pointer in the interface would be probed
	}
	return engine.New(cfg)
}

func (p *enginePool) put(k engineKey, e *engine.Engine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle >= p.max {
		// Make room: an engine of a rarely used board goes first.
		for k2, list := range p.free {
			if len(list) > 0 {
				p.free[k2] = list[1:]
				p.idle--
				break
			}
		}
	}
	p.free[k] = append(p.free[k], e)
	p.idle++
}

// withEngine runs f with an engine for position p under r, once a search
// slot is free within the share of the client ctx's
// request is from (searchshare.go); f searches with the context it is
// given, which ends early when an analysis must give way. A perfect
// engine takes every exact value the server knows: the opening book of
// proven values and the endgame databases (the hints, the analysis and
// the strongest levels); the others search on their own, and keep their
// mistakes. The position of an online game being played, and those near
// it, are refused (livepositions.go).
func (s *Server) withEngine(ctx context.Context, r rules.Rules, p rules.Position, perfect bool, f func(context.Context, *engine.Engine) error) error {
	if err := s.positions.check(p, r); err != nil {
		return err
	}
	holes := p.Holes()
	asked := time.Now()
	ctx, release, err := s.search.acquire(ctx, s.slots)
	s.metrics.searchWaited(time.Since(asked), err)
	if err != nil {
		return err
	}
	defer release()
	k := engineKey{rules: r.Canonical(), perfect: perfect}
	if perfect {
		k.tb = s.tablebase(holes, r)
	}
	e, err := s.engines.get(k)
	if err != nil {
		return err
	}
	defer s.engines.put(k, e)
	return f(ctx, e)
}

// rateLimiter gives each client a token bucket.
type rateLimiter struct {
	rate Rate
	mu   sync.Mutex
	byIP map[netip.Prefix]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

// maxClients bounds the limiter's memory; past it, buckets that are full
// again are forgotten, and if none is, new clients share one bucket.
const maxClients = 10_000

func newRateLimiter(r Rate) *rateLimiter {
	return &rateLimiter{rate: r, byIP: map[netip.Prefix]*bucket{}}
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

// allow takes a token for client, or says how long to wait for one.
func (l *rateLimiter) allow(client netip.Prefix, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.byIP[client]
	if b == nil {
		if len(l.byIP) >= maxClients {
			l.sweep(now)
		}
		if len(l.byIP) >= maxClients {
			client = netip.Prefix{}
			b = l.byIP[client]
		}
		if b == nil {
			b = &bucket{tokens: float64(l.rate.Burst), last: now}
			l.byIP[client] = b
		}
	}
	return b.take(l.rate, now)
}

// take takes a token from the bucket, refilled at rate, or says how long
// to wait for one.
func (b *bucket) take(rate Rate, now time.Time) (bool, time.Duration) {
	b.tokens = min(float64(rate.Burst), b.tokens+now.Sub(b.last).Seconds()*rate.PerSecond)
	b.last = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.tokens) / rate.PerSecond * float64(time.Second))
}

// refund gives client back a token taken for a request that was refused
// all the same.
func (l *rateLimiter) refund(client netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.byIP[client]; b != nil {
		b.tokens = min(float64(l.rate.Burst), b.tokens+1)
	}
}

func (l *rateLimiter) sweep(now time.Time) {
	for c, b := range l.byIP {
		if b.tokens+now.Sub(b.last).Seconds()*l.rate.PerSecond >= float64(l.rate.Burst) {
			delete(l.byIP, c)
		}
	}
}

// limited wraps a handler with the rate limit l per client.
func (s *Server) limited(l *rateLimiter, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if ok, wait := l.allow(clientOf(r, s.trustProxy), time.Now()); !ok {
			secs := int(wait/time.Second) + 1
			s.fail(w, r, &api.Error{Status: http.StatusTooManyRequests, RetryAfter: secs,
				Msg: "too many requests of this kind; try again in a moment"})
			return
		}
		h(w, r)
	}
}
