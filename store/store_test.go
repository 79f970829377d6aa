package store

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

func open(t *testing.T, path string) *SQLite {
	t.Helper()
	s, err := Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func moves(t *testing.T, letters ...string) []rules.Move {
	t.Helper()
	var ms []rules.Move
	for _, l := range letters {
		m, err := rules.ParseMove(l)
		if err != nil {
			t.Fatal(err)
		}
		ms = append(ms, m)
	}
	return ms
}

func TestGamesSurviveARestart(t *testing.T) { forEachStore(t, testGamesSurviveARestart) }

func testGamesSurviveARestart(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{South: "Naserian", North: "endodoi", Start: start, Rules: rules.Rules{Variant: rules.Cross, MaxLaps: 500},
		Computer: &game.Computer{Side: rules.North, Level: 7}, Moves: moves(t, "c")}
	if err := s.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, g.ID, 1, moves(t, "D")[0], "*"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, g.ID, 2, moves(t, "f")[0], "*"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s = open()
	got, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Created.Equal(g.Created) || got.ImportKey != "" || got.Online != nil {
		t.Errorf("reopened game %+v differs from the stored %+v", got, g)
	}
	if got.South != "Naserian" || got.North != "endodoi" || got.Start != start || got.Rules != g.Rules ||
		got.Computer == nil || *got.Computer != *g.Computer || got.Result != "*" || got.SeriesID != "" {
		t.Errorf("reopened game %+v differs from the stored %+v", got, g)
	}
	if want := moves(t, "c", "D", "f"); len(got.Moves) != 3 || got.Moves[0] != want[0] || got.Moves[1] != want[1] || got.Moves[2] != want[2] {
		t.Errorf("moves %v, want %v", got.Moves, want)
	}
	if !got.Updated.After(got.Created) && !got.Updated.Equal(got.Created) {
		t.Errorf("updated %v before created %v", got.Updated, got.Created)
	}
}

func TestConflictsAndTakebacks(t *testing.T) { forEachStore(t, testConflictsAndTakebacks) }

func testConflictsAndTakebacks(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start}
	if err := s.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	c := moves(t, "c")[0]
	if err := s.AppendMove(ctx, g.ID, 1, c, "*"); !errors.Is(err, ErrConflict) {
		t.Errorf("move 2 of a game with none: %v, want ErrConflict", err)
	}
	if err := s.AppendMove(ctx, "nosuchgame", 0, c, "*"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown game: %v, want ErrNotFound", err)
	}
	for i, m := range moves(t, "c", "D", "f", "F") {
		if err := s.AppendMove(ctx, g.ID, i, m, "*"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Truncate(ctx, g.ID, 3, 2, "*"); !errors.Is(err, ErrConflict) {
		t.Errorf("takeback from a stale count: %v, want ErrConflict", err)
	}
	if err := s.Truncate(ctx, g.ID, 4, 2, "*"); err != nil {
		t.Fatal(err)
	}
	got, _ := s.Game(ctx, g.ID)
	if len(got.Moves) != 2 {
		t.Errorf("%d moves after taking back two of four", len(got.Moves))
	}
	if err := s.AppendMove(ctx, g.ID, 2, c, "1-0"); err != nil {
		t.Fatal(err)
	}
	if got, _ = s.Game(ctx, g.ID); got.Result != "1-0" || len(got.Moves) != 3 {
		t.Errorf("after a move: result %q, %d moves", got.Result, len(got.Moves))
	}
	if _, err := s.Game(ctx, "nosuchgame"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown game: %v, want ErrNotFound", err)
	}
}

// Two requests racing to play the same move number: exactly one wins.
func TestConcurrentMoves(t *testing.T) { forEachStore(t, testConcurrentMoves) }

func testConcurrentMoves(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start}
	if err := s.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.AppendMove(ctx, g.ID, 0, moves(t, "a")[0], "*")
		}()
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrConflict):
			t.Errorf("racing move: %v", err)
		}
	}
	if ok != 1 {
		t.Errorf("%d of %d racing moves stored, want 1", ok, len(errs))
	}
}

func TestListingAndSeries(t *testing.T) { forEachStore(t, testListingAndSeries) }

func testListingAndSeries(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	sid, err := s.CreateSeries(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, holes := range []int{6, 8, 10} {
		start, _ := rules.NewPosition(holes, 4)
		g := &game.Game{Start: start, SeriesID: sid}
		if i == 2 {
			g.SeriesID = ""
		}
		if err := s.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, g.ID)
	}
	if err := s.AppendMove(ctx, ids[0], 0, moves(t, "a")[0], "*"); err != nil {
		t.Fatal(err)
	}
	list, err := s.Games(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 3 || list[0].ID != ids[0] || list[0].Moves != 1 || list[0].Holes != 6 {
		t.Errorf("listing %+v: want the game just played first, with 1 move on 6 holes", list)
	}
	if page, _ := s.Games(ctx, 1, 1); len(page) != 1 || page[0].ID != list[1].ID {
		t.Errorf("second page %+v, want %s", page, list[1].ID)
	}
	sr, err := s.Series(ctx, sid)
	if err != nil {
		t.Fatal(err)
	}
	if sr.Target != 3 || len(sr.Games) != 2 || sr.Games[0].ID != ids[0] || sr.Games[1].ID != ids[1] {
		t.Errorf("series %+v: want target 3 and the first two games in order", sr)
	}
	if _, err := s.Series(ctx, "nosuchseries"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown series: %v", err)
	}
	start, _ := rules.NewPosition(6, 4)
	if err := s.CreateGame(ctx, &game.Game{Start: start, SeriesID: "nosuchseries"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("game in an unknown series: %v, want ErrNotFound", err)
	}
}

func newGame(t *testing.T, s Store, g *game.Game) *game.Game {
	t.Helper()
	if g == nil {
		start, _ := rules.NewPosition(6, 4)
		g = &game.Game{Start: start}
	}
	if err := s.CreateGame(context.Background(), g); err != nil {
		t.Fatal(err)
	}
	return g
}

// Many players on many games at once, each reading its game and playing
// the next move, as the server does: every move acknowledged is stored, in
// its place, and the racing ones are refused.
func TestRacingWriters(t *testing.T) { forEachStore(t, testRacingWriters) }

func testRacingWriters(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	const games, players, tries = 20, 60, 40
	var ids []string
	for range games {
		ids = append(ids, newGame(t, s, nil).ID)
	}
	letters := moves(t, "a", "b", "c", "d", "e", "f")
	var mu sync.Mutex
	acked := map[string]map[int]rules.Move{}
	conflicts := 0
	var wg sync.WaitGroup
	for p := range players {
		wg.Go(func() {
			for i := range tries {
				id := ids[(p+i)%games]
				g, err := s.Game(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				m := letters[(p+i)%len(letters)]
				err = s.AppendMove(ctx, id, len(g.Moves), m, "*")
				mu.Lock()
				switch {
				case err == nil:
					if acked[id] == nil {
						acked[id] = map[int]rules.Move{}
					}
					if _, dup := acked[id][len(g.Moves)]; dup {
						t.Errorf("game %s: move %d acknowledged twice", id, len(g.Moves))
					}
					acked[id][len(g.Moves)] = m
				case errors.Is(err, ErrConflict):
					conflicts++
				default:
					t.Errorf("move: %v", err)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for _, id := range ids {
		g, err := s.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Moves) != len(acked[id]) {
			t.Errorf("game %s: %d moves stored, %d acknowledged", id, len(g.Moves), len(acked[id]))
		}
		for ply, m := range g.Moves {
			if acked[id][ply] != m {
				t.Errorf("game %s move %d: stored %v, acknowledged %v", id, ply, m, acked[id][ply])
			}
		}
		total += len(g.Moves)
	}
	if total+conflicts != players*tries {
		t.Errorf("%d stored + %d conflicts != %d tries", total, conflicts, players*tries)
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("%d write failures", n)
	}
	t.Logf("%d moves stored, %d conflicts", total, conflicts)
}

// Of K players racing to play the same move number of a game, exactly one
// wins, on every game at once.
func TestRacingSameMove(t *testing.T) { forEachStore(t, testRacingSameMove) }

func testRacingSameMove(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	const games, racers = 10, 16
	a := moves(t, "a")[0]
	for ply := range 3 {
		var ids []string
		for range games {
			g := newGame(t, s, nil)
			for i := range ply {
				if err := s.AppendMove(ctx, g.ID, i, a, "*"); err != nil {
					t.Fatal(err)
				}
			}
			ids = append(ids, g.ID)
		}
		var wins [games]atomic.Int32
		var wg sync.WaitGroup
		for i := range games * racers {
			wg.Go(func() {
				err := s.AppendMove(ctx, ids[i%games], ply, a, "*")
				switch {
				case err == nil:
					wins[i%games].Add(1)
				case !errors.Is(err, ErrConflict):
					t.Errorf("racing move: %v", err)
				}
			})
		}
		wg.Wait()
		for i := range wins {
			if n := wins[i].Load(); n != 1 {
				t.Errorf("move %d of game %s: %d of %d racing moves stored, want 1", ply, ids[i], n, racers)
			}
		}
	}
}

// hold stops the writer until the returned function is called, so that
// the writes asked for meanwhile go into one transaction.
func hold(t *testing.T, s *SQLite) (release func()) {
	t.Helper()
	in, out := make(chan struct{}), make(chan struct{})
	go s.write(context.Background(), "holding", false, func(*tx) error {
		close(in)
		<-out
		return nil
	})
	<-in
	return func() { close(out) }
}

// waitQueued waits until n writes are in queue.
func waitQueued(t *testing.T, queue chan *write, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(queue) < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d writes queued, want %d", len(queue), n)
		}
		time.Sleep(time.Millisecond)
	}
}

// A write that fails in a transaction with others undoes only itself.
func TestSavepointIsolation(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer s.Close()
	g1, g2 := newGame(t, s, nil), newGame(t, s, nil)
	a := moves(t, "a")[0]
	start, _ := rules.NewPosition(6, 4)
	bad := &game.Game{Start: start, SeriesID: "nosuchseries", Moves: moves(t, "a", "B")}
	release := hold(t, s)
	errs := make([]error, 5)
	var wg sync.WaitGroup
	for i, f := range []func() error{
		func() error { return s.AppendMove(ctx, g1.ID, 0, a, "*") },
		func() error { return s.AppendMove(ctx, g2.ID, 5, a, "*") }, // conflict
		func() error { return s.CreateGame(ctx, bad) },              // foreign key
		func() error { return s.AppendMove(ctx, g2.ID, 0, a, "1-0") },
		func() error { return s.Truncate(ctx, "nosuchgame", 1, 0, "*") }, // not found
	} {
		wg.Go(func() { errs[i] = f() })
		waitQueued(t, s.queue, i+1) // in this order
	}
	release()
	wg.Wait()
	if errs[0] != nil || errs[3] != nil {
		t.Errorf("good writes failed: %v, %v", errs[0], errs[3])
	}
	if !errors.Is(errs[1], ErrConflict) || !errors.Is(errs[2], ErrNotFound) || !errors.Is(errs[4], ErrNotFound) {
		t.Errorf("bad writes: %v, %v, %v; want ErrConflict, ErrNotFound, ErrNotFound", errs[1], errs[2], errs[4])
	}
	for _, g := range []*game.Game{g1, g2} {
		got, err := s.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Moves) != 1 {
			t.Errorf("game %s: %d moves, want 1", g.ID, len(got.Moves))
		}
	}
	if _, err := s.Game(ctx, bad.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the game in no series was stored: %v", err)
	}
	var n int
	if err := s.r.QueryRow(`SELECT COUNT(*) FROM moves WHERE game_id = ?`, bad.ID).Scan(&n); err != nil || n != 0 {
		t.Errorf("%d moves (%v) left of the game not stored", n, err)
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("%d write failures counted for answers about the data", n)
	}
}

// A write whose caller gives up before it is taken is not made; writes
// queued when the store closes are.
func TestCancelAndClose(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	g := newGame(t, s, nil)
	a := moves(t, "a")[0]
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.AppendMove(cancelled, g.ID, 0, a, "*"); !errors.Is(err, context.Canceled) {
		t.Errorf("move with a cancelled context: %v", err)
	}
	release := hold(t, s)
	short, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- s.AppendMove(short, g.ID, 0, a, "*") }()
	waitQueued(t, s.queue, 1)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("move given up while queued: %v", err)
	}
	var wg sync.WaitGroup
	for ply := range 3 {
		wg.Go(func() {
			if err := s.AppendMove(ctx, g.ID, ply, a, "*"); err != nil {
				t.Error(err)
			}
		})
		waitQueued(t, s.queue, ply+2) // after the one given up, in order
	}
	closed := make(chan error)
	go func() { closed <- s.Close() }()
	time.Sleep(10 * time.Millisecond)
	release()
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if err := s.AppendMove(ctx, g.ID, 3, a, "*"); err == nil {
		t.Error("a move after Close was accepted")
	}
	s = open(t, path)
	defer s.Close()
	got, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Moves) != 3 {
		t.Errorf("%d moves after Close, want the 3 queued (and not the one given up)", len(got.Moves))
	}
}

// Another program holding the write lock longer than the store waits:
// the write fails with ErrBusy, counted, and the next succeeds.
func TestBusy(t *testing.T) {
	defer func(w time.Duration) { busyWindow = w }(busyWindow)
	busyWindow = 300 * time.Millisecond
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	defer s.Close()
	g := newGame(t, s, nil)
	other, err := sql.Open("sqlite", uri(path, "_pragma=busy_timeout(1000)"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	a := moves(t, "a")[0]
	began := time.Now()
	err = s.AppendMove(ctx, g.ID, 0, a, "*")
	if !errors.Is(err, ErrBusy) {
		t.Errorf("move while another holds the lock: %v, want ErrBusy", err)
	}
	if d := time.Since(began); d < busyWindow || d > busyWindow+time.Second {
		t.Errorf("gave up after %v, want about %v", d, busyWindow)
	}
	if n := s.WriteFailures(); n != 1 {
		t.Errorf("%d write failures, want 1", n)
	}
	// Released within the window: the write waits and succeeds.
	go func() {
		time.Sleep(busyWindow / 3)
		conn.ExecContext(ctx, `ROLLBACK`)
	}()
	if err := s.AppendMove(ctx, g.ID, 0, a, "*"); err != nil {
		t.Errorf("move after the lock was released: %v", err)
	}
	if got, _ := s.Game(ctx, g.ID); got == nil || len(got.Moves) != 1 {
		t.Errorf("game after the lock: %+v", got)
	}
}

func TestImportKey(t *testing.T) { forEachStore(t, testImportKey) }

func testImportKey(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := newGame(t, s, &game.Game{Start: start, ImportKey: "sha256:abc", Moves: moves(t, "a", "B")})
	newGame(t, s, nil)
	newGame(t, s, nil) // two games without a key: no clash
	got, err := s.GameByImportKey(ctx, "sha256:abc")
	if err != nil || got.ID != g.ID || got.ImportKey != "sha256:abc" || len(got.Moves) != 2 {
		t.Errorf("by import key: %+v, %v", got, err)
	}
	if _, err := s.GameByImportKey(ctx, "sha256:none"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown key: %v, want ErrNotFound", err)
	}
	var wg sync.WaitGroup
	var stored atomic.Int32
	for range 10 {
		wg.Go(func() {
			again := &game.Game{Start: start, ImportKey: "sha256:def"}
			err := s.CreateGame(ctx, again)
			switch {
			case err == nil:
				stored.Add(1)
			case errors.Is(err, ErrExists):
				if k, err := s.GameByImportKey(ctx, "sha256:def"); err != nil || k.ID != again.ID {
					t.Errorf("ErrExists with ID %s, stored as %v (%v)", again.ID, k, err)
				}
			default:
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if stored.Load() != 1 {
		t.Errorf("the same import stored %d times", stored.Load())
	}
	dup := &game.Game{Start: start, ImportKey: "sha256:abc"}
	if err := s.CreateGame(ctx, dup); !errors.Is(err, ErrExists) || dup.ID != g.ID {
		t.Errorf("importing again: %v, ID %s; want ErrExists and %s", err, dup.ID, g.ID)
	}
	// A game imported keeps the time it was played, which its record tells.
	played := time.Date(2024, 3, 5, 10, 20, 30, 123e6, time.UTC)
	old := newGame(t, s, &game.Game{Start: start, ImportKey: "sha256:old", Moves: moves(t, "a"), Created: played, Updated: played})
	if got, err := s.Game(ctx, old.ID); err != nil || !got.Created.Equal(played) || !got.Updated.Equal(played) {
		t.Errorf("a game made with its time: %v, created %v, updated %v; want both %v", err, got.Created, got.Updated, played)
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("%d write failures", n)
	}
}

// A series and its first game are stored together or not at all.
func TestSeriesGame(t *testing.T) { forEachStore(t, testSeriesGame) }

func testSeriesGame(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start, Moves: moves(t, "a")}
	if err := s.CreateSeriesGame(ctx, 3, g); err != nil {
		t.Fatal(err)
	}
	sr, err := s.Series(ctx, g.SeriesID)
	if err != nil || sr.Target != 3 || len(sr.Games) != 1 || sr.Games[0].ID != g.ID || sr.Games[0].Moves != 1 {
		t.Fatalf("series %+v, %v", sr, err)
	}
	if !sr.Created.Equal(g.Created) || g.Created.IsZero() {
		t.Errorf("series created %v, game %v", sr.Created, g.Created)
	}
	newGame(t, s, &game.Game{Start: start, ImportKey: "k"})
	bad := &game.Game{Start: start, ImportKey: "k"}
	if err := s.CreateSeriesGame(ctx, 3, bad); !errors.Is(err, ErrExists) {
		t.Fatalf("series with a game that cannot be stored: %v", err)
	}
	if inv := contents(t, s); len(inv.Series) != 1 || len(inv.Games) != 2 || inv.Moves != 1 {
		t.Errorf("%d series, %d games, %d moves; want 1, 2, 1: the failed one left a row", len(inv.Series), len(inv.Games), inv.Moves)
	}
}

// A time that does not parse is an error, not the zero time.
func TestStoredTimes(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	defer s.Close()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start}
	if err := s.CreateSeriesGame(ctx, 2, g); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Game(ctx, g.ID); err != nil || !got.Created.Equal(g.Created) || !got.Updated.Equal(g.Updated) {
		t.Fatalf("times %v %v, want %v %v (%v)", got.Created, got.Updated, g.Created, g.Updated, err)
	}
	other, err := sql.Open("sqlite", uri(path, "_pragma=busy_timeout(5000)"))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`UPDATE games SET updated = 'last Tuesday'`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Game(ctx, g.ID); err == nil || !strings.Contains(err.Error(), "stored time") {
		t.Errorf("game with a bad time: %v", err)
	}
	if _, err := s.Games(ctx, 10, 0); err == nil || !strings.Contains(err.Error(), "stored time") {
		t.Errorf("listing with a bad time: %v", err)
	}
	if _, err := s.Series(ctx, g.SeriesID); err == nil || !strings.Contains(err.Error(), "stored time") {
		t.Errorf("series with a bad time: %v", err)
	}
	if _, err := other.Exec(`UPDATE series SET created = ''`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Series(ctx, g.SeriesID); err == nil || !strings.Contains(err.Error(), "stored time") {
		t.Errorf("series with a bad time: %v", err)
	}
}

// The order of the listing follows the last change across restarts.
func TestTouchedOrder(t *testing.T) { forEachStore(t, testTouchedOrder) }

func testTouchedOrder(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	a, b, c := newGame(t, s, nil), newGame(t, s, nil), newGame(t, s, nil)
	m := moves(t, "a")[0]
	if err := s.AppendMove(ctx, a.ID, 0, m, "*"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open()
	if err := s.AppendMove(ctx, b.ID, 0, m, "*"); err != nil {
		t.Fatal(err)
	}
	list, err := s.Games(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, sm := range list {
		got = append(got, sm.ID)
	}
	if want := []string{b.ID, a.ID, c.ID}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("listing order %v, want %v", got, want)
	}
}

// A write whose caller has given up is not made; after Close, writes fail
// and Close again does nothing.
func TestCancelledAndClosed(t *testing.T) { forEachStore(t, testCancelledAndClosed) }

func testCancelledAndClosed(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	g := newGame(t, s, nil)
	a := moves(t, "a")[0]
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := s.AppendMove(cancelled, g.ID, 0, a, "*"); !errors.Is(err, context.Canceled) {
		t.Errorf("move with a cancelled context: %v", err)
	}
	if _, err := s.CreateSeries(cancelled, 2); !errors.Is(err, context.Canceled) {
		t.Errorf("series with a cancelled context: %v", err)
	}
	if err := s.AppendMove(ctx, g.ID, 0, a, "*"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, g.ID, 1, a, "*"); err == nil {
		t.Error("a move after Close was accepted")
	}
	if err := s.Close(); err != nil {
		t.Errorf("closing again: %v", err)
	}
	s = open()
	if got, err := s.Game(ctx, g.ID); err != nil || len(got.Moves) != 1 {
		t.Errorf("after Close: %+v, %v; want the one move acknowledged", got, err)
	}
	if inv := contents(t, s); len(inv.Series) != 0 {
		t.Errorf("%d series stored by a cancelled call", len(inv.Series))
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("%d write failures", n)
	}
}
