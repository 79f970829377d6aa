// Package bus carries the notices of the server instances that share one
// PostgreSQL database (docs/scaling.md): a notice one instance publishes
// reaches every instance listening, itself included. Three buses do it:
// PostgreSQL's own LISTEN/NOTIFY (the default, through the store), NATS
// (core publish and subscribe, no JetStream) and Redis pub/sub, chosen by
// a URL (Open).
//
// PostgreSQL's notice of a change rides the change's transaction: it is
// delivered if and only if the change commits. A notice on NATS or Redis
// is published once the change has committed (store.Postgres.SendNotices)
// and may be lost: the instance killed between the commit and the
// publication, the bus down or restarting, a subscriber too slow. The
// instances repair that without the bus: every notice of a game carries
// the game's revision, so a later one shows the gap, and each instance
// reads, every second, the revisions of the games its clients watch. A
// bus that lost notices, its own subscription's or its publications,
// says so once it is back: Listen's handle is called with "" on every
// instance that may have missed some.
//
// The package speaks no HTTP: the server wires it.
package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/endodoi/endodoi/store"
)

// Bus carries notices between the instances of the server.
type Bus interface {
	// Notify publishes a notice of at most MaxNotice bytes. A bus that
	// is not Transactional does not wait for it to be delivered, and
	// drops it (counted in Stats, the others told of the gap once the
	// bus is back) when it cannot be sent: it blocks no change.
	Notify(ctx context.Context, notice string) error
	// Listen calls handle with every notice until ctx ends, on one
	// goroutine. Each time it has subscribed, the first time and again
	// after the subscription was lost, and whenever notices may have been
	// missed (this instance's, or another's that it could not publish),
	// it calls handle with "", for the caller to catch up.
	Listen(ctx context.Context, handle func(notice string)) error
	// Listening returns nil while Listen is subscribed, ErrNotListening
	// otherwise.
	Listening() error
	// Transactional reports whether the notice of a change is sent by the
	// change's own transaction (PostgreSQL's NOTIFY) rather than
	// published after its commit (store.Postgres.SendNotices).
	Transactional() bool
	// Stats counts the bus's troubles so far.
	Stats() Stats
	// String names the bus for the log: its kind and address, no
	// password.
	String() string
	// Close ends the bus's connections.
	Close() error
}

// Stats are a bus's troubles since it was opened.
type Stats struct {
	// Outages counts the times the bus was lost: a connection or a
	// subscription that failed.
	Outages int64
	// Dropped counts the notices not published: the bus down, or its
	// queue full.
	Dropped int64
}

// MaxNotice is the longest notice a bus carries: PostgreSQL's limit,
// which the others keep so that a notice fits all three.
const MaxNotice = store.MaxNotice

// DefaultChannel is the NATS subject or Redis channel of the notices
// unless the URL names another (?channel=name); PostgreSQL's is the
// store's own.
const DefaultChannel = "endodoi_changes"

// ErrNotListening is Listening's answer while the bus is not subscribed.
var ErrNotListening = store.ErrNotListening

// Times of the buses' connections.
const (
	// dialTimeout bounds a connection to the bus.
	dialTimeout = 2 * time.Second
	// listenCheck is how long a subscription may stay silent before a
	// round trip checks it: a connection cut without a word would
	// otherwise wait forever.
	listenCheck = 2 * time.Second
	// firstPause and lastPause bound the pause before connecting again
	// after a failure, doubled at each failure in a row.
	firstPause = 100 * time.Millisecond
	lastPause  = 5 * time.Second
)

// gapPrefix begins the notice a bus publishes, once it is back, when it
// could not publish some: the rest names the bus that lost them. No
// notice of the server begins with a NUL (PostgreSQL carries none).
const gapPrefix = "\x00gap "

// IsURL reports whether s names a message bus Open knows (nats://,
// redis://, rediss://).
func IsURL(s string) bool {
	for _, p := range []string{"nats://", "redis://", "rediss://"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// Open returns the bus that rawURL names: nats://host:4222 or
// redis://host:6379 (rediss:// over TLS), with the channel the instances
// talk on as ?channel=name (DefaultChannel unless given), so that several
// sites can share one bus. It connects in the background, again and again
// until Close with a growing pause, logging each loss and recovery on log:
// a bus down when an instance starts does not stop it.
func Open(rawURL string, log *slog.Logger) (Bus, error) {
	u, channel, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme == "nats" {
		return openNATS(u, channel, log)
	}
	return openRedis(u, channel, log)
}

// CheckURL says what is wrong with rawURL as a bus's (Open), without
// connecting: nil when Open would take it.
func CheckURL(rawURL string) error {
	_, _, err := parseURL(rawURL)
	return err
}

// parseURL reads a bus URL of Open's: the bus's address, the channel
// taken out of it.
func parseURL(rawURL string) (*url.URL, string, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, "", errors.New("a bus URL that does not parse")
	}
	q := u.Query()
	channel := q.Get("channel")
	q.Del("channel")
	u.RawQuery = q.Encode()
	if channel == "" {
		channel = DefaultChannel
	}
	if strings.ContainsAny(channel, " \t\r\n*>") {
		return nil, "", fmt.Errorf("bus channel %q: want a name without spaces, * or >", channel)
	}
	switch u.Scheme {
	case "nats", "redis", "rediss":
		return u, channel, nil
	}
	return nil, "", fmt.Errorf("bus %s: want a nats:// or redis:// URL", u.Redacted())
}

// pause waits d, or less when ctx ends first; it reports whether ctx is
// still going.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// nextPause is the pause after p, doubled up to lastPause.
func nextPause(p time.Duration) time.Duration { return min(2*p, lastPause) }

// gapNotice returns the gap notice of bus id.
func gapNotice(id string) string { return gapPrefix + id }

// isGap reports whether notice is a gap notice of a bus other than id.
func isGap(notice, id string) (gap, control bool) {
	rest, ok := strings.CutPrefix(notice, gapPrefix)
	if !ok {
		return false, strings.HasPrefix(notice, "\x00")
	}
	return rest != id, true
}

// Postgres is the store that carries notices with PostgreSQL's
// LISTEN/NOTIFY (store.Postgres).
type Postgres interface {
	Notify(ctx context.Context, notice string) error
	Listen(ctx context.Context, handle func(notice string)) error
	Listening() error
}

// NewPostgres returns the bus of PostgreSQL's LISTEN/NOTIFY through p, the
// default: the notice of a change is sent by its own transaction.
func NewPostgres(p Postgres) Bus { return pgBus{p} }

type pgBus struct{ Postgres }

func (pgBus) Transactional() bool { return true }
func (pgBus) Stats() Stats        { return Stats{} }
func (pgBus) String() string      { return "PostgreSQL NOTIFY" }

// Close leaves the store, which is not the bus's, open.
func (pgBus) Close() error { return nil }
