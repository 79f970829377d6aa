package store

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

func TestDefaultDataDir(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/srv/data")
	if got, want := DefaultDataDir(), filepath.Join("/srv/data", "endodoi"); got != want {
		t.Errorf("with XDG_DATA_HOME: %q, want %q", got, want)
	}
	t.Setenv("XDG_DATA_HOME", "")
	home := t.TempDir()
	t.Setenv("HOME", home)
	got := DefaultDataDir()
	switch runtime.GOOS {
	case "windows", "darwin", "ios", "plan9":
		if filepath.Base(got) != "endodoi" {
			t.Errorf("%q is not an endodoi folder", got)
		}
	default:
		if want := filepath.Join(home, ".local", "share", "endodoi"); got != want {
			t.Errorf("with HOME: %q, want %q", got, want)
		}
		t.Setenv("HOME", "")
		if got := DefaultDataDir(); got != "endodoi-data" {
			t.Errorf("without a home folder: %q, want endodoi-data", got)
		}
	}
}

func TestOpenDataReadOnly(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	path := filepath.Join(data, "games.db")
	if _, err := OpenDataReadOnly(ctx, data); err == nil || err.Error() != "no database at "+path+" (choose the folder with --data)" {
		t.Errorf("an empty folder: %v", err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a database was made: %v", err)
	}
	s := open(t, path)
	fill(t, s, 2)
	s.Close()
	ro, err := OpenDataReadOnly(ctx, data)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	if ids, err := ro.GameIDs(ctx); err != nil || len(ids) != 2 {
		t.Errorf("%d games, %v; want 2", len(ids), err)
	}
	if err := ro.SetAlive(ctx, time.Now()); !errors.Is(err, ErrReadOnly) {
		t.Errorf("a write to a database opened for reading only: %v, want ErrReadOnly", err)
	}
}

func TestName(t *testing.T) {
	for _, tc := range []struct{ url, data, want string }{
		{"", "games", filepath.Join("games", "games.db")},
		{"postgres://endodoi@db.example.org/endodoi", "games", "postgres://endodoi@db.example.org/endodoi"},
		{"postgres://endodoi:secret@db.example.org/endodoi", "games", "postgres://endodoi:xxxxx@db.example.org/endodoi"},
	} {
		if got := Name(tc.url, tc.data); got != tc.want {
			t.Errorf("Name(%q, %q) = %q, want %q", tc.url, tc.data, got, tc.want)
		}
	}
}
