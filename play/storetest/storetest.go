// Package storetest checks that an implementation of play.Store keeps
// play's promises: the same calls answer alike on SQLite, PostgreSQL and
// in memory. Each implementation's tests call Run.
package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Run runs the checks, each on the store that open returns: a new one, or
// one holding other games.
func Run(t *testing.T, open func(t *testing.T) play.Store) {
	ctx := context.Background()
	start, err := rules.ParsePosition("4,4,4,4/4,4,4,4 s 0 0")
	if err != nil {
		t.Fatal(err)
	}
	moves := func(text ...string) []rules.Move {
		var out []rules.Move
		for _, s := range text {
			m, err := rules.ParseMove(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
		return out
	}
	newGame := func() *game.Game {
		return &game.Game{South: "Amina", North: "Baraka", Start: start, Rules: rules.Rules{}.Canonical(), Result: "*"}
	}

	t.Run("create and read", func(t *testing.T) {
		st := open(t)
		g := newGame()
		g.Moves = moves("a", "A")
		g.Computer = &game.Computer{Side: rules.North, Level: 3}
		if err := st.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		if g.ID == "" || g.Created.IsZero() || !g.Updated.Equal(g.Created) {
			t.Fatalf("created game: id %q, created %v, updated %v", g.ID, g.Created, g.Updated)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.South != "Amina" || got.North != "Baraka" || len(got.Moves) != 2 || got.Moves[1] != g.Moves[1] ||
			got.Computer == nil || *got.Computer != *g.Computer || got.Result != "*" || got.Online != nil ||
			!got.Created.Equal(g.Created) || got.Start != start {
			t.Errorf("read back %+v, want %+v", got, g)
		}
		if _, err := st.Game(ctx, "00000000000000ff"); !errors.Is(err, game.ErrNotFound) {
			t.Errorf("a game never stored: %v, want ErrNotFound", err)
		}
	})

	t.Run("a given date is kept", func(t *testing.T) {
		st := open(t)
		g := newGame()
		when := time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC)
		g.Created = when
		if err := st.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Created.Equal(when) || !got.Updated.Equal(when) {
			t.Errorf("created %v, updated %v: want both %v", got.Created, got.Updated, when)
		}
	})

	t.Run("import key", func(t *testing.T) {
		st := open(t)
		first := newGame()
		first.ImportKey = "record-1"
		if err := st.CreateGame(ctx, first); err != nil {
			t.Fatal(err)
		}
		again := newGame()
		again.ImportKey = "record-1"
		err := st.CreateGame(ctx, again)
		if !errors.Is(err, game.ErrExists) || again.ID != first.ID {
			t.Errorf("the same import again: %v as %s, want ErrExists as %s", err, again.ID, first.ID)
		}
	})

	t.Run("moves", func(t *testing.T) {
		st := open(t)
		g := newGame()
		if err := st.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		at := g.Created.Add(time.Minute)
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Moves: moves("b"), Result: "*", At: at}); err != nil {
			t.Fatal(err)
		}
		// A second request on the same view of the game is refused.
		err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Moves: moves("c"), Result: "*"})
		if !errors.Is(err, game.ErrConflict) {
			t.Errorf("a stale move: %v, want ErrConflict", err)
		}
		if err := st.Update(ctx, g.ID, game.Change{Ply: 1, From: 1, Moves: moves("B"), Result: "*"}); err != nil {
			t.Fatal(err)
		}
		name := "Chausiku"
		// A takeback of both moves, with a new name.
		if err := st.Update(ctx, g.ID, game.Change{Ply: 2, From: 0, Result: "*", North: &name, At: at}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Moves) != 0 || got.North != "Chausiku" || got.South != "Amina" || !got.Updated.Equal(at) {
			t.Errorf("after the takeback: %d moves, %q–%q, updated %v", len(got.Moves), got.South, got.North, got.Updated)
		}
		err = st.Update(ctx, "00000000000000ff", game.Change{Ply: 0, From: 0, Moves: moves("a"), Result: "*"})
		if !errors.Is(err, game.ErrNotFound) {
			t.Errorf("a move in a game never stored: %v, want ErrNotFound", err)
		}
	})

	t.Run("online revisions and the next game", func(t *testing.T) {
		st := open(t)
		g := newGame()
		clock := game.Clock{Time: 5 * time.Minute}
		g.Online = &game.Online{Invite: "abcdefghijkl", Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
		g.Online.Seats[rules.South] = "seat-s"
		if err := st.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		if g.Online.Rev != 1 {
			t.Fatalf("a new online game at revision %d, want 1", g.Online.Rev)
		}
		o := *g.Online
		o.Seats[rules.North] = "seat-n"
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 1, Result: "*", Online: &o}); err != nil {
			t.Fatal(err)
		}
		if o.Rev != 2 {
			t.Errorf("after a change: revision %d, want 2", o.Rev)
		}
		stale := o
		stale.DrawOffer = "s"
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 1, Result: "*", Online: &stale}); !errors.Is(err, game.ErrConflict) {
			t.Errorf("a change on revision 1 at revision 2: %v, want ErrConflict", err)
		}
		found, err := st.SeatExists(ctx, "seat-n")
		if err != nil || !found {
			t.Errorf("SeatExists(seat-n) = %v, %v", found, err)
		}
		if found, err := st.SeatExists(ctx, "seat-x"); err != nil || found {
			t.Errorf("SeatExists(seat-x) = %v, %v", found, err)
		}
		end := o
		end.End = "resign"
		next := &game.Game{South: g.South, North: g.North, Start: start.WithToMove(rules.North), Rules: g.Rules, Result: "*",
			Online: &game.Online{Invite: "mnopqrstuvwx", Seats: o.Seats, Clock: clock, Left: o.Left}}
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 2, Result: "0-1", Online: &end, Next: next}); err != nil {
			t.Fatal(err)
		}
		if next.ID == "" || end.Next != next.ID {
			t.Fatalf("the next game: id %q, named %q", next.ID, end.Next)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Online.Rev != 3 || got.Online.Next != next.ID || got.Online.End != "resign" || got.Result != "0-1" ||
			got.Online.Seats != o.Seats {
			t.Errorf("after the end: %+v, result %s", got.Online, got.Result)
		}
		n, err := st.Game(ctx, next.ID)
		if err != nil {
			t.Fatal(err)
		}
		if n.Online == nil || n.Online.Rev != 1 || n.Online.Seats != o.Seats || n.Start.ToMove() != rules.North {
			t.Errorf("the next game: %+v", n.Online)
		}
	})

	t.Run("a move's clocks alone", func(t *testing.T) {
		st := open(t)
		g := newGame()
		clock := game.Clock{Time: 5 * time.Minute, Increment: 2 * time.Second}
		g.Online = &game.Online{Invite: "clocksonly01", Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
		g.Online.Seats = [2]string{"seat-s", "seat-n"}
		if err := st.CreateGame(ctx, g); err != nil {
			t.Fatal(err)
		}
		offer := *g.Online
		offer.DrawOffer, offer.TakebackOffer = "n", "n"
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 1, Result: "*", Online: &offer}); err != nil {
			t.Fatal(err)
		}
		moved := offer
		moved.Left[rules.South] = clock.Time - 1500*time.Millisecond
		moved.TurnStart = time.Date(2026, 3, 4, 5, 6, 7, 8e6, time.UTC)
		moved.DrawOffer, moved.TakebackOffer = "", ""
		stale := moved
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 1, Result: "*", Moves: moves("b"),
			Online: &stale, ClocksOnly: true}); !errors.Is(err, game.ErrConflict) {
			t.Errorf("a move on revision 1 at revision 2: %v, want ErrConflict", err)
		}
		if err := st.Update(ctx, g.ID, game.Change{Ply: 0, From: 0, Rev: 2, Result: "*", Moves: moves("b"),
			Online: &moved, ClocksOnly: true}); err != nil {
			t.Fatal(err)
		}
		got, err := st.Game(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Online == nil || *got.Online != moved || moved.Rev != 3 || len(got.Moves) != 1 {
			t.Errorf("after a move: %+v with %d moves, want %+v", got.Online, len(got.Moves), moved)
		}
	})

	t.Run("series", func(t *testing.T) {
		st := open(t)
		g := newGame()
		if err := st.CreateSeriesGame(ctx, 2, g); err != nil {
			t.Fatal(err)
		}
		if g.SeriesID == "" {
			t.Fatal("no series ID")
		}
		second := newGame()
		second.SeriesID = g.SeriesID
		second.Created = g.Created.Add(time.Second)
		if err := st.CreateGame(ctx, second); err != nil {
			t.Fatal(err)
		}
		sr, err := st.Series(ctx, g.SeriesID)
		if err != nil {
			t.Fatal(err)
		}
		if sr.Target != 2 || len(sr.Games) != 2 || sr.Games[0].ID != g.ID || sr.Games[1].ID != second.ID || sr.Games[0].Holes != 4 {
			t.Errorf("series %+v", sr)
		}
		orphan := newGame()
		orphan.SeriesID = "00000000000000ff"
		if err := st.CreateGame(ctx, orphan); !errors.Is(err, game.ErrNotFound) {
			t.Errorf("a game of a series never stored: %v, want ErrNotFound", err)
		}
		if _, err := st.Series(ctx, "00000000000000ff"); !errors.Is(err, game.ErrNotFound) {
			t.Errorf("a series never stored: %v, want ErrNotFound", err)
		}
	})
}
