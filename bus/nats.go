package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/url"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
)

// natsBus carries notices on a NATS subject (core NATS: at most once).
// The client connects again by itself, with a growing pause, and sends
// the subscription again; each time it is back, Listen's handle catches
// up, and the others are told of the notices this bus could not send.
type natsBus struct {
	link
	conn    *nats.Conn
	subject string
	msgs    chan *nats.Msg // the subscription's, read by Listen
	// gaps is signalled when this instance may have missed notices: the
	// connection back, messages dropped as too many waited.
	gaps chan struct{}
	// subscribed is set while Listen runs: the connection coming back
	// confirms the subscription then.
	subscribed atomic.Bool
}

// natsPending is how many notices may wait for Listen's handle; more are
// dropped (and caught up on).
const natsPending = 1 << 16

func openNATS(u *url.URL, subject string, log *slog.Logger) (*natsBus, error) {
	b := &natsBus{link: newLink("NATS at "+u.Host+" ("+subject+")", log), subject: subject,
		msgs: make(chan *nats.Msg, natsPending), gaps: make(chan struct{}, 1)}
	conn, err := nats.Connect(u.String(),
		nats.Name("endodoi"),
		nats.Timeout(dialTimeout),
		nats.RetryOnFailedConnect(true),
		nats.MaxReconnects(-1),
		nats.CustomReconnectDelay(func(attempts int) time.Duration {
			p := min(firstPause<<min(attempts, 10), lastPause)
			return p + rand.N(p/2+1)
		}),
		// A link gone silent is found within a few seconds.
		nats.PingInterval(listenCheck),
		nats.MaxPingsOutstanding(2),
		// Nothing is kept to send later: a notice the bus could not
		// send is counted, and the others catch up.
		nats.ReconnectBufSize(-1),
		nats.ConnectHandler(func(*nats.Conn) { go b.connected() }),
		nats.ReconnectHandler(func(*nats.Conn) { go b.connected() }),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err == nil {
				err = errors.New("disconnected")
			}
			// What was written but not yet flushed may be lost.
			b.unsent.Store(true)
			b.lost(err)
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				b.signal()
				return
			}
			b.log.Warn("the message bus", "bus", b.name, "err", err)
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("bus %s: %w", u.Redacted(), err)
	}
	b.conn = conn
	if !conn.IsConnected() {
		b.lost(errors.New("cannot connect"))
	}
	return b, nil
}

// signal tells Listen that notices may have been missed.
func (b *natsBus) signal() {
	select {
	case b.gaps <- struct{}{}:
	default: // one is pending already
	}
}

// connected confirms, with a round trip, that the server has the
// subscription, when Listen has made it; then it counts the bus as
// listening, has Listen catch up, and tells the others of the notices it
// could not send.
func (b *natsBus) connected() {
	if !b.subscribed.Load() {
		return // Listen confirms it when it subscribes
	}
	if err := b.conn.FlushTimeout(dialTimeout); err != nil {
		return // the connection is lost again, and comes back again
	}
	b.found()
	b.signal()
	if b.unsent.Swap(false) {
		if err := b.conn.Publish(b.subject, []byte(gapNotice(b.id))); err != nil {
			b.unsent.Store(true)
		}
	}
}

// Notify implements Bus: the client sends the notice as soon as it can,
// never waiting for the server.
func (b *natsBus) Notify(ctx context.Context, notice string) error {
	if len(notice) > MaxNotice {
		return fmt.Errorf("a notice of %d bytes, over %d", len(notice), MaxNotice)
	}
	if err := b.conn.Publish(b.subject, []byte(notice)); err != nil {
		b.drop(1)
	}
	return nil
}

// Listen implements Bus.
func (b *natsBus) Listen(ctx context.Context, handle func(string)) error {
	sub, err := b.conn.ChanSubscribe(b.subject, b.msgs)
	if err != nil {
		return fmt.Errorf("subscribing to %s: %w", b.name, err)
	}
	defer sub.Unsubscribe()
	b.subscribed.Store(true)
	defer func() {
		b.subscribed.Store(false)
		b.up.Store(false)
	}()
	if b.conn.IsConnected() {
		go b.connected()
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-b.msgs:
			b.deliver(string(m.Data), handle)
		case <-b.gaps:
			handle("")
		}
	}
}

// Transactional implements Bus: a notice is published after its commit.
func (b *natsBus) Transactional() bool { return false }

// Close implements Bus.
func (b *natsBus) Close() error {
	b.conn.Close()
	return nil
}
