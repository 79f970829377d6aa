package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/store"
)

// apiError is an answer of the server's own with a status and a message
// for the user: a request it cannot read, a limit reached.
type apiError struct {
	status     int
	msg        string
	retryAfter int // seconds, for 429 and 503
}

func (e *apiError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

// playStatus is the status of each kind of error of package play.
var playStatus = map[error]int{
	play.ErrBadRequest:  http.StatusBadRequest,
	play.ErrNoSeat:      http.StatusUnauthorized,
	play.ErrNotYourSeat: http.StatusForbidden,
	play.ErrStalePly:    http.StatusConflict,
	play.ErrNotNow:      http.StatusConflict,
	play.ErrGameOver:    http.StatusConflict,
	play.ErrIllegalMove: http.StatusUnprocessableEntity,
}

// problem is how a failed request is answered, over HTTP and the live
// connection alike: a status, a message for the user, and the seconds to
// wait before trying again (0 for none).
type problem struct {
	status     int
	msg        string
	retryAfter int
}

// problemOf maps err to its answer, in one place for every route: its own
// for an apiError, its kind's status for an error of package play (a
// change to ask of the opponent names the route that asks it), 404 and
// 409 for the store's, 503 when storage is busy, failed to save (the
// change was not made, so the client may try again) or cannot be reached,
// for reads as for writes, and 500 for anything else. What the server's
// operator should know is logged, with where (key-value pairs).
func (s *Server) problemOf(err error, where ...any) problem {
	var ae *apiError
	var pe *play.Error
	var ask *play.AskOpponent
	switch {
	case errors.As(err, &ae):
		return problem{ae.status, ae.msg, ae.retryAfter}
	case isAccountError(err):
		p, _ := accountProblem(err)
		return p
	case errors.As(err, &ask):
		return problem{http.StatusConflict, fmt.Sprintf("in an online game, ask your opponent: POST /api/games/%s/actions with {\"action\": %q}", ask.Game, ask.Action), 0}
	case errors.As(err, &pe):
		if status, ok := playStatus[pe.Kind]; ok {
			return problem{status, pe.Msg, 0}
		}
	case errors.Is(err, store.ErrNotFound):
		return problem{http.StatusNotFound, err.Error(), 0}
	case errors.Is(err, store.ErrConflict):
		return problem{http.StatusConflict, err.Error(), 0}
	case errors.Is(err, store.ErrBusy):
		s.log.Warn("storage busy", append(where, "err", err)...)
		return problem{http.StatusServiceUnavailable, "the database is busy; try again in a moment", 1}
	case errors.Is(err, store.ErrUnsaved):
		s.log.Error("storage failed", append(where, "err", err)...)
		return problem{http.StatusServiceUnavailable, "the change could not be saved; nothing was changed, try again in a moment", 5}
	case errors.Is(err, context.DeadlineExceeded):
		s.log.Warn("out of time", append(where, "err", err)...)
		return problem{http.StatusServiceUnavailable, "the server could not answer in time (its database may be out of reach); try again in a moment", 5}
	case errors.Is(err, context.Canceled):
		return problem{http.StatusServiceUnavailable, "the request was cancelled", 1}
	case store.Unavailable(err):
		s.log.Error("storage unreachable", append(where, "err", err)...)
		return problem{http.StatusServiceUnavailable, "the database cannot be reached; try again in a moment", 5}
	}
	s.log.Error("request failed", append(where, "err", err)...)
	return problem{http.StatusInternalServerError, "internal error; the server's log has the details", 0}
}

// fail answers an HTTP request with err's problem.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	p := s.problemOf(err, "method", r.Method, "path", logPath(r))
	if p.retryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(p.retryAfter))
	}
	writeError(w, p.status, "%s", p.msg)
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}
