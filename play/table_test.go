package play

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// onlineGame returns a table over a new store and an online game on it of
// 8 holes, with a clock of minutes, both seats taken: the tokens of South
// and North.
func onlineGame(t *testing.T, minutes int) (*Table, *Game, [2]string) {
	t.Helper()
	ctx := context.Background()
	tb := newTable(t)
	start, err := rules.NewPosition(8, 4)
	if err != nil {
		t.Fatal(err)
	}
	clock, err := Clock(minutes, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	g, south, err := tb.CreateOnline(ctx, &game.Game{Start: start, Result: "*"}, rules.South, clock, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, north, err := tb.Join(ctx, g, "")
	if err != nil || north == "" {
		t.Fatalf("joining: %q, %v", north, err)
	}
	return tb, g, [2]string{south, north}
}

// TestOnlineTakebackAsksOpponent: a takeback asked of the table in an
// online game is refused with the action that asks the opponent for it.
func TestOnlineTakebackAsksOpponent(t *testing.T) {
	tb, g, _ := onlineGame(t, 5)
	ply := 0
	_, err := tb.Takeback(context.Background(), g, &ply)
	var ask *AskOpponent
	if !errors.As(err, &ask) || ask.Game != g.ID() || ask.Action != "takeback-request" || !isKind(err, ErrNotNow) {
		t.Fatalf("online takeback: %#v", err)
	}
}

// TestMoveOnFallenFlag: a move whose mover's time has run out stores one
// change, the end on time, and is refused.
func TestMoveOnFallenFlag(t *testing.T) {
	tb, g, tokens := onlineGame(t, 1)
	ctx := context.Background()
	for i := range 2 { // the clock starts with the third move
		side := g.Board().Position().ToMove()
		seat, err := tb.SeatOf(ctx, g, tokens[side])
		if err != nil {
			t.Fatal(err)
		}
		ply := i
		if _, err := tb.Move(ctx, g, seat, g.Board().LegalMoves()[0].String(), &ply); err != nil {
			t.Fatalf("move %d: %v", i+1, err)
		}
	}
	rev := g.Online().Rev
	side := g.Board().Position().ToMove()
	seat, err := tb.SeatOf(ctx, g, tokens[side])
	if err != nil {
		t.Fatal(err)
	}
	// A minute on the clock: at 59.999 s the move counts, at 60 s it is late.
	fakeClock(tb).Advance(time.Minute)
	ply := 2
	_, err = tb.Move(ctx, g, seat, g.Board().LegalMoves()[0].String(), &ply)
	if !isKind(err, ErrGameOver) {
		t.Fatalf("a move after the flag fell: %v", err)
	}
	stored, err := tb.Load(ctx, g.ID())
	if err != nil {
		t.Fatal(err)
	}
	o := stored.Online()
	if o.End != EndTimeout || o.Rev != rev+1 || stored.Board().Ply() != 2 || stored.Result() != rules.WinFor(side.Opponent()).Token() {
		t.Errorf("stored after the refused move: end %q, revision %d (was %d), %d moves, result %s", o.End, o.Rev, rev, stored.Board().Ply(), stored.Result())
	}
}

// TestWithOneAtATime: the changes of a game run one at a time under With,
// and its lock is forgotten once no one holds or awaits it, a failed load
// included.
func TestWithOneAtATime(t *testing.T) {
	tb, g, _ := onlineGame(t, 5)
	ctx := context.Background()
	var mu sync.Mutex
	inside, most := 0, 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			err := tb.With(ctx, g.ID(), func(*Game) error {
				mu.Lock()
				inside++
				most = max(most, inside)
				mu.Unlock()
				time.Sleep(time.Millisecond)
				mu.Lock()
				inside--
				mu.Unlock()
				return nil
			})
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if most != 1 {
		t.Errorf("%d changes of one game at once", most)
	}
	if err := tb.With(ctx, "00000000000000ff", func(*Game) error { return nil }); !errors.Is(err, game.ErrNotFound) {
		t.Errorf("an unknown game: %v", err)
	}
	if n := tb.Busy(); n != 0 {
		t.Errorf("%d locks left", n)
	}
}
