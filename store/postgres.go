package store

// The PostgreSQL engine, for many server instances on one database.
//
// Each write is one transaction (or one statement) on a pooled
// connection, committed before the call returns; the games' changes, the
// most frequent writes, are gathered into transactions of several
// (pggather.go), as SQLite's writer gathers every write. Transactions
// run at READ COMMITTED and rest on row locks: a change of a game begins
// with the guarded UPDATE of its games row (WHERE moves = the count the caller saw), which takes the
// row's lock and, when another transaction changed the row meanwhile,
// waits for it to end and checks the guard again on the row as committed.
// Of two racing moves one changes the row and the other finds the count
// moved on: ErrConflict. The statements after that UPDATE see the
// database as it is under the lock. Serialization failures and deadlocks,
// which these transactions should not meet, are retried a few times and
// then answered with ErrBusy, as is a lock held longer than busyWindow.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Postgres is a store in a PostgreSQL database, which many programs may
// share. It is safe for concurrent use.
type Postgres struct {
	core
	pool  *pgxpool.Pool
	where string // the database, for messages: no password

	mu       sync.RWMutex // guards closed against the writes starting
	closed   bool
	writes   sync.WaitGroup // writes under way
	failures atomic.Int64

	listening atomic.Bool // a Listen connection is open (health.go)
	observed              // the monitoring's Observer (observe.go)

	// send, when set, publishes the changes' notices after their commit
	// (SendNotices).
	send atomic.Pointer[func(notice string)]

	// limit bounds every call to the database (SetTimeout).
	limit pgLimit

	g pgGather // the games' changes committed together (pggather.go)
}

// PostgresTimeout is how long a read, or a write's wait for a connection,
// may take by default before it fails (SetTimeout); a write once begun
// may take twice as long. A database that stops answering, a link cut
// without a word, fails the calls rather than holding them, and the
// server answers 503.
const PostgresTimeout = 5 * time.Second

// SetTimeout sets how long a call to the database may take: a read, a
// write's wait for a connection, a notice (twice that for a write once
// begun); 0 for no limit, for tools that copy whole tables. It is
// PostgresTimeout until set. New connections are made within
// PostgresTimeout, or the URL's connect_timeout.
func (p *Postgres) SetTimeout(d time.Duration) { p.limit.d.Store(int64(d)) }

// bounded returns ctx bounded by the limit of SetTimeout.
func (p *Postgres) bounded(ctx context.Context) (context.Context, context.CancelFunc) {
	return p.limit.bound(ctx, 1)
}

// pgRetries is how many times a write is tried that fails on a
// serialization failure or a deadlock.
const pgRetries = 5

// OpenPostgres connects to the PostgreSQL database at url (postgres://...
// or postgresql://..., or a key=value connection string) and brings its
// schema up to date; the database must exist. Several programs may open
// the same database at the same moment: one of them updates the schema.
// A database made by a newer version of the program is refused,
// unchanged.
//
// The url may set pool_max_conns (by default 4 connections a CPU, at
// least 8) and PostgreSQL settings such as lock_timeout.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message shows the URL without its password.
		return nil, fmt.Errorf("opening a PostgreSQL database: %w", err)
	}
	cc := cfg.ConnConfig
	where := fmt.Sprintf("the PostgreSQL database %q on %s", cc.Database, hostPort(cc.Host, cc.Port))
	params := cc.RuntimeParams
	for k, v := range map[string]string{
		"application_name": "endodoi",
		// A write waits for a row another program holds locked as long
		// as a write on SQLite waits for the file's lock.
		"lock_timeout": strconv.FormatInt(busyWindow.Milliseconds(), 10),
		// Acknowledged means on the disk, whatever the server's default.
		"synchronous_commit": "on",
	} {
		if _, ok := params[k]; !ok {
			params[k] = v
		}
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = int32(max(8, 4*runtime.GOMAXPROCS(0)))
	}
	if cc.ConnectTimeout == 0 { // the URL's connect_timeout, if any, stays
		cc.ConnectTimeout = PostgresTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", where, err)
	}
	p := &Postgres{pool: pool, where: where}
	p.SetTimeout(PostgresTimeout)
	conn, err := pool.Acquire(ctx)
	if err == nil {
		var version int
		version, err = pgMigrate(ctx, conn.Conn(), where, latestVersion)
		conn.Release()
		p.core = newCore(p, postgresDialect, pgRunner{q: pool, limit: &p.limit}, version)
		if err != nil {
			pool.Close()
			return nil, err
		}
		p.startGather()
		return p, nil
	}
	pool.Close()
	var ce *pgconn.ConnectError
	switch {
	case pgCode(err) == pgNoDatabase:
		return nil, fmt.Errorf("opening %s: it does not exist; create it first (createdb %s): %w", where, cc.Database, err)
	case errors.As(err, &ce):
		return nil, fmt.Errorf("opening %s: cannot connect (is the database server running, and the URL right?): %w", where, err)
	}
	return nil, fmt.Errorf("opening %s: %w", where, err)
}

// hostPort writes a host and port for messages; a host starting with a
// slash is a Unix socket's folder.
func hostPort(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return host
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(port))
}

// String names the database, without the password.
func (p *Postgres) String() string { return p.where }

// Version returns the database's schema version.
func (p *Postgres) Version() int { return p.version }

// WriteFailures returns how many writes failed since OpenPostgres for a
// reason other than the data (ErrConflict, ErrNotFound, ErrExists): the
// database server unreachable, a lock held elsewhere. Zero means every
// write the store accepted is in the database.
func (p *Postgres) WriteFailures() int64 { return p.failures.Load() }

// Close finishes the writes under way, then closes the connections.
// Writes asked for afterwards fail.
func (p *Postgres) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.writes.Wait()
	close(p.g.queue)
	p.g.stopped.Wait()
	p.pool.Close()
	return nil
}

// write runs do in a transaction (or, when single, as it is: one
// statement, a transaction of its own) on a pooled connection and
// answers as engine says. A caller whose ctx ends while it waits for a
// connection gets ctx's error and the change is not made; once begun, the
// change is seen through. Serialization failures and deadlocks are tried
// again. A connection lost while committing leaves the outcome unknown to
// the database's client: the answer is then ErrUnsaved though the change
// may be in, and the caller's next guarded change (its ply, its revision)
// finds out which.
func (p *Postgres) write(ctx context.Context, what string, single bool, do func(*tx) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := p.begin(what); err != nil {
		return err
	}
	defer p.writes.Done()
	actx, cancel := p.bounded(ctx)
	conn, err := p.pool.Acquire(actx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		return p.failed(what, err)
	}
	defer conn.Release()
	wctx, cancel := p.limit.bound(context.WithoutCancel(ctx), 2)
	defer cancel()
	start := time.Now()
	pause := time.Millisecond
	send := p.send.Load()
	var notices []string
	for try := 1; ; try++ {
		var later *[]string
		if send != nil {
			notices = notices[:0]
			later = &notices
		}
		if single {
			err = do(&tx{ctx: wctx, q: pgRunner{q: conn}, d: postgresDialect, later: later})
		} else {
			err = pgx.BeginFunc(wctx, conn, func(ptx pgx.Tx) error {
				return do(&tx{ctx: wctx, q: pgRunner{q: ptx}, d: postgresDialect, later: later})
			})
		}
		if c := pgCode(err); c != pgSerialization && c != pgDeadlock || try == pgRetries {
			break
		}
		time.Sleep(pause)
		pause *= 4
	}
	if err == nil {
		p.committed(1, start)
		for _, n := range notices {
			(*send)(n)
		}
	}
	if err == nil || expected(err) {
		return err
	}
	return p.failed(what, err)
}

// begin counts a write under way, which Close waits for, unless the store
// is closed; the caller calls p.writes.Done when it has its answer.
func (p *Postgres) begin(what string) error {
	p.mu.RLock()
	defer p.mu.RUnlock()
	if p.closed {
		return fmt.Errorf("%s: %w", what, errClosed)
	}
	p.writes.Add(1)
	return nil
}

// failed counts a write that failed for a reason of the storage; a lock
// held elsewhere too long, a serialization failure or a deadlock is
// ErrBusy too.
func (p *Postgres) failed(what string, err error) error {
	p.failures.Add(1)
	switch pgCode(err) {
	case pgSerialization, pgDeadlock, pgLockNotAvailable:
		err = fmt.Errorf("%w (%w)", ErrBusy, err)
	}
	return fmt.Errorf("%s: %w: %w", what, ErrUnsaved, err)
}

func (p *Postgres) name() string { return p.where }

// read runs do in a read-only transaction on one snapshot, bounded by the
// limit of SetTimeout.
func (p *Postgres) read(ctx context.Context, do func(runner) error) error {
	ctx, cancel := p.bounded(ctx)
	defer cancel()
	return pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(ptx pgx.Tx) error { return do(pgRunner{q: ptx}) })
}
