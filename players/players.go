// Package players shows the players' standing (docs/api.md, Players): a
// game's players with their ratings and the game's change of them, the
// players' profiles, rating histories and games, and the leaderboards,
// read from a store; and it fits, from the rated games, the first mover's
// advantage of each rating category, which the ratings (package ratings)
// apply to the games that end afterwards. It speaks no HTTP: the server
// reads the requests and encodes what it returns, whose fields carry the
// API's JSON names.
package players

import (
	"context"
	"errors"
	"log/slog"
	"math"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/players/standing"
	"github.com/endodoi/endodoi/rating"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// Limits of the reads.
const (
	MaxGames        = 100  // games in one page of a player's games
	MaxPoints       = 1000 // the latest changes of a rating a history shows
	MaxLeaderboard  = 100  // places on a leaderboard
	leaderboardDays = 30   // a player on a leaderboard played a rated game in these last days
	// advantageRefresh is how often the advantages are fitted again;
	// advantageGames bounds the rated games of a category the advantage
	// is fitted from: the latest.
	advantageRefresh = time.Hour
	advantageGames   = 50_000
)

// Store is what the standing is read from, and where the advantages
// fitted are kept; package store implements it.
type Store interface {
	// PlayerRatings returns account id's ratings, one per category it
	// played rated games in, ordered by category.
	PlayerRatings(ctx context.Context, accountID string) ([]standing.PlayerRating, error)
	// RatingHistory returns the latest limit changes of account id's
	// rating in category, oldest first.
	RatingHistory(ctx context.Context, accountID, category string, limit int) ([]game.RatingChange, error)
	// Leaderboard returns the top limit ratings of category among the
	// accounts that played a rated game there at or after activeSince and
	// are not provisional at now.
	Leaderboard(ctx context.Context, category string, now, activeSince time.Time, limit int) ([]standing.BoardEntry, error)
	// PlayerGames returns the online games in which account id holds a
	// seat, as f selects them, the latest made first.
	PlayerGames(ctx context.Context, accountID string, f standing.PlayerGamesFilter) ([]standing.PlayerGame, error)
	// SideRecords returns account id's wins, draws and losses by side.
	SideRecords(ctx context.Context, accountID string) ([2]standing.Record, error)
	// RatedCategories returns the categories that have rated games;
	// AdvantageGames the latest limit rated games of one; SetAdvantage
	// stores the advantage fitted from them.
	RatedCategories(ctx context.Context) ([]string, error)
	AdvantageGames(ctx context.Context, category string, limit int) ([]standing.SidedGame, error)
	SetAdvantage(ctx context.Context, category string, a standing.Advantage) error
}

// Service reads the standing of a store's players.
type Service struct {
	store Store
	log   *slog.Logger
}

// New returns the players of st.
func New(st Store, log *slog.Logger) *Service { return &Service{store: st, log: log} }

// Player is a player as the API shows one, with a rating, as the lobby
// does.
type Player = lobby.Player

// Shown is a rating as it is shown: to the nearest point.
func Shown(r float64) int { return int(math.Round(r)) }

// Change is a rated game's change of one player's rating, rounded as
// ratings are shown: Diff is After − Before; Provisional says the rating
// after is.
type Change struct {
	Before      int  `json:"before"`
	After       int  `json:"after"`
	Diff        int  `json:"diff"`
	Provisional bool `json:"provisional"`
}

// NewChange is ch as it is shown.
func NewChange(ch *game.RatingChange) Change {
	b, a := Shown(ch.Before.Rating), Shown(ch.After.Rating)
	return Change{Before: b, After: a, Diff: a - b, Provisional: ch.After.Deviation > ratings.Params().ProvisionalDeviation}
}

// InGame is an online game's players as its view shows them: whether it
// is rated, for a game in which an account holds a seat or that is rated
// (false once it ended casual or aborted); its players with their
// ratings, when an account holds a seat; and once rated and ended, the
// game's change of their ratings.
type InGame struct {
	Rated        *bool    `json:"rated,omitempty"`
	Players      *Players `json:"players,omitempty"`
	RatingChange *Changes `json:"rating_change,omitempty"`
}

// Players are a game's players by side.
type Players struct {
	South Player `json:"s"`
	North Player `json:"n"`
}

// Changes are a game's changes of its players' ratings by side.
type Changes struct {
	South Change `json:"s"`
	North Change `json:"n"`
}

// OfGame is the players of the game in state st, as its view shows them
// at now.
func OfGame(st *play.State, now time.Time) InGame {
	var v InGame
	rated := st.Info.Rated
	gr := st.Ratings
	if gr != nil {
		rated = gr.Rated
	}
	if rated {
		v.Rated = &rated
	}
	if gr == nil || gr.Seats[rules.South].Account == nil && gr.Seats[rules.North].Account == nil {
		return v // a game between guests: no ratings to show
	}
	v.Rated = &rated
	v.Players = &Players{SeatPlayer(gr.Seats[rules.South], st.Info.South, now), SeatPlayer(gr.Seats[rules.North], st.Info.North, now)}
	if s, n := gr.Seats[rules.South].Change, gr.Seats[rules.North].Change; s != nil && n != nil {
		v.RatingChange = &Changes{NewChange(s), NewChange(n)}
	}
	return v
}

// deleted is a deleted account's status (account.Deleted) as a seat's
// account carries it.
const deleted = "deleted"

// SeatPlayer is the player of a seat whose game names it name: its
// account's name and rating in the game's category (before the game once
// the game has changed it; a new player's, provisional, for an account
// without one), or, held by no account, the game's name without a rating.
func SeatPlayer(seat game.GameSeat, name string, now time.Time) Player {
	a := seat.Account
	if a == nil {
		return Player{Name: name}
	}
	v := Player{Name: a.Name, Bot: a.Bot, Provisional: true}
	if a.Status == deleted || a.Name == "" {
		v.Name = game.DeletedPlayer
	}
	p := ratings.Params()
	r := float64(Shown(p.InitialRating)) // a new player's, provisional
	switch {
	case seat.Change != nil:
		r = float64(Shown(seat.Change.Before.Rating))
		v.Provisional = seat.Change.Before.Deviation > p.ProvisionalDeviation
	case seat.Rating != nil:
		r = float64(Shown(seat.Rating.Rating))
		v.Provisional = p.Provisional(*seat.Rating, now)
	}
	v.Rating = &r
	return v
}

// Profile is a player's profile: their ratings, each with its deviation
// grown to now, and results by side. Name, Bot and Created are the
// account's, which the caller sets.
type Profile struct {
	Name    string    `json:"name"`
	Bot     bool      `json:"bot"`
	Created time.Time `json:"created"`
	Ratings []Rating  `json:"ratings"`
	BySide  struct {
		South SideRecord `json:"s"`
		North SideRecord `json:"n"`
	} `json:"by_side"`
}

// Rating is a player's rating in one category, as their profile shows
// it.
type Rating struct {
	Category    string `json:"category"`
	Rating      int    `json:"rating"`
	RD          int    `json:"rd"`
	Provisional bool   `json:"provisional"`
	Games       int    `json:"games"`
}

// SideRecord is a player's results on one side.
type SideRecord struct {
	Wins   int `json:"wins"`
	Draws  int `json:"draws"`
	Losses int `json:"losses"`
}

// Profile returns the profile of account id at now.
func (s *Service) Profile(ctx context.Context, id string, now time.Time) (*Profile, error) {
	list, err := s.store.PlayerRatings(ctx, id)
	if err != nil {
		return nil, err
	}
	rec, err := s.store.SideRecords(ctx, id)
	if err != nil {
		return nil, err
	}
	p := ratings.Params()
	v := &Profile{Ratings: make([]Rating, 0, len(list))}
	for _, pr := range list {
		cur := p.Current(pr.Rating, now)
		v.Ratings = append(v.Ratings, Rating{Category: pr.Category, Rating: Shown(cur.Rating), RD: Shown(cur.Deviation),
			Provisional: cur.Deviation > p.ProvisionalDeviation, Games: pr.Games})
	}
	for side, rv := range []*SideRecord{&v.BySide.South, &v.BySide.North} {
		*rv = SideRecord{rec[side].Wins, rec[side].Draws, rec[side].Losses}
	}
	return v, nil
}

// Point is a player's rating after one of their rated games.
type Point struct {
	At     time.Time `json:"at"`
	Rating int       `json:"rating"`
	RD     int       `json:"rd"`
	Game   string    `json:"game"`
}

// History returns account id's rating in category after each of its
// latest MaxPoints rated games there, oldest first.
func (s *Service) History(ctx context.Context, id, category string) ([]Point, error) {
	h, err := s.store.RatingHistory(ctx, id, category, MaxPoints)
	if err != nil {
		return nil, err
	}
	points := make([]Point, 0, len(h))
	for _, ch := range h {
		points = append(points, Point{At: ch.At, Rating: Shown(ch.After.Rating), RD: Shown(ch.After.Deviation), Game: ch.GameID})
	}
	return points, nil
}

// Game is a game in a player's list: its summary, the player's side and
// result, the opponent and, for a rated game, the change of the player's
// rating.
type Game struct {
	api.Summary
	Side         string  `json:"side"`
	Result       *string `json:"result"` // the player's: "win", "draw", "loss"; null while the game goes on or if it was aborted
	Opponent     Player  `json:"opponent"`
	Rated        bool    `json:"rated"`
	Category     string  `json:"category"`
	RatingChange *Change `json:"rating_change,omitempty"`
}

// Games returns the online games account id held a seat in, as f selects
// them, the latest made first, at most f.Limit; and the place of the last
// one if another page follows.
func (s *Service) Games(ctx context.Context, id string, f standing.PlayerGamesFilter, now time.Time) ([]Game, *standing.GameCursor, error) {
	// One game more than the page says whether another page follows.
	limit := f.Limit
	f.Limit++
	list, err := s.store.PlayerGames(ctx, id, f)
	if err != nil {
		return nil, nil, err
	}
	more := len(list) > limit
	list = list[:min(len(list), limit)]
	out := make([]Game, 0, len(list))
	for _, pg := range list {
		v := Game{Summary: api.NewSummary(pg.Summary), Side: string(pg.Side.Letter()), Rated: pg.Rated, Category: pg.Category}
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
		v.Opponent = SeatPlayer(seat, names[pg.Side.Opponent()], now)
		if pg.Rated && pg.OpponentRating != nil && pg.Change != nil {
			// The opponent's rating before the game, as the game showed it.
			v.Opponent.Provisional = pg.OpponentRating.Deviation > ratings.Params().ProvisionalDeviation
		}
		if pg.Change != nil {
			cv := NewChange(pg.Change)
			v.RatingChange = &cv
		}
		out = append(out, v)
	}
	if !more {
		return out, nil, nil
	}
	last := list[len(list)-1]
	return out, &standing.GameCursor{Created: last.Created, ID: last.ID}, nil
}

// Place is a place on a leaderboard.
type Place struct {
	Rank   int    `json:"rank"`
	Name   string `json:"name"`
	Rating int    `json:"rating"`
	RD     int    `json:"rd"`
	Games  int    `json:"games"`
	Bot    bool   `json:"bot"`
}

// Leaderboard is the leaderboard of a category: its places, the rated
// games a new player needs to appear, and the asker's own place.
type Leaderboard struct {
	Category      string  `json:"category"`
	Players       []Place `json:"players"`
	GamesToAppear int     `json:"games_to_appear"`
	You           *You    `json:"you,omitempty"`
}

// You is the asker's place as to a leaderboard: their rating in its
// category now (a new player's when they have none) and about how many
// more rated games it needs to be established.
type You struct {
	Rating      int  `json:"rating"`
	RD          int  `json:"rd"`
	Provisional bool `json:"provisional"`
	Games       int  `json:"games"`
	Needed      int  `json:"needed"`
}

// Leaderboard returns the limit highest ratings of category at now among
// the players who played a rated game there in the last 30 days and are
// not provisional; with asker not "", that account's place too.
func (s *Service) Leaderboard(ctx context.Context, category string, limit int, asker string, now time.Time) (*Leaderboard, error) {
	list, err := s.store.Leaderboard(ctx, category, now, now.Add(-leaderboardDays*24*time.Hour), limit)
	if err != nil {
		return nil, err
	}
	p := ratings.Params()
	out := &Leaderboard{Category: category, Players: make([]Place, 0, len(list)), GamesToAppear: p.GamesToEstablish(p.Initial(), now)}
	for i, e := range list {
		out.Players = append(out.Players, Place{Rank: i + 1, Name: e.Name, Rating: Shown(e.Rating.Rating),
			RD: Shown(p.Current(e.Rating, now).Deviation), Games: e.Games, Bot: e.Bot})
	}
	if asker == "" {
		return out, nil
	}
	r, games := p.Initial(), 0
	mine, err := s.store.PlayerRatings(ctx, asker)
	if err != nil {
		return nil, err
	}
	for _, pr := range mine {
		if pr.Category == category {
			r, games = pr.Rating, pr.Games
		}
	}
	cur := p.Current(r, now)
	out.You = &You{Rating: Shown(cur.Rating), RD: Shown(cur.Deviation), Provisional: cur.Deviation > p.ProvisionalDeviation,
		Games: games, Needed: p.GamesToEstablish(r, now)}
	return out, nil
}

// RefreshAdvantages fits the first mover's advantage of every category
// with rated games from its latest games, and stores it: the games that
// end afterwards use it.
func (s *Service) RefreshAdvantages(ctx context.Context) error {
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
		a := standing.Advantage{Advantage: fit.Advantage, StdErr: fit.StdErr, Games: fit.Games, Updated: time.Now()}
		if err := s.store.SetAdvantage(ctx, cat, a); err != nil {
			return err
		}
		s.log.Debug("first mover's advantage", "category", cat, "fit", fit.String())
	}
	return nil
}

// FitAdvantages refreshes the advantages at once and every
// advantageRefresh until ctx ends.
func (s *Service) FitAdvantages(ctx context.Context) {
	t := time.NewTicker(advantageRefresh)
	defer t.Stop()
	for {
		if err := s.RefreshAdvantages(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, game.ErrNotFound) {
			s.log.Warn("refreshing the first mover's advantages", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
