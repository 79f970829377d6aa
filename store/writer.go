package store

// SQLite's one writer: it runs the changes that callers ask for at the
// same moment in one transaction, each in a savepoint of its own.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"
)

// A write's state: queued until the writer takes it into a transaction,
// or until its caller gives up waiting, whichever comes first.
const (
	queued int32 = iota
	taken
	abandoned
)

// write is a change a caller asked for.
type write struct {
	what  string
	key   string // on PostgreSQL, the game it changes (pggather.go)
	do    func(*tx) error
	state atomic.Int32
	done  chan error // the answer; buffered, so the writer never waits
}

// statements are the writer's prepared statements of its own; the
// changes' statements are prepared as they come (stmtCache).
type statements struct {
	begin, commit, rollback        *sql.Stmt
	savepoint, release, rollbackTo *sql.Stmt
	maxTouched                     *sql.Stmt
}

func prepare(ctx context.Context, c *sql.Conn) (*statements, error) {
	st := &statements{}
	for _, p := range []struct {
		stmt **sql.Stmt
		sql  string
	}{
		{&st.begin, `BEGIN IMMEDIATE`},
		{&st.commit, `COMMIT`},
		{&st.rollback, `ROLLBACK`},
		{&st.savepoint, `SAVEPOINT write`},
		{&st.release, `RELEASE write`},
		{&st.rollbackTo, `ROLLBACK TO write`},
		{&st.maxTouched, `SELECT COALESCE(MAX(touched), 0) FROM games`},
	} {
		s, err := c.PrepareContext(ctx, p.sql)
		if err != nil {
			return nil, fmt.Errorf("preparing %q: %w", p.sql, err)
		}
		*p.stmt = s
	}
	return st, nil
}

func (st *statements) close() error {
	var errs []error
	for _, s := range []*sql.Stmt{st.begin, st.commit, st.rollback, st.savepoint, st.release, st.rollbackTo,
		st.maxTouched} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// write asks the writer for a change and waits for its answer (see
// engine). Every change, single or not, runs in a savepoint of the
// writer's transaction. A caller whose ctx ends before its change is
// taken into a transaction gets ctx's error and the change is not made;
// once taken, the change is seen through.
func (s *SQLite) write(ctx context.Context, what string, single bool, do func(*tx) error) error {
	if s.readOnly {
		return fmt.Errorf("%s: %w: %s was opened for reading only", what, ErrReadOnly, s.path)
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	w := &write{what: what, do: do, done: make(chan error, 1)}
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return fmt.Errorf("%s: %w", what, errClosed)
	}
	s.sending.Add(1)
	s.mu.RUnlock()
	select {
	case s.queue <- w:
		s.sending.Done()
	case <-ctx.Done():
		s.sending.Done()
		return fmt.Errorf("%s: %w", what, ctx.Err())
	}
	return w.await(ctx)
}

// await waits for w's answer, once queued. A caller whose ctx ends before
// w is taken into a transaction gets ctx's error, and w is not made.
func (w *write) await(ctx context.Context) error {
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		if w.state.CompareAndSwap(queued, abandoned) {
			return fmt.Errorf("%s: %w", w.what, ctx.Err())
		}
		return <-w.done
	}
}

// takeLive keeps the writes of batch that their callers still wait for,
// marking them taken: from now on they are seen through.
func takeLive(batch []*write) []*write {
	live := batch[:0]
	for _, w := range batch {
		if w.state.CompareAndSwap(queued, taken) {
			live = append(live, w)
		}
	}
	return live
}

// writeGame implements engine: the writer gathers every change alike.
func (s *SQLite) writeGame(ctx context.Context, what, _ string, single bool, do func(*tx) error) error {
	return s.write(ctx, what, single, do)
}

// gatherMost is the longest the writer waits for more writes to join a
// transaction (see gathering). A durable commit (synchronous=FULL) costs
// a sync of the log whatever it carries, so under load a transaction of
// several moves costs each far less than a transaction of its own; the
// wait bounds what gathering adds to a write's answer.
const gatherMost = 1500 * time.Microsecond

// gathering is the writer's wait for company, like PostgreSQL's
// commit_delay: when the transaction before carried more than one write,
// writes are arriving faster than the writer commits them, and the next
// transaction waits up to most for others before it commits. A writer
// whose last transaction was alone (an idle server, a caller writing one
// change after another) never waits.
type gathering struct {
	most  time.Duration                        // 0: never waits
	after func(time.Duration) <-chan time.Time // time.After; tests inject theirs
	last  int                                  // writes in the transaction before
}

// waits says whether the next transaction waits for company.
func (g *gathering) waits() bool { return g.most > 0 && g.last > 1 }

// run is the writer: it takes the first write queued and whatever else is
// queued by then, up to maxBatch; if writes are coming fast (gathering),
// it waits a little for more; then it commits them together, until Close
// closes the queue.
func (s *SQLite) run() {
	defer close(s.stopped)
	batch := make([]*write, 0, maxBatch)
	for w := range s.queue {
		batch = take(s.queue, append(batch[:0], w), nil, maxBatch)
		if len(batch) < maxBatch && s.gather.waits() {
			batch = take(s.queue, batch, s.gather.after(s.gather.most), maxBatch)
		}
		s.gather.last = len(batch)
		s.commit(batch)
	}
}

// take adds the writes of queue to batch, up to most: those queued now if
// until is nil, else those queued until it fires, and then those queued
// by then. A closed queue (Close) ends the wait.
func take(queue <-chan *write, batch []*write, until <-chan time.Time, most int) []*write {
	for len(batch) < most {
		select {
		case w, ok := <-queue:
			if !ok {
				return batch
			}
			batch = append(batch, w)
			continue
		default:
		}
		if until == nil {
			return batch
		}
		select {
		case w, ok := <-queue:
			if !ok {
				return batch
			}
			batch = append(batch, w)
		case <-until:
			until = nil
		}
	}
	return batch
}

// commit makes the writes of batch in one transaction and answers them.
func (s *SQLite) commit(batch []*write) {
	live := takeLive(batch)
	if len(live) == 0 {
		return
	}
	// The writes run to the end whatever their callers do meanwhile: a
	// transaction half done is of no use to anyone.
	ctx := context.Background()
	errs := make([]error, len(live))
	st := s.stmts
	start := time.Now()
	err := retryBusy(func() error {
		_, err := st.begin.ExecContext(ctx)
		return err
	})
	if err != nil {
		s.abort(ctx, live, errs, fmt.Errorf("starting a transaction: %w", err))
		return
	}
	t := &tx{ctx: ctx, q: sqliteRunner{db: s.wc, stmts: s.cache}, d: sqliteDialect, counted: true}
	// Reading the highest touched value (the index's last entry) for each
	// transaction keeps the order right even if another program wrote.
	if err := st.maxTouched.QueryRowContext(ctx).Scan(&t.touched); err != nil {
		s.abort(ctx, live, errs, fmt.Errorf("reading the order of changes: %w", err))
		return
	}
	for i, w := range live {
		if _, err := st.savepoint.ExecContext(ctx); err != nil {
			s.abort(ctx, live, errs, err)
			return
		}
		if errs[i] = w.do(t); errs[i] != nil {
			if _, err := st.rollbackTo.ExecContext(ctx); err != nil {
				// SQLite gave up the whole transaction (a full disk, an
				// I/O error): nothing of it is left to commit.
				s.abort(ctx, live, errs, fmt.Errorf("%w (undoing it: %w)", errs[i], err))
				return
			}
		}
		if _, err := st.release.ExecContext(ctx); err != nil {
			s.abort(ctx, live, errs, err)
			return
		}
	}
	err = retryBusy(func() error {
		_, err := st.commit.ExecContext(ctx)
		return err
	})
	if err != nil {
		s.abort(ctx, live, errs, fmt.Errorf("committing: %w", err))
		return
	}
	s.committed(len(live), start)
	s.answer(live, errs)
}

// abort rolls the transaction back and fails every write in it with err,
// but those that failed on their own account.
func (s *SQLite) abort(ctx context.Context, live []*write, errs []error, err error) {
	// The rollback fails when SQLite has rolled back already; either way
	// no transaction is left open.
	s.stmts.rollback.ExecContext(ctx)
	for i := range errs {
		if errs[i] == nil || !expected(errs[i]) {
			errs[i] = err
		}
	}
	s.answer(live, errs)
}

// answer gives each write its outcome, counting the failures.
func (s *SQLite) answer(live []*write, errs []error) {
	for i, w := range live {
		err := errs[i]
		if err != nil && !expected(err) {
			s.failures.Add(1)
			err = fmt.Errorf("%s: %w: %w", w.what, ErrUnsaved, err)
		}
		w.done <- err
	}
}
