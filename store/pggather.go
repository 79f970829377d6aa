package store

// PostgreSQL's gathering of the games' changes: the changes asked for at
// the same moment are committed in one transaction, each in a savepoint
// of its own, as SQLite's writer does (writer.go).
//
// A change committed alone pays a flush of the database's log, and while
// it notifies (NOTIFY), PostgreSQL holds one lock for all the notifying
// commits from before its commit until that flush is done: the notifying
// commits of every instance take turns, a flush each, and the moves a
// second one database takes are as many as the flushes its disk makes. A
// gathered transaction pays one flush, one commit and one turn for all
// its changes.
//
// The changes of a transaction run in the order of their games' IDs, so
// that two instances' transactions take the games' row locks in the same
// order and do not wait for each other in a circle. A rated game's end,
// which locks its players' ratings too, rows that other games' ends share,
// is never gathered (Update). A change that meets a serialization failure
// or a deadlock all the same is undone to its savepoint, and its caller
// tries it again in a transaction of its own once the others have
// committed.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgMaxBatch bounds the changes of one gathered transaction. Each runs in
// a savepoint, a subtransaction of its own once it writes; PostgreSQL
// keeps 64 of a transaction's subtransactions where every snapshot sees
// them at once, and spills more to a slower lookup for every reader.
const pgMaxBatch = 48

// pgGatherers is how many transactions of gathered changes may be under
// way at once, each on a connection of its own: the statements of one
// wait for the database's answers, a round trip each, and for row locks,
// so that one writer alone falls behind when changes of many statements
// come fast (games set up and joined). More writers carry fewer changes
// each, and so cost more commits.
const pgGatherers = 4

// pgGather is the gathering writers of a Postgres store.
type pgGather struct {
	queue   chan *write
	stopped sync.WaitGroup // the writers under way
}

// errAlone marks a change undone in a gathered transaction that its
// caller should try again on its own: it met a serialization failure or a
// deadlock, or another change failed the whole transaction before its
// commit.
var errAlone = errors.New("to be tried alone")

// startGather starts the gathering writers; Close stops them.
func (p *Postgres) startGather() {
	p.g.queue = make(chan *write, pgGatherers*pgMaxBatch)
	for range pgGatherers {
		p.g.stopped.Go(p.runGather)
	}
}

// writeGame implements engine: the change joins the next gathered
// transaction.
func (p *Postgres) writeGame(ctx context.Context, what, id string, single bool, do func(*tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := p.begin(what); err != nil {
		return err
	}
	w := &write{what: what, key: id, do: do, done: make(chan error, 1)}
	err := p.gathered(ctx, w)
	p.writes.Done()
	if errors.Is(err, errAlone) {
		return p.write(ctx, what, single, do)
	}
	return err
}

// gathered queues w and waits for its answer; a caller whose ctx ends
// before its change is taken into a transaction gets ctx's error and the
// change is not made.
func (p *Postgres) gathered(ctx context.Context, w *write) error {
	select {
	case p.g.queue <- w:
	case <-ctx.Done():
		return fmt.Errorf("%s: %w", w.what, ctx.Err())
	}
	return w.await(ctx)
}

// runGather takes the first change queued and whatever else is queued by
// then, waits a little for more when changes come fast (gathering), and
// commits them together, until Close closes the queue.
func (p *Postgres) runGather() {
	g := gathering{most: gatherMost, after: time.After}
	batch := make([]*write, 0, pgMaxBatch)
	for w := range p.g.queue {
		batch = take(p.g.queue, append(batch[:0], w), nil, pgMaxBatch)
		if len(batch) < pgMaxBatch && g.waits() {
			batch = take(p.g.queue, batch, g.after(g.most), pgMaxBatch)
		}
		g.last = len(batch)
		p.commitGathered(batch)
	}
}

// commitGathered makes the changes of batch in one transaction and
// answers them.
func (p *Postgres) commitGathered(batch []*write) {
	live := takeLive(batch)
	if len(live) == 0 {
		return
	}
	slices.SortStableFunc(live, func(a, b *write) int { return strings.Compare(a.key, b.key) })
	// The changes run to the end whatever their callers do meanwhile, as
	// a change of its own does once begun (write).
	ctx, cancel := p.limit.bound(context.Background(), 2)
	defer cancel()
	errs := make([]error, len(live))
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		p.answerGathered(live, errs, fmt.Errorf("waiting for a connection: %w", err))
		return
	}
	defer conn.Release()
	start := time.Now()
	ptx, err := conn.Begin(ctx)
	if err != nil {
		p.answerGathered(live, errs, fmt.Errorf("starting a transaction: %w", err))
		return
	}
	// tryAlone answers every change of a transaction that failed before
	// its commit, so that nothing of it was made: each caller tries its
	// change again in a transaction of its own, where the change that
	// failed this one fails alone.
	tryAlone := func() {
		ptx.Rollback(context.Background()) // fails harmlessly on a connection lost
		for i := range errs {
			errs[i] = errAlone
		}
		p.answerGathered(live, errs, nil)
	}
	send := p.send.Load()
	var notices []string // those of the changes made, in order
	for i, w := range live {
		var later *[]string
		if send != nil {
			later = &notices
		}
		from := len(notices)
		// Each change begins with a savepoint, sent with its first
		// statement (pgSavepoint).
		sp := &pgSavepoint{owed: true}
		errs[i] = w.do(&tx{ctx: ctx, q: pgRunner{q: ptx, sp: sp}, d: postgresDialect, later: later})
		if errs[i] != nil {
			notices = notices[:from]
			// Undone to its savepoint, the transaction goes on without it.
			// The savepoint stays, as those before it, until the commit:
			// releasing each would cost a round trip more a change. A
			// change that failed before its savepoint (a statement that
			// could not be prepared, a connection lost) may have failed
			// the transaction with it.
			if !sp.made {
				if conn.Conn().PgConn().TxStatus() != 'T' {
					tryAlone()
					return
				}
			} else if _, err := ptx.Exec(ctx, `ROLLBACK TO SAVEPOINT gathered`); err != nil {
				tryAlone()
				return
			}
			switch pgCode(errs[i]) {
			case pgSerialization, pgDeadlock:
				errs[i] = errAlone
			}
		}
	}
	if err := ptx.Commit(ctx); err != nil {
		if errors.Is(err, pgx.ErrTxCommitRollback) {
			// The database rolled the transaction back: nothing was made.
			tryAlone()
			return
		}
		// A connection lost while committing leaves the outcome unknown:
		// the callers' next guarded changes find out (see write).
		p.answerGathered(live, errs, fmt.Errorf("committing: %w", err))
		return
	}
	p.committed(len(live), start)
	for _, n := range notices {
		(*send)(n)
	}
	p.answerGathered(live, errs, nil)
}

// answerGathered gives each change its outcome: err, when not nil, to all
// but those that failed on their own account (the data's answers), which
// keep theirs. Failures of the storage are counted, as write counts them.
func (p *Postgres) answerGathered(live []*write, errs []error, err error) {
	for i, w := range live {
		e := errs[i]
		if err != nil && (e == nil || !expected(e)) {
			e = err
		}
		switch {
		case e == nil, expected(e), errors.Is(e, errAlone):
		default:
			e = p.failed(w.what, e)
		}
		w.done <- e
	}
}
