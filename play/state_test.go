package play

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/play/memory"
	"github.com/endodoi/endodoi/rules"
)

// epoch is when the tests' fake clocks start: years from now, so that a
// reading of the system's clock instead is seen.
var epoch = time.Date(2040, 1, 1, 9, 0, 0, 0, time.UTC)

// newTable returns a table over a new store in memory, both on a fake
// clock that the test moves (tb.Clock.(*clock.Fake)).
func newTable(t *testing.T) *Table {
	t.Helper()
	fake := clock.NewFake(epoch)
	st := memory.New()
	st.Clock = fake
	tb := NewTable(st, nil)
	tb.Clock = fake
	return tb
}

// fakeClock is the fake clock of a table made by newTable.
func fakeClock(tb *Table) *clock.Fake { return tb.Clock.(*clock.Fake) }

// TestChangeState: every change carries the state it left, the one
// OnChange is told, and the same as a fresh load of the game shows: its
// status, result, sowings, clocks and, read after the change, its series.
func TestChangeState(t *testing.T) {
	ctx := context.Background()
	tb := newTable(t)
	var told []Change
	tb.OnChange = func(_ context.Context, _ *Game, c Change) { told = append(told, c) }
	start, _ := rules.NewPosition(6, 4)
	clock, _ := Clock(5, 2, 0)
	g, south, err := tb.CreateOnline(ctx, &game.Game{Start: start, Result: "*"}, rules.South, clock, 2)
	if err != nil {
		t.Fatal(err)
	}
	_, north, err := tb.Join(ctx, g, "")
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{south, north}
	seatToMove := func() Seat {
		t.Helper()
		seat, err := tb.SeatOf(ctx, g, tokens[g.Board().Position().ToMove()])
		if err != nil {
			t.Fatal(err)
		}
		return seat
	}
	check := func(what string, c Change) {
		t.Helper()
		s := c.State
		if last := told[len(told)-1]; !reflect.DeepEqual(last, c) {
			t.Errorf("%s: OnChange was told another change", what)
		}
		if s.Board != g.Board() || s.Status != g.Status() || s.Result != g.Result() || s.End != g.End() ||
			!reflect.DeepEqual(s.Info, *g.Info()) {
			t.Errorf("%s: state %s %s %q, game %s %s %q", what, s.Status, s.Result, s.End, g.Status(), g.Result(), g.End())
		}
		ply := g.Board().Ply()
		if s.SowingsFrom+len(s.Sowings) != ply || ply > 0 && s.SowingsFrom != 0 {
			t.Errorf("%s: sowings from %d, %d of them, after %d moves", what, s.SowingsFrom, len(s.Sowings), ply)
		}
		if c.Sowing != nil && !reflect.DeepEqual(s.Sowings[len(s.Sowings)-1], *c.Sowing) {
			t.Errorf("%s: the last sowing is not the move's", what)
		}
		o := g.Online()
		toMove := g.Board().Position().ToMove()
		runs := ply >= 2 && !g.Over()
		if s.Runs != runs || runs && s.Running != toMove {
			t.Errorf("%s: clock runs %v (%s), want %v (%s)", what, s.Runs, s.Running, runs, toMove)
		}
		for _, side := range []rules.Side{rules.South, rules.North} {
			if left := s.Clocks[side]; left > o.Left[side] || (!runs || side != toMove) && left != o.Left[side] {
				t.Errorf("%s: %s's clock reads %v of %v", what, side, left, o.Left[side])
			}
		}
		if s.Series == nil || s.Series.ID != g.Info().SeriesID || len(s.Series.Games) != 1 || s.Series.Games[0].Result != g.Result() {
			t.Fatalf("%s: series %+v, game's result %s", what, s.Series, g.Result())
		}
		if s.Tally != TallyOf(s.Series) {
			t.Errorf("%s: tally %+v of series %+v", what, s.Tally, s.Series)
		}
		fresh, err := tb.Load(ctx, g.ID())
		if err != nil {
			t.Fatal(err)
		}
		now, err := tb.State(ctx, fresh)
		if err != nil {
			t.Fatal(err)
		}
		if now.Status != s.Status || now.Result != s.Result || now.End != s.End || now.SowingsFrom != s.SowingsFrom ||
			!reflect.DeepEqual(now.Sowings, s.Sowings) || now.Info.Online.Rev != s.Info.Online.Rev ||
			!reflect.DeepEqual(now.Series, s.Series) || now.Tally != s.Tally || now.Board.Position() != s.Board.Position() {
			t.Errorf("%s: the change's state differs from the stored game's", what)
		}
	}
	for i := range 3 {
		ply := i
		c, err := tb.Move(ctx, g, seatToMove(), g.Board().LegalMoves()[0].String(), &ply)
		if err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
		check("a move", c)
	}
	ply := 3
	c, err := tb.Act(ctx, g, seatToMove(), "draw-offer", &ply)
	if err != nil {
		t.Fatal(err)
	}
	check("an offer", c)
	c, err = tb.Act(ctx, g, seatToMove(), "resign", &ply)
	if err != nil {
		t.Fatal(err)
	}
	check("a resignation", c)
	if c.State.Tally.Wins[rules.North]+c.State.Tally.Wins[rules.South] != 1 {
		t.Errorf("the resignation is not in the tally: %+v", c.State.Tally)
	}
}

// TestStateViewLaps: a state lists the latest moves' sowings within the
// table's lap budget, and all of them without one.
func TestStateViewLaps(t *testing.T) {
	ctx := context.Background()
	tb := newTable(t)
	start, _ := rules.NewPosition(6, 4)
	g, _, err := tb.Create(ctx, &game.Game{Start: start, Result: "*"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var c Change
	for i := 0; i < 6 && !g.Over(); i++ {
		ply := i
		if c, err = tb.Move(ctx, g, Device, g.Board().LegalMoves()[0].String(), &ply); err != nil {
			t.Fatal(err)
		}
	}
	ply := g.Board().Ply()
	if s := c.State; s.SowingsFrom != 0 || len(s.Sowings) != ply {
		t.Errorf("no budget: sowings from %d, %d of %d", s.SowingsFrom, len(s.Sowings), ply)
	}
	tb.ViewLaps = len(c.Sowing.Laps)
	s, err := tb.State(ctx, g)
	if err != nil {
		t.Fatal(err)
	}
	if s.SowingsFrom != ply-1 || len(s.Sowings) != 1 || !reflect.DeepEqual(s.Sowings[0], *c.Sowing) {
		t.Errorf("a budget of the last move's %d laps: sowings from %d, %d of them", tb.ViewLaps, s.SowingsFrom, len(s.Sowings))
	}
	if s.Runs || s.Clocks != [2]time.Duration{} {
		t.Errorf("a game on one device has clocks: %v, running %v", s.Clocks, s.Runs)
	}
}
