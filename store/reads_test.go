package store

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// The readers run each statement prepared once, not parsed on every read:
// parsing the game's query cost more than running it.
func TestReadsArePrepared(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	g := newGame(t, s, nil)
	ctx := context.Background()
	var first any
	for i := range 3 {
		if _, err := s.Game(ctx, g.ID); err != nil {
			t.Fatal(err)
		}
		s.reads.mu.Lock()
		n := len(s.reads.m)
		var st any
		for _, v := range s.reads.m {
			st = v
		}
		s.reads.mu.Unlock()
		if n != 1 {
			t.Fatalf("after %d reads of a game the readers hold %d statements; want 1", i+1, n)
		}
		if i == 0 {
			first = st
		} else if st != first {
			t.Fatalf("read %d prepared the game's query again", i+1)
		}
	}
	// Past the bound, statements run unprepared, and still run.
	for i := range maxReadStmts + 10 {
		var n int
		if err := s.pool.queryRow(ctx, fmt.Sprintf("SELECT %d", i)).Scan(&n); err != nil || n != i {
			t.Fatalf("SELECT %d: %d, %v", i, n, err)
		}
	}
	if n := len(s.reads.m); n > maxReadStmts {
		t.Errorf("the readers hold %d statements; want at most %d", n, maxReadStmts)
	}
	// A statement that cannot be prepared reports its error when run.
	if err := s.pool.queryRow(ctx, "SELECT nothing FROM nowhere").Scan(new(int)); err == nil {
		t.Error("a query of a table that does not exist ran")
	}
	// Closing leaves the database file alone, its WAL moved into it.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("after Close: %s-wal: %v; want it removed", path, err)
	}
}
