package bus

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
)

// link is what the NATS and Redis buses share: whether they are
// subscribed, what they lost, and the log of their outages.
type link struct {
	id   string // names this bus in its gap notices
	name string // the bus for the log, no password
	log  *slog.Logger

	up atomic.Bool // subscribed, the subscription confirmed
	// unsent is set while notices were dropped that the other instances
	// have not been told of (a gap notice).
	unsent           atomic.Bool
	outages, dropped atomic.Int64

	mu   sync.Mutex
	down bool // an outage was logged and has not ended
}

func newLink(name string, log *slog.Logger) link {
	var b [8]byte
	rand.Read(b[:])
	return link{id: hex.EncodeToString(b[:]), name: name, log: log}
}

func (l *link) String() string { return l.name }

// Listening implements Bus.
func (l *link) Listening() error {
	if !l.up.Load() {
		return ErrNotListening
	}
	return nil
}

// Stats implements Bus.
func (l *link) Stats() Stats { return Stats{Outages: l.outages.Load(), Dropped: l.dropped.Load()} }

// drop counts n notices not published.
func (l *link) drop(n int) {
	l.dropped.Add(int64(n))
	l.unsent.Store(true)
}

// lost records that the bus was lost, or could not be reached, because
// of err: logged once an outage.
func (l *link) lost(err error) {
	l.up.Store(false)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return
	}
	l.down = true
	l.outages.Add(1)
	l.log.Warn("the message bus is down: connecting again; meanwhile the instances catch up through the database within seconds",
		"bus", l.name, "err", err)
}

// found records that the bus is subscribed again.
func (l *link) found() {
	l.up.Store(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		l.down = false
		l.log.Info("the message bus is back", "bus", l.name)
	}
}

// deliver passes notice to handle, or acts on it when it is the bus's own:
// a gap notice of another bus makes handle catch up.
func (l *link) deliver(notice string, handle func(string)) {
	gap, control := isGap(notice, l.id)
	switch {
	case gap:
		handle("")
	case !control:
		handle(notice)
	}
}
