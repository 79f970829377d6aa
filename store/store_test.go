package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func open(t *testing.T, path string) *Store {
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

func TestGamesSurviveARestart(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	start, _ := rules.NewPosition(6, 4)
	g := &Game{South: "Naserian", North: "endodoi", Start: start, Rules: rules.Rules{Variant: rules.Cross, MaxLaps: 500},
		Computer: &Computer{Side: rules.North, Level: 7}, Moves: moves(t, "c")}
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

	s = open(t, path)
	defer s.Close()
	got, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
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

func TestConflictsAndTakebacks(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer s.Close()
	start, _ := rules.NewPosition(6, 4)
	g := &Game{Start: start}
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
func TestConcurrentMoves(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer s.Close()
	start, _ := rules.NewPosition(6, 4)
	g := &Game{Start: start}
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

func TestListingAndSeries(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer s.Close()
	sid, err := s.CreateSeries(ctx, 3)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for i, holes := range []int{6, 8, 10} {
		start, _ := rules.NewPosition(holes, 4)
		g := &Game{Start: start, SeriesID: sid}
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
	if err := s.CreateGame(ctx, &Game{Start: start, SeriesID: "nosuchseries"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("game in an unknown series: %v, want ErrNotFound", err)
	}
}
