package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/store"
)

// errorf is api.Errorf: an answer of the server's own with a status and a
// message for the user.
func errorf(status int, format string, args ...any) error { return api.Errorf(status, format, args...) }

// lobbyStatus is the status of each kind of error of package lobby.
var lobbyStatus = map[error]int{
	lobby.ErrBadRequest: http.StatusBadRequest,
	lobby.ErrNotFound:   http.StatusNotFound,
	lobby.ErrForbidden:  http.StatusForbidden,
	lobby.ErrConflict:   http.StatusConflict,
	lobby.ErrTooMany:    http.StatusTooManyRequests,
}

// problem is how a failed request is answered, over HTTP and the live
// connection alike: a status, a message for the user, and the seconds to
// wait before trying again (0 for none).
type problem struct {
	status     int
	msg        string
	retryAfter int
}

// problemOf maps err to its answer, in one place for every route: the
// API's for the refusals it knows (api.Problem: an api.Error, an error of
// package play, a game not found or changed meanwhile), 503 when storage
// is busy, failed to save (the
// change was not made, so the client may try again) or cannot be reached,
// for reads as for writes, and 500 for anything else. What the server's
// operator should know is logged, with where (key-value pairs).
func (s *Server) problemOf(err error, where ...any) problem {
	if e, ok := api.Problem(err); ok {
		return problem{e.Status, e.Msg, e.RetryAfter}
	}
	var le *lobby.Error
	switch {
	case errors.As(err, &le):
		retry := 0
		if le.Wait > 0 {
			retry = int(le.Wait/time.Second) + 1
		}
		return problem{lobbyStatus[le.Kind], le.Msg, retry}
	case isAccountError(err):
		p, _ := accountProblem(err)
		return p
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
	WriteError(w, p.status, "%s", p.msg)
}

// WriteError answers with an error of the API: status, and its message
// in JSON, as the API's own are (docs/api.md).
func WriteError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}
