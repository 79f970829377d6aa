package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestCopyDatabase(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	s := open(t, filepath.Join(data, "games.db"))
	fill(t, s, 4)
	if err := s.CreateAccount(ctx, &Account{Name: "Amina", Key: "amina"},
		[]Credential{{ID: "pw", Kind: CredentialPassword, Data: "$argon2id$"}}, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()

	// From the data folder into a new folder: games.db within it.
	var labels []string
	sum, err := CopyDatabase(ctx, data, filepath.Join(dir, "copy"), func(p CopyProgress) { labels = append(labels, p.Label) })
	if err != nil {
		t.Fatal(err)
	}
	if sum.Games != 4 || sum.Moves != 80 || sum.From != filepath.Join(data, "games.db") || sum.To != filepath.Join(dir, "copy", "games.db") {
		t.Errorf("summary %+v", sum)
	}
	if len(labels) != 0 {
		t.Errorf("progress of a copy of 4 games: %q", labels)
	}
	sum.Elapsed = 1500 * time.Microsecond
	if want := "copied 4 games (80 moves), 0 series and 0 online games from " + sum.From + " to " + sum.To + " in 2ms\n" +
		"with 1 account: 1 credential (passwords and passkeys), 0 sessions and 0 owned seats; 0 blocks and 0 reports\n" +
		"checked: the copy holds every game, move, series and account as the source does"; sum.String() != want {
		t.Errorf("summary\n%s\nwant\n%s", sum, want)
	}

	// Into a file, then again into it: refused, it holds games.
	file := filepath.Join(dir, "one.db")
	if _, err := CopyDatabase(ctx, data, file, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := CopyDatabase(ctx, data, file, nil); !errors.Is(err, ErrNotEmpty) || !strings.HasPrefix(err.Error(), "not copying into "+file) {
		t.Errorf("copy into a database with games: %v", err)
	}
	// Into a database that holds an account and no game: refused too.
	withAccount := filepath.Join(dir, "account.db")
	s = open(t, withAccount)
	if err := s.CreateAccount(ctx, &Account{Name: "Baraka", Key: "baraka"}, nil, nil); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := CopyDatabase(ctx, data, withAccount, nil); !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "0 games, 0 series, 1 account)") {
		t.Errorf("copy into a database with an account: %v", err)
	}

	for _, tc := range []struct{ from, to, want string }{
		{filepath.Join(dir, "none"), filepath.Join(dir, "x"), "no database at " + filepath.Join(dir, "none") + ": give --from"},
		{data, data, "the source and the destination are the same database"},
		{data, "mysql://u:secret@host/db", "want a postgres:// URL"},
		{"sqlite://x", filepath.Join(dir, "y"), "want a postgres:// URL"},
	} {
		_, err := CopyDatabase(ctx, tc.from, tc.to, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s to %s: %v, want %q", tc.from, tc.to, err, tc.want)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%s to %s: the password is shown: %v", tc.from, tc.to, err)
		}
	}
}

func TestCopyDatabaseProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("copies a thousand games")
	}
	ctx := context.Background()
	dir := t.TempDir()
	from := filepath.Join(dir, "from.db")
	s := open(t, from)
	fill(t, s, CopyProgressMin)
	s.Close()
	var last CopyProgress
	calls := 0
	if _, err := CopyDatabase(ctx, from, filepath.Join(dir, "to.db"), func(p CopyProgress) {
		calls++
		if p.Total != CopyProgressMin || p.Done > p.Total || p.Elapsed < last.Elapsed {
			t.Errorf("progress %d of %d after %v, following %v", p.Done, p.Total, p.Elapsed, last.Elapsed)
		}
		last = p
	}); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last.Label != "checking: 1,000 of 1,000 games" || last.Elapsed <= 0 {
		t.Errorf("%d progress calls, the last %+v", calls, last)
	}
}
