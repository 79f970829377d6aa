package server

// Ratings as the API shows them: a game's players with their ratings and
// the game's change of them (part of the game's view), players' profiles,
// their rating histories and games, and the leaderboards (docs/api.md);
// and the periodic fit of the first mover's advantage in each category.

import (
	"context"
	"encoding/base64"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rating"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Limits of the ratings' reads.
const (
	MaxPlayerGames   = 100  // games in one page of a player's games
	MaxRatingPoints  = 1000 // the latest changes of a rating a history shows
	MaxLeaderboard   = 100  // places on a leaderboard
	leaderboardDays  = 30   // a player on a leaderboard played a rated game in these last days
	advantageRefresh = time.Hour
	// advantageGames bounds the rated games of a category the advantage
	// is fitted from: the latest.
	advantageGames = 50_000
)

// ratingRoutes adds the routes of the profiles and leaderboards.
func (s *Server) ratingRoutes() {
	s.mux.HandleFunc("GET /api/players/{name}", s.player(s.getPlayer))
	s.mux.HandleFunc("GET /api/players/{name}/ratings", s.player(s.getPlayerRatings))
	s.mux.HandleFunc("GET /api/players/{name}/games", s.player(s.getPlayerGames))
	s.mux.HandleFunc("GET /api/leaderboard", s.getLeaderboard)
}

// playerView is a player as the API shows one, with a rating, as the
// lobby does.
type playerView = lobby.Player

// playersView is an online game's players by side.
type playersView struct {
	South playerView `json:"s"`
	North playerView `json:"n"`
}

// changeView is a rated game's change of one player's rating, rounded as
// ratings are shown: diff is after − before; provisional says the rating
// after is.
type changeView struct {
	Before      int  `json:"before"`
	After       int  `json:"after"`
	Diff        int  `json:"diff"`
	Provisional bool `json:"provisional"`
}

type ratingChangeView struct {
	South changeView `json:"s"`
	North changeView `json:"n"`
}

// shown is a rating as it is shown: to the nearest point.
func shown(r float64) int { return int(math.Round(r)) }

func newChangeView(ch *game.RatingChange) changeView {
	b, a := shown(ch.Before.Rating), shown(ch.After.Rating)
	return changeView{Before: b, After: a, Diff: a - b, Provisional: ch.After.Deviation > ratings.Params().ProvisionalDeviation}
}

// addRatings adds to game view v the players and ratings of state st,
// when an account holds one of its seats, and whether it is rated.
func addRatings(v *gameView, st *play.State) {
	rated := st.Info.Rated
	gr := st.Ratings
	if gr != nil {
		rated = gr.Rated
	}
	if rated {
		v.Rated = &rated
	}
	if gr == nil || gr.Seats[rules.South].Account == nil && gr.Seats[rules.North].Account == nil {
		return // a game between guests: no ratings to show
	}
	v.Rated = &rated
	names := [2]string{st.Info.South, st.Info.North}
	var players [2]playerView
	for side := range players {
		players[side] = seatPlayer(gr.Seats[side], names[side], time.Now())
	}
	v.Players = &playersView{players[rules.South], players[rules.North]}
	s, n := gr.Seats[rules.South].Change, gr.Seats[rules.North].Change
	if s != nil && n != nil {
		v.RatingChange = &ratingChangeView{newChangeView(s), newChangeView(n)}
	}
}

// seatPlayer is the player of a seat whose game names it name: its
// account's name and rating in the game's category (before the game once
// the game has changed it; a new player's, provisional, for an account
// without one), or, held by no account, the game's name without a rating.
func seatPlayer(seat game.GameSeat, name string, now time.Time) playerView {
	a := seat.Account
	if a == nil {
		return playerView{Name: name}
	}
	v := playerView{Name: a.Name, Bot: a.Bot, Provisional: true}
	if a.Status == store.AccountDeleted || a.Name == "" {
		v.Name = store.DeletedPlayer
	}
	p := ratings.Params()
	r := float64(shown(p.InitialRating)) // a new player's, provisional
	switch {
	case seat.Change != nil:
		r = float64(shown(seat.Change.Before.Rating))
		v.Provisional = seat.Change.Before.Deviation > p.ProvisionalDeviation
	case seat.Rating != nil:
		r = float64(shown(seat.Rating.Rating))
		v.Provisional = p.Provisional(*seat.Rating, now)
	}
	v.Rating = &r
	return v
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

type profileRating struct {
	Category    string `json:"category"`
	Rating      int    `json:"rating"`
	RD          int    `json:"rd"`
	Provisional bool   `json:"provisional"`
	Games       int    `json:"games"`
}

type sideRecordView struct {
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
}

type profileView struct {
	Name    string          `json:"name"`
	Bot     bool            `json:"bot"`
	Created time.Time       `json:"created"`
	Ratings []profileRating `json:"ratings"`
	BySide  struct {
		South sideRecordView `json:"s"`
		North sideRecordView `json:"n"`
	} `json:"by_side"`
}

// getPlayer answers GET /api/players/{name}: the player's ratings, each
// with its deviation grown to now, and results by side.
func (s *Server) getPlayer(w http.ResponseWriter, r *http.Request, a *store.Account) {
	list, err := s.store.PlayerRatings(r.Context(), a.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	rec, err := s.store.SideRecords(r.Context(), a.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p, now := ratings.Params(), time.Now()
	v := profileView{Name: a.Name, Bot: a.Kind == store.AccountBot, Created: a.Created, Ratings: make([]profileRating, 0, len(list))}
	for _, pr := range list {
		cur := p.Current(pr.Rating, now)
		v.Ratings = append(v.Ratings, profileRating{Category: pr.Category, Rating: shown(cur.Rating), RD: shown(cur.Deviation),
			Provisional: cur.Deviation > p.ProvisionalDeviation, Games: pr.Games})
	}
	for side, rv := range []*sideRecordView{&v.BySide.South, &v.BySide.North} {
		*rv = sideRecordView{rec[side].Wins, rec[side].Draws, rec[side].Losses}
	}
	writeJSON(w, http.StatusOK, v)
}

type ratingPoint struct {
	At     time.Time `json:"at"`
	Rating int       `json:"rating"`
	RD     int       `json:"rd"`
	Game   string    `json:"game"`
}

// getPlayerRatings answers GET /api/players/{name}/ratings?category=: the
// player's rating after each of its latest rated games there, oldest
// first.
func (s *Server) getPlayerRatings(w http.ResponseWriter, r *http.Request, a *store.Account) {
	cat, err := queryCategory(r, true)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	h, err := s.store.RatingHistory(r.Context(), a.ID, cat, MaxRatingPoints)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	points := make([]ratingPoint, 0, len(h))
	for _, ch := range h {
		points = append(points, ratingPoint{At: ch.At, Rating: shown(ch.After.Rating), RD: shown(ch.After.Deviation), Game: ch.GameID})
	}
	writeJSON(w, http.StatusOK, map[string]any{"category": cat, "points": points})
}

// playerGameView is a game in a player's list: its summary, the player's
// side and result, the opponent and, for a rated game, the change of the
// player's rating.
type playerGameView struct {
	api.Summary
	Side         string      `json:"side"`
	Result       *string     `json:"result"` // the player's: "win", "draw", "loss"; null while the game goes on or if it was aborted
	Opponent     playerView  `json:"opponent"`
	Rated        bool        `json:"rated"`
	Category     string      `json:"category"`
	RatingChange *changeView `json:"rating_change,omitempty"`
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
	switch f.Result {
	case "", "win", "draw", "loss":
	default:
		s.fail(w, r, errorf(http.StatusBadRequest, "result=%q: want win, draw or loss", clip(f.Result)))
		return
	}
	switch f.Side {
	case "", "s", "n":
	default:
		s.fail(w, r, errorf(http.StatusBadRequest, "side=%q: want s or n", clip(f.Side)))
		return
	}
	var err error
	if f.Category, err = queryCategory(r, false); err != nil {
		s.fail(w, r, err)
		return
	}
	if f.Limit, err = queryInt(r, "limit", 20, 1, MaxPlayerGames); err != nil {
		s.fail(w, r, err)
		return
	}
	if text := q.Get("before"); text != "" {
		if f.Before, err = decodeCursor(text); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	if name := q.Get("opponent"); name != "" {
		opp, err := s.accountNamed(r.Context(), name)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		f.OpponentID = opp.ID
	}
	// One game more than the page says whether another page follows.
	limit := f.Limit
	f.Limit++
	list, err := s.store.PlayerGames(r.Context(), a.ID, f)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	more := len(list) > limit
	list = list[:min(len(list), limit)]
	now := time.Now()
	out := make([]playerGameView, 0, len(list))
	for _, pg := range list {
		v := playerGameView{Summary: api.NewSummary(pg.Summary), Side: string(pg.Side.Letter()), Rated: pg.Rated,
			Category: pg.Category}
		if res, err := rules.ParseResult(pg.Result); err == nil {
			if winner, ok := res.Winner(); ok {
				word := "loss"
				if winner == pg.Side {
					word = "win"
				}
				v.Result = &word
			} else if res == rules.Draw {
				word := "draw"
				v.Result = &word
			}
		}
		names := [2]string{pg.South, pg.North}
		seat := game.GameSeat{Account: pg.Opponent, Rating: pg.OpponentRating}
		v.Opponent = seatPlayer(seat, names[pg.Side.Opponent()], now)
		if pg.Rated && pg.OpponentRating != nil && pg.Change != nil {
			// The opponent's rating before the game, as the game showed it.
			v.Opponent.Provisional = pg.OpponentRating.Deviation > ratings.Params().ProvisionalDeviation
		}
		if pg.Change != nil {
			cv := newChangeView(pg.Change)
			v.RatingChange = &cv
		}
		out = append(out, v)
	}
	var next *string
	if more {
		last := list[len(list)-1]
		c := encodeCursor(store.GameCursor{Created: last.Created, ID: last.ID})
		next = &c
	}
	writeJSON(w, http.StatusOK, map[string]any{"games": out, "next": next})
}

// boardYou is the asker's place as to a leaderboard: their rating in its
// category now (a new player's when they have none) and about how many
// more rated games it needs to be established.
type boardYou struct {
	Rating      int  `json:"rating"`
	RD          int  `json:"rd"`
	Provisional bool `json:"provisional"`
	Games       int  `json:"games"`
	Needed      int  `json:"needed"`
}

type boardPlace struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Rating int    `json:"rating"`
	RD     int    `json:"rd"`
	Games  int    `json:"games"`
	Bot    bool   `json:"bot"`
}

// getLeaderboard answers GET /api/leaderboard?category=&limit=: the
// highest ratings of the category among the players who played a rated
// game there in the last 30 days and are not provisional.
func (s *Server) getLeaderboard(w http.ResponseWriter, r *http.Request) {
	cat, err := queryCategory(r, true)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	limit, err := queryInt(r, "limit", MaxLeaderboard, 1, MaxLeaderboard)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	now := time.Now()
	list, err := s.store.Leaderboard(r.Context(), cat, now, now.Add(-leaderboardDays*24*time.Hour), limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := ratings.Params()
	places := make([]boardPlace, 0, len(list))
	for i, e := range list {
		places = append(places, boardPlace{Rank: i + 1, Name: e.Name, Rating: shown(e.Rating.Rating),
			RD: shown(p.Current(e.Rating, now).Deviation), Games: e.Games, Bot: e.Bot})
	}
	out := map[string]any{"category": cat, "players": places, "games_to_appear": p.GamesToEstablish(p.Initial(), now)}
	if mayAsk(r) {
		if a, err := s.asker(r); err == nil {
			you, err := s.boardYou(r.Context(), a.ID, cat, now)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			out["you"] = you
		}
	}
	writeJSON(w, http.StatusOK, out)
}

// boardYou is account id's place as to the leaderboard of category.
func (s *Server) boardYou(ctx context.Context, id, category string, now time.Time) (boardYou, error) {
	p := ratings.Params()
	r, games := p.Initial(), 0
	list, err := s.store.PlayerRatings(ctx, id)
	if err != nil {
		return boardYou{}, err
	}
	for _, pr := range list {
		if pr.Category == category {
			r, games = pr.Rating, pr.Games
		}
	}
	cur := p.Current(r, now)
	return boardYou{Rating: shown(cur.Rating), RD: shown(cur.Deviation), Provisional: cur.Deviation > p.ProvisionalDeviation,
		Games: games, Needed: p.GamesToEstablish(r, now)}, nil
}

// refreshAdvantages fits the first mover's advantage of every category
// with rated games from its latest games, and stores it: the games that
// end afterwards use it.
func (s *Server) refreshAdvantages(ctx context.Context) error {
	cats, err := s.store.RatedCategories(ctx)
	if err != nil {
		return err
	}
	for _, cat := range cats {
		stored, err := s.store.AdvantageGames(ctx, cat, advantageGames)
		if err != nil {
			return err
		}
		games := make([]rating.SidedGame, len(stored))
		for i, g := range stored {
			games[i] = rating.SidedGame{First: g.First, Second: g.Second, Score: g.Score}
		}
		fit, err := rating.FitAdvantage(games, rating.DefaultAdvantagePrior)
		if err != nil {
			s.log.Warn("fitting the first mover's advantage", "category", cat, "games", len(games), "err", err)
			continue
		}
		a := store.Advantage{Advantage: fit.Advantage, StdErr: fit.StdErr, Games: fit.Games, Updated: time.Now()}
		if err := s.store.SetAdvantage(ctx, cat, a); err != nil {
			return err
		}
		s.log.Debug("first mover's advantage", "category", cat, "fit", fit.String())
	}
	return nil
}

// fitAdvantages refreshes the advantages at once and every
// advantageRefresh until ctx ends.
func (s *Server) fitAdvantages(ctx context.Context) {
	t := time.NewTicker(advantageRefresh)
	defer t.Stop()
	for {
		if err := s.refreshAdvantages(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("refreshing the first mover's advantages", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
