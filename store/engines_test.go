package store

// The tests' two engines: forEachStore runs a test on SQLite and on
// PostgreSQL, each PostgreSQL run on a database of its own (package
// pgtest).

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/endodoi/endodoi/internal/pgtest"
)

// newPostgresDB makes an empty database for the test and returns its URL.
func newPostgresDB(t testing.TB) string { return pgtest.NewDatabase(t) }

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
