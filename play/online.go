package play

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// The actions of online play (seat.go gives the seats, clock.go keeps the
// time): resigning, aborting, offers of a draw and a takeback, a rematch;
// and expiry.

// IdleExpiry is how long an online game without a running clock may stay
// untouched before it expires.
const IdleExpiry = 30 * 24 * time.Hour

// saveOnline stores a new online state o of game g, without a change of
// moves, as event at at (zero: now).
func (t *Table) saveOnline(ctx context.Context, g *Game, o *game.Online, result, event string, at time.Time) (Change, error) {
	ply := g.board.Ply()
	return t.commit(ctx, g, edit{event: event, had: ply, from: ply, result: result, online: o, at: at})
}

// act carries out an action of seat side in online game g.
func (t *Table) act(ctx context.Context, g *Game, side rules.Side, action string, ply *int) (Change, error) {
	if ply == nil {
		return Change{}, errorf(ErrBadRequest, "give the number of moves you saw, as in {\"action\": \"resign\", \"ply\": 12}")
	}
	if err := t.checkPly(ctx, g, ply); err != nil {
		return Change{}, err
	}
	now := t.now()
	if up, err := t.TimeIsUp(ctx, g, now); err != nil {
		return Change{}, err
	} else if up && action != "rematch" {
		return Change{}, errorf(ErrGameOver, "%s's time has run out: the game is over", g.board.Position().ToMove())
	}
	o := *g.info.Online
	me, them := string(side.Letter()), string(side.Opponent().Letter())
	toMove := g.board.Position().ToMove()
	result := g.info.Result
	switch action {
	case "resign", "abort", "draw-offer", "draw-accept", "draw-decline", "takeback-request", "takeback-accept", "takeback-decline":
		if err := g.notOver(); err != nil {
			return Change{}, err
		}
	}
	switch action {
	case "resign":
		stopClock(&o, toMove, now)
		o.End, o.DrawOffer, o.TakebackOffer = EndResign, "", ""
		result = rules.WinFor(side.Opponent()).Token()
		if g.unstarted() {
			o.End, result, action = EndAborted, g.info.Result, "abort"
		}
	case "abort":
		if g.board.Ply() >= 2 {
			return Change{}, errorf(ErrNotNow, "a game can be aborted only before its second move; resign instead")
		}
		stopClock(&o, toMove, now)
		o.End, o.DrawOffer, o.TakebackOffer = EndAborted, "", ""
	case "draw-offer", "takeback-request":
		offer := &o.DrawOffer
		if action == "takeback-request" {
			offer = &o.TakebackOffer
			if takebackPoint(g.board, side) < 0 {
				return Change{}, errorf(ErrNotNow, "you have no move to take back")
			}
		}
		if *offer == me {
			return Change{}, errorf(ErrNotNow, "you have made that offer already")
		}
		if *offer == them {
			return Change{}, errorf(ErrNotNow, "your opponent has made that offer: accept or decline it")
		}
		*offer = me
	case "draw-accept", "draw-decline", "takeback-accept", "takeback-decline":
		offer := &o.DrawOffer
		if strings.HasPrefix(action, "takeback") {
			offer = &o.TakebackOffer
		}
		if *offer != them {
			return Change{}, errorf(ErrNotNow, "there is no offer of your opponent's to answer")
		}
		*offer = ""
		switch action {
		case "draw-accept":
			stopClock(&o, toMove, now)
			o.End, o.TakebackOffer = EndAgreed, ""
			result = rules.Draw.Token()
			if g.unstarted() {
				o.End, result, action = EndAborted, g.info.Result, "abort"
			}
		case "takeback-accept":
			return t.acceptTakeback(ctx, g, &o, side.Opponent(), now)
		}
	case "rematch":
		return t.rematch(ctx, g, &o, side)
	default:
		return Change{}, errorf(ErrBadRequest, "action %q: want resign, abort, draw-offer, draw-accept, draw-decline, takeback-request, takeback-accept, takeback-decline or rematch", Clip(action))
	}
	return t.saveOnline(ctx, g, &o, result, action, time.Time{})
}

// unstarted reports whether g is a rated game in which a side has not
// moved yet: ending it then (a resignation, a draw agreed, expiry)
// aborts it, so that no rating changes without a game.
func (g *Game) unstarted() bool {
	return g.info.Rated && (takebackPoint(g.board, rules.South) < 0 || takebackPoint(g.board, rules.North) < 0)
}

// takebackPoint is the ply before side's last move in b, or -1 if side has
// not moved.
func takebackPoint(b *rules.Game, side rules.Side) int {
	for i := b.Ply() - 1; i >= 0; i-- {
		if b.PositionAt(i).ToMove() == side {
			return i
		}
	}
	return -1
}

// acceptTakeback takes back the requester's last move, and the reply to
// it, so that it is the requester's move again.
func (t *Table) acceptTakeback(ctx context.Context, g *Game, o *game.Online, requester rules.Side, now time.Time) (Change, error) {
	to := takebackPoint(g.board, requester)
	if to < 0 {
		return Change{}, errorf(ErrNotNow, "there is no move to take back")
	}
	stopClock(o, g.board.Position().ToMove(), now)
	had := g.board.Ply()
	g.undoTo(to)
	o.DrawOffer, o.TakebackOffer = "", ""
	startClock(o, g.board.Ply(), now)
	return t.commit(ctx, g, edit{event: "takeback", had: had, from: to, result: g.board.Result().Token(), online: o})
}

// rematch starts the next game of a series, or offers or accepts a
// rematch of a single game: the same board, rules, seats and rows, the
// other player moving first.
func (t *Table) rematch(ctx context.Context, g *Game, o *game.Online, side rules.Side) (Change, error) {
	if !g.Over() {
		return Change{}, errorf(ErrNotNow, "the game is not over")
	}
	if o.Next != "" {
		return Change{}, errorf(ErrNotNow, "the next game has begun: %s", o.Next)
	}
	if o.Seats[rules.South] == "" || o.Seats[rules.North] == "" {
		return Change{}, errorf(ErrNotNow, "the other seat was never taken")
	}
	if g.info.SeriesID == "" && o.RematchOffer != string(side.Opponent().Letter()) {
		if o.RematchOffer == string(side.Letter()) {
			return Change{}, errorf(ErrNotNow, "you have offered a rematch already")
		}
		o.RematchOffer = string(side.Letter())
		return t.saveOnline(ctx, g, o, g.info.Result, "rematch-offer", time.Time{})
	}
	var next *game.Game
	var err error
	if g.info.SeriesID != "" {
		next, err = t.next(ctx, g.info.SeriesID, true)
	} else {
		next = &game.Game{South: g.info.South, North: g.info.North, Rules: g.info.Rules,
			Start: g.info.Start.WithToMove(g.info.Start.ToMove().Opponent()), Result: "*"}
		// The rematch of a game that ended rated is rated, while its two
		// seats are two accounts' (a deleted account holds none).
		if g.info.Rated {
			next.Rated, err = t.twoAccounts(ctx, o)
		}
	}
	if err != nil {
		return Change{}, err
	}
	c := o.Clock
	next.Online = &game.Online{Invite: newInvite(), Seats: o.Seats, Clock: c, Left: [2]time.Duration{c.Time, c.Time}}
	next.Created = t.now()
	next.Category = ratings.Category(next.Start.Holes(), c)
	o.RematchOffer = ""
	// The next game is stored with the state that names it, in one
	// transaction: of two requests racing for it (on two instances), one
	// starts it and the other is refused, leaving no game behind.
	ply := g.board.Ply()
	ch, err := t.commit(ctx, g, edit{event: "rematch", had: ply, from: ply, result: g.info.Result, online: o, next: next})
	if errors.Is(err, game.ErrConflict) {
		if now, lerr := t.Load(ctx, g.info.ID); lerr == nil && now.info.Online != nil && now.info.Online.Next != "" {
			return Change{}, errorf(ErrNotNow, "the next game has begun: %s", now.info.Online.Next)
		}
	}
	return ch, err
}

// twoAccounts reports whether the seats of online state o are held by two
// different accounts.
func (t *Table) twoAccounts(ctx context.Context, o *game.Online) (bool, error) {
	owners, err := t.store.SeatOwners(ctx, []string{o.Seats[rules.South], o.Seats[rules.North]})
	if err != nil {
		return false, err
	}
	s, n := owners[o.Seats[rules.South]], owners[o.Seats[rules.North]]
	return s != "" && n != "" && s != n, nil
}

// Expire ends online game g if nobody touched it for IdleExpiry before
// now: the side to move loses, or the game is aborted when its second
// seat was never taken.
func (t *Table) Expire(ctx context.Context, g *Game, now time.Time) error {
	o := *g.info.Online
	if g.Over() || !o.TurnStart.IsZero() || now.Sub(g.info.Updated) < IdleExpiry {
		return nil
	}
	result := g.info.Result
	o.DrawOffer, o.TakebackOffer = "", ""
	if o.Seats[rules.South] == "" || o.Seats[rules.North] == "" || g.unstarted() {
		o.End = EndAborted
	} else {
		o.End = EndExpired
		result = rules.WinFor(g.board.Position().ToMove().Opponent()).Token()
	}
	_, err := t.saveOnline(ctx, g, &o, result, EndExpired, time.Time{})
	return err
}
