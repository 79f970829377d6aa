// Package api is the JSON of the HTTP API (docs/api.md) as the server and
// the page's WebAssembly both speak it: the requests, read and checked, and
// the answers, made from play's values; the limits of both; and the status
// of each refusal. It speaks no HTTP itself: the server (package server)
// and the page's engine (cmd/wasm) each route requests to play and answer
// with what this package makes, so that a game played on one device
// answers alike whichever of them plays it.
package api

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
)

// Limits of the API, the same wherever a game is played.
const (
	// MaxBody is the most bytes of a request's body.
	MaxBody = 1 << 20
	// MaxListed is the most games in one listing.
	MaxListed = 200
	// MaxLaps is the largest lap cap a game made through the API may use:
	// every endless candidate move costs the whole cap, on every request.
	MaxLaps = 10_000
	// MaxViewLaps bounds the laps a game view lists in its sowings, since
	// every answer about a game carries its view: nothing but the
	// repetition rule bounds a game's length, nor anything but its lap
	// cap (at most MaxLaps) a move's laps. Whole games hold a few hundred
	// laps, random games on 16 holes of 12 seeds under two thousand; the
	// latest move always fits.
	MaxViewLaps = 2 * MaxLaps
)

// The engine's settings for the searches of a request, the same wherever
// a game is played, so that a level plays alike on the server and in the
// page.
const (
	// SearchHashMiB is the table size of the engines that answer
	// requests: a search lasts at most a few seconds.
	SearchHashMiB = 16
	// PerfectLevel is the lowest computer level that uses the proven
	// values (the opening book, and the endgame databases where the
	// server has them); weaker levels keep their human-like mistakes.
	PerfectLevel = 9
)

// HintLimits bound the search of a hint.
var HintLimits = engine.Limits{MoveTime: 500 * time.Millisecond}

// HTTP statuses of the answers, named here so that the page's engine,
// which has no net/http, answers with the server's.
const (
	StatusOK                  = 200
	StatusCreated             = 201
	StatusBadRequest          = 400
	StatusUnauthorized        = 401
	StatusForbidden           = 403
	StatusNotFound            = 404
	StatusConflict            = 409
	StatusRequestTooLarge     = 413
	StatusUnprocessableEntity = 422
	StatusTooManyRequests     = 429
	StatusInternalServerError = 500
	StatusServiceUnavailable  = 503
)

// Error is a refusal with its status and a message for the user: a request
// that cannot be read, a limit reached.
type Error struct {
	Status int
	Msg    string
	// RetryAfter is the seconds to wait before trying again, for 429 and
	// 503; 0 for none.
	RetryAfter int
}

func (e *Error) Error() string { return e.Msg }

// Errorf returns an Error of status with a message made as fmt.Sprintf
// makes it.
func Errorf(status int, format string, args ...any) error {
	return &Error{Status: status, Msg: fmt.Sprintf(format, args...)}
}

// playStatus is the status of each kind of error of package play.
var playStatus = map[error]int{
	play.ErrBadRequest:  StatusBadRequest,
	play.ErrNoSeat:      StatusUnauthorized,
	play.ErrNotYourSeat: StatusForbidden,
	play.ErrStalePly:    StatusConflict,
	play.ErrNotNow:      StatusConflict,
	play.ErrGameOver:    StatusConflict,
	play.ErrIllegalMove: StatusUnprocessableEntity,
}

// Problem is how the API answers err, when err is one of the refusals it
// knows: an Error, an error of package play (a change to ask of the
// opponent names the route that asks it), a game not found (404) or
// changed meanwhile (409). ok is false for any other error, which the
// caller answers as its own (storage failures, cancellations).
func Problem(err error) (e Error, ok bool) {
	var ae *Error
	var pe *play.Error
	var ask *play.AskOpponent
	switch {
	case errors.As(err, &ae):
		return *ae, true
	case errors.As(err, &ask):
		return Error{Status: StatusConflict, Msg: fmt.Sprintf("in an online game, ask your opponent: POST /api/games/%s/actions with {\"action\": %q}", ask.Game, ask.Action)}, true
	case errors.As(err, &pe):
		if status, ok := playStatus[pe.Kind]; ok {
			return Error{Status: status, Msg: pe.Msg}, true
		}
	case errors.Is(err, game.ErrNotFound):
		return Error{Status: StatusNotFound, Msg: err.Error()}, true
	case errors.Is(err, game.ErrConflict):
		return Error{Status: StatusConflict, Msg: err.Error()}, true
	}
	return Error{}, false
}

// ErrorBody is the body of every refusal.
type ErrorBody struct {
	Error string `json:"error"`
}

// Decode reads one JSON object into v, which must be a pointer to a
// struct: the object's member names must be the struct's, spelled
// exactly (JSON is case-sensitive), each at most once; a null member
// counts as absent. An empty body reads as {} when emptyOK, for the
// requests whose every field is optional.
func Decode(data []byte, v any, emptyOK bool) error {
	if len(data) > MaxBody {
		return Errorf(StatusRequestTooLarge, "request body over %d bytes", MaxBody)
	}
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0 && emptyOK:
		return nil
	case len(trimmed) == 0:
		return Errorf(StatusBadRequest, "the request needs a JSON object body")
	case trimmed[0] != '{':
		return Errorf(StatusBadRequest, "malformed JSON: the body must be an object {...}")
	}
	if err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return Errorf(StatusBadRequest, "malformed JSON: %s", jsonProblem(err))
	}
	return nil
}

// jsonProblem says what is wrong with a request body in a user's terms.
func jsonProblem(err error) string {
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		field := strings.TrimPrefix(string(se.JSONPointer), "/")
		switch {
		case errors.Is(se.Err, jsonv2.ErrUnknownName):
			return fmt.Sprintf("unknown field %q (field names are case-sensitive)", play.Clip(field))
		case field != "" && se.JSONKind != 0:
			return fmt.Sprintf("field %q: a JSON %s is not valid here", play.Clip(field), se.JSONKind)
		}
	}
	msg := err.Error()
	for _, p := range []string{"json: ", "jsontext: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return play.Clip(msg)
}
