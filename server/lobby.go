package server

// The lobby's routes (docs/api.md, Lobby): each decodes its request,
// calls one method of package lobby and encodes the answer. The lobby's
// live connection and the carrying of its events are in lobbylive.go.
// Beside the lobby's own limits, the lobby's writes are limited per
// client here, as the server's other requests are.

import (
	"fmt"
	"net/http"

	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/store"
)

// Limits of the lobby's requests, per client.
const (
	// LobbyCreationsPerHour is how many seeks, challenges and reports a
	// client may make an hour, refilled steadily.
	LobbyCreationsPerHour = 120
	// PoolWritesPerMinute is how many pool joins and leaves a client may
	// make a minute, refilled steadily.
	PoolWritesPerMinute = 30
)

// The lobby's limits, as the API names them.
const (
	MaxIncomingChallenges = lobby.MaxIncomingChallenges
	MaxChallengesToOne    = lobby.MaxChallengesToOne
)

// playerOf is account a as the lobby knows it.
func playerOf(a *store.Account) seek.Player {
	return seek.Player{ID: a.ID, Name: a.Name, Bot: a.Kind == store.AccountBot}
}

// getLobby answers GET /api/lobby: anyone may look.
func (s *Server) getLobby(w http.ResponseWriter, r *http.Request) {
	st, err := s.lobby.State(r.Context(), s.askerID(r))
	s.reply(w, r, http.StatusOK, st, err)
}

func (s *Server) postSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req lobby.SeekRequest
	var v lobby.SeekView
	err := decode(w, r, &req, false)
	if err == nil {
		v, err = s.lobby.PostSeek(r.Context(), playerOf(a), req)
	}
	s.reply(w, r, http.StatusCreated, map[string]any{"seek": v}, err)
}

func (s *Server) cancelSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	s.reply(w, r, http.StatusOK, map[string]any{}, s.lobby.CancelSeek(r.Context(), playerOf(a), r.PathValue("id")))
}

func (s *Server) acceptSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	p, err := s.lobby.AcceptSeek(r.Context(), playerOf(a), r.PathValue("id"))
	s.reply(w, r, http.StatusCreated, p, err)
}

// poolRequest is the body of POST /api/lobby/pools/{id}/join.
type poolRequest struct {
	Rated bool `json:"rated"`
}

func (s *Server) joinPool(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req poolRequest
	id := r.PathValue("id")
	err := decode(w, r, &req, true)
	if err == nil {
		err = s.lobby.JoinPool(r.Context(), playerOf(a), id, req.Rated)
	}
	s.reply(w, r, http.StatusOK, map[string]any{"pool": id, "waiting": true}, err)
}

func (s *Server) leavePool(w http.ResponseWriter, r *http.Request, a *store.Account) {
	s.reply(w, r, http.StatusOK, map[string]any{}, s.lobby.LeavePool(r.Context(), playerOf(a), r.PathValue("id")))
}

func (s *Server) postChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req lobby.ChallengeRequest
	var v lobby.ChallengeView
	err := decode(w, r, &req, false)
	if err == nil {
		v, err = s.lobby.Challenge(r.Context(), playerOf(a), req)
	}
	s.reply(w, r, http.StatusCreated, map[string]any{"challenge": v}, err)
}

func (s *Server) acceptChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	p, err := s.lobby.AcceptChallenge(r.Context(), playerOf(a), r.PathValue("id"))
	s.reply(w, r, http.StatusCreated, p, err)
}

// declineRequest is the body of POST /api/challenges/{id}/decline.
type declineRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) declineChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req declineRequest
	err := decode(w, r, &req, true)
	if err == nil {
		err = s.lobby.DeclineChallenge(r.Context(), playerOf(a), r.PathValue("id"), req.Reason)
	}
	s.reply(w, r, http.StatusOK, map[string]any{}, err)
}

func (s *Server) cancelChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	s.reply(w, r, http.StatusOK, map[string]any{}, s.lobby.CancelChallenge(r.Context(), playerOf(a), r.PathValue("id")))
}

func (s *Server) declineAll(w http.ResponseWriter, r *http.Request, a *store.Account) {
	n, err := s.lobby.DeclineAll(r.Context(), playerOf(a))
	s.reply(w, r, http.StatusOK, map[string]any{"declined": n}, err)
}

func (s *Server) getBlocks(w http.ResponseWriter, r *http.Request, a *store.Account) {
	list, err := s.lobby.Blocks(r.Context(), playerOf(a))
	s.reply(w, r, http.StatusOK, map[string]any{"blocks": list}, err)
}

// blockRequest is the body of POST /api/me/blocks.
type blockRequest struct {
	Name string `json:"name"`
}

func (s *Server) postBlock(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req blockRequest
	var list []lobby.Player
	err := decode(w, r, &req, false)
	if err == nil {
		list, err = s.lobby.Block(r.Context(), playerOf(a), req.Name)
	}
	s.reply(w, r, http.StatusOK, map[string]any{"blocks": list}, err)
}

func (s *Server) removeBlock(w http.ResponseWriter, r *http.Request, a *store.Account) {
	list, err := s.lobby.Unblock(r.Context(), playerOf(a), r.PathValue("name"))
	s.reply(w, r, http.StatusOK, map[string]any{"blocks": list}, err)
}

func (s *Server) reportGame(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req lobby.ReportRequest
	var rep string
	id := r.PathValue("id")
	err := errorf(http.StatusNotFound, "no game %q", clip(id))
	if store.ValidID(id) {
		if err = decode(w, r, &req, false); err == nil {
			rep, err = s.lobby.Report(r.Context(), playerOf(a), id, req)
		}
	}
	s.reply(w, r, http.StatusCreated, map[string]any{"report": rep}, err)
}

// lobbyRoutes adds the lobby's routes.
func (s *Server) lobbyRoutes() {
	auth := s.signedInOrBot
	creations := limits.NewLimiter(limits.PerHour(LobbyCreationsPerHour))
	pools := limits.NewLimiter(limits.Rate{PerSecond: PoolWritesPerMinute / 60.0, Burst: PoolWritesPerMinute})
	created := func(h http.HandlerFunc) http.HandlerFunc {
		return s.lobbyLimited(creations, fmt.Sprintf("seeks, challenges and reports from your address (at most %d an hour)",
			LobbyCreationsPerHour), h)
	}
	pooled := func(h http.HandlerFunc) http.HandlerFunc {
		return s.lobbyLimited(pools, fmt.Sprintf("pool joins and leaves from your address (at most %d a minute)",
			PoolWritesPerMinute), h)
	}
	s.mux.HandleFunc("GET /api/lobby", s.getLobby)
	s.mux.HandleFunc("GET /api/lobby/live", s.liveLimited(s.lobbyLive))
	s.mux.HandleFunc("POST /api/lobby/seeks", created(auth(s.postSeek)))
	s.mux.HandleFunc("POST /api/lobby/seeks/{id}/cancel", auth(s.cancelSeek))
	s.mux.HandleFunc("POST /api/lobby/seeks/{id}/accept", auth(s.acceptSeek))
	s.mux.HandleFunc("POST /api/lobby/pools/{id}/join", pooled(auth(s.joinPool)))
	s.mux.HandleFunc("POST /api/lobby/pools/{id}/leave", pooled(auth(s.leavePool)))
	s.mux.HandleFunc("POST /api/challenges", created(auth(s.postChallenge)))
	s.mux.HandleFunc("POST /api/challenges/decline-all", auth(s.declineAll))
	s.mux.HandleFunc("POST /api/challenges/{id}/accept", auth(s.acceptChallenge))
	s.mux.HandleFunc("POST /api/challenges/{id}/decline", auth(s.declineChallenge))
	s.mux.HandleFunc("POST /api/challenges/{id}/cancel", auth(s.cancelChallenge))
	s.mux.HandleFunc("GET /api/me/blocks", auth(s.getBlocks))
	s.mux.HandleFunc("POST /api/me/blocks", auth(s.postBlock))
	s.mux.HandleFunc("POST /api/me/blocks/{name}/remove", auth(s.removeBlock))
	s.mux.HandleFunc("POST /api/games/{id}/report", created(auth(s.reportGame)))
}
