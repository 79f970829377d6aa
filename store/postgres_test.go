package store

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// rawPostgres connects to the database at url with no help from the
// store.
func rawPostgres(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return conn
}

// Every version of the schema opens, is brought up to date and keeps its
// games, as on SQLite (TestMigrations).
func TestPostgresMigrations(t *testing.T) {
	ctx := context.Background()
	for v := 0; v <= latestVersion; v++ {
		t.Run(fmt.Sprintf("version %d", v), func(t *testing.T) {
			url := newPostgresDB(t)
			if v > 0 {
				conn := rawPostgres(t, url)
				if got, err := pgMigrate(ctx, conn, "the test database", v); err != nil || got != v {
					t.Fatalf("made version %d (%v), want %d", got, err, v)
				}
				for _, q := range []string{
					`INSERT INTO series VALUES ('s1', '2025-01-02T03:04:05.000Z', 3)`,
					`INSERT INTO games (id, created, updated, south, north, start, variant, max_laps, computer_side,
						computer_level, series_id, result, moves, touched) VALUES
						('g1', '2025-01-02T03:04:05.000Z', '2025-01-02T03:05:00.000Z', 'Naserian', 'endodoi',
						'4,4,4,4,4,4/4,4,4,4,4,4 s 0 0', 'standard', 500, 'n', 7, 's1', '*', 3, nextval('touched')),
						('g2', '2025-01-03T03:04:05.000Z', '2025-01-03T03:05:00.000Z', 'Leshan', 'Sironka',
						'4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0', 'standard', 500, '', 0, NULL, '1-0', 3, nextval('touched'))`,
					`INSERT INTO moves VALUES ('g1', 0, 'c'), ('g1', 1, 'D'), ('g1', 2, 'f'),
						('g2', 0, 'a'), ('g2', 1, 'B'), ('g2', 2, 'c')`,
				} {
					if _, err := conn.Exec(ctx, q); err != nil {
						t.Fatal(err)
					}
				}
			}
			s := openPostgres(t, url)
			if s.Version() != latestVersion {
				t.Errorf("version %d after Open, want %d", s.Version(), latestVersion)
			}
			if v > 0 {
				checkKept(t, s)
			}
			start, _ := rules.NewPosition(6, 4)
			if err := s.CreateGame(ctx, &game.Game{Start: start, ImportKey: "k"}); err != nil {
				t.Fatal(err)
			}
			if err := s.CreateGame(ctx, &game.Game{Start: start, ImportKey: "k"}); !errors.Is(err, ErrExists) {
				t.Errorf("second import: %v", err)
			}
			if v > 0 {
				saveReview(t, s, "g1") // a game stored before the reviews table
			}
			s.Close()
			s = openPostgres(t, url) // and again, with nothing to do
			if v > 0 {
				checkKept(t, s)
				checkReview(t, s, "g1")
			}
			var rows, version int
			if err := rawPostgres(t, url).QueryRow(ctx, `SELECT COUNT(*), MAX(version) FROM schema_version`).Scan(&rows, &version); err != nil || rows != 1 || version != latestVersion {
				t.Errorf("schema_version: %d rows, version %d (%v)", rows, version, err)
			}
		})
	}
}

// Instances starting together on a new database update its schema once,
// and all of them open it.
func TestPostgresMigrateTogether(t *testing.T) {
	url := newPostgresDB(t)
	var wg sync.WaitGroup
	stores := make([]*Postgres, 6)
	errs := make([]error, len(stores))
	for i := range stores {
		wg.Go(func() { stores[i], errs[i] = OpenPostgres(context.Background(), url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("instance %d: %v", i, err)
			continue
		}
		defer stores[i].Close()
		if v := stores[i].Version(); v != latestVersion {
			t.Errorf("instance %d: version %d", i, v)
		}
	}
}

func TestPostgresNewerDatabase(t *testing.T) {
	ctx := context.Background()
	url := newPostgresDB(t)
	openPostgres(t, url).Close()
	conn := rawPostgres(t, url)
	if _, err := conn.Exec(ctx, `UPDATE schema_version SET version = $1`, latestVersion+1); err != nil {
		t.Fatal(err)
	}
	_, err := OpenPostgres(ctx, url)
	if err == nil || !strings.Contains(err.Error(), "made by a newer endodoi") {
		t.Errorf("opening a newer database: %v", err)
	}
	var v int
	if err := conn.QueryRow(ctx, `SELECT version FROM schema_version`).Scan(&v); err != nil || v != latestVersion+1 {
		t.Errorf("the newer database's version is now %d (%v)", v, err)
	}
}

func TestPostgresNoDatabase(t *testing.T) {
	u, err := url.Parse(pgtest.Base(t))
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/endodoi_test_none_" + newID()
	_, err = OpenPostgres(context.Background(), u.String())
	if err == nil || !strings.Contains(err.Error(), "createdb") {
		t.Errorf("opening a database that does not exist: %v", err)
	}
}

// Two instances on one database: what one acknowledges the other reads,
// and of their racing moves exactly one wins.
func TestPostgresTwoInstances(t *testing.T) {
	ctx := context.Background()
	url := newPostgresDB(t)
	one, two := openPostgres(t, url), openPostgres(t, url)
	a := moves(t, "a")[0]
	for ply := range 5 {
		var ids []string
		for range 10 {
			g := newGame(t, one, nil)
			for i := range ply {
				if err := two.AppendMove(ctx, g.ID, i, a, "*"); err != nil {
					t.Fatal(err)
				}
			}
			if got, err := one.Game(ctx, g.ID); err != nil || len(got.Moves) != ply {
				t.Fatalf("instance one reads %+v (%v) after instance two's %d moves", got, err, ply)
			}
			ids = append(ids, g.ID)
		}
		var wins [10]atomic.Int32
		var wg sync.WaitGroup
		for i := range 10 * 8 {
			wg.Go(func() {
				s := Store(one)
				if i%2 == 1 {
					s = two
				}
				err := s.AppendMove(ctx, ids[i%10], ply, a, "*")
				switch {
				case err == nil:
					wins[i%10].Add(1)
				case !errors.Is(err, ErrConflict):
					t.Errorf("racing move: %v", err)
				}
			})
		}
		wg.Wait()
		for i := range wins {
			if n := wins[i].Load(); n != 1 {
				t.Errorf("move %d of game %s: %d racing moves stored, want 1", ply, ids[i], n)
			}
		}
	}
}

// Another program holding a game's row locked longer than the store
// waits: the write fails with ErrBusy, counted, and the next succeeds.
func TestPostgresBusy(t *testing.T) {
	defer func(w time.Duration) { busyWindow = w }(busyWindow)
	busyWindow = 300 * time.Millisecond
	ctx := context.Background()
	url := newPostgresDB(t)
	s := openPostgres(t, url)
	g := newGame(t, s, nil)
	other := rawPostgres(t, url)
	tx, err := other.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT * FROM games WHERE id = $1 FOR UPDATE`, g.ID); err != nil {
		t.Fatal(err)
	}
	a := moves(t, "a")[0]
	began := time.Now()
	err = s.AppendMove(ctx, g.ID, 0, a, "*")
	if !errors.Is(err, ErrBusy) || !errors.Is(err, ErrUnsaved) {
		t.Errorf("move while another holds the row: %v, want ErrBusy", err)
	}
	if d := time.Since(began); d < busyWindow || d > busyWindow+time.Second {
		t.Errorf("gave up after %v, want about %v", d, busyWindow)
	}
	if n := s.WriteFailures(); n != 1 {
		t.Errorf("%d write failures, want 1", n)
	}
	released := make(chan error)
	go func() {
		time.Sleep(busyWindow / 3)
		released <- tx.Rollback(ctx)
	}()
	if err := s.AppendMove(ctx, g.ID, 0, a, "*"); err != nil {
		t.Errorf("move after the lock was released: %v", err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
}

// The database server out of reach: writes fail with ErrUnsaved, counted;
// once it is back, they succeed.
func TestPostgresDown(t *testing.T) {
	ctx := context.Background()
	u, err := url.Parse(newPostgresDB(t))
	if err != nil {
		t.Fatal(err)
	}
	p := pgtest.NewProxy(t, u.Host)
	u.Host = p.Addr()
	s := openPostgres(t, u.String())
	g := newGame(t, s, nil)
	a := moves(t, "a")[0]
	p.Refuse(true)
	p.Cut()
	for ply := range 2 { // on a broken connection, then on none
		err := s.AppendMove(ctx, g.ID, ply, a, "*")
		if !errors.Is(err, ErrUnsaved) || errors.Is(err, ErrConflict) {
			t.Errorf("move with the database out of reach: %v, want ErrUnsaved", err)
		}
	}
	if n := s.WriteFailures(); n != 2 {
		t.Errorf("%d write failures, want 2", n)
	}
	if _, err := s.Game(ctx, g.ID); err == nil {
		t.Error("a game was read with the database out of reach")
	}
	if _, err := OpenPostgres(ctx, u.String()); err == nil || !strings.Contains(err.Error(), "cannot connect") {
		t.Errorf("opening a database out of reach: %v", err)
	}
	p.Refuse(false)
	if err := s.AppendMove(ctx, g.ID, 0, a, "*"); err != nil {
		t.Errorf("move once the database is back: %v", err)
	}
	if got, err := s.Game(ctx, g.ID); err != nil || len(got.Moves) != 1 {
		t.Errorf("game once the database is back: %+v, %v", got, err)
	}
}
