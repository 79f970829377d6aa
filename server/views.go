package server

import (
	"context"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/players"
)

// gameView is a game as the API shows it (api.Game), with, for an online
// game, its players and their ratings (players.InGame).
type gameView struct {
	api.Game
	players.InGame
}

// view is game g as the API shows it now (stateView), for an answer about
// a game that the request has not changed.
func (s *Server) view(ctx context.Context, g *play.Game) (gameView, error) {
	st, err := s.table.State(ctx, g)
	if err != nil {
		return gameView{}, err
	}
	return s.stateView(&st), nil
}

// stateView is game state st as the API shows it, with its series' tally
// and, for an online game, its seats, clocks, offers and who is connected.
// Everything but who is connected is st's: an answer and a live message
// made of one change's state tell the same.
func (s *Server) stateView(st *play.State) gameView {
	v := gameView{Game: api.NewGameView(st), InGame: players.OfGame(st, time.Now())}
	if v.Online != nil {
		v.Online.Connected, v.Online.Watchers = s.live.presence(st.Info.ID)
	}
	return v
}

// moveView answers a move: the game after it, with its players' ratings,
// and how the move sowed (api.MoveAnswer).
type moveView struct {
	Game   gameView        `json:"game"`
	Sowing gameview.Sowing `json:"sowing"`
}

// answer answers with the view of game g.
func (s *Server) answer(w http.ResponseWriter, r *http.Request, status int, g *play.Game) error {
	v, err := s.view(r.Context(), g)
	if err == nil {
		writeJSON(w, status, v)
	}
	return err
}

// answerChange answers with the game as change ch left it.
func (s *Server) answerChange(w http.ResponseWriter, ch play.Change) {
	writeJSON(w, http.StatusOK, s.stateView(&ch.State))
}

// answerMove answers with the game as the move that made change ch left
// it, and how the move sowed.
func (s *Server) answerMove(w http.ResponseWriter, ch play.Change) {
	writeJSON(w, http.StatusOK, moveView{Game: s.stateView(&ch.State), Sowing: gameview.NewSowing(*ch.Sowing)})
}

// summaries are the listing's views of list, each with its score, its
// status and its computer player, which only the game itself knows.
func (s *Server) summaries(ctx context.Context, list []game.Summary) ([]api.Summary, error) {
	views := make([]api.Summary, 0, len(list))
	for _, sm := range list {
		g, err := s.table.Load(ctx, sm.ID)
		if err != nil {
			return nil, err
		}
		views = append(views, api.FullSummary(sm, g))
	}
	return views, nil
}
