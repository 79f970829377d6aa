// Package play is the game being played: a game's state as one value
// (Game), and the one way each change is made to it (Table), for games on
// one device, against the computer and online alike. Moves, takebacks,
// resignations, seats, clocks, offers, rematches, series and expiry are
// here: every change is checked, sown once, committed to the store and
// told (Table.OnChange) before it is returned, with the state it left
// (State), so that what shows it reads nothing more. A refused request
// gets an error of one of the kinds in errors.go; the server maps each
// kind to its answer. The package speaks no HTTP.
package play

import (
	"context"
	"errors"
	"fmt"

	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// How an online game ended when not by the rules of play (game.Online.End).
const (
	EndResign  = "resign"
	EndTimeout = "timeout"
	EndAgreed  = "agreed"
	EndAborted = "aborted"
	EndExpired = "expired"
)

// Game is a game as stored, replayed: its players, rules, times and
// online state, and its moves and positions (Board). It changes only
// through a Table, which stores every change before it makes it here; a
// Game whose change failed is to be loaded again. A Game is not safe for
// concurrent use: its changes run under the game's lock.
type Game struct {
	info  game.Game // all but the moves, which board holds
	board *rules.Game
	// sowings[i] is how move i sowed, once traced (its Laps nil before:
	// every move sows a lap at least). The States share it rather than
	// copy it at each change, so an entry, once traced, is never written
	// again: a move appends beyond every State's part, and a takeback
	// makes a new slice (undoTo).
	sowings []rules.Sowing
}

// replay makes the Game of stored game sg: its moves are played on the
// board and the store's copy of them dropped.
func replay(sg *game.Game) (*Game, error) {
	b, err := rules.NewGame(sg.Start, sg.Rules)
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", sg.ID, err)
	}
	for i, m := range sg.Moves {
		if err := b.Play(m); err != nil {
			return nil, fmt.Errorf("game %s: stored move %d: %w", sg.ID, i+1, err)
		}
	}
	g := &Game{info: *sg, board: b, sowings: make([]rules.Sowing, len(sg.Moves))}
	g.info.Moves = nil
	return g, nil
}

// ID returns the game's ID.
func (g *Game) ID() string { return g.info.ID }

// Info returns the game's players, rules, times and online state, as
// stored; its Moves are nil (see Board). It is not to be changed.
func (g *Game) Info() *game.Game { return &g.info }

// Board returns the game's moves and positions under its rules. It is not
// to be changed.
func (g *Game) Board() *rules.Game { return g.board }

// Online returns the online state of the game, or nil for a game played
// on one device. It is not to be changed.
func (g *Game) Online() *game.Online { return g.info.Online }

// End is how the game ended other than by the rules of play (an End
// constant): resigned, on one device or online, or online on time, by
// agreement, aborted or expired; "" otherwise.
func (g *Game) End() string {
	if o := g.info.Online; o != nil {
		return o.End
	}
	if g.resigned() {
		return EndResign
	}
	return ""
}

// resigned reports whether a game played on one device was resigned. Its
// stored result is then decided while its moves leave it going: the
// moves alone decide the result of every other such game.
func (g *Game) resigned() bool {
	return g.info.Online == nil && !g.board.Over() && g.info.Result != "" && g.info.Result != "*"
}

// Over reports whether the game has ended, by the rules or otherwise.
func (g *Game) Over() bool { return g.board.Over() || g.End() != "" }

// Status is the game's status as the API shows it: "playing", how the
// rules ended it ("no-legal-move", "repetition"), or how it ended
// otherwise ("resigned", "timeout", "agreed", "aborted", "expired").
func (g *Game) Status() string {
	if end := g.End(); end != "" {
		return EndStatus(end)
	}
	return gameview.StatusName(g.board.Status())
}

// Result is the game's result token: the stored one for a game ended other
// than by the rules, else what its moves decide.
func (g *Game) Result() string {
	if g.End() != "" {
		return g.info.Result
	}
	return g.board.Result().Token()
}

// EndStatus is the status of a game that ended as end says (an End
// constant).
func EndStatus(end string) string {
	switch end {
	case EndResign:
		return "resigned"
	case EndTimeout, EndAgreed, EndAborted, EndExpired:
		return end
	}
	return ""
}

// endText says how a game ended (an End constant) in a sentence's words.
func endText(end string) string {
	switch end {
	case EndResign:
		return "resigned"
	case EndTimeout:
		return "lost on time"
	case EndAgreed:
		return "drawn by agreement"
	case EndAborted:
		return "aborted"
	case EndExpired:
		return "expired"
	}
	return end
}

// Sowings returns how the game's moves sowed, the latest first, while
// their laps stay within budget: the sowings in the order played, and the
// number of earlier moves left out. Each move is traced once in the life
// of the Game.
func (g *Game) Sowings(budget int) ([]rules.Sowing, int) {
	from, laps := g.board.Ply(), 0
	for from > 0 {
		sw := g.sowing(from - 1)
		if sw == nil || laps+len(sw.Laps) > budget {
			// A stored move always replays; a failure leaves the earlier
			// moves out rather than failing the whole view.
			break
		}
		laps += len(sw.Laps)
		from--
	}
	// Shared, not copied (Game.sowings), and capped at its length: a
	// caller's append copies it.
	ply := g.board.Ply()
	return g.sowings[from:ply:ply], from
}

// sowing returns how move i sowed, tracing it if it has not been.
func (g *Game) sowing(i int) *rules.Sowing {
	if g.sowings[i].Laps == nil {
		m := g.board.Moves()[i]
		_, sw, err := g.board.PositionAt(i).Trace(m, g.board.Rules())
		if err != nil || sw.Laps == nil {
			return nil
		}
		g.sowings[i] = sw
	}
	return &g.sowings[i]
}

// LastSowing returns how the last move sowed, or nil before the first.
func (g *Game) LastSowing() *rules.Sowing {
	if g.board.Ply() == 0 {
		return nil
	}
	return g.sowing(g.board.Ply() - 1)
}

// Record returns the game's record, with its names, date and, for a game
// that ended other than by the rules, how.
func (g *Game) Record() *record.Record {
	rec := record.New(g.board)
	rec.South, rec.North = g.info.South, g.info.North
	// The computer is named with its level, in the name it plays under.
	if c := g.info.Computer; c != nil {
		name := fmt.Sprintf("endodoi (level %d)", c.Level)
		if c.Side == rules.South && rec.South == "" {
			rec.South = name
		} else if c.Side == rules.North && rec.North == "" {
			rec.North = name
		}
	}
	if end := g.End(); end != "" {
		// The record's result follows from the moves alone.
		text := endText(end)
		if res, err := rules.ParseResult(g.info.Result); err == nil {
			if side, ok := res.Winner(); ok {
				text += fmt.Sprintf("; %s won", side)
			}
		}
		rec.Extra = append(rec.Extra, record.Tag{Name: "Termination", Value: text})
	}
	rec.Event = "endodoi"
	rec.Date = g.info.Created.Format("2006-01-02")
	return rec
}

// CanHint refuses a hint for a game that is over, or for an online game
// being played: it is between people.
func (g *Game) CanHint() error {
	if g.board.Over() || g.resigned() {
		return g.notOver()
	}
	if o := g.info.Online; o != nil && o.End == "" {
		return errorf(ErrNotNow, "no hints in an online game: it is played between people")
	}
	return nil
}

// load reads game id from st and replays it.
func load(ctx context.Context, st Store, id string) (*Game, error) {
	sg, err := st.Game(ctx, id)
	if err != nil {
		return nil, err
	}
	return replay(sg)
}

// cause is the rules' reason a move is illegal, without the move.
func cause(err error) error {
	if u := errors.Unwrap(err); u != nil {
		return u
	}
	return err
}
