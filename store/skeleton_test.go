package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/endodoi/endodoi/account"
)

// The accounts of a database older than the skeletons get theirs when it
// is brought up to date, the oldest of look-alikes keeping it, on both
// engines; then a look-alike of any of them is refused, and a deleted
// account's name and look-alikes are free.
func TestSkeletonMigration(t *testing.T) {
	ctx := context.Background()
	const insert = `INSERT INTO accounts (id, name, name_key, created, status, kind) VALUES
		('a1', 'Amina', 'amina', '2025-01-02T03:04:05.000Z', '', ''),
		('a2', 'Аmina', 'аmina', '2025-01-03T03:04:05.000Z', '', ''),
		('a3', 'HcBot', 'hcbot', '2025-01-04T03:04:05.000Z', '', 'bot')`
	check := func(t *testing.T, s Store) {
		t.Helper()
		for id, want := range map[string]string{"a1": account.Skeleton("amina"), "a2": "", "a3": account.Skeleton("hcbot")} {
			if a, err := s.Account(ctx, id); err != nil || a.Skeleton != want {
				t.Errorf("account %s after the update: %+v, %v; want skeleton %q", id, a, err, want)
			}
		}
		if a, err := s.AccountBySkeleton(ctx, account.Skeleton("hсbot")); err != nil || a.ID != "a3" {
			t.Errorf("HсBot's look-alike: %+v, %v", a, err)
		}
		look := &Account{Name: "Amіna", Key: "amіna", Skeleton: account.Skeleton("amіna")}
		if err := s.CreateAccount(ctx, look, nil, nil); !errors.Is(err, ErrExists) {
			t.Errorf("a look-alike stored: %v, want ErrExists", err)
		}
		if err := s.AnonymiseAccount(ctx, "a1"); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateAccount(ctx, look, nil, nil); err != nil {
			t.Errorf("a look-alike of a deleted account: %v", err)
		}
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "games.db")
		db := rawDB(t, path)
		conn, err := db.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := migrate(ctx, conn, path, skeletonVersion-1); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(ctx, insert); err != nil {
			t.Fatal(err)
		}
		conn.Close()
		db.Close()
		s := open(t, path)
		defer s.Close()
		check(t, s)
	})
	t.Run("postgres", func(t *testing.T) {
		url := newPostgresDB(t)
		conn := rawPostgres(t, url)
		if _, err := pgMigrate(ctx, conn, "the test database", skeletonVersion-1); err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, insert); err != nil {
			t.Fatal(err)
		}
		check(t, openPostgres(t, url))
	})
}
