package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// rawDB opens path with no help from the store.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", uri(path, "_pragma=busy_timeout(5000)"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	return db
}

// fillByHand stores a series with two games of three moves each by plain
// SQL, as a past version of the program would have.
func fillByHand(t *testing.T, db *sql.DB) {
	t.Helper()
	for _, q := range []string{
		`INSERT INTO series VALUES ('s1', '2025-01-02T03:04:05.000Z', 3)`,
		`INSERT INTO games (id, created, updated, south, north, start, variant, max_laps, computer_side,
			computer_level, series_id, result, moves, touched) VALUES
			('g1', '2025-01-02T03:04:05.000Z', '2025-01-02T03:05:00.000Z', 'Naserian', 'endodoi',
			'4,4,4,4,4,4/4,4,4,4,4,4 s 0 0', 'standard', 500, 'n', 7, 's1', '*', 3, 4),
			('g2', '2025-01-03T03:04:05.000Z', '2025-01-03T03:05:00.000Z', 'Leshan', 'Sironka',
			'4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0', 'standard', 500, '', 0, NULL, '1-0', 3, 5)`,
		`INSERT INTO moves VALUES ('g1', 0, 'c'), ('g1', 1, 'D'), ('g1', 2, 'f'),
			('g2', 0, 'a'), ('g2', 1, 'B'), ('g2', 2, 'c')`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}

// checkKept checks that the games fillByHand stored are all there.
func checkKept(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	for id, want := range map[string]string{"g1": "c D f", "g2": "a B c"} {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, m := range g.Moves {
			got = append(got, m.String())
		}
		if strings.Join(got, " ") != want {
			t.Errorf("game %s: moves %v, want %s", id, got, want)
		}
	}
	sr, err := s.Series(ctx, "s1")
	if err != nil || len(sr.Games) != 1 || sr.Games[0].ID != "g1" || sr.Games[0].Moves != 3 {
		t.Errorf("series %+v, %v", sr, err)
	}
	// The two games in the order of their last change, after any game
	// the test added since.
	list, err := s.Games(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, sm := range list {
		if sm.ID == "g1" || sm.ID == "g2" {
			order = append(order, sm.ID)
		}
	}
	if strings.Join(order, " ") != "g2 g1" {
		t.Errorf("listing %+v: want g2 before g1", list)
	}
}

// saveReview stores a review of game id; checkReview finds it.
func saveReview(t *testing.T, s Store, id string) {
	t.Helper()
	if err := s.SaveReview(context.Background(), &Review{GameID: id, Key: "key", Data: []byte(`{"plies": []}`)}); err != nil {
		t.Fatalf("reviewing game %s: %v", id, err)
	}
}

func checkReview(t *testing.T, s Store, id string) {
	t.Helper()
	r, err := s.Review(context.Background(), id)
	if err != nil || r.Key != "key" || string(r.Data) != `{"plies": []}` {
		t.Errorf("review of game %s: %+v, %v", id, r, err)
	}
}

// Every past layout of the database opens, is brought up to date and
// keeps its games.
func TestMigrations(t *testing.T) {
	ctx := context.Background()
	layouts := map[string]func(t *testing.T, path string){
		"empty file": func(t *testing.T, path string) {
			if err := os.WriteFile(path, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"first release, unversioned": func(t *testing.T, path string) {
			db := rawDB(t, path)
			defer db.Close()
			// The first release's Open: these pragmas and statements,
			// and no user_version.
			for _, q := range []string{`PRAGMA journal_mode = WAL`, migrations[0].sqlite} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			fillByHand(t, db)
		},
	}
	for _, m := range migrations {
		layouts[fmt.Sprintf("version %d", m.version)] = func(t *testing.T, path string) {
			db := rawDB(t, path)
			defer db.Close()
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if err := migrate(ctx, conn, path, m.version); err != nil {
				t.Fatal(err)
			}
			if v, err := schemaVersion(ctx, conn); err != nil || v != m.version {
				t.Fatalf("made version %d (%v), want %d", v, err, m.version)
			}
			conn.Close()
			fillByHand(t, db)
		}
	}
	for name, make := range layouts {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "games.db")
			make(t, path)
			s := open(t, path)
			if v, err := schemaVersion(ctx, s.r); err != nil || v != latestVersion {
				t.Errorf("version %d (%v) after Open, want %d", v, err, latestVersion)
			}
			if name != "empty file" {
				checkKept(t, s)
			}
			// The new schema works: an import key, a new move.
			start, _ := rules.NewPosition(6, 4)
			if err := s.CreateGame(ctx, &game.Game{Start: start, ImportKey: "k"}); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateGame(ctx, &game.Game{Start: start, ImportKey: "k"}); !errors.Is(err, ErrExists) {
				t.Errorf("second import: %v", err)
			}
			if name != "empty file" {
				// A game stored before the reviews table can be reviewed.
				saveReview(t, s, "g1")
			}
			s.Close()
			s = open(t, path) // and again, with nothing to do
			defer s.Close()
			if name != "empty file" {
				checkKept(t, s)
				checkReview(t, s, "g1")
			}
			if rep, err := s.Check(ctx); err != nil || !rep.OK() || rep.Version != latestVersion {
				t.Errorf("check %+v, %v", rep, err)
			}
		})
	}
}

func TestNewerDatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	s.Close()
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, latestVersion+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	before := snapshot(t, path)
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "made by a newer endodoi") {
		t.Errorf("opening a newer database: %v", err)
	}
	snapshot(t, path).same(t, before)
}

// files is the database file's bytes and the files beside it.
type files struct {
	db     []byte
	beside []string
}

func snapshot(t *testing.T, path string) files {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	if err != nil {
		t.Fatal(err)
	}
	f := files{db: b}
	for _, e := range entries {
		f.beside = append(f.beside, e.Name())
	}
	return f
}

func (f files) same(t *testing.T, before files) {
	t.Helper()
	if !bytes.Equal(f.db, before.db) {
		t.Error("the database file changed")
	}
	if strings.Join(f.beside, " ") != strings.Join(before.beside, " ") {
		t.Errorf("files %v, were %v", f.beside, before.beside)
	}
}

// fill stores n games of 20 moves each.
func fill(t *testing.T, s Store, n int) {
	t.Helper()
	start, _ := rules.NewPosition(8, 4)
	ms := moves(t, "a", "B", "c", "D", "e", "F", "g", "H", "a", "B", "c", "D", "e", "F", "g", "H", "a", "B", "c", "D")
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if err := s.CreateGame(context.Background(), &game.Game{South: "Naserian", North: "endodoi", Start: start, Moves: ms}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

// A damaged file is refused, untouched, and db check can read it.
func TestDamagedDatabase(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	fill(t, s, 500)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	garbage := bytes.Repeat([]byte("garbage!"), 1024)
	if _, err := f.WriteAt(garbage, fi.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before := snapshot(t, path)
	_, err = Open(ctx, path)
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("opening a damaged database: %v, want ErrDamaged", err)
	}
	for _, want := range []string{path, "endodoi db check", "endodoi db backup"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	t.Log(err)
	snapshot(t, path).same(t, before)

	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ro.Check(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if rep.OK() {
		t.Errorf("check of a damaged file: %+v", rep)
	}
	if err := ro.Close(); err != nil {
		t.Fatal(err)
	}
	snapshot(t, path).same(t, before)
}

// A file or folder that cannot be written is refused, untouched.
func TestReadOnlyDatabase(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "data")
	os.Mkdir(dir, 0o755)
	path := filepath.Join(dir, "games.db")
	s := open(t, path)
	fill(t, s, 3)
	s.Close()
	t.Run("file", func(t *testing.T) {
		if err := os.Chmod(path, 0o444); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(path, 0o644)
		before := snapshot(t, path)
		_, err := Open(ctx, path)
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), path) {
			t.Errorf("opening a read-only file: %v, want ErrReadOnly naming the file", err)
		}
		snapshot(t, path).same(t, before)
	})
	t.Run("folder", func(t *testing.T) {
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o755)
		before := snapshot(t, path)
		_, err := Open(ctx, path)
		if !errors.Is(err, ErrReadOnly) || !strings.Contains(err.Error(), dir) {
			t.Errorf("opening a database in a read-only folder: %v, want ErrReadOnly naming the folder", err)
		}
		_, err = Open(ctx, filepath.Join(dir, "new.db"))
		if !errors.Is(err, ErrReadOnly) {
			t.Errorf("creating a database in a read-only folder: %v, want ErrReadOnly", err)
		}
		snapshot(t, path).same(t, before)
	})
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	start, _ := rules.NewPosition(6, 4)
	if err := ro.CreateGame(ctx, &game.Game{Start: start}); !errors.Is(err, ErrReadOnly) {
		t.Errorf("writing to a store opened read-only: %v", err)
	}
	if ids, err := ro.GameIDs(ctx); err != nil || len(ids) != 3 {
		t.Errorf("games %v, %v", ids, err)
	}
}

func TestCheckAndBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "games.db")
	s := open(t, path)
	defer s.Close()
	fill(t, s, 50)
	rep, err := s.Check(ctx)
	if err != nil || !rep.OK() || rep.Games != 50 || rep.Moves != 1000 || rep.Series != 0 || rep.Version != latestVersion {
		t.Errorf("check %+v, %v", rep, err)
	}
	// A backup while players go on playing, from a second store on the
	// file as a second program would.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	g := newGame(t, s, nil)
	a := moves(t, "a")[0]
	wg.Go(func() {
		for ply := 0; ; ply++ {
			select {
			case <-stop:
				return
			default:
			}
			if err := s.AppendMove(ctx, g.ID, ply, a, "*"); err != nil {
				t.Error(err)
				return
			}
		}
	})
	other, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	backup := filepath.Join(dir, "backup.db")
	if err := other.Backup(ctx, backup); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if err := s.Backup(ctx, backup); err == nil || !errors.Is(err, os.ErrExist) {
		t.Errorf("backup over an existing file: %v", err)
	}
	b := open(t, backup)
	defer b.Close()
	rep, err = b.Check(ctx)
	if err != nil || !rep.OK() || rep.Games != 51 || rep.Moves < 1000 {
		t.Errorf("backup's check %+v, %v", rep, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temporary file %s left", e.Name())
		}
	}
}
