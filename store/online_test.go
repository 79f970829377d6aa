package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"pgregory.net/rapid"
)

// newOnline stores an online game with the given invite, South seated as
// seat and North's seat free.
func newOnline(t *testing.T, s Store, invite, seat string) *game.Game {
	t.Helper()
	start, _ := rules.NewPosition(6, 4)
	clock := game.Clock{Time: 5 * time.Minute, Increment: 2 * time.Second}
	return newGame(t, s, &game.Game{South: "Naserian", Start: start, Online: &game.Online{Invite: invite,
		Seats: [2]string{seat, ""}, Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}})
}

// onlineOf returns a copy of the online state of game id as stored.
func onlineOf(t *testing.T, s Store, id string) (*game.Game, game.Online) {
	t.Helper()
	g, err := s.Game(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Online == nil {
		t.Fatalf("game %s is not online", id)
	}
	return g, *g.Online
}

func TestOnlineGame(t *testing.T) { forEachStore(t, testOnlineGame) }

func testOnlineGame(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	g := newOnline(t, s, "invite1", "seat-south")
	if g.Online.Rev != 1 {
		t.Errorf("a new online game's revision %d, want 1", g.Online.Rev)
	}
	got, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := diffGame(g, got); d != "" {
		t.Errorf("stored online game: %s", d)
	}
	if got, err := s.GameByInvite(ctx, "invite1"); err != nil || got.ID != g.ID {
		t.Errorf("by invite: %+v, %v", got, err)
	}
	if _, err := s.GameByInvite(ctx, "nosuchinvite"); !errors.Is(err, ErrNotFound) {
		t.Errorf("unknown invite: %v, want ErrNotFound", err)
	}
	local := newGame(t, s, nil)
	list, err := s.GamesByID(ctx, []string{local.ID, "nosuchgame", g.ID})
	if err != nil || len(list) != 2 || list[0].ID != local.ID || list[1].ID != g.ID {
		t.Fatalf("games by ID: %+v, %v; want the local game, then the online one", list, err)
	}
	if list[0].Online || !list[1].Online || list[1].End != "" {
		t.Errorf("summaries %+v: want only the second online, not ended", list)
	}

	for _, seat := range []string{"seat-south", "seat-north"} {
		if ok, err := s.SeatExists(ctx, seat); err != nil || ok != (seat == "seat-south") {
			t.Errorf("seat %s exists: %t, %v", seat, ok, err)
		}
	}
	if ok, err := s.SeatExists(ctx, ""); err != nil || ok {
		t.Errorf("the free seat's empty hash exists: %t, %v", ok, err)
	}

	// North sits down and South plays: one change of moves and state.
	a := moves(t, "a")[0]
	_, o := onlineOf(t, s, g.ID)
	o.Seats[rules.North] = "seat-north"
	o.TurnStart = time.Date(2026, 3, 1, 12, 0, 0, 250e6, time.UTC)
	o.Left[rules.South] = 4*time.Minute + 1500*time.Millisecond
	if err := s.Update(ctx, g.ID, game.Change{Ply: 0, Rev: 1, From: 0, Moves: []rules.Move{a}, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	if o.Rev != 2 {
		t.Errorf("revision %d after an update, want 2", o.Rev)
	}
	after, stored := onlineOf(t, s, g.ID)
	if len(after.Moves) != 1 || stored != o {
		t.Errorf("after the update: %d moves, state %+v; want 1 move and %+v", len(after.Moves), stored, o)
	}
	if ok, _ := s.SeatExists(ctx, "seat-north"); !ok {
		t.Error("the seat taken is not found")
	}

	// Stale counts and revisions change nothing.
	stale := o
	for _, c := range []game.Change{
		{Ply: 1, Rev: 1, From: 1, Moves: []rules.Move{a}, Result: "*", Online: &stale},
		{Ply: 0, Rev: 2, From: 0, Moves: []rules.Move{a}, Result: "*", Online: &stale},
		{Ply: 3, Rev: 2, From: 3, Result: "*", Online: &stale},
	} {
		if err := s.Update(ctx, g.ID, c); !errors.Is(err, ErrConflict) {
			t.Errorf("update %+v: %v, want ErrConflict", c, err)
		}
	}
	if err := s.Update(ctx, "nosuchgame", game.Change{Rev: 1, Result: "*", Online: &stale}); !errors.Is(err, ErrNotFound) {
		t.Errorf("update of an unknown game: %v, want ErrNotFound", err)
	}
	if err := s.Update(ctx, local.ID, game.Change{Rev: 1, From: 0, Moves: []rules.Move{a}, Result: "*", Online: &stale}); !errors.Is(err, ErrConflict) {
		t.Errorf("online update of a local game: %v, want ErrConflict", err)
	}
	if got, _ := s.Game(ctx, local.ID); len(got.Moves) != 0 || got.Online != nil {
		t.Errorf("the refused update changed the local game: %+v", got)
	}
	if again, st := onlineOf(t, s, g.ID); len(again.Moves) != 1 || st != o {
		t.Errorf("refused updates changed the game: %d moves, %+v", len(again.Moves), st)
	}

	// New names, then a takeback.
	name := "Sironka"
	if err := s.Update(ctx, g.ID, game.Change{Ply: 1, Rev: 2, From: 1, Result: "*", North: &name, Online: &o}); err != nil {
		t.Fatal(err)
	}
	o.TakebackOffer = "n"
	if err := s.Update(ctx, g.ID, game.Change{Ply: 1, Rev: 3, From: 0, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	if got, st := onlineOf(t, s, g.ID); len(got.Moves) != 0 || got.North != "Sironka" || got.South != "Naserian" ||
		st.Rev != 4 || st.TakebackOffer != "n" {
		t.Errorf("after a rename and a takeback: %+v, %+v", got, st)
	}
	// A local game changes without online state.
	if err := s.Update(ctx, local.ID, game.Change{Ply: 0, From: 0, Moves: moves(t, "a", "B"), Result: "*"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Game(ctx, local.ID); len(got.Moves) != 2 {
		t.Errorf("local game after an update: %v", got.Moves)
	}
	if n := s.WriteFailures(); n != 0 {
		t.Errorf("%d write failures", n)
	}
}

// Of players racing to change an online game at the same revision,
// exactly one wins.
func TestRacingUpdates(t *testing.T) { forEachStore(t, testRacingUpdates) }

func testRacingUpdates(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	g := newOnline(t, s, "race", "seat")
	a := moves(t, "a")[0]
	for ply := range 3 {
		_, o := onlineOf(t, s, g.ID)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for i := range 12 {
			wg.Go(func() {
				mine := o
				mine.DrawOffer = []string{"s", "n"}[i%2]
				err := s.Update(ctx, g.ID, game.Change{Ply: ply, Rev: o.Rev, From: ply, Moves: []rules.Move{a}, Result: "*", Online: &mine})
				switch {
				case err == nil:
					wins.Add(1)
				case !errors.Is(err, ErrConflict):
					t.Errorf("racing update: %v", err)
				}
			})
		}
		wg.Wait()
		if n := wins.Load(); n != 1 {
			t.Errorf("move %d: %d racing updates stored, want 1", ply, n)
		}
		if got, st := onlineOf(t, s, g.ID); len(got.Moves) != ply+1 || st.Rev != o.Rev+1 {
			t.Errorf("move %d: %d moves at revision %d, want %d at %d", ply, len(got.Moves), st.Rev, ply+1, o.Rev+1)
		}
	}
}

// The lists of online games: those in progress, not those ended by the
// rules or otherwise.
func TestOnlineLists(t *testing.T) { forEachStore(t, testOnlineLists) }

func testOnlineLists(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	a, b := newOnline(t, s, "a", "sa"), newOnline(t, s, "b", "sb")
	resigned, won := newOnline(t, s, "c", "sc"), newOnline(t, s, "d", "sd")
	newGame(t, s, nil) // not online
	_, o := onlineOf(t, s, resigned.ID)
	o.End = "resign"
	if err := s.Update(ctx, resigned.ID, game.Change{Rev: o.Rev, Result: "0-1", Online: &o}); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, won.ID, 0, moves(t, "a")[0], "1-0"); err != nil {
		t.Fatal(err)
	}
	// Later than b's last change, to the millisecond the store keeps.
	time.Sleep(2 * time.Millisecond)
	if err := s.AppendMove(ctx, a.ID, 0, moves(t, "a")[0], "*"); err != nil {
		t.Fatal(err)
	}
	ids := func(list []game.Summary) []string {
		var out []string
		for _, sm := range list {
			out = append(out, sm.ID)
		}
		return out
	}
	list, err := s.OnlineGames(ctx, 10)
	if err != nil || !slices.Equal(ids(list), []string{a.ID, b.ID}) {
		t.Errorf("online games %v (%v), want %v: the last played first", ids(list), err, []string{a.ID, b.ID})
	}
	if list, _ := s.OnlineGames(ctx, 1); len(list) != 1 {
		t.Errorf("%d online games listed, limit 1", len(list))
	}
	all, err := s.Games(ctx, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, sm := range all {
		if sm.ID == resigned.ID && (!sm.Online || sm.End != "resign" || sm.Result != "0-1") {
			t.Errorf("the resigned game's summary %+v", sm)
		}
	}

	inPlay, err := s.OpenOnlineGames(ctx, time.Time{})
	if err != nil || !slices.Equal(inPlay, []string{b.ID, a.ID}) {
		t.Errorf("open online games %v (%v), want %v: the oldest change first", inPlay, err, []string{b.ID, a.ID})
	}
	ga, _ := s.Game(ctx, a.ID)
	gb, _ := s.Game(ctx, b.ID)
	for _, c := range []struct {
		idle time.Time
		want []string
	}{
		{gb.Updated, nil}, // strictly before
		{gb.Updated.Add(time.Millisecond), []string{b.ID}},
		{ga.Updated.Add(time.Millisecond), []string{b.ID, a.ID}},
	} {
		got, err := s.OpenOnlineGames(ctx, c.idle)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("idle before %v: %v (%v), want %v", c.idle, got, err, c.want)
		}
	}
}

// The clocks that ran when the server stopped resume with the time they
// had run, and the heartbeat is kept.
func TestResumeClocksAndAlive(t *testing.T) { forEachStore(t, testResumeClocksAndAlive) }

func testResumeClocksAndAlive(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	if _, ok, err := s.Alive(ctx); ok || err != nil {
		t.Errorf("a new store's heartbeat: %t, %v", ok, err)
	}
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	running, stopped, ended := newOnline(t, s, "r", "s1"), newOnline(t, s, "s", "s2"), newOnline(t, s, "e", "s3")
	for _, g := range []*game.Game{running, ended} {
		_, o := onlineOf(t, s, g.ID)
		o.TurnStart = t0
		if g == ended {
			o.End = "timeout"
		}
		if err := s.Update(ctx, g.ID, game.Change{Rev: o.Rev, Result: "*", Online: &o}); err != nil {
			t.Fatal(err)
		}
	}
	alive := t0.Add(10*time.Second + 300*time.Microsecond)
	if err := s.SetAlive(ctx, alive); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open()
	got, ok, err := s.Alive(ctx)
	if err != nil || !ok || !got.Equal(alive.Truncate(time.Millisecond)) || got.Location() != time.UTC {
		t.Errorf("heartbeat %v (%t, %v), want %v", got, ok, err, alive.Truncate(time.Millisecond))
	}
	restart := t0.Add(time.Hour)
	n, err := s.ResumeClocks(ctx, got, restart)
	if err != nil || n != 1 {
		t.Errorf("resumed %d clocks (%v), want 1", n, err)
	}
	if _, o := onlineOf(t, s, running.ID); !o.TurnStart.Equal(restart.Add(-10*time.Second)) || o.Rev != 3 {
		t.Errorf("running clock: started %v at revision %d, want %v at 3", o.TurnStart, o.Rev, restart.Add(-10*time.Second))
	}
	for _, g := range []*game.Game{stopped, ended} {
		if _, o := onlineOf(t, s, g.ID); o.Rev != 1+btoi(g == ended) {
			t.Errorf("game %s, with no clock running, changed: %+v", g.ID, o)
		}
	}
	later := time.Date(2026, 3, 2, 0, 0, 0, 0, time.FixedZone("EAT", 3*3600))
	if err := s.SetAlive(ctx, later); err != nil {
		t.Fatal(err)
	}
	if got, ok, err := s.Alive(ctx); err != nil || !ok || !got.Equal(later) {
		t.Errorf("heartbeat %v (%t, %v), want %v", got, ok, err, later)
	}
}

func btoi(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// Times come back as they were stored: to the millisecond, in UTC.
func TestTimes(t *testing.T) { forEachStore(t, testTimes) }

func testTimes(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start}
	if err := s.CreateSeriesGame(ctx, 2, g); err != nil {
		t.Fatal(err)
	}
	if g.Created.Location() != time.UTC || g.Created.Nanosecond()%int(time.Millisecond) != 0 {
		t.Errorf("created %v: want UTC to the millisecond", g.Created)
	}
	got, err := s.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Created.Equal(g.Created) || !got.Updated.Equal(g.Updated) || got.Created.Location() != time.UTC {
		t.Errorf("times %v %v, want %v %v", got.Created, got.Updated, g.Created, g.Updated)
	}
	sr, err := s.Series(ctx, g.SeriesID)
	if err != nil || !sr.Created.Equal(g.Created) || sr.Created.Location() != time.UTC ||
		!sr.Games[0].Created.Equal(g.Created) || sr.Games[0].Created.Location() != time.UTC {
		t.Errorf("series %+v (%v): want created %v in UTC", sr, err, g.Created)
	}
	// A time given with a zone and below the millisecond.
	on := newOnline(t, s, "times", "seat")
	_, o := onlineOf(t, s, on.ID)
	turn := time.Date(2026, 3, 1, 15, 4, 5, 123456789, time.FixedZone("EAT", 3*3600))
	o.TurnStart = turn
	if err := s.Update(ctx, on.ID, game.Change{Rev: o.Rev, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	_, st := onlineOf(t, s, on.ID)
	if want := turn.UTC().Truncate(time.Millisecond); st.TurnStart != want {
		t.Errorf("turn start %v, want %v", st.TurnStart, want)
	}
	o.TurnStart = time.Time{}
	if err := s.Update(ctx, on.ID, game.Change{Rev: st.Rev, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	if _, st := onlineOf(t, s, on.ID); !st.TurnStart.IsZero() {
		t.Errorf("a stopped clock's start %v, want none", st.TurnStart)
	}
}

// Model: whatever sequence of changes an online game sees, seats changed
// or kept, at its revision or a stale one, the stored state is the last
// change accepted, a change is accepted exactly when its revision is the
// game's, and a seat is found exactly while it is one of the game's
// (SQLite sets the seats only when they change: updateOnline).
func TestOnlineChangesFollowTheModel(t *testing.T) { forEachStore(t, testOnlineChangesFollowTheModel) }

func testOnlineChangesFollowTheModel(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	iteration := 0
	rapid.Check(t, func(rt *rapid.T) {
		iteration++
		seat := func(i int) string { return fmt.Sprintf("seat-%d-%d", iteration, i) }
		g := newOnline(t, s, fmt.Sprintf("model%d", iteration), seat(0))
		_, model := onlineOf(t, s, g.ID)
		used := []string{seat(0)}
		a := moves(t, "a")[0]
		ply := 0
		for step := range rapid.IntRange(1, 12).Draw(rt, "changes") {
			o := model
			for side := range o.Seats {
				switch rapid.IntRange(0, 3).Draw(rt, "seat") {
				case 0: // a new seat
					o.Seats[side] = seat(len(used))
					used = append(used, o.Seats[side])
				case 1: // left free
					o.Seats[side] = ""
				} // else kept, as a move keeps them
			}
			o.TurnStart = time.Date(2026, 3, 1, 12, 0, step, 0, time.UTC)
			o.Left[step%2] -= time.Duration(rapid.IntRange(0, 5000).Draw(rt, "ms")) * time.Millisecond
			o.DrawOffer = rapid.SampledFrom([]string{"", "s", "n"}).Draw(rt, "draw offer")
			rev := model.Rev + int64(rapid.IntRange(-1, 1).Draw(rt, "revision off by"))
			c := game.Change{Ply: ply, Rev: rev, From: ply, Result: "*", Online: &o}
			if rapid.Bool().Draw(rt, "with a move") {
				c.Moves = []rules.Move{a}
			}
			err := s.Update(ctx, g.ID, c)
			switch {
			case rev != model.Rev:
				if !errors.Is(err, ErrConflict) {
					rt.Fatalf("change %d at revision %d of %d: %v, want ErrConflict", step, rev, model.Rev, err)
				}
			case err != nil:
				rt.Fatalf("change %d: %v", step, err)
			default:
				if o.Rev != model.Rev+1 {
					rt.Fatalf("change %d: revision %d, want %d", step, o.Rev, model.Rev+1)
				}
				model = o
				ply += len(c.Moves)
			}
			got, stored := onlineOf(t, s, g.ID)
			if stored != model || len(got.Moves) != ply {
				rt.Fatalf("after change %d: %d moves, %+v; want %d, %+v", step, len(got.Moves), stored, ply, model)
			}
			for _, h := range used {
				if ok, err := s.SeatExists(ctx, h); err != nil || ok != slices.Contains(model.Seats[:], h) {
					rt.Fatalf("after change %d: seat %s found %t (%v), seats %q", step, h, ok, err, model.Seats)
				}
			}
		}
	})
}
