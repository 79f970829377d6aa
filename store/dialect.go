package store

// What the two engines do differently, in one place. The statements of the
// store are written once (tx.go for the changes, games.go, online.go,
// review.go and copy.go for the rest), with ? for parameters, times as
// time.Time, lists as Go slices, and the few pieces of SQL that differ
// named in braces: {touched}, {list text}, {list timestamptz}, {created},
// {clock runs}, {lock rows}, {notify}. A runner carries a statement to its
// engine: it puts each engine's piece in place of each name (once a
// statement, see dialect.sql), numbers PostgreSQL's parameters, and puts
// the parameters in the engine's forms.

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	sqlite3 "modernc.org/sqlite/lib"
)

// dialect is the SQL that differs between the engines.
type dialect struct {
	// touched ({touched}) is the value of games.touched (the store-wide
	// order of changes) from one parameter, tx.touch's: SQLite's writer
	// numbers the changes itself, PostgreSQL draws from a sequence unless
	// the parameter gives the place (a copy).
	touched string
	// afterRestore moves the order of changes past the places a copy
	// gave, or is "" when nothing needs to.
	afterRestore string
	// list ({list text}, {list timestamptz}) returns the rows of a list
	// parameter, of the PostgreSQL type typ, as a subquery of columns i
	// and v, i counting from 0.
	list func(typ string) string
	// created ({created}) is the column of games that orders them by
	// creation.
	created string
	// clockRuns ({clock runs}) is true for an online row whose clock
	// runs.
	clockRuns string
	// lockRows ({lock rows}) ends a SELECT whose rows the transaction goes
	// on to change.
	lockRows string
	// notify ({notify}) is an expression that tells the instances sharing
	// the database of a notice (one parameter) at commit, or "" when
	// nobody listens.
	notify string
	// numbered: parameters are $1, $2, ... rather than ?.
	numbered bool
	// oneStatementMove: the guarded UPDATE of a move and its INSERT run
	// as one statement (PostgreSQL's data-modifying WITH), so a move is
	// one round trip and needs no transaction of its own.
	oneStatementMove bool
	// setRewrites: an UPDATE rewrites the index entries of every column
	// it sets, changed or not (SQLite; PostgreSQL compares the values), so
	// a change leaves out the indexed columns it does not change.
	setRewrites bool
	// foreignKey reports whether err is a foreign key's refusal.
	foreignKey func(err error) bool

	pieces     *strings.Replacer
	piecesOnce sync.Once
	done       sync.Map // the statements in this dialect, by their text as written
}

// sql returns query in the dialect: its pieces in place of their names
// and its parameters numbered if need be. It does the work once for each
// statement, which the store's few statements make cheap to keep.
func (d *dialect) sql(query string) string {
	if s, ok := d.done.Load(query); ok {
		return s.(string)
	}
	d.piecesOnce.Do(func() {
		d.pieces = strings.NewReplacer("{touched}", d.touched, "{list text}", d.list("text"),
			"{list timestamptz}", d.list("timestamptz"), "{created}", d.created, "{clock runs}", d.clockRuns,
			"{lock rows}", d.lockRows, "{notify}", d.notify)
	})
	s := d.pieces.Replace(query)
	if d.numbered {
		s = numbered(s)
	}
	d.done.Store(query, s)
	return s
}

// numbered numbers the ? of a statement as PostgreSQL's $1, $2, ...; the
// store's statements have no ? in their strings.
func numbered(query string) string {
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

var sqliteDialect = &dialect{
	touched: `?`,
	list: func(string) string {
		return `(SELECT key AS i, value AS v FROM json_each(?))`
	},
	created:     `rowid`,
	clockRuns:   `turn_start != ''`,
	setRewrites: true,
	foreignKey: func(err error) bool {
		return hasCode(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY)
	},
}

var postgresDialect = &dialect{
	touched: `COALESCE(?, nextval('touched'))`,
	afterRestore: `SELECT setval('touched', GREATEST((SELECT COALESCE(MAX(touched), 0) FROM games),
		(SELECT last_value FROM touched), 1))`,
	list: func(typ string) string {
		return `(SELECT u.i - 1 AS i, u.v FROM unnest(?::` + typ + `[]) WITH ORDINALITY AS u(v, i))`
	},
	created:          `seq`,
	clockRuns:        `turn_start IS NOT NULL`,
	lockRows:         ` FOR UPDATE`,
	notify:           `pg_notify('` + noticeChannel + `', ?)`,
	numbered:         true,
	oneStatementMove: true,
	foreignKey:       func(err error) bool { return pgCode(err) == pgForeignKeyViolation },
}

// runner runs the store's statements on one engine's pool, transaction or
// connection. A row that is not there is sql.ErrNoRows on both.
type runner interface {
	exec(ctx context.Context, query string, args ...any) (int64, error)
	queryRow(ctx context.Context, query string, args ...any) row
	query(ctx context.Context, query string, args ...any) (rows, error)
}

type row interface{ Scan(dest ...any) error }

type rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// closeRows closes rs and returns the error that ended its rows, if any.
func closeRows(rs rows) error {
	cerr := rs.Close()
	if err := rs.Err(); err != nil {
		return err
	}
	return cerr
}

// sqlDB is what an SQLite pool, transaction and connection offer.
type sqlDB interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// sqliteRunner runs statements on SQLite. With stmts (the writer's) or
// reads (the readers' pool), it prepares each statement once and runs it
// prepared from then on.
type sqliteRunner struct {
	db    sqlDB
	stmts *stmtCache
	reads *readStmts
}

// readStmts is the readers' pool's prepared statements, by their text as
// written. SQLite parses a statement anew each time it is run unprepared,
// and parsing the game's query took longer than running it: under a burst
// of connections, most of the server's time.
type readStmts struct {
	db *sql.DB
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// maxReadStmts bounds the statements readStmts keeps; the store's
// statements are fixed texts, far fewer.
const maxReadStmts = 128

func newReadStmts(db *sql.DB) *readStmts { return &readStmts{db: db, m: map[string]*sql.Stmt{}} }

// get returns query prepared, or nil if it could not be: it is then run
// unprepared, which reports any error in it.
func (c *readStmts) get(ctx context.Context, query string) *sql.Stmt {
	c.mu.Lock()
	st, ok := c.m[query]
	full := len(c.m) >= maxReadStmts
	c.mu.Unlock()
	if ok || full {
		return st
	}
	st, err := c.db.PrepareContext(ctx, sqliteDialect.sql(query))
	if err != nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if had, ok := c.m[query]; ok {
		st.Close()
		return had
	}
	c.m[query] = st
	return st
}

func (c *readStmts) close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	var errs []error
	for _, st := range c.m {
		errs = append(errs, st.Close())
	}
	clear(c.m)
	return errors.Join(errs...)
}

// stmtCache is the writer's prepared statements by their text as written;
// only the writer's goroutine uses it.
type stmtCache struct {
	conn  *sql.Conn
	stmts map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := c.conn.PrepareContext(ctx, sqliteDialect.sql(query))
	if err != nil {
		return nil, err
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) close() error {
	var errs []error
	for _, st := range c.stmts {
		errs = append(errs, st.Close())
	}
	clear(c.stmts)
	return errors.Join(errs...)
}

func (r sqliteRunner) exec(ctx context.Context, query string, args ...any) (int64, error) {
	var res sql.Result
	var err error
	if r.stmts != nil {
		var st *sql.Stmt
		if st, err = r.stmts.get(ctx, query); err == nil {
			res, err = st.ExecContext(ctx, sqliteArgs(args)...)
		}
	} else {
		res, err = r.db.ExecContext(ctx, sqliteDialect.sql(query), sqliteArgs(args)...)
	}
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (r sqliteRunner) queryRow(ctx context.Context, query string, args ...any) row {
	if r.stmts != nil {
		st, err := r.stmts.get(ctx, query)
		if err != nil {
			return errRow{err}
		}
		return st.QueryRowContext(ctx, sqliteArgs(args)...)
	}
	if r.reads != nil {
		if st := r.reads.get(ctx, query); st != nil {
			return st.QueryRowContext(ctx, sqliteArgs(args)...)
		}
	}
	return r.db.QueryRowContext(ctx, sqliteDialect.sql(query), sqliteArgs(args)...)
}

func (r sqliteRunner) query(ctx context.Context, query string, args ...any) (rows, error) {
	if r.stmts != nil {
		st, err := r.stmts.get(ctx, query)
		if err != nil {
			return nil, err
		}
		return st.QueryContext(ctx, sqliteArgs(args)...)
	}
	if r.reads != nil {
		if st := r.reads.get(ctx, query); st != nil {
			return st.QueryContext(ctx, sqliteArgs(args)...)
		}
	}
	return r.db.QueryContext(ctx, sqliteDialect.sql(query), sqliteArgs(args)...)
}

// errRow is a row that could not be asked for.
type errRow struct{ err error }

func (r errRow) Scan(...any) error { return r.err }

// sqliteArgs puts the parameters in SQLite's forms, in place: a time as
// text ("" for none), a list as a JSON array.
func sqliteArgs(args []any) []any {
	text := func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format(timeFormat)
	}
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			args[i] = text(v)
		case []time.Time:
			s := make([]string, len(v))
			for j, t := range v {
				s[j] = text(t)
			}
			args[i] = jsonText(s)
		case []string:
			args[i] = jsonText(v)
		}
	}
	return args
}

func jsonText(s []string) string {
	b, _ := json.Marshal(s) // a list of strings always encodes
	return string(b)
}

// pgExec is what a PostgreSQL pool, transaction and connection offer.
type pgExec interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	SendBatch(ctx context.Context, b *pgx.Batch) pgx.BatchResults
}

// pgRunner runs statements on PostgreSQL. With a limit (the pool's
// runner), each statement, its rows read to the end, is bounded by it:
// a database that stops answering fails it rather than holding it.
type pgRunner struct {
	q     pgExec
	limit *pgLimit
	sp    *pgSavepoint // a gathered change's savepoint (pggather.go)
}

// pgSavepoint is the savepoint a gathered change begins with. It is owed
// until sent: with the change's first statement, in the same round trip,
// when that is an exec (a change begins with its guarded UPDATE).
type pgSavepoint struct {
	owed bool // not sent yet
	made bool // the savepoint is in the transaction
}

// savepointSQL is a gathered change's savepoint. Each change makes one of
// the same name, which rolling back to undoes the latest.
const savepointSQL = `SAVEPOINT gathered`

// send sends the savepoint, if still owed, in a round trip of its own.
func (sp *pgSavepoint) send(ctx context.Context, q pgExec) error {
	if sp == nil || !sp.owed {
		return nil
	}
	sp.owed = false
	if _, err := q.Exec(ctx, savepointSQL); err != nil {
		return err
	}
	sp.made = true
	return nil
}

// exec sends the savepoint owed and the statement query together.
func (sp *pgSavepoint) exec(ctx context.Context, q pgExec, query string, args []any) (int64, error) {
	sp.owed = false
	var b pgx.Batch
	b.Queue(savepointSQL)
	b.Queue(query, args...)
	br := q.SendBatch(ctx, &b)
	_, err := br.Exec()
	if err != nil {
		// Neither ran (a statement that cannot be prepared, a connection
		// lost): nothing to undo; a transaction that failed with them
		// fails its commit.
		br.Close()
		return 0, err
	}
	sp.made = true
	tag, err := br.Exec()
	if cerr := br.Close(); err == nil {
		err = cerr
	}
	return tag.RowsAffected(), err
}

// pgLimit is how long a call to the database may take; 0 for no limit.
type pgLimit struct{ d atomic.Int64 }

// bound returns ctx bounded by n times the limit, if there is one.
func (l *pgLimit) bound(ctx context.Context, n int) (context.Context, context.CancelFunc) {
	d := time.Duration(l.d.Load())
	if d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, time.Duration(n)*d)
}

// bound returns ctx bounded by the runner's limit, if any.
func (r pgRunner) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	if r.limit == nil {
		return ctx, func() {}
	}
	return r.limit.bound(ctx, 1)
}

func (r pgRunner) exec(ctx context.Context, query string, args ...any) (int64, error) {
	ctx, cancel := r.bound(ctx)
	defer cancel()
	if r.sp != nil && r.sp.owed {
		return r.sp.exec(ctx, r.q, postgresDialect.sql(query), pgArgs(args))
	}
	tag, err := r.q.Exec(ctx, postgresDialect.sql(query), pgArgs(args)...)
	return tag.RowsAffected(), err
}

func (r pgRunner) queryRow(ctx context.Context, query string, args ...any) row {
	ctx, cancel := r.bound(ctx)
	if err := r.sp.send(ctx, r.q); err != nil {
		return pgRow{errRow{err}, cancel}
	}
	return pgRow{r.q.QueryRow(ctx, postgresDialect.sql(query), pgArgs(args)...), cancel}
}

func (r pgRunner) query(ctx context.Context, query string, args ...any) (rows, error) {
	ctx, cancel := r.bound(ctx)
	if err := r.sp.send(ctx, r.q); err != nil {
		cancel()
		return nil, err
	}
	rs, err := r.q.Query(ctx, postgresDialect.sql(query), pgArgs(args)...)
	if err != nil {
		cancel()
		return nil, err
	}
	return pgRows{rs, cancel}, nil
}

type pgRow struct {
	pgx.Row
	done context.CancelFunc // ends the statement's bound once scanned
}

func (r pgRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	r.done()
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}

type pgRows struct {
	pgx.Rows
	done context.CancelFunc
}

// Close closes the rows and returns Err: errors arising while closing
// show there.
func (r pgRows) Close() error {
	r.Rows.Close()
	r.done()
	return r.Rows.Err()
}

// pgArgs puts the parameters in PostgreSQL's forms, in place: a time to
// the millisecond in UTC, as SQLite keeps it (NULL for none).
func pgArgs(args []any) []any {
	for i, a := range args {
		switch v := a.(type) {
		case time.Time:
			if v.IsZero() {
				args[i] = nil
			} else {
				args[i] = pgTime(v)
			}
		case []time.Time:
			s := make([]time.Time, len(v))
			for j, t := range v {
				s[j] = pgTime(t)
			}
			args[i] = s
		}
	}
	return args
}

// pgTime is a time as the store keeps it: to the millisecond, in UTC,
// like SQLite's text.
func pgTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// timeCol scans a stored time: SQLite's text ("" for none) or
// PostgreSQL's timestamptz (NULL for none), as a time in UTC.
type timeCol struct{ t *time.Time }

func (c timeCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*c.t = time.Time{}
	case time.Time:
		*c.t = v.UTC()
	case []byte:
		return c.Scan(string(v))
	case string:
		if v == "" {
			*c.t = time.Time{}
			return nil
		}
		t, err := time.Parse(timeFormat, v)
		if err != nil {
			return fmt.Errorf("stored time %q: %w", v, err)
		}
		*c.t = t
	default:
		return fmt.Errorf("stored time of type %T", src)
	}
	return nil
}
