package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"github.com/endodoi/endodoi/rules"
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
	do    func(*wtx) error
	state atomic.Int32
	done  chan error // the answer; buffered, so the writer never waits
}

// statements are the writer's prepared statements.
type statements struct {
	begin, commit, rollback              *sql.Stmt
	savepoint, release, rollbackTo       *sql.Stmt
	maxTouched                           *sql.Stmt
	insertSeries, insertGame, insertMove *sql.Stmt
	advance, gameMoves, deleteMoves      *sql.Stmt
	gameByKey                            *sql.Stmt
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
		{&st.insertSeries, `INSERT INTO series (id, created, target) VALUES (?, ?, ?)`},
		{&st.insertGame, `INSERT INTO games (id, created, updated, south, north, start, variant, max_laps,
			computer_side, computer_level, series_id, result, moves, touched, import_key)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`},
		{&st.insertMove, `INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)`},
		// One statement checks the count and moves it on: the common case
		// costs no read.
		{&st.advance, `UPDATE games SET moves = ?, result = ?, updated = ?, touched = ? WHERE id = ? AND moves = ?`},
		{&st.gameMoves, `SELECT moves FROM games WHERE id = ?`},
		{&st.deleteMoves, `DELETE FROM moves WHERE game_id = ? AND ply >= ?`},
		{&st.gameByKey, `SELECT id FROM games WHERE import_key = ?`},
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
		st.maxTouched, st.insertSeries, st.insertGame, st.insertMove, st.advance, st.gameMoves, st.deleteMoves,
		st.gameByKey} {
		if s != nil {
			errs = append(errs, s.Close())
		}
	}
	return errors.Join(errs...)
}

// wtx is the writer's transaction as a write sees it.
type wtx struct {
	s       *SQLite
	ctx     context.Context
	touched int64 // the last touched value given out
}

// touch returns the next value of the store-wide order of changes.
func (t *wtx) touch() int64 {
	t.touched++
	return t.touched
}

func (t *wtx) insertSeries(id string, created time.Time, target int) error {
	_, err := t.s.stmts.insertSeries.ExecContext(t.ctx, id, created.Format(timeFormat), target)
	return err
}

func (t *wtx) insertGame(g *Game) error {
	return t.insertGameAt(g, t.touch(), 1)
}

// insertGameAt stores g at the given place in the order of changes and,
// for an online game, at revision rev: a new game is at the next place and
// revision 1, a copied one where it was.
func (t *wtx) insertGameAt(g *Game, touched, rev int64) error {
	t.touched = max(t.touched, touched)
	side, level := computerColumns(g)
	var series, key any
	if g.SeriesID != "" {
		series = g.SeriesID
	}
	if g.ImportKey != "" {
		key = g.ImportKey
	}
	_, err := t.s.stmts.insertGame.ExecContext(t.ctx, g.ID, g.Created.Format(timeFormat), g.Updated.Format(timeFormat),
		g.South, g.North, g.Start.String(), g.Rules.Variant.String(), g.Rules.Laps(), side, level, series, g.Result,
		len(g.Moves), touched, key)
	switch {
	case hasCode(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY):
		return fmt.Errorf("series %s: %w", g.SeriesID, ErrNotFound)
	case hasCode(err, sqlite3.SQLITE_CONSTRAINT_UNIQUE) && key != nil:
		// The import key is the games table's only UNIQUE constraint (the
		// ID is its primary key, which has a code of its own).
		var id string
		if err := t.s.stmts.gameByKey.QueryRowContext(t.ctx, key).Scan(&id); err != nil {
			return fmt.Errorf("finding the game with import key %q: %w", g.ImportKey, err)
		}
		g.ID = id
		return fmt.Errorf("game with import key %q: %w as %s", g.ImportKey, ErrExists, id)
	case err != nil:
		return err
	}
	if err := t.insertMoves(g.ID, 0, g.Moves); err != nil {
		return err
	}
	if g.Online != nil {
		return t.insertOnline(g.ID, g.Online, rev)
	}
	return nil
}

func (t *wtx) insertMoves(id string, from int, moves []rules.Move) error {
	for i, m := range moves {
		if _, err := t.s.stmts.insertMove.ExecContext(t.ctx, id, from+i, m.String()); err != nil {
			return err
		}
	}
	return nil
}

// setMoves sets the move count of game id, which must be had, to n.
func (t *wtx) setMoves(id string, had, n int, result string, updated time.Time) error {
	res, err := t.s.stmts.advance.ExecContext(t.ctx, n, result, updated.Format(timeFormat), t.touch(), id, had)
	if err != nil {
		return err
	}
	if k, err := res.RowsAffected(); err != nil || k == 1 {
		return err
	}
	var stored int
	err = t.s.stmts.gameMoves.QueryRowContext(t.ctx, id).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("game %s has %d moves, not %d: %w", id, stored, had, ErrConflict)
}

// write asks the writer for a change and waits for its answer. A caller
// whose ctx ends before its change is taken into a transaction gets ctx's
// error and the change is not made; once taken, the change is seen
// through.
func (s *SQLite) write(ctx context.Context, what string, do func(*wtx) error) error {
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
	select {
	case err := <-w.done:
		return err
	case <-ctx.Done():
		if w.state.CompareAndSwap(queued, abandoned) {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		return <-w.done
	}
}

// run is the writer: it takes the first write queued and whatever else is
// queued by then, up to maxBatch, and commits them together, until Close
// closes the queue.
func (s *SQLite) run() {
	defer close(s.stopped)
	batch := make([]*write, 0, maxBatch)
	for w := range s.queue {
		batch = append(batch[:0], w)
	more:
		for len(batch) < maxBatch {
			select {
			case w, ok := <-s.queue:
				if !ok {
					break more
				}
				batch = append(batch, w)
			default:
				break more
			}
		}
		s.commit(batch)
	}
}

// commit makes the writes of batch in one transaction and answers them.
func (s *SQLite) commit(batch []*write) {
	live := batch[:0]
	for _, w := range batch {
		if w.state.CompareAndSwap(queued, taken) {
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return
	}
	// The writes run to the end whatever their callers do meanwhile: a
	// transaction half done is of no use to anyone.
	ctx := context.Background()
	errs := make([]error, len(live))
	st := s.stmts
	err := retryBusy(func() error {
		_, err := st.begin.ExecContext(ctx)
		return err
	})
	if err != nil {
		s.abort(ctx, live, errs, fmt.Errorf("starting a transaction: %w", err))
		return
	}
	t := &wtx{s: s, ctx: ctx}
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
