package play

import (
	"errors"
	"fmt"
)

// The kinds of error of a request to change a game. Every error of this
// package about the request wraps one of them, with a message for the
// player; errors.Is tells the kind. Other errors are the store's.
var (
	// ErrBadRequest: the request is malformed or incomplete.
	ErrBadRequest = errors.New("bad request")
	// ErrNoSeat: the request holds no seat of the online game.
	ErrNoSeat = errors.New("no seat")
	// ErrNotYourSeat: the request holds a seat, but not one that may do
	// this (another game's, or the other side's hole).
	ErrNotYourSeat = errors.New("not your seat")
	// ErrStalePly: the game has changed since the player saw it.
	ErrStalePly = errors.New("stale view")
	// ErrNotNow: the game's state does not allow the request now (not
	// your turn, no offer to answer, waiting for the opponent...).
	ErrNotNow = errors.New("not now")
	// ErrGameOver: the game has ended.
	ErrGameOver = errors.New("game over")
	// ErrIllegalMove: the rules do not allow the move.
	ErrIllegalMove = errors.New("illegal move")
)

// Error is a refused request: its kind, and what to tell the player.
type Error struct {
	Kind error
	Msg  string
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

// AskOpponent refuses a change that only the opponent in an online game
// may grant: the player asks for it by an action (Action) instead. Its
// kind is ErrNotNow.
type AskOpponent struct {
	Game   string // the game's ID
	Action string // the action that asks for the change
}

func (e *AskOpponent) Error() string {
	return fmt.Sprintf("in an online game, ask your opponent (the %s action)", e.Action)
}

// Unwrap returns the error's kind.
func (e *AskOpponent) Unwrap() error { return ErrNotNow }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// Clip shortens a client's text quoted in an error message.
func Clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
