// Package server is the JSON HTTP API of the browser game (docs/api.md):
// games stored in package store, played under package rules, with the
// computer's moves, hints and analysis from package engine.
//
// Every request that changes a game replays it, checks the move, and
// commits it to the store before answering. Bad input gets a 4xx answer
// whose JSON body says what is wrong, and leaves the game as it was.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

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
	store *store.Store
	log   *slog.Logger
	mux   *http.ServeMux

	mu    sync.Mutex
	games map[string]*sync.Mutex // one lock per game: its requests run one at a time

	tb *tablebases // nil without endgame databases
}

// New returns a server over st.
func New(st *store.Store, log *slog.Logger) *Server {
	s := &Server{store: st, log: log, mux: http.NewServeMux(), games: map[string]*sync.Mutex{}}
	s.mux.HandleFunc("POST /api/games", s.createGame)
	s.mux.HandleFunc("GET /api/games", s.listGames)
	s.mux.HandleFunc("POST /api/games/import", s.importGame)
	s.mux.HandleFunc("GET /api/games/{id}", s.game(false, s.getGame))
	s.mux.HandleFunc("POST /api/games/{id}/moves", s.game(true, s.playMove))
	s.mux.HandleFunc("POST /api/games/{id}/computer", s.game(true, s.computerMove))
	s.mux.HandleFunc("POST /api/games/{id}/takeback", s.game(true, s.takeback))
	s.mux.HandleFunc("GET /api/games/{id}/hint", s.game(false, s.hint))
	s.mux.HandleFunc("GET /api/games/{id}/record", s.game(false, s.exportRecord))
	s.mux.HandleFunc("GET /api/series/{id}", s.getSeries)
	s.mux.HandleFunc("POST /api/series/{id}/next", s.nextGame)
	s.mux.HandleFunc("POST /api/analyze", s.analyze)
	s.mux.HandleFunc("POST /api/position", s.position)
	s.mux.HandleFunc("POST /api/records/parse", s.parseRecord)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such API endpoint: %s %s", r.Method, r.URL.Path)
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// lock serializes the requests on one game.
func (s *Server) lock(id string) func() {
	s.mu.Lock()
	m, ok := s.games[id]
	if !ok {
		m = new(sync.Mutex)
		s.games[id] = m
	}
	s.mu.Unlock()
	m.Lock()
	return m.Unlock
}

// apiError is an answer with a status and a message for the user.
type apiError struct {
	status int
	msg    string
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
// the store's, and 500, logged, for anything else.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
		writeError(w, ae.status, "%s", ae.msg)
	case errors.Is(err, store.ErrNotFound):
		writeError(w, http.StatusNotFound, "%v", err)
	case errors.Is(err, store.ErrConflict):
		writeError(w, http.StatusConflict, "%v; reload the game", err)
	case errors.Is(err, context.Canceled):
		writeError(w, http.StatusServiceUnavailable, "the request was cancelled")
	default:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		writeError(w, http.StatusInternalServerError, "internal error: %v", err)
	}
}

// decode reads a JSON body of at most MaxBody bytes into v, refusing
// unknown fields.
func decode(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, MaxBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "request body over %d bytes", MaxBody)
		}
		return errorf(http.StatusBadRequest, "malformed JSON: %v", err)
	}
	if dec.More() {
		return errorf(http.StatusBadRequest, "malformed JSON: more than one value in the body")
	}
	return nil
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

// history returns the positions before the current one.
func history(g *rules.Game) []rules.Position {
	h := make([]rules.Position, g.Ply())
	for i := range h {
		h[i] = g.PositionAt(i)
	}
	return h
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
	rec.Event = "endodoi"
	rec.Date = l.stored.Created.Format("2006-01-02")
	return rec
}
