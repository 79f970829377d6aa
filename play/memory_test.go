package play

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/play/memory"
	"github.com/endodoi/endodoi/rules"
)

// countingStore counts the games read, and fails the next write when
// told to.
type countingStore struct {
	*memory.Store
	reads atomic.Int64
	fail  atomic.Bool
}

func (c *countingStore) Game(ctx context.Context, id string) (*game.Game, error) {
	c.reads.Add(1)
	return c.Store.Game(ctx, id)
}

func (c *countingStore) Update(ctx context.Context, id string, ch game.Change) error {
	if c.fail.Swap(false) {
		return errors.New("the disk is full")
	}
	return c.Store.Update(ctx, id, ch)
}

// keptTable is a table over a counting store, on a fake clock, with a game
// of 6 holes on one device.
func keptTable(t *testing.T) (*Table, *countingStore, *clock.Fake, string) {
	t.Helper()
	fake := clock.NewFake(epoch)
	st := &countingStore{Store: memory.New()}
	st.Clock = fake
	tb := NewTable(st, nil)
	tb.Clock = fake
	start, _ := rules.NewPosition(6, 4)
	g, _, err := tb.Create(context.Background(), &game.Game{Start: start, Result: "*"}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tb, st, fake, g.ID()
}

// move plays the first legal move of game id through With.
func move(t *testing.T, tb *Table, id string) error {
	t.Helper()
	return tb.With(context.Background(), id, func(g *Game) error {
		ply := g.Board().Ply()
		_, err := tb.Move(context.Background(), g, Device, g.Board().LegalMoves()[0].String(), &ply)
		return err
	})
}

// TestGamesKeptInMemory: a game is read once, then its changes read
// nothing; a change that failed to be stored, or one made elsewhere
// (Forget), makes the next change read it again, as stored.
func TestGamesKeptInMemory(t *testing.T) {
	tb, st, _, id := keptTable(t)
	for i := range 5 {
		if err := move(t, tb, id); err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
	}
	if n := st.reads.Load(); n != 1 {
		t.Errorf("5 moves read the game %d times, want once", n)
	}
	st.fail.Store(true)
	if err := move(t, tb, id); err == nil {
		t.Fatal("a move the store failed to keep was answered as played")
	}
	if tb.Kept() != 0 {
		t.Errorf("a game whose change failed is still kept")
	}
	if err := tb.With(context.Background(), id, func(g *Game) error {
		if g.Board().Ply() != 5 {
			t.Errorf("after the failed move: %d moves, want the 5 stored", g.Board().Ply())
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n := st.reads.Load(); n != 2 {
		t.Errorf("read %d times, want twice", n)
	}
	// A refusal leaves the game as it was, and kept.
	if err := tb.With(context.Background(), id, func(g *Game) error {
		ply := 1
		_, err := tb.Move(context.Background(), g, Device, "a", &ply)
		return err
	}); !isKind(err, ErrStalePly) {
		t.Fatalf("a stale move: %v", err)
	}
	// Another instance moves, and its notice has not arrived: a player who
	// saw that move is ahead of the game kept here, which is read again.
	other := NewTable(st, nil)
	if err := move(t, other, id); err != nil {
		t.Fatal(err)
	}
	if err := tb.With(context.Background(), id, func(g *Game) error {
		ply := 6
		_, err := tb.Move(context.Background(), g, Device, "a", &ply)
		if isKind(err, ErrIllegalMove) {
			_, err = tb.Move(context.Background(), g, Device, g.Board().LegalMoves()[0].String(), &ply)
		}
		return err
	}); err != nil {
		t.Fatalf("a move on a view ahead of the game kept: %v", err)
	}
	// Another instance moves: told, this one reads the game again.
	other = NewTable(st, nil)
	if err := move(t, other, id); err != nil {
		t.Fatal(err)
	}
	tb.Forget(id)
	reads := st.reads.Load()
	if err := move(t, tb, id); err != nil {
		t.Fatalf("a move after another instance's: %v", err)
	}
	if st.reads.Load() != reads+1 {
		t.Errorf("a game changed elsewhere was not read again")
	}
}

// TestKeptGamesLeave: games idle for KeepIdle leave memory, finished ones
// a minute after their last use, and no more than KeepMost stay.
func TestKeptGamesLeave(t *testing.T) {
	tb, _, fake, id := keptTable(t)
	if err := move(t, tb, id); err != nil {
		t.Fatal(err)
	}
	fake.Advance(DefaultKeepIdle - time.Second)
	tb.Sweep()
	if tb.Kept() != 1 {
		t.Fatalf("a game used %v ago left", DefaultKeepIdle-time.Second)
	}
	fake.Advance(time.Second)
	tb.Sweep()
	if tb.Kept() != 0 {
		t.Errorf("a game idle for KeepIdle stayed")
	}
	// A finished game: resigned.
	if err := tb.With(context.Background(), id, func(g *Game) error {
		ply := g.Board().Ply()
		_, err := tb.Act(context.Background(), g, Device, "resign", &ply)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fake.Advance(time.Minute)
	tb.Sweep()
	if tb.Kept() != 0 {
		t.Errorf("a finished game stayed a minute after its end")
	}
	// No more than KeepMost.
	tb.KeepMost = 10
	start, _ := rules.NewPosition(6, 4)
	for range 25 {
		g, _, err := tb.Create(context.Background(), &game.Game{Start: start, Result: "*"}, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		fake.Advance(time.Second)
		if err := move(t, tb, g.ID()); err != nil {
			t.Fatal(err)
		}
		if tb.Kept() > 10 {
			t.Fatalf("%d games kept, over KeepMost 10", tb.Kept())
		}
	}
	if tb.Kept() < 5 {
		t.Errorf("only %d games kept of the last ones", tb.Kept())
	}
}

// TestHeardMoves: another instance's move, told by its notice, is played
// on the game kept here as that instance played it, with no read: the
// copy equals the game as stored. A notice that does not follow the copy
// (one missed) forgets it, and the next use reads it once.
func TestHeardMoves(t *testing.T) {
	ctx := context.Background()
	fake := clock.NewFake(epoch)
	st := &countingStore{Store: memory.New()}
	st.Clock = fake
	var told []Notice
	a := NewTable(st, func(n Notice) string { told = append(told, n); return "" })
	b := NewTable(st, nil)
	a.Clock, b.Clock = fake, fake
	start, _ := rules.NewPosition(6, 4)
	clk, _ := Clock(3, 2, 0)
	g, south, err := a.CreateOnline(ctx, &game.Game{Start: start, Result: "*"}, rules.South, clk, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, north, err := a.Join(ctx, g, "")
	if err != nil {
		t.Fatal(err)
	}
	tokens := [2]string{south, north}
	// Both keep the game as it is now.
	for _, tb := range []*Table{a, b} {
		if err := tb.With(ctx, g.ID(), func(*Game) error { return nil }); err != nil {
			t.Fatal(err)
		}
	}
	reads := st.reads.Load()
	for i := range 6 {
		fake.Advance(time.Duration(700+300*i) * time.Millisecond)
		told = nil
		err := a.With(ctx, g.ID(), func(g *Game) error {
			seat, err := a.SeatOf(ctx, g, tokens[g.Board().Position().ToMove()])
			if err != nil {
				return err
			}
			ply := g.Board().Ply()
			_, err = a.Move(ctx, g, seat, g.Board().LegalMoves()[0].String(), &ply)
			return err
		})
		if err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
		if len(told) != 1 || told[0].Move == "" {
			t.Fatalf("move %d told %+v", i+1, told)
		}
		if !b.Heard(told[0]) {
			t.Fatalf("move %d: the copy kept did not take it", i+1)
		}
	}
	if n := st.reads.Load(); n != reads {
		t.Errorf("hearing 6 moves read the game %d times", n-reads)
	}
	stored, err := b.Load(ctx, g.ID())
	if err != nil {
		t.Fatal(err)
	}
	if err := b.With(ctx, g.ID(), func(kept *Game) error {
		if !reflect.DeepEqual(kept.info, stored.info) || !reflect.DeepEqual(kept.Board().Moves(), stored.Board().Moves()) {
			t.Errorf("the copy heard:\n%+v %+v\nthe game stored:\n%+v %+v", kept.info, *kept.info.Online, stored.info, *stored.info.Online)
		}
		if kept.LastSowing() == nil {
			t.Errorf("the copy heard has no sowing of its last move")
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	// A notice missed: the next one does not follow the copy.
	skipped := told[0]
	skipped.Rev, skipped.Ply = skipped.Rev+2, skipped.Ply+2
	if b.Heard(skipped) || b.Kept() != 0 {
		t.Errorf("a notice past one missed was taken")
	}
}
