package play

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// The one path of a move, a person's or the computer's (play), the checks
// every request to change a game passes, and the changes of a game played
// on one device: its takeback and resignation.

// Move plays the move text by seat in game g, as the player saw it after
// ply moves (nil: not said, for a game on one device only). The move is
// sown once; the change returned has its sowing.
func (t *Table) Move(ctx context.Context, g *Game, seat Seat, text string, ply *int) (Change, error) {
	m, err := rules.ParseMove(strings.TrimSpace(text))
	if err != nil {
		return Change{}, errorf(ErrBadRequest, "%v", err)
	}
	if g.info.Online != nil && ply == nil {
		return Change{}, errorf(ErrBadRequest, "give the number of moves you saw, as in {\"move\": \"c\", \"ply\": 12}")
	}
	if err := t.checkPly(ctx, g, ply); err != nil {
		return Change{}, err
	}
	return t.play(ctx, g, seat, m, t.now())
}

// checkPly refuses a request made on a stale view of the game: ply, if
// given, is the number of moves the player saw.
func (g *Game) checkPly(ply *int) error {
	switch {
	case ply == nil:
		return nil
	case *ply < 0:
		return errorf(ErrBadRequest, "ply %d: want the number of moves played, 0 or more", *ply)
	case *ply != g.board.Ply():
		return errorf(ErrStalePly, "the game has changed since it was shown (%d moves, not %d)", g.board.Ply(), *ply)
	}
	return nil
}

// notOver refuses a request that needs the game to go on.
func (g *Game) notOver() error {
	if g.board.Over() {
		return errorf(ErrGameOver, "the game is over (%s)", g.board.Status())
	}
	if end := g.End(); end != "" {
		return errorf(ErrGameOver, "the game is over (%s)", endText(end))
	}
	return nil
}

// play plays move m of seat in game g at now, the one path of every move:
// the checks, the clocks of an online game, the sowing and the change
// stored. A move of an online game whose mover's time has run out is
// refused, and the game's end on time stored instead: one change either
// way.
func (t *Table) play(ctx context.Context, g *Game, seat Seat, m rules.Move, now time.Time) (Change, error) {
	e, refused, err := g.moveEdit(seat, m, now)
	if err != nil {
		return Change{}, err
	}
	c, err := t.commit(ctx, g, e)
	if err == nil && refused != nil {
		err = refused
	}
	if err != nil {
		return Change{}, err
	}
	return c, nil
}

// moveEdit checks move m of seat in game g at now and plays it on the
// board: it returns the change to store, or the error that refuses the
// move. A move refused because the mover's time has run out comes with the
// change that ends the game on time (refused), to be stored all the same.
func (g *Game) moveEdit(seat Seat, m rules.Move, now time.Time) (e edit, refused, err error) {
	o := g.info.Online
	toMove := g.board.Position().ToMove()
	if c := g.info.Computer; o == nil && c != nil && toMove == c.Side && !seat.computer && !g.board.Over() {
		return edit{}, nil, errorf(ErrNotNow, "it is the computer's move")
	}
	if err := g.notOver(); err != nil {
		return edit{}, nil, err
	}
	var clocks *game.Online
	if o == nil {
		if m.Side() != toMove {
			return edit{}, nil, errorf(ErrNotNow, "it is %s's move, not %s's", toMove, m.Side())
		}
	} else {
		if e, up := g.timeout(now); up {
			return e, errorf(ErrGameOver, "%s's time has run out: the game is over", toMove), nil
		}
		if o.Seats[rules.South] == "" || o.Seats[rules.North] == "" {
			return edit{}, nil, errorf(ErrNotNow, "waiting for your opponent to join: send them the invitation")
		}
		if m.Side() != seat.Side {
			return edit{}, nil, errorf(ErrNotYourSeat, "hole %s is %s's: you play %s", m, m.Side(), seat.Side)
		}
		if toMove != seat.Side {
			return edit{}, nil, errorf(ErrNotNow, "it is %s's move", toMove)
		}
		n := passClock(*o, toMove, g.board.Ply()+1, now)
		clocks = &n
	}
	had := g.board.Ply()
	sw, err := g.board.PlayTraced(m)
	if err != nil {
		return edit{}, nil, errorf(ErrIllegalMove, "illegal move %s: %v", m, cause(err))
	}
	g.sowings = append(g.sowings, sw)
	if clocks != nil && g.board.Over() {
		clocks.TurnStart = time.Time{} // the game is over: no clock runs
	}
	return edit{event: "move", had: had, from: had, moves: []rules.Move{m}, result: g.board.Result().Token(),
		online: clocks, clocksOnly: clocks != nil, at: now, sowing: &g.sowings[len(g.sowings)-1]}, nil, nil
}

// ComputerMove plays the computer's move in game g, against it on one
// device, as the player saw it after ply moves (nil: not said); choose
// picks the move of the computer's level.
func (t *Table) ComputerMove(ctx context.Context, g *Game, ply *int, choose func(ctx context.Context, b *rules.Game, level int) (rules.Move, error)) (Change, error) {
	if err := t.checkPly(ctx, g, ply); err != nil {
		return Change{}, err
	}
	c := g.info.Computer
	if c == nil {
		return Change{}, errorf(ErrNotNow, "this game is between two people")
	}
	if g.info.Online != nil {
		return Change{}, errorf(ErrNotNow, "an online game has no computer")
	}
	if err := g.notOver(); err != nil {
		return Change{}, err
	}
	if g.board.Position().ToMove() != c.Side {
		return Change{}, errorf(ErrNotNow, "it is not the computer's move")
	}
	m, err := choose(ctx, g.board, c.Level)
	if err != nil {
		return Change{}, err
	}
	return t.play(ctx, g, computer, m, t.now())
}

// Takeback takes back the last move of game g, played on one device, and
// against the computer the computer's reply too, so that it is the
// person's move again; ply is the number of moves the person saw.
func (t *Table) Takeback(ctx context.Context, g *Game, ply *int) (Change, error) {
	if g.info.Online != nil {
		return Change{}, &AskOpponent{Game: g.info.ID, Action: "takeback-request"}
	}
	if ply == nil {
		return Change{}, errorf(ErrBadRequest, "give the number of moves played, as in {\"ply\": 12}, so that a takeback is not repeated by mistake")
	}
	if err := t.checkPly(ctx, g, ply); err != nil {
		return Change{}, err
	}
	had := g.board.Ply()
	if had == 0 {
		return Change{}, errorf(ErrNotNow, "no move to take back")
	}
	if g.info.SeriesID != "" && g.board.Over() {
		return Change{}, errorf(ErrNotNow, "the game is over and counted in its series")
	}
	if g.resigned() {
		return Change{}, errorf(ErrNotNow, "the game was resigned: its result stands")
	}
	to := had - 1
	if c := g.info.Computer; c != nil {
		for to > 0 && g.board.PositionAt(to).ToMove() == c.Side {
			to--
		}
	}
	g.undoTo(to)
	return t.commit(ctx, g, edit{event: "takeback", had: had, from: to, result: g.board.Result().Token()})
}

// undoTo takes back the moves of g after the first ply.
func (g *Game) undoTo(ply int) {
	for g.board.Ply() > ply {
		g.board.Undo()
	}
	// A new slice: the States taken before share the old one.
	g.sowings = slices.Clone(g.sowings[:ply])
}

// Act carries out an action of seat in game g, as the player saw it after
// ply moves: resign, for a game played on one device; for an online game,
// resign, abort, draw-offer, draw-accept, draw-decline, takeback-request,
// takeback-accept, takeback-decline or rematch.
func (t *Table) Act(ctx context.Context, g *Game, seat Seat, action string, ply *int) (Change, error) {
	if g.info.Online != nil {
		return t.act(ctx, g, seat.Side, action, ply)
	}
	if action != "resign" {
		return Change{}, errorf(ErrBadRequest, "action %q: a game played on one device takes only resign", Clip(action))
	}
	if ply == nil {
		return Change{}, errorf(ErrBadRequest, "give the number of moves you saw, as in {\"action\": \"resign\", \"ply\": 12}")
	}
	if err := t.checkPly(ctx, g, ply); err != nil {
		return Change{}, err
	}
	if err := g.notOver(); err != nil {
		return Change{}, err
	}
	// Against the computer the person resigns; between two people on one
	// device, the side to move.
	loser := g.board.Position().ToMove()
	if c := g.info.Computer; c != nil {
		loser = c.Side.Opponent()
	}
	n := g.board.Ply()
	return t.commit(ctx, g, edit{event: "resign", had: n, from: n, result: rules.WinFor(loser.Opponent()).Token()})
}
