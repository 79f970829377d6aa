package play

import (
	"context"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Clocks of online games: a time control, each side's time left, and the
// clock of the side to move running from the third move on. A move passes
// the clock; a side whose time runs out loses.

// Clock returns the time control of minutes for the game plus increment
// seconds a move, or of days for each move.
func Clock(minutes, increment, days int) (game.Clock, error) {
	switch {
	case days != 0:
		if minutes != 0 || increment != 0 {
			return game.Clock{}, errorf(ErrBadRequest, "clock: give days, or minutes and increment, not both")
		}
		if days != 1 && days != 3 && days != 7 {
			return game.Clock{}, errorf(ErrBadRequest, "clock: %d days a move; want 1, 3 or 7", days)
		}
		return game.Clock{Time: time.Duration(days) * 24 * time.Hour, PerMove: true}, nil
	case minutes < 1 || minutes > 180:
		return game.Clock{}, errorf(ErrBadRequest, "clock: %d minutes; want 1 to 180", minutes)
	case increment < 0 || increment > 60:
		return game.Clock{}, errorf(ErrBadRequest, "clock: increment of %d seconds; want 0 to 60", increment)
	}
	return game.Clock{Time: time.Duration(minutes) * time.Minute, Increment: time.Duration(increment) * time.Second}, nil
}

// clockNow returns each side's time left at now, and whether the side to
// move has run out of it.
func clockNow(o *game.Online, toMove rules.Side, now time.Time) (left [2]time.Duration, flagged bool) {
	left = o.Left
	if o.TurnStart.IsZero() || o.Clock.Time == 0 {
		return left, false
	}
	left[toMove] -= now.Sub(o.TurnStart)
	if left[toMove] <= 0 {
		left[toMove] = 0
		return left, true
	}
	return left, false
}

// stopClock stops the running clock at now, keeping the time left.
func stopClock(o *game.Online, toMove rules.Side, now time.Time) {
	o.Left, _ = clockNow(o, toMove, now)
	o.TurnStart = time.Time{}
}

// startClock starts the clock of the side to move of a game at ply moves,
// from the third move on.
func startClock(o *game.Online, ply int, now time.Time) {
	if o.Clock.Time > 0 && ply >= 2 && o.End == "" {
		o.TurnStart = now
	} else {
		o.TurnStart = time.Time{}
	}
}

// passClock returns online state o after side's move at now, the game's
// ply-th: the mover is charged the time taken and given the increment (or,
// with days a move, the whole time again), the offers lapse, and the
// opponent's clock starts.
func passClock(o game.Online, side rules.Side, ply int, now time.Time) game.Online {
	if !o.TurnStart.IsZero() {
		left, _ := clockNow(&o, side, now)
		o.Left[side] = left[side] + o.Clock.Increment
		if o.Clock.PerMove {
			o.Left[side] = o.Clock.Time
		}
	}
	o.DrawOffer, o.TakebackOffer = "", ""
	startClock(&o, ply, now)
	return o
}

// timeout returns the change that ends online game g on time, if the side
// to move has run out of it at now: that side loses.
func (g *Game) timeout(now time.Time) (edit, bool) {
	o := g.info.Online
	if o == nil || o.End != "" || g.board.Over() {
		return edit{}, false
	}
	toMove := g.board.Position().ToMove()
	if _, flagged := clockNow(o, toMove, now); !flagged {
		return edit{}, false
	}
	n := *o
	stopClock(&n, toMove, now)
	n.End, n.DrawOffer, n.TakebackOffer = EndTimeout, "", ""
	ply := g.board.Ply()
	// The game ended when the flag fell, not when the server noticed.
	fell := o.TurnStart.Add(o.Left[toMove])
	return edit{event: EndTimeout, had: ply, from: ply, result: rules.WinFor(toMove.Opponent()).Token(), online: &n, at: fell}, true
}

// TimeIsUp ends online game g if the side to move has run out of time at
// now: that side loses. It reports whether it did.
func (t *Table) TimeIsUp(ctx context.Context, g *Game, now time.Time) (bool, error) {
	e, up := g.timeout(now)
	if !up {
		return false, nil
	}
	_, err := t.commit(ctx, g, e)
	return true, err
}

// Clocks returns each side's time left at now, and the side whose clock
// runs (ok false when none does).
func (g *Game) Clocks(now time.Time) (left [2]time.Duration, running rules.Side, ok bool) {
	o := g.info.Online
	if o == nil {
		return left, 0, false
	}
	toMove := g.board.Position().ToMove()
	left, _ = clockNow(o, toMove, now)
	return left, toMove, !o.TurnStart.IsZero() && o.End == "" && !g.board.Over()
}

// Deadline is when the running clock falls, or zero.
func (g *Game) Deadline() time.Time { return deadline(g.info.Online, g.board) }
