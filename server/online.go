package server

// The HTTP side of online games: creating one, its invitation and joining
// it. The rules of online play are package play's.

import (
	"errors"
	"net/http"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/store"
)

func invitePath(code string) string { return "/#/join/" + code }

func watchPath(id string) string { return "/#/play/" + id }

// seatView is a seat given to its holder.
type seatView struct {
	Side  string `json:"side"`
	Token string `json:"token"`
}

// createOnline stores a new online game and gives its creator a seat.
func (s *Server) createOnline(w http.ResponseWriter, r *http.Request, req *api.NewGame, sg *game.Game) {
	creator, clock, err := req.OnlineGame(sg)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	g, token, err := s.createInvite(r, sg, creator, clock, req.Series)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.view(r.Context(), g)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/games/"+g.ID())
	writeJSON(w, http.StatusCreated, map[string]any{
		"game": v, "seat": seatView{Side: string(creator.Letter()), Token: token}, "invite": invitePath(g.Online().Invite)})
}

func (s *Server) inviteGame(r *http.Request) (*game.Game, error) {
	code := r.PathValue("code")
	if !play.ValidInvite(code) {
		return nil, errorf(http.StatusNotFound, "no invitation %q", clip(code))
	}
	sg, err := s.store.GameByInvite(r.Context(), code)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, "no invitation %q: check the link", code)
	}
	return sg, err
}

func (s *Server) peekInvite(w http.ResponseWriter, r *http.Request) {
	sg, err := s.inviteGame(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	free := ""
	if side, ok := play.FreeSeat(sg.Online); ok {
		free = string(side.Letter())
	}
	writeJSON(w, http.StatusOK, map[string]string{"game": sg.ID, "free": free})
}

// joinRequest is the body of POST /api/join/{code}.
type joinRequest struct {
	Name *string `json:"name"` // absent or null: no name
}

func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	var req joinRequest
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	name, err := api.OptionalName(req.Name, "the player")
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "%v", err))
		return
	}
	sg, err := s.inviteGame(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	err = s.table.With(r.Context(), sg.ID, func(g *play.Game) error {
		side, token, err := s.table.Join(r.Context(), g, name)
		if err != nil {
			return err
		}
		v, err := s.view(r.Context(), g)
		if err != nil {
			return err
		}
		if token == "" {
			writeJSON(w, http.StatusOK, map[string]any{"game": v, "seat": nil, "watch": watchPath(g.ID())})
			return nil
		}
		s.claimSeat(r, token)
		writeJSON(w, http.StatusOK, map[string]any{"game": v, "seat": seatView{Side: string(side.Letter()), Token: token}})
		return nil
	})
	if err != nil {
		s.fail(w, r, err)
	}
}
