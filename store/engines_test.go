package store

// The tests' two engines: forEachStore runs a test on SQLite and on
// PostgreSQL. The PostgreSQL run uses the server at ENDODOI_POSTGRES (by
// default the local one, user postgres) and makes a database of its own
// for each test, dropped at its end. Without a server the PostgreSQL runs
// skip, saying why, unless the tests are required to run: in CI (CI=true)
// or with ENDODOI_POSTGRES_TESTS=require they fail.

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Environment variables of the PostgreSQL tests.
const (
	envPostgres        = "ENDODOI_POSTGRES"       // the server's URL, with a database to connect to
	envPostgresRequire = "ENDODOI_POSTGRES_TESTS" // "require": fail, not skip, without a server
	defaultPostgres    = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
)

// pgServer is the test server, looked for once.
var pgServer struct {
	once sync.Once
	base string // the URL to reach it with
	err  error
}

// postgresBase returns the URL of the test server, or skips (or fails) the
// test when there is none.
func postgresBase(t testing.TB) string {
	t.Helper()
	pgServer.once.Do(func() {
		pgServer.base = os.Getenv(envPostgres)
		if pgServer.base == "" {
			pgServer.base = defaultPostgres
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, pgServer.base)
		if err == nil {
			err = conn.Ping(ctx)
			conn.Close(ctx)
		}
		pgServer.err = err
	})
	if pgServer.err != nil {
		where := RedactURL(pgServer.base)
		if os.Getenv("CI") == "true" || os.Getenv(envPostgresRequire) == "require" {
			t.Fatalf("the PostgreSQL tests are required (CI=true or %s=require), but PostgreSQL at %s cannot be reached: %v; start it (.ci/run does) or set %s",
				envPostgresRequire, where, pgServer.err, envPostgres)
		}
		t.Skipf("skipping the PostgreSQL test: PostgreSQL at %s cannot be reached: %v; start it, or set %s to a server's URL",
			where, pgServer.err, envPostgres)
	}
	return pgServer.base
}

// newPostgresDB makes an empty database for the test and returns its URL;
// the database is dropped when the test ends.
func newPostgresDB(t testing.TB) string {
	t.Helper()
	base := postgresBase(t)
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("%s: %v", envPostgres, err)
	}
	name := "endodoi_test_" + newID()
	admin := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := admin(`CREATE DATABASE ` + name); err != nil {
		t.Fatalf("making the test database: %v", err)
	}
	t.Cleanup(func() {
		if err := admin(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	u.Path = "/" + name
	return u.String()
}

// openPostgres opens the database at url, closing it when the test ends.
func openPostgres(t testing.TB, url string) *Postgres {
	t.Helper()
	p, err := OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// forEachStore runs test on each engine, with open opening the test's
// database, a new one for each engine: again and again on the same
// database, as a program restarting does (or, both open, as two programs
// sharing it). Each store opened is closed when the test ends.
func forEachStore(t *testing.T, test func(t *testing.T, open func() Store)) {
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "games.db")
		test(t, func() Store {
			t.Helper()
			s := open(t, path)
			t.Cleanup(func() { s.Close() })
			return s
		})
	})
	t.Run("postgres", func(t *testing.T) {
		url := newPostgresDB(t)
		test(t, func() Store {
			t.Helper()
			return openPostgres(t, url)
		})
	})
}

// contents lists what s holds.
func contents(t *testing.T, s Store) inventory {
	t.Helper()
	inv, err := s.(copier).inventory(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return inv
}
