package server

// Challenges to a named player, blocks and reports of games (docs/api.md).

import (
	"context"
	"errors"
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Limits of the texts of challenges and reports, in characters.
const (
	MaxDeclineReason = 200
	MaxReportText    = 2000
)

type challengeView struct {
	ID       string     `json:"id"`
	From     playerView `json:"from"`
	To       playerView `json:"to"`
	Holes    int        `json:"holes"`
	Seeds    int        `json:"seeds"`
	Variant  string     `json:"variant"`
	Clock    api.Clock  `json:"clock"`
	Rated    bool       `json:"rated"`
	Side     string     `json:"side"`
	Category string     `json:"category"`
	Created  time.Time  `json:"created"`
	Expires  time.Time  `json:"expires"`
}

func newChallengeView(ch *store.LobbyChallenge, ratings map[string]ratingInfo) challengeView {
	return challengeView{ID: ch.ID, From: newPlayerView(ch.From, ratings[ch.From.ID]), To: newPlayerView(ch.To, ratings[ch.To.ID]),
		Holes: ch.Holes, Seeds: ch.Seeds, Variant: ch.Variant.String(), Clock: lobbyClock(ch.Clock), Rated: ch.Rated,
		Side: ch.Side, Category: categoryOf(ch.Holes, ch.Clock), Created: ch.Created, Expires: ch.Expires}
}

func (s *Server) challengeViews(ctx context.Context, list []store.LobbyChallenge) []challengeView {
	out := make([]challengeView, 0, len(list))
	for i := range list {
		ch := &list[i]
		out = append(out, newChallengeView(ch, s.ratingsIn(ctx, categoryOf(ch.Holes, ch.Clock), []string{ch.From.ID, ch.To.ID})))
	}
	return out
}

// challengeGone is what the lobby tells both players of a challenge that
// has gone, and why; reason is a decline's.
func challengeGone(ch *store.LobbyChallenge, why, reason string) []lobbyOut {
	m := map[string]any{"type": "challenge-gone", "id": ch.ID, "why": why}
	if reason != "" {
		m["reason"] = reason
	}
	msg := mustMarshal(m)
	return []lobbyOut{{To: ch.From.ID, Msg: msg}, {To: ch.To.ID, Msg: msg}}
}

// challengeRequest is the body of POST /api/challenges.
type challengeRequest struct {
	gameSettings
	To   string `json:"to"`
	Side string `json:"side"` // the challenger's: "s", "n" or "random" (default)
}

// playerByName returns the active account named name, or a 404 that
// names it.
func (s *Server) playerByName(ctx context.Context, name string) (*store.Account, error) {
	_, key, err := account.ParseUsername(name)
	if err != nil {
		return nil, errorf(http.StatusNotFound, "no player %q", clip(name))
	}
	a, err := s.store.AccountByKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.Status != store.AccountActive {
		return nil, errorf(http.StatusNotFound, "no player %q", clip(name))
	}
	return a, err
}

func storePlayer(a *store.Account) store.Player {
	return store.Player{ID: a.ID, Name: a.Name, Bot: a.Kind == store.AccountBot}
}

func (s *Server) postChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req challengeRequest
	if err := decode(w, r, &req, false); err != nil {
		s.fail(w, r, err)
		return
	}
	holes, seeds, variant, clock, err := req.check()
	if err == nil {
		switch req.Side {
		case "":
			req.Side = "random"
		case "s", "n", "random":
		default:
			err = errorf(http.StatusBadRequest, "side %q: want \"s\", \"n\" or \"random\"", clip(req.Side))
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ctx := r.Context()
	to, err := s.playerByName(ctx, req.To)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if to.ID == a.ID {
		s.fail(w, r, errorf(http.StatusBadRequest, "you cannot challenge yourself"))
		return
	}
	life := challengeLife
	if clock.PerMove {
		life = correspondenceChallengeLife
	}
	now := time.Now().UTC().Truncate(time.Millisecond)
	ch := &store.LobbyChallenge{ID: newID(), From: storePlayer(a), To: storePlayer(to), Holes: holes, Seeds: seeds,
		Variant: variant, Clock: clock, Rated: req.Rated, Side: req.Side, Created: now, Expires: now.Add(life)}
	v := newChallengeView(ch, s.ratingsIn(ctx, categoryOf(holes, clock), []string{a.ID, to.ID}))
	msg := mustMarshal(map[string]any{"type": "challenge", "challenge": v})
	outs := []lobbyOut{{To: to.ID, Msg: msg}, {To: a.ID, Msg: msg}}
	if err := s.store.AddChallenge(ctx, ch, MaxIncomingChallenges, MaxOutgoingChallenges, s.lobbyNoticeText(outs)); err != nil {
		s.fail(w, r, lobbyProblem(err, ""))
		return
	}
	s.lobbyDeliver(outs)
	writeJSON(w, http.StatusCreated, map[string]any{"challenge": v})
}

// challengeOf reads the challenge named in the path.
func (s *Server) challengeOf(r *http.Request) (*store.LobbyChallenge, error) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		return nil, errorf(http.StatusNotFound, "no challenge %q", clip(id))
	}
	ch, err := s.store.LobbyChallenge(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, "no challenge %s: it has been answered, withdrawn or has expired", id)
	}
	if err == nil && !ch.Expires.After(time.Now()) {
		return nil, errorf(http.StatusNotFound, "challenge %s has expired", id)
	}
	return ch, err
}

func (s *Server) acceptChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	ch, err := s.challengeOf(r)
	if err == nil && ch.To.ID != a.ID {
		err = errorf(http.StatusForbidden, "this challenge is not to you")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	from := rules.Side(newRand().IntN(2))
	switch ch.Side {
	case "s":
		from = rules.South
	case "n":
		from = rules.North
	}
	var players [2]store.Player
	players[from], players[from.Opponent()] = ch.From, ch.To
	pm := pairing{holes: ch.Holes, seeds: ch.Seeds, variant: ch.Variant, clock: ch.Clock, rated: ch.Rated,
		players: players, challenge: ch.ID, outs: challengeGone(ch, "accepted", "")}
	gameID, err := s.pair(r.Context(), &pm)
	if err != nil {
		s.fail(w, r, lobbyProblem(err, "this challenge has been answered or withdrawn"))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"game": gameID, "side": string(from.Opponent().Letter())})
}

// declineRequest is the body of POST /api/challenges/{id}/decline.
type declineRequest struct {
	Reason string `json:"reason"`
}

func (s *Server) declineChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req declineRequest
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	if !utf8.ValidString(req.Reason) || utf8.RuneCountInString(req.Reason) > MaxDeclineReason {
		s.fail(w, r, errorf(http.StatusBadRequest, "reason: at most %d characters of text", MaxDeclineReason))
		return
	}
	s.endChallenge(w, r, a, "declined", req.Reason)
}

func (s *Server) cancelChallenge(w http.ResponseWriter, r *http.Request, a *store.Account) {
	s.endChallenge(w, r, a, "cancelled", "")
}

// endChallenge removes a challenge its target declines or its sender
// cancels, and tells both.
func (s *Server) endChallenge(w http.ResponseWriter, r *http.Request, a *store.Account, why, reason string) {
	ch, err := s.challengeOf(r)
	if err == nil {
		switch {
		case why == "declined" && ch.To.ID != a.ID:
			err = errorf(http.StatusForbidden, "this challenge is not to you")
		case why == "cancelled" && ch.From.ID != a.ID:
			err = errorf(http.StatusForbidden, "this challenge is not yours")
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	outs := challengeGone(ch, why, reason)
	if err := s.store.DeleteChallenge(r.Context(), ch.ID, s.lobbyNoticeText(outs)); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			err = errorf(http.StatusNotFound, "no challenge %s: it has been answered, withdrawn or has expired", ch.ID)
		}
		s.fail(w, r, err)
		return
	}
	s.lobbyDeliver(outs)
	writeJSON(w, http.StatusOK, map[string]any{})
}

// blocksAnswer answers with the players a blocks.
func (s *Server) blocksAnswer(w http.ResponseWriter, r *http.Request, a *store.Account) {
	list, err := s.store.Blocks(r.Context(), a.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := make([]playerView, 0, len(list))
	for _, p := range list {
		out = append(out, playerView{Name: p.Name, Bot: p.Bot, Provisional: true})
	}
	writeJSON(w, http.StatusOK, map[string]any{"blocks": out})
}

func (s *Server) getBlocks(w http.ResponseWriter, r *http.Request, a *store.Account) {
	s.blocksAnswer(w, r, a)
}

// blockRequest is the body of POST /api/me/blocks.
type blockRequest struct {
	Name string `json:"name"`
}

func (s *Server) postBlock(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req blockRequest
	if err := decode(w, r, &req, false); err != nil {
		s.fail(w, r, err)
		return
	}
	other, err := s.playerByName(r.Context(), req.Name)
	if err == nil && other.ID == a.ID {
		err = errorf(http.StatusBadRequest, "you cannot block yourself")
	}
	if err == nil {
		err = lobbyProblem(s.store.Block(r.Context(), a.ID, other.ID, MaxBlocks), "")
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.blocksAnswer(w, r, a)
}

func (s *Server) removeBlock(w http.ResponseWriter, r *http.Request, a *store.Account) {
	name := r.PathValue("name")
	other, err := s.playerByName(r.Context(), name)
	if err == nil {
		err = s.store.Unblock(r.Context(), a.ID, other.ID)
		if errors.Is(err, store.ErrNotFound) {
			err = errorf(http.StatusNotFound, "you do not block %q", clip(name))
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.blocksAnswer(w, r, a)
}

// reportRequest is the body of POST /api/games/{id}/report.
type reportRequest struct {
	Reason string `json:"reason"`
	Text   string `json:"text"`
}

func (s *Server) reportGame(w http.ResponseWriter, r *http.Request, a *store.Account) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		s.fail(w, r, errorf(http.StatusNotFound, "no game %q", clip(id)))
		return
	}
	var req reportRequest
	if err := decode(w, r, &req, false); err != nil {
		s.fail(w, r, err)
		return
	}
	switch {
	case req.Reason != "cheating" && req.Reason != "abuse" && req.Reason != "other":
		s.fail(w, r, errorf(http.StatusBadRequest, "reason %q: want cheating, abuse or other", clip(req.Reason)))
		return
	case !utf8.ValidString(req.Text) || utf8.RuneCountInString(req.Text) > MaxReportText:
		s.fail(w, r, errorf(http.StatusBadRequest, "text: at most %d characters of text", MaxReportText))
		return
	}
	rep := &store.Report{GameID: id, By: storePlayer(a), Reason: req.Reason, Text: req.Text}
	err := s.store.AddReport(r.Context(), rep)
	switch {
	case errors.Is(err, store.ErrExists):
		err = errorf(http.StatusConflict, "you have reported this game already")
	case errors.Is(err, store.ErrNotFound):
		err = errorf(http.StatusNotFound, "no game %s", id)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.log.Info("a game reported", "game", id, "reason", req.Reason)
	writeJSON(w, http.StatusCreated, map[string]any{"report": rep.ID})
}

// lobbyRoutes adds the lobby's routes.
func (s *Server) lobbyRoutes() {
	s.lobby = newLobby()
	auth := s.signedInOrBot
	s.mux.HandleFunc("GET /api/lobby", s.getLobby)
	s.mux.HandleFunc("GET /api/lobby/live", s.liveLimited(s.lobbyLive))
	s.mux.HandleFunc("POST /api/lobby/seeks", s.lobbyLimited(auth(s.postSeek)))
	s.mux.HandleFunc("POST /api/lobby/seeks/{id}/cancel", auth(s.cancelSeek))
	s.mux.HandleFunc("POST /api/lobby/seeks/{id}/accept", auth(s.acceptSeek))
	s.mux.HandleFunc("POST /api/lobby/pools/{id}/join", auth(s.joinPool))
	s.mux.HandleFunc("POST /api/lobby/pools/{id}/leave", auth(s.leavePool))
	s.mux.HandleFunc("POST /api/challenges", s.lobbyLimited(auth(s.postChallenge)))
	s.mux.HandleFunc("POST /api/challenges/{id}/accept", auth(s.acceptChallenge))
	s.mux.HandleFunc("POST /api/challenges/{id}/decline", auth(s.declineChallenge))
	s.mux.HandleFunc("POST /api/challenges/{id}/cancel", auth(s.cancelChallenge))
	s.mux.HandleFunc("GET /api/me/blocks", auth(s.getBlocks))
	s.mux.HandleFunc("POST /api/me/blocks", auth(s.postBlock))
	s.mux.HandleFunc("POST /api/me/blocks/{name}/remove", auth(s.removeBlock))
	s.mux.HandleFunc("POST /api/games/{id}/report", s.lobbyLimited(auth(s.reportGame)))
}
