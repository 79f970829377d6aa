package server

// The players' routes (package players): players' profiles, their rating
// histories and games, and the leaderboards (docs/api.md).

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/players"
	"github.com/endodoi/endodoi/rating"
	"github.com/endodoi/endodoi/store"
)

// Limits of the ratings' reads (package players).
const (
	MaxPlayerGames  = players.MaxGames
	MaxRatingPoints = players.MaxPoints
	MaxLeaderboard  = players.MaxLeaderboard
)

// ratingRoutes adds the routes of the profiles and leaderboards.
func (s *Server) ratingRoutes() {
	s.mux.HandleFunc("GET /api/players/{name}", s.player(s.getPlayer))
	s.mux.HandleFunc("GET /api/players/{name}/ratings", s.player(s.getPlayerRatings))
	s.mux.HandleFunc("GET /api/players/{name}/games", s.player(s.getPlayerGames))
	s.mux.HandleFunc("GET /api/leaderboard", s.getLeaderboard)
}

// player runs h for the account named by the path's {name}: 404 for a
// name no account has, a deleted account's included.
func (s *Server) player(h func(w http.ResponseWriter, r *http.Request, a *store.Account)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		a, err := s.accountNamed(r.Context(), r.PathValue("name"))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, r, a)
	}
}

// accountNamed returns the account named name, not deleted.
func (s *Server) accountNamed(ctx context.Context, name string) (*store.Account, error) {
	_, key, err := account.ParseUsername(name)
	if err != nil {
		return nil, errorf(http.StatusNotFound, "no player %q", clip(name))
	}
	a, err := s.store.AccountByKey(ctx, key)
	if errors.Is(err, store.ErrNotFound) || err == nil && a.Status == store.AccountDeleted {
		return nil, errorf(http.StatusNotFound, "no player %q", clip(name))
	}
	return a, err
}

// queryCategory reads the query parameter category: "" when absent and
// not required.
func queryCategory(r *http.Request, required bool) (string, error) {
	text := r.URL.Query().Get("category")
	if text == "" {
		if required {
			return "", errorf(http.StatusBadRequest, "give a category, as category=8-blitz")
		}
		return "", nil
	}
	c, err := rating.ParseCategory(text)
	if err != nil {
		return "", errorf(http.StatusBadRequest, "%v", err)
	}
	return c.String(), nil
}

// getPlayer answers GET /api/players/{name}: the player's ratings, each
// with its deviation grown to now, and results by side.
func (s *Server) getPlayer(w http.ResponseWriter, r *http.Request, a *store.Account) {
	v, err := s.players.Profile(r.Context(), a.ID, time.Now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v.Name, v.Bot, v.Created = a.Name, a.Kind == store.AccountBot, a.Created
	writeJSON(w, http.StatusOK, v)
}

// getPlayerRatings answers GET /api/players/{name}/ratings?category=: the
// player's rating after each of its latest rated games there, oldest
// first.
func (s *Server) getPlayerRatings(w http.ResponseWriter, r *http.Request, a *store.Account) {
	cat, err := queryCategory(r, true)
	if err == nil {
		var points []players.Point
		if points, err = s.players.History(r.Context(), a.ID, cat); err == nil {
			writeJSON(w, http.StatusOK, map[string]any{"category": cat, "points": points})
			return
		}
	}
	s.fail(w, r, err)
}

// encodeCursor and decodeCursor make a place in a player's list into the
// opaque text of the parameter before, and back.
func encodeCursor(c store.GameCursor) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(c.Created.UnixMilli(), 10) + "." + c.ID))
}

func decodeCursor(text string) (store.GameCursor, error) {
	bad := errorf(http.StatusBadRequest, "before=%q: not a cursor of this list (give the \"next\" of the page before)", clip(text))
	if len(text) > 64 {
		return store.GameCursor{}, bad
	}
	raw, err := base64.RawURLEncoding.DecodeString(text)
	if err != nil {
		return store.GameCursor{}, bad
	}
	ms, id, ok := strings.Cut(string(raw), ".")
	n, err := strconv.ParseInt(ms, 10, 64)
	// Games are made between 2000 and 3000.
	if !ok || err != nil || n < 946684800000 || n > 32503680000000 || !store.ValidID(id) {
		return store.GameCursor{}, bad
	}
	return store.GameCursor{Created: time.UnixMilli(n).UTC(), ID: id}, nil
}

// getPlayerGames answers GET /api/players/{name}/games: the online games
// the player held a seat in, the latest made first, filtered by the
// player's result, side, the category and the opponent, a page at a time.
func (s *Server) getPlayerGames(w http.ResponseWriter, r *http.Request, a *store.Account) {
	q := r.URL.Query()
	f := store.PlayerGamesFilter{Result: q.Get("result"), Side: q.Get("side")}
	var err error
	switch {
	case f.Result != "" && f.Result != "win" && f.Result != "draw" && f.Result != "loss":
		err = errorf(http.StatusBadRequest, "result=%q: want win, draw or loss", clip(f.Result))
	case f.Side != "" && f.Side != "s" && f.Side != "n":
		err = errorf(http.StatusBadRequest, "side=%q: want s or n", clip(f.Side))
	}
	if err == nil {
		f.Category, err = queryCategory(r, false)
	}
	if err == nil {
		f.Limit, err = queryInt(r, "limit", 20, 1, MaxPlayerGames)
	}
	if text := q.Get("before"); err == nil && text != "" {
		f.Before, err = decodeCursor(text)
	}
	if name := q.Get("opponent"); err == nil && name != "" {
		var opp *store.Account
		if opp, err = s.accountNamed(r.Context(), name); err == nil {
			f.OpponentID = opp.ID
		}
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	list, last, err := s.players.Games(r.Context(), a.ID, f, time.Now())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var next *string
	if last != nil {
		c := encodeCursor(*last)
		next = &c
	}
	writeJSON(w, http.StatusOK, map[string]any{"games": list, "next": next})
}

// getLeaderboard answers GET /api/leaderboard?category=&limit=: the
// highest ratings of the category among the players who played a rated
// game there in the last 30 days and are not provisional, and the
// asker's own place.
func (s *Server) getLeaderboard(w http.ResponseWriter, r *http.Request) {
	cat, err := queryCategory(r, true)
	if err == nil {
		var limit int
		if limit, err = queryInt(r, "limit", MaxLeaderboard, 1, MaxLeaderboard); err == nil {
			var lb *players.Leaderboard
			if lb, err = s.players.Leaderboard(r.Context(), cat, limit, s.askerID(r), time.Now()); err == nil {
				writeJSON(w, http.StatusOK, lb)
				return
			}
		}
	}
	s.fail(w, r, err)
}
