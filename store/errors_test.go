package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Unavailable tells a failure to reach the data from an answer about it
// or a fault of the data itself.
func TestUnavailable(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("game x: %w", ErrNotFound), false},
		{fmt.Errorf("game x: %w", ErrConflict), false},
		{fmt.Errorf("game x: %w", ErrExists), false},
		{errors.New("game x: stored move 3: no hole q"), false},
		{&pgconn.PgError{Code: "23505"}, false},
		{&pgconn.PgError{Code: "42601"}, false},
		{fmt.Errorf("storing a move: %w: disk full", ErrUnsaved), true},
		{fmt.Errorf("storing a move: %w", ErrBusy), true},
		{fmt.Errorf("storing a move: %w", errClosed), true},
		{fmt.Errorf("reading game x: %w", &pgconn.PgError{Code: "08006"}), true},
		{&pgconn.PgError{Code: "57P01"}, true},
		{&pgconn.PgError{Code: "53300"}, true},
		{fmt.Errorf("reading game x: failed to receive message: %w", io.ErrUnexpectedEOF), true},
	} {
		if got := Unavailable(tc.err); got != tc.want {
			t.Errorf("Unavailable(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
	// A closed SQLite store, for reads as for writes.
	st, err := Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Result: "*", Start: start}
	st.Close()
	if _, err := st.Game(context.Background(), "0123456789abcdef"); !Unavailable(err) {
		t.Errorf("a read of a closed store: %v", err)
	}
	if err := st.CreateGame(context.Background(), g); !Unavailable(err) {
		t.Errorf("a write to a closed store: %v", err)
	}
}
