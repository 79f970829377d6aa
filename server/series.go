package server

import (
	"net/http"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/store"
)

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
	v := api.NewSeries(sr, play.TallyOf(sr))
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
	g, err := s.table.NextGame(r.Context(), id)
	if err == nil {
		w.Header().Set("Location", "/api/games/"+g.ID())
		err = s.answer(w, r, http.StatusCreated, g)
	}
	if err != nil {
		s.fail(w, r, err)
	}
}
