package server

import (
	"context"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// seriesView is a series (ol alai) as the API shows it: its target, the
// tally and each game's result, oldest first.
type seriesView struct {
	ID      string        `json:"id"`
	Target  int           `json:"target"`
	Wins    scoreView     `json:"wins"`
	Draws   int           `json:"draws"`
	Results []string      `json:"results"`
	Over    bool          `json:"over"`
	Winner  string        `json:"winner"` // "s" or "n" once over, else ""
	Games   []summaryView `json:"games,omitempty"`
}

func newSeriesView(sr *store.Series) seriesView {
	v := seriesView{ID: sr.ID, Target: sr.Target, Results: make([]string, 0, len(sr.Games))}
	for _, g := range sr.Games {
		v.Results = append(v.Results, g.Result)
		// A token the store should not hold counts for no one, as an
		// unfinished game.
		res, _ := rules.ParseResult(g.Result)
		switch res {
		case rules.SouthWins:
			v.Wins.South++
		case rules.NorthWins:
			v.Wins.North++
		case rules.Draw:
			v.Draws++
		}
	}
	switch {
	case v.Wins.South >= sr.Target:
		v.Over, v.Winner = true, "s"
	case v.Wins.North >= sr.Target:
		v.Over, v.Winner = true, "n"
	}
	return v
}

// view is the game as the API shows it, with its series' tally and, for
// an online game, its seats, clocks and offers.
func (s *Server) view(ctx context.Context, l *loaded) (gameView, error) {
	v := newGameView(l)
	if o := l.stored.Online; o != nil {
		v.Online = s.newOnlineView(l, time.Now())
		if o.End != "" {
			v.Status, v.Result, v.LegalMoves = onlineStatus(o.End), l.stored.Result, []string{}
		}
	}
	if l.stored.SeriesID != "" {
		sr, err := s.store.Series(ctx, l.stored.SeriesID)
		if err != nil {
			return v, err
		}
		sv := newSeriesView(sr)
		v.Series = &sv
	}
	return v, nil
}

func (s *Server) getSeries(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		s.fail(w, r, errorf(http.StatusNotFound, "no series %q", clip(id)))
		return
	}
	sr, err := s.store.Series(r.Context(), id)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := newSeriesView(sr)
	if v.Games, err = s.summaries(r.Context(), sr.Games); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// nextGame starts the series' next game: the same board, rules, players
// and computer, with the other player moving first.
func (s *Server) nextGame(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		s.fail(w, r, errorf(http.StatusNotFound, "no series %q", clip(id)))
		return
	}
	var req struct{}
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	defer s.games.lock("series " + id)()
	sg, err := s.next(r.Context(), id, false)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.create(w, r, sg, nil, 0)
}

// next returns the series' next game, not yet stored. The next game of an
// online series is started by a seat (rematch), not here.
func (s *Server) next(ctx context.Context, id string, online bool) (*store.Game, error) {
	sr, err := s.store.Series(ctx, id)
	if err != nil {
		return nil, err
	}
	if v := newSeriesView(sr); v.Over {
		return nil, errorf(http.StatusConflict, "the series is over: %s won it", sideName(v.Winner))
	}
	if len(sr.Games) == 0 {
		return nil, errorf(http.StatusConflict, "the series has no game")
	}
	if last := sr.Games[len(sr.Games)-1]; last.Online && !online {
		return nil, errorf(http.StatusConflict, "an online series goes on when a player asks for the next game (the rematch action)")
	} else if last.Result == "*" && last.End == "" {
		return nil, errorf(http.StatusConflict, "game %d of the series is not finished", len(sr.Games))
	}
	first, err := s.store.Game(ctx, sr.Games[0].ID)
	if err != nil {
		return nil, err
	}
	last, err := s.store.Game(ctx, sr.Games[len(sr.Games)-1].ID)
	if err != nil {
		return nil, err
	}
	// The first player alternates from the first game's, draws included.
	starter := first.Start.ToMove()
	if len(sr.Games)%2 == 1 {
		starter = starter.Opponent()
	}
	return &store.Game{South: last.South, North: last.North, Start: first.Start.WithToMove(starter),
		Rules: last.Rules, Computer: last.Computer, SeriesID: id, Result: "*"}, nil
}

func sideName(letter string) string {
	if letter == "n" {
		return rules.North.String()
	}
	return rules.South.String()
}
