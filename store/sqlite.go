package store

// The SQLite engine, the default: a file in the data folder, written by
// one goroutine (writer.go) and read by a pool of connections.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"
)

// SQLite is a store in an SQLite database file. It is safe for concurrent
// use.
type SQLite struct {
	core
	path     string
	readOnly bool

	r *sql.DB // the readers' pool

	// The writer's connection and its statements; nil when read-only.
	w       *sql.DB
	wc      *sql.Conn
	stmts   *statements
	cache   *stmtCache // the statements of the changes, prepared on wc
	reads   *readStmts // the readers' statements, prepared on r
	queue   chan *write
	stopped chan struct{} // closed when the writer has returned
	gather  gathering     // how long the writer waits for company (writer.go)

	mu       sync.RWMutex // guards closed against the writes being queued
	closed   bool
	sending  sync.WaitGroup // writes being handed to the writer
	failures atomic.Int64
	observed // the monitoring's Observer (observe.go)
}

// maxBatch bounds the writes one transaction carries, so that a long queue
// does not keep the first ones waiting for one huge commit.
const maxBatch = 256

// uri returns the SQLite URI of the database file at path with the given
// parameters.
func uri(path string, params ...string) string {
	// SQLite decodes %XX in a file: URI, and ? or # would end the path.
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	q := url.Values{}
	for _, kv := range params {
		k, v, _ := strings.Cut(kv, "=")
		q.Add(k, v)
	}
	return "file:" + p + "?" + q.Encode()
}

// roURI opens path for reading only, writing nothing, not even the -wal
// and -shm files SQLite makes beside a WAL database: when there is no
// -wal file no program has the database open, and the file alone is the
// database, so SQLite may read it as immutable.
func roURI(path string, params ...string) string {
	params = append(params, "mode=ro")
	if _, err := os.Stat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		params = append(params, "immutable=1")
	}
	return uri(path, params...)
}

// Open opens the database file at path, creating it if needed, and brings
// its schema up to date. It refuses, writing nothing, a file it cannot
// write (ErrReadOnly), a damaged file (ErrDamaged), and a file made by a
// newer version of the program.
func Open(ctx context.Context, path string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	path = abs
	fi, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := checkWritable(path); err != nil {
		return nil, err
	}
	if exists && fi.Size() > 0 {
		v, problems, err := inspect(ctx, path, 5)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, damagedError(path, problems)
		}
		if v > latestVersion {
			return nil, newerError(path, v)
		}
	}

	s := &SQLite{path: path}
	s.w, err = sql.Open("sqlite", uri(path, "_pragma=busy_timeout(100)", "_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)", "_pragma=synchronous(FULL)"))
	if err == nil {
		s.w.SetMaxOpenConns(1)
		s.w.SetMaxIdleConns(1)
		s.w.SetConnMaxLifetime(0)
		s.w.SetConnMaxIdleTime(0)
		s.wc, err = s.w.Conn(ctx)
	}
	if err == nil {
		err = migrate(ctx, s.wc, path, latestVersion)
	}
	if err == nil {
		s.stmts, err = prepare(ctx, s.wc)
		s.cache = &stmtCache{conn: s.wc, stmts: map[string]*sql.Stmt{}}
	}
	if err == nil {
		// Readers may not write, by mistake or otherwise: only the writer
		// does, so that writes never wait for each other's locks.
		s.r, err = sql.Open("sqlite", uri(path, "_pragma=busy_timeout(5000)", "_pragma=query_only(1)"))
	}
	if err == nil {
		n := 2*runtime.GOMAXPROCS(0) + 2
		s.r.SetMaxOpenConns(n)
		s.r.SetMaxIdleConns(n)
		err = s.r.PingContext(ctx)
	}
	if err == nil {
		s.reads = newReadStmts(s.r)
	}
	s.core = newCore(s, sqliteDialect, sqliteRunner{db: s.r, reads: s.reads}, latestVersion)
	if err != nil {
		s.closeDBs()
		if hasCode(err, sqlite3.SQLITE_READONLY) {
			return nil, fmt.Errorf("opening %s: %w: %w", path, ErrReadOnly, err)
		}
		if isDamage(err) {
			return nil, damagedError(path, []string{err.Error()})
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s.queue = make(chan *write, maxBatch)
	s.stopped = make(chan struct{})
	s.gather = gathering{most: gatherMost, after: time.After}
	go s.run()
	return s, nil
}

// OpenReadOnly opens the database at path for reading, writing nothing to
// it: no schema update, no -wal or -shm files when no other program has it
// open. It opens a damaged file too, so that Check can report on it.
// Writes return ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	path = abs
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("opening %s: a folder, not a database file", path)
	}
	r, err := sql.Open("sqlite", roURI(path, "_pragma=busy_timeout(5000)"))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	r.SetMaxOpenConns(2*runtime.GOMAXPROCS(0) + 2)
	s := &SQLite{path: path, r: r, readOnly: true}
	version, err := schemaVersion(ctx, r)
	if err != nil {
		// A damaged file may not even tell its version; Check says why.
		version = -1
	}
	s.core = newCore(s, sqliteDialect, sqliteRunner{db: s.r}, version)
	return s, nil
}

// Path returns the database file's absolute path.
func (s *SQLite) Path() string { return s.path }

// Version returns the database's schema version, or -1 when it could not
// be read (a damaged file opened with OpenReadOnly).
func (s *SQLite) Version() int { return s.version }

// WriteFailures returns how many writes failed since Open for a reason
// other than the data (ErrConflict, ErrNotFound, ErrExists): a full disk,
// a lock held elsewhere, a damaged file. Zero means every write the store
// accepted is in the database.
func (s *SQLite) WriteFailures() int64 { return s.failures.Load() }

// Close finishes the writes already asked for, then closes the database.
// Writes asked for afterwards fail.
func (s *SQLite) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.queue != nil {
		s.sending.Wait()
		close(s.queue)
		<-s.stopped
	}
	return s.closeDBs()
}

func (s *SQLite) closeDBs() error {
	var errs []error
	// The readers first: the last connection to close moves the WAL into
	// the database file and removes it, and a query_only one cannot.
	if s.reads != nil {
		errs = append(errs, s.reads.close())
	}
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.stmts != nil {
		// A connection with statements open stays open after Close.
		errs = append(errs, s.stmts.close())
	}
	if s.cache != nil {
		errs = append(errs, s.cache.close())
	}
	if s.wc != nil {
		errs = append(errs, s.wc.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing %s: %w", s.path, err)
	}
	return nil
}

func (s *SQLite) name() string { return s.path }

// read runs do in a read transaction, so that what it reads in several
// queries is one state of the database.
func (s *SQLite) read(ctx context.Context, do func(runner) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return do(sqliteRunner{db: tx})
}
