// Package server is the JSON HTTP API of the browser game (docs/api.md):
// games stored in package store, played under package rules, with the
// computer's moves, hints and analysis from package engine.
//
// Every request that changes a game replays it, checks the move, and
// commits it to the store before answering. Bad input gets a 4xx answer
// whose JSON body says what is wrong, and leaves the game as it was.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Limits of the API.
const (
	MaxBody         = 1 << 20 // bytes of a request body
	MaxAnalysisTime = 10 * time.Second
	MaxListed       = 200 // games in one listing
	// MaxLaps is the largest lap cap a game made through the API may use:
	// every endless candidate move costs the whole cap, on every request.
	MaxLaps = 10_000
)

// Server answers the API's requests.
type Server struct {
	store store.Store
	log   *slog.Logger
	mux   *http.ServeMux
	guard http.Handler

	games   gameLocks // one lock per game: its requests run one at a time
	slots   *searchSlots
	engines *enginePool
	live    liveHub    // the live connections of the games watched now
	clocks  clockWatch // the timers of the running clocks
	reviews reviewer   // the reviews of finished games under way (review.go)

	ctx  context.Context // ends when the server stops (Start)
	done chan struct{}   // closed when Start's work has finished

	// With a store that several instances share, notifier tells the
	// others of this one's changes; instance names this one.
	notifier store.Notifier
	instance string

	trustProxy bool // see Options

	tb *egtb.Library // nil without endgame databases
}

// New returns a server over st with the default Options.
func New(st store.Store, log *slog.Logger) *Server { return NewWithOptions(st, log, Options{}) }

// NewWithOptions returns a server over st with the limits of o.
func NewWithOptions(st store.Store, log *slog.Logger, o Options) *Server {
	o = o.withDefaults()
	s := &Server{store: st, log: log, mux: http.NewServeMux(), games: gameLocks{m: map[string]*gameLock{}},
		slots: newSearchSlots(o), engines: &enginePool{free: map[engineKey][]*engine.Engine{}, max: o.Searches},
		live: liveHub{rooms: map[string]*room{}, pending: map[string]bool{}, remote: map[string]map[string]remotePresence{}}, clocks: clockWatch{timers: map[string]*time.Timer{}},
		ctx: context.Background(), trustProxy: o.TrustProxy}
	analysis, computer, records := newRateLimiter(o.AnalysisRate), newRateLimiter(o.ComputerRate), newRateLimiter(o.RecordRate)
	s.mux.HandleFunc("POST /api/games", s.createGame)
	s.mux.HandleFunc("GET /api/games", s.listGames)
	s.mux.HandleFunc("POST /api/games/import", s.limited(records, s.importGame))
	s.mux.HandleFunc("GET /api/games/{id}", s.game(false, s.getGame))
	s.mux.HandleFunc("POST /api/games/{id}/moves", s.game(true, s.playMove))
	s.mux.HandleFunc("POST /api/games/{id}/computer", s.limited(computer, s.game(true, s.computerMove)))
	s.mux.HandleFunc("POST /api/games/{id}/takeback", s.game(true, s.takeback))
	s.mux.HandleFunc("GET /api/games/{id}/hint", s.limited(analysis, s.game(false, s.hint)))
	s.mux.HandleFunc("GET /api/games/{id}/record", s.game(false, s.exportRecord))
	s.mux.HandleFunc("POST /api/games/{id}/actions", s.game(true, s.actions))
	s.mux.HandleFunc("GET /api/games/{id}/live", s.liveGame)
	s.mux.HandleFunc("GET /api/join/{code}", s.peekInvite)
	s.mux.HandleFunc("POST /api/join/{code}", s.join)
	s.mux.HandleFunc("GET /api/online", s.listOnline)
	s.mux.HandleFunc("GET /api/series/{id}", s.getSeries)
	s.mux.HandleFunc("POST /api/series/{id}/next", s.nextGame)
	s.mux.HandleFunc("POST /api/analyze", s.limited(analysis, s.analyze))
	s.mux.HandleFunc("POST /api/games/{id}/review", s.limited(analysis, s.game(false, s.startReview)))
	s.mux.HandleFunc("GET /api/games/{id}/review", s.game(false, s.getReview))
	s.mux.HandleFunc("POST /api/position", s.position)
	s.mux.HandleFunc("GET /api/tablebases", s.tablebaseStatus)
	s.mux.HandleFunc("POST /api/records/parse", s.limited(records, s.parseRecord))
	s.guard = s.guarded(s.mux)
	if n, ok := st.(store.Notifier); ok {
		s.notifier, s.instance = n, newID()
	}
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.guard.ServeHTTP(w, r) }

// apiError is an answer with a status and a message for the user.
type apiError struct {
	status     int
	msg        string
	retryAfter int // seconds, for 429 and 503
}

func (e *apiError) Error() string { return e.msg }

func errorf(status int, format string, args ...any) error {
	return &apiError{status: status, msg: fmt.Sprintf(format, args...)}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

func writeError(w http.ResponseWriter, status int, format string, args ...any) {
	writeJSON(w, status, map[string]string{"error": fmt.Sprintf(format, args...)})
}

// fail answers with err: its own status for an apiError, 404 and 409 for
// the store's, 503 with Retry-After when storage is busy, failed to save
// (the change was not made, so the client may try again) or cannot be
// reached, for reads as for writes, and 500, logged, for anything else.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		if ae.retryAfter > 0 {
			w.Header().Set("Retry-After", strconv.Itoa(ae.retryAfter))
		}
		writeError(w, ae.status, "%s", ae.msg)
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
	case errors.Is(err, store.ErrConflict):
		writeError(w, http.StatusConflict, "%v", err)
	case errors.Is(err, store.ErrBusy):
		s.log.Warn("storage busy", "method", r.Method, "path", logPath(r), "err", err)
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "the database is busy; try again in a moment")
	case errors.Is(err, store.ErrUnsaved):
		s.log.Error("storage failed", "method", r.Method, "path", logPath(r), "err", err)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "the change could not be saved; nothing was changed, try again in a moment")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		w.Header().Set("Retry-After", "1")
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
	case store.Unavailable(err):
		s.log.Error("storage unreachable", "method", r.Method, "path", logPath(r), "err", err)
		w.Header().Set("Retry-After", "5")
		writeError(w, http.StatusServiceUnavailable, "the database cannot be reached; try again in a moment")
	default:
		s.log.Error("request failed", "method", r.Method, "path", logPath(r), "err", err)
		writeError(w, http.StatusInternalServerError, "internal error; the server's log has the details")
	}
}

// logPath is a request's path as the log shows it: an invite code seats
// whoever holds it, so it is left out.
func logPath(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/api/join/") {
		return "/api/join/{code}"
	}
	return r.URL.Path
}

// decode reads a JSON body of at most MaxBody bytes into v, which must be a
// pointer to a struct. The body must be one JSON object whose member names
// are the struct's, spelled exactly (JSON is case-sensitive), each at most
// once; a null member counts as absent. An empty body reads as {} when
// emptyOK, for the requests whose every field is optional.
func decode(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "request body over %d bytes", MaxBody)
		}
		return errorf(http.StatusBadRequest, "reading the request body: %v", err)
	}
	if len(bytes.TrimSpace(data)) == 0 && emptyOK {
		return nil
	}
	return decodeBytes(data, v)
}

// decodeBytes reads one JSON object into v as decode does.
func decodeBytes(data []byte, v any) error {
	trimmed := bytes.TrimSpace(data)
	switch {
	case len(trimmed) == 0:
		return errorf(http.StatusBadRequest, "the request needs a JSON object body")
	case trimmed[0] != '{':
		return errorf(http.StatusBadRequest, "malformed JSON: the body must be an object {...}")
	}
	if err := jsonv2.Unmarshal(data, v, jsonv2.RejectUnknownMembers(true)); err != nil {
		return errorf(http.StatusBadRequest, "malformed JSON: %s", jsonProblem(err))
	}
	return nil
}

// jsonProblem says what is wrong with a request body in a user's terms.
func jsonProblem(err error) string {
	if se, ok := errors.AsType[*jsonv2.SemanticError](err); ok {
		field := strings.TrimPrefix(string(se.JSONPointer), "/")
		switch {
		case errors.Is(se.Err, jsonv2.ErrUnknownName):
			return fmt.Sprintf("unknown field %q (field names are case-sensitive)", clip(field))
		case field != "" && se.JSONKind != 0:
			return fmt.Sprintf("field %q: a JSON %s is not valid here", clip(field), se.JSONKind)
		}
	}
	msg := err.Error()
	for _, p := range []string{"json: ", "jsontext: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return clip(msg)
}

// loaded is a stored game replayed.
type loaded struct {
	stored *store.Game
	game   *rules.Game
}

func (s *Server) load(ctx context.Context, id string) (*loaded, error) {
	sg, err := s.store.Game(ctx, id)
	if err != nil {
		return nil, err
	}
	g, err := rules.NewGame(sg.Start, sg.Rules)
	if err != nil {
		return nil, fmt.Errorf("game %s: %w", id, err)
	}
	for i, m := range sg.Moves {
		if err := g.Play(m); err != nil {
			return nil, fmt.Errorf("game %s: stored move %d: %w", id, i+1, err)
		}
	}
	return &loaded{stored: sg, game: g}, nil
}

var rngMu sync.Mutex
var rng = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x656e646f646f69))

func newRand() *rand.Rand {
	rngMu.Lock()
	defer rngMu.Unlock()
	return rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
}

func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errorf(http.StatusBadRequest, "%s=%q: want a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// recordOf returns the game's record with its names and date.
func recordOf(l *loaded) *record.Record {
	rec := record.New(l.game)
	rec.South, rec.North = l.stored.South, l.stored.North
	// The computer is named with its level, in the name it plays under.
	if c := l.stored.Computer; c != nil {
		name := fmt.Sprintf("endodoi (level %d)", c.Level)
		if c.Side == rules.South && rec.South == "" {
			rec.South = name
		} else if c.Side == rules.North && rec.North == "" {
			rec.North = name
		}
	}
	if tag, ok := terminationTag(l); ok {
		rec.Extra = append(rec.Extra, tag)
	}
	rec.Event = "endodoi"
	rec.Date = l.stored.Created.Format("2006-01-02")
	return rec
}
