package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Notifier is a store that several server instances share: a notice one
// of them sends reaches every instance listening, itself included, so
// that each can tell its own clients of the changes the others commit.
// Only PostgreSQL is one; an SQLite database belongs to one server.
type Notifier interface {
	// Notify sends a notice of at most MaxNotice bytes; it returns once
	// the database has taken it.
	Notify(ctx context.Context, notice string) error
	// Listen calls handle with every notice until ctx ends. Notices sent
	// before its connection to the database was open, the first time or
	// again after one was lost, were not heard: each time it has one
	// open it calls handle with "" so that the caller can catch up.
	Listen(ctx context.Context, handle func(notice string)) error
	// Revisions returns the revision (Online.Rev) of each online game
	// of ids, in one query: a listener compares them with those it has
	// told its clients, to catch up on changes whose notice it missed.
	Revisions(ctx context.Context, ids []string) (map[string]int64, error)
}

// SendNotices makes the notices of the changes (game.Change.Notice, the
// lobby's) go to send, in order, once their transaction has committed,
// rather than with pg_notify inside it: for a message bus other than the
// database (package bus). send must not block. A change whose commit
// fails, or whose outcome is unknown, sends nothing; nil goes back to
// pg_notify. Notify is unchanged.
func (p *Postgres) SendNotices(send func(notice string)) {
	if send == nil {
		p.send.Store(nil)
		return
	}
	p.send.Store(&send)
}

// MaxNotice is the longest notice PostgreSQL carries, less room to spare.
const MaxNotice = 7000

// noticeChannel is the PostgreSQL channel of the notices.
const noticeChannel = "endodoi_changes"

// Notify implements Notifier with pg_notify: the notice is delivered to
// every listening session.
func (p *Postgres) Notify(ctx context.Context, notice string) error {
	if len(notice) > MaxNotice {
		return fmt.Errorf("a notice of %d bytes, over %d", len(notice), MaxNotice)
	}
	ctx, cancel := p.bounded(ctx)
	defer cancel()
	if _, err := p.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, noticeChannel, notice); err != nil {
		return fmt.Errorf("notifying %s: %w", p.where, err)
	}
	return nil
}

// Listen implements Notifier with LISTEN on a connection of its own,
// which it opens again, with a growing pause, whenever it is lost.
func (p *Postgres) Listen(ctx context.Context, handle func(notice string)) error {
	pause := 100 * time.Millisecond
	for {
		err := p.listen(ctx, handle)
		if ctx.Err() != nil {
			return nil
		}
		_ = err // the connection was lost: open another
		t := time.NewTimer(pause + rand.N(pause))
		select {
		case <-ctx.Done():
			t.Stop()
			return nil
		case <-t.C:
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// listenCheck is how long a listening connection may stay silent before
// it is checked: a connection cut without a word (a firewall, a peer gone
// dark) would otherwise wait for notices forever.
const listenCheck = 5 * time.Second

// listen listens on one connection until it fails or ctx ends, first
// telling handle that notices may have been missed.
func (p *Postgres) listen(ctx context.Context, handle func(string)) error {
	cctx, cancel := context.WithTimeout(ctx, listenCheck)
	conn, err := pgx.ConnectConfig(cctx, p.pool.Config().ConnConfig.Copy())
	if err == nil {
		_, err = conn.Exec(cctx, `LISTEN `+noticeChannel)
	}
	cancel()
	if conn != nil {
		defer conn.Close(context.WithoutCancel(ctx))
	}
	if err != nil {
		return err
	}
	p.listening.Store(true)
	defer p.listening.Store(false)
	handle("")
	for {
		wctx, cancel := context.WithTimeout(ctx, listenCheck)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil:
			handle(n.Payload)
			continue
		case ctx.Err() != nil || !pgconn.Timeout(err) || conn.IsClosed():
			return err
		}
		// Silence: a round trip proves the connection alive; notices
		// that arrive meanwhile wait in pgx's queue for the next wait.
		pctx, cancel := context.WithTimeout(ctx, listenCheck)
		err = conn.Ping(pctx)
		cancel()
		if err != nil {
			return err
		}
	}
}

// Revisions implements Notifier.
func (p *Postgres) Revisions(ctx context.Context, ids []string) (map[string]int64, error) {
	ctx, cancel := p.bounded(ctx)
	defer cancel()
	rows, err := p.pool.Query(ctx, `SELECT game_id, rev FROM online WHERE game_id = ANY($1)`, ids)
	if err != nil {
		return nil, fmt.Errorf("reading the revisions of %d games: %w", len(ids), err)
	}
	revs := make(map[string]int64, len(ids))
	var id string
	var rev int64
	if _, err := pgx.ForEachRow(rows, []any{&id, &rev}, func() error {
		revs[id] = rev
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the revisions of %d games: %w", len(ids), err)
	}
	return revs, nil
}
