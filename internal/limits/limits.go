// Package limits bounds what one client may take of a server: requests
// of a kind a second (token buckets), live connections held, games and
// invitations made, and the setups of players at work at once. A client
// is what the server says a request comes from, an IP address or an IPv6
// /64 (a netip.Prefix): the package knows no HTTP, and its refusals are
// the API's (api.Error, 429 or 503, with the seconds to wait).
package limits

import (
	"fmt"
	"net/netip"
	"sync"
	"time"

	"github.com/endodoi/endodoi/api"
)

// Rate is a request budget: Burst requests at once, refilled at PerSecond.
type Rate struct {
	PerSecond float64
	Burst     int
}

// PerHour is a budget of n an hour, all of which may be spent at once.
func PerHour(n int) Rate { return Rate{PerSecond: float64(n) / 3600, Burst: n} }

// MaxClients bounds the memory of a Limiter, and the clients whose open
// invitations are kept; past it, the records of idle clients are
// forgotten, and if none is idle, new clients share one record.
const MaxClients = 10_000

// Limited reports whether client is held to the limits. Clients on this
// machine (loopback) are not: the operator's own tools, and a server for
// one person. Behind a proxy, the limits therefore need the server to
// name the clients the proxy serves.
func Limited(client netip.Prefix) bool { return !client.Addr().IsLoopback() }

// Limiter gives each client a token bucket.
type Limiter struct {
	rate Rate
	mu   sync.Mutex
	byIP map[netip.Prefix]*Bucket
}

// Bucket is a budget of a Rate: the tokens left when last taken from.
type Bucket struct {
	Tokens float64
	Last   time.Time
}

// NewLimiter returns a limiter that gives each client the budget r.
func NewLimiter(r Rate) *Limiter {
	return &Limiter{rate: r, byIP: map[netip.Prefix]*Bucket{}}
}

// Allow takes a token for client, or says how long to wait for one.
func (l *Limiter) Allow(client netip.Prefix, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.byIP[client]
	if b == nil {
		if len(l.byIP) >= MaxClients {
			l.sweep(now)
		}
		if len(l.byIP) >= MaxClients {
			client = netip.Prefix{}
			b = l.byIP[client]
		}
		if b == nil {
			b = &Bucket{Tokens: float64(l.rate.Burst), Last: now}
			l.byIP[client] = b
		}
	}
	return b.Take(l.rate, now)
}

// Take takes a token from the bucket, refilled at rate, or says how long
// to wait for one.
func (b *Bucket) Take(rate Rate, now time.Time) (bool, time.Duration) {
	b.Tokens = min(float64(rate.Burst), b.Tokens+now.Sub(b.Last).Seconds()*rate.PerSecond)
	b.Last = now
	if b.Tokens >= 1 {
		b.Tokens--
		return true, 0
	}
	return false, time.Duration((1 - b.Tokens) / rate.PerSecond * float64(time.Second))
}

// Refund gives client back a token taken for a request that was refused
// all the same.
func (l *Limiter) Refund(client netip.Prefix) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.byIP[client]; b != nil {
		b.Tokens = min(float64(l.rate.Burst), b.Tokens+1)
	}
}

// sweep forgets the buckets that are full again; the caller holds l.mu.
func (l *Limiter) sweep(now time.Time) {
	for c, b := range l.byIP {
		if b.Tokens+now.Sub(b.Last).Seconds()*l.rate.PerSecond >= float64(l.rate.Burst) {
			delete(l.byIP, c)
		}
	}
}

// TooMany is a 429 answer that says when to try again.
func TooMany(wait time.Duration, format string, args ...any) error {
	return &api.Error{Status: api.StatusTooManyRequests, RetryAfter: int(wait/time.Second) + 1, Msg: fmt.Sprintf(format, args...)}
}

// WaitText says a wait in words: seconds, or minutes when long.
func WaitText(d time.Duration) string {
	if d >= 90*time.Second {
		return fmt.Sprintf("%d minutes", int(d.Round(time.Minute)/time.Minute))
	}
	return fmt.Sprintf("%d seconds", int(d/time.Second)+1)
}
