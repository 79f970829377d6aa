package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/url"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisBus carries notices on a Redis pub/sub channel (at most once).
// Notify queues a notice; one goroutine publishes what is queued, many at
// a time in one pipeline, in order. Listen subscribes on a connection of
// its own, and subscribes again, with a growing pause, whenever it is lost.
type redisBus struct {
	link
	client  *redis.Client
	channel string
	queue   chan string
	stop    context.CancelFunc
	done    chan struct{}
}

// Sizes of the Redis bus's publishing.
const (
	// redisQueue is how many notices may wait to be published; more are
	// dropped (and caught up on).
	redisQueue = 1 << 14
	// redisBatch is how many go in one pipeline at most.
	redisBatch = 256
)

// redisLog takes the Redis client's own messages (its dials failing,
// every try) off standard error: the bus logs each outage once. The
// client's logger is the process's; the first bus opened sets it.
var redisLog sync.Once

// debugLog writes the Redis client's messages at debug level.
type debugLog struct{ log *slog.Logger }

func (d debugLog) Printf(ctx context.Context, format string, v ...any) {
	d.log.DebugContext(ctx, "redis: "+fmt.Sprintf(format, v...))
}

func openRedis(u *url.URL, channel string, log *slog.Logger) (*redisBus, error) {
	redisLog.Do(func() { redis.SetLogger(debugLog{log}) })
	opts, err := redis.ParseURL(u.String())
	if err != nil {
		return nil, fmt.Errorf("bus %s: %w", u.Redacted(), err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = dialTimeout, dialTimeout, dialTimeout
	opts.MaxRetries = -1 // a notice is published once or dropped, never held
	opts.PoolSize = 4
	opts.ClientName = "endodoi"
	ctx, stop := context.WithCancel(context.Background())
	b := &redisBus{link: newLink("Redis at "+opts.Addr+" ("+channel+")", log), client: redis.NewClient(opts),
		channel: channel, queue: make(chan string, redisQueue), stop: stop, done: make(chan struct{})}
	go b.publish(ctx)
	return b, nil
}

// Notify implements Bus: the notice is queued for publishing, or dropped
// when the queue is full.
func (b *redisBus) Notify(ctx context.Context, notice string) error {
	if len(notice) > MaxNotice {
		return fmt.Errorf("a notice of %d bytes, over %d", len(notice), MaxNotice)
	}
	select {
	case b.queue <- notice:
	default:
		b.drop(1)
	}
	return nil
}

// publish publishes the queued notices until ctx ends, preceded by a gap
// notice when some were dropped; while the bus is down it tries the gap
// notice again every listenCheck.
func (b *redisBus) publish(ctx context.Context) {
	defer close(b.done)
	retry := time.NewTicker(listenCheck / 4)
	defer retry.Stop()
	batch := make([]string, 0, redisBatch+1)
	for {
		batch = batch[:0]
		select {
		case <-ctx.Done():
			return
		case n := <-b.queue:
			batch = append(batch, n)
		case <-retry.C:
			if !b.unsent.Load() {
				continue
			}
		}
	more:
		for len(batch) < redisBatch {
			select {
			case n := <-b.queue:
				batch = append(batch, n)
			default:
				break more
			}
		}
		b.send(ctx, batch)
	}
}

// send publishes notices in one pipeline, the gap notice first when
// notices were dropped before.
func (b *redisBus) send(ctx context.Context, notices []string) {
	gap := b.unsent.Swap(false)
	ctx, cancel := context.WithTimeout(ctx, dialTimeout)
	defer cancel()
	_, err := b.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		if gap {
			p.Publish(ctx, b.channel, gapNotice(b.id))
		}
		for _, n := range notices {
			p.Publish(ctx, b.channel, n)
		}
		return nil
	})
	if err != nil {
		b.drop(len(notices))
	}
}

// Listen implements Bus.
func (b *redisBus) Listen(ctx context.Context, handle func(string)) error {
	p := firstPause
	for {
		subscribed, err := b.listen(ctx, handle)
		if ctx.Err() != nil {
			return nil
		}
		b.lost(err)
		if subscribed {
			p = firstPause
		}
		if !pause(ctx, p+rand.N(p/2+1)) {
			return nil
		}
		p = nextPause(p)
	}
}

// listen subscribes on a connection of its own and hands every notice to
// handle until the connection fails or ctx ends; subscribed says whether
// it got that far.
func (b *redisBus) listen(ctx context.Context, handle func(string)) (subscribed bool, err error) {
	ps := b.client.Subscribe(ctx) // no channel yet: nothing sent
	defer ps.Close()
	// Closing the connection ends a read under way.
	defer context.AfterFunc(ctx, func() { ps.Close() })()
	sctx, cancel := context.WithTimeout(ctx, dialTimeout)
	err = ps.Subscribe(sctx, b.channel)
	if err == nil {
		_, err = ps.ReceiveTimeout(sctx, dialTimeout) // the subscription's confirmation
	}
	cancel()
	if err != nil {
		return false, err
	}
	defer b.up.Store(false)
	b.found()
	handle("")
	pinged := false
	for {
		msg, err := ps.ReceiveTimeout(ctx, listenCheck)
		var ne net.Error
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return true, nil
		case errors.As(err, &ne) && ne.Timeout() && !pinged:
			// Silence: a round trip proves the connection alive.
			if err := ps.Ping(ctx); err != nil {
				return true, err
			}
			pinged = true
			continue
		case errors.As(err, &ne) && ne.Timeout():
			return true, errors.New("no answer to a ping")
		default:
			return true, err
		}
		pinged = false
		if m, ok := msg.(*redis.Message); ok && m.Channel == b.channel {
			b.deliver(m.Payload, handle)
		}
	}
}

// Transactional implements Bus: a notice is published after its commit.
func (b *redisBus) Transactional() bool { return false }

// Close implements Bus: it stops publishing and closes the connections.
func (b *redisBus) Close() error {
	b.stop()
	<-b.done
	return b.client.Close()
}
