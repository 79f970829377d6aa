package play

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// playedGame replays moves chosen in turn from the legal ones on an
// 8-hole board.
func playedGame(t *testing.T, n int) *Game {
	t.Helper()
	start, err := rules.NewPosition(8, 4)
	if err != nil {
		t.Fatal(err)
	}
	b, err := rules.NewGame(start, rules.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n && !b.Over(); i++ {
		if err := b.Play(b.LegalMoves()[i%len(b.LegalMoves())]); err != nil {
			t.Fatal(err)
		}
	}
	g, err := replay(&game.Game{ID: "0123456789abcdef", Start: start, Moves: b.Moves(), Result: "*"})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestSowingsBounded: Sowings lists the latest moves' sowings, as Trace
// gives them, whose laps fit the budget, and says how many earlier moves
// it leaves out.
func TestSowingsBounded(t *testing.T) {
	g := playedGame(t, 12)
	b := g.Board()
	all, from := g.Sowings(1 << 30)
	if from != 0 || len(all) != b.Ply() {
		t.Fatalf("within the budget: %d sowings from %d for %d moves", len(all), from, b.Ply())
	}
	total := 0
	for i, sw := range all {
		_, want, err := b.PositionAt(i).Trace(b.Moves()[i], b.Rules())
		if err != nil || !reflect.DeepEqual(sw, want) {
			t.Fatalf("move %d: sowing %+v, Trace gives %+v (%v)", i+1, sw, want, err)
		}
		total += len(sw.Laps)
	}
	for _, budget := range []int{0, 1, total / 2, total - 1, total} {
		part, from := g.Sowings(budget)
		laps := 0
		for _, sw := range part {
			laps += len(sw.Laps)
		}
		switch {
		case laps > budget:
			t.Errorf("budget %d: the sowings hold %d laps", budget, laps)
		case from+len(part) != b.Ply():
			t.Errorf("budget %d: %d sowings from %d for %d moves", budget, len(part), from, b.Ply())
		case !reflect.DeepEqual(part, all[from:]) && len(part) > 0:
			t.Errorf("budget %d: the sowings are not the latest moves'", budget)
		case from > 0 && laps+len(all[from-1].Laps) <= budget:
			t.Errorf("budget %d: move %d (%d laps) left out though it fits", budget, from, len(all[from-1].Laps))
		}
	}
}

// newDeviceGame returns a table and a new game on it of 8 holes and 4
// seeds, played on one device.
func newDeviceGame(t *testing.T) (*Table, *Game) {
	t.Helper()
	tb := newTable(t)
	start, err := rules.NewPosition(8, 4)
	if err != nil {
		t.Fatal(err)
	}
	g, _, err := tb.Create(context.Background(), &game.Game{Start: start, Result: "*"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tb, g
}

// TestSownOnce: a move played through the table keeps the sowing it was
// played with; the game's undo drops it with the move.
func TestSownOnce(t *testing.T) {
	ctx := context.Background()
	tb, g := newDeviceGame(t)
	var c Change
	var err error
	for ply := range 4 {
		if c, err = tb.Move(ctx, g, Device, g.Board().LegalMoves()[0].String(), &ply); err != nil {
			t.Fatal(err)
		}
	}
	if last := g.LastSowing(); c.Sowing == nil || last != c.Sowing {
		t.Errorf("the last sowing was traced again: %p, not the move's %p", last, c.Sowing)
	}
	if got, _ := g.Sowings(1 << 30); !reflect.DeepEqual(got[3], *c.Sowing) {
		t.Errorf("the listed sowing of the last move differs from the move's")
	}
	g.undoTo(2)
	if got, _ := g.Sowings(1 << 30); len(got) != 2 || len(g.sowings) != 2 {
		t.Errorf("after undoing to 2 moves: %d sowings (%d kept)", len(got), len(g.sowings))
	}
}

// TestErrorKinds: every refusal says its kind to errors.Is, and its
// message to the player.
func TestErrorKinds(t *testing.T) {
	g := playedGame(t, 3)
	ply := 1
	err := g.checkPly(&ply)
	if !isKind(err, ErrStalePly) || err.Error() != "the game has changed since it was shown (3 moves, not 1)" {
		t.Errorf("stale ply: %v", err)
	}
	ply = -1
	if err := g.checkPly(&ply); !isKind(err, ErrBadRequest) {
		t.Errorf("negative ply: %v", err)
	}
}

// isKind reports whether err is of kind, and of no other.
func isKind(err, kind error) bool {
	for _, k := range []error{ErrBadRequest, ErrNoSeat, ErrNotYourSeat, ErrStalePly, ErrNotNow, ErrGameOver, ErrIllegalMove} {
		if errors.Is(err, k) != (k == kind) {
			return false
		}
	}
	return true
}

// TestSowingsKeptByStates: the sowings a State lists are shared with the
// game, not copied at each change, yet stay as they were taken through
// later moves, a takeback and other moves in their place, and a caller
// appending to them changes nothing of the game's.
func TestSowingsKeptByStates(t *testing.T) {
	ctx := context.Background()
	tb, g := newDeviceGame(t)
	play := func(pick func([]rules.Move) rules.Move) {
		ply := g.Board().Ply()
		if _, err := tb.Move(ctx, g, Device, pick(g.Board().LegalMoves()).String(), &ply); err != nil {
			t.Fatal(err)
		}
	}
	first := func(ms []rules.Move) rules.Move { return ms[0] }
	last := func(ms []rules.Move) rules.Move { return ms[len(ms)-1] }
	for range 4 {
		play(first)
	}
	g.Sowings(1 << 30)
	play(first) // the list has room to grow in place now
	taken, _ := g.Sowings(1 << 30)
	want := slices.Clone(taken)
	_ = append(taken, rules.Sowing{Captured: 99})
	play(first)
	if now, _ := g.Sowings(1 << 30); len(now) != 6 || !reflect.DeepEqual(now[:5], want) || now[5].Captured == 99 {
		t.Fatalf("after another move: %d sowings, the first five changed: %v", len(now), !reflect.DeepEqual(now[:5], want))
	}
	for range 3 {
		ply := g.Board().Ply()
		if _, err := tb.Takeback(ctx, g, &ply); err != nil {
			t.Fatal(err)
		}
	}
	play(last)
	play(last)
	if !reflect.DeepEqual(taken, want) {
		t.Errorf("the sowings taken after 5 moves changed with a takeback and other moves")
	}
	now, _ := g.Sowings(1 << 30)
	b := g.Board()
	for i, sw := range now {
		if _, w, err := b.PositionAt(i).Trace(b.Moves()[i], b.Rules()); err != nil || !reflect.DeepEqual(sw, w) {
			t.Fatalf("after the takeback, move %d: sowing %+v, Trace gives %+v", i+1, sw, w)
		}
	}
}
