package server

import (
	"context"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// gameView is a game as the API shows it (docs/api.md): its board, as
// the browser's worker shows one too, with what a stored game adds. Its
// Status is also "resigned" and the others of an online game; its
// Sowings[k] is move SowingsFrom+k+1's: the earliest moves of a game
// whose laps exceed MaxViewLaps have none (SowingsFrom > 0).
type gameView struct {
	ID    string `json:"id"`
	South string `json:"south"`
	North string `json:"north"`
	gameview.Board
	SowingsFrom int          `json:"sowingsFrom"`
	Computer    *computerRef `json:"computer,omitempty"`
	Online      *onlineView  `json:"online,omitempty"`
	SeriesID    string       `json:"seriesId,omitempty"`
	Series      *seriesView  `json:"series,omitempty"`
	Created     time.Time    `json:"created"`
	Updated     time.Time    `json:"updated"`

	// Rated, for an online game in which an account holds a seat or
	// that is rated, whether it is (false once it ended casual or
	// aborted); its players with their ratings and, once rated and ended,
	// the game's change of them (ratings.go).
	Rated        *bool             `json:"rated,omitempty"`
	Players      *playersView      `json:"players,omitempty"`
	RatingChange *ratingChangeView `json:"rating_change,omitempty"`
}

// The API's score (captured seeds by side) and sowing of a move, as in a
// game's board.
type (
	scoreView  = gameview.Score
	sowingView = gameview.Sowing
)

type computerRef struct {
	Side  string `json:"side"` // "s" or "n"
	Level int    `json:"level"`
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
	v := newGameView(st)
	addRatings(&v, st)
	if st.Series != nil {
		sv := newSeriesView(st.Series, st.Tally)
		v.Series = &sv
	}
	if st.Info.Online != nil {
		v.Online = newOnlineView(st)
		v.Online.Connected, v.Online.Watchers = s.live.presence(st.Info.ID)
	}
	return v
}

func newGameView(st *play.State) gameView {
	info := &st.Info
	v := gameView{
		ID: info.ID, South: info.South, North: info.North, Board: gameview.NewBoard(st.Board, st.Sowings),
		SowingsFrom: st.SowingsFrom, SeriesID: info.SeriesID, Created: info.Created, Updated: info.Updated,
	}
	// A game ended other than by the rules says so, and takes no move.
	v.Status, v.Result = st.Status, st.Result
	if st.End != "" {
		v.LegalMoves = []string{}
	}
	if c := info.Computer; c != nil {
		v.Computer = &computerRef{Side: string(c.Side.Letter()), Level: c.Level}
	}
	return v
}

// MaxViewLaps bounds the laps a game view lists in its sowings, since
// every answer about a game carries its view: nothing but the repetition
// rule bounds a game's length, nor anything but its lap cap (at most
// MaxLaps) a move's laps. Whole games hold a few hundred laps, random
// games on 16 holes of 12 seeds under two thousand; the latest move
// always fits.
const MaxViewLaps = 2 * MaxLaps

// newSowingView is how a move sowed, as the API shows it.
func newSowingView(sw rules.Sowing) sowingView { return gameview.NewSowing(sw) }

// moveView answers a move: the game after it and how the move sowed.
type moveView struct {
	Game   gameView   `json:"game"`
	Sowing sowingView `json:"sowing"`
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
	writeJSON(w, http.StatusOK, moveView{Game: s.stateView(&ch.State), Sowing: newSowingView(*ch.Sowing)})
}

type summaryView struct {
	ID       string       `json:"id"`
	South    string       `json:"south"`
	North    string       `json:"north"`
	Holes    int          `json:"holes"`
	Variant  string       `json:"variant"`
	Moves    int          `json:"moves"`
	Result   string       `json:"result"`
	SeriesID string       `json:"seriesId,omitempty"`
	Created  time.Time    `json:"created"`
	Updated  time.Time    `json:"updated"`
	Score    *scoreView   `json:"score,omitempty"`    // captured seeds, the sweep included
	Computer *computerRef `json:"computer,omitempty"` // the computer player, if any
	// Status is the game's status as in its view (docs/api.md); the
	// listing of online games being played knows only "playing" or "over".
	Status string `json:"status,omitempty"`
	// Online games only:
	Online bool   `json:"online,omitempty"`
	ToMove string `json:"toMove,omitempty"`
	End    string `json:"end,omitempty"`
}

func newSummaryView(s game.Summary) summaryView {
	v := summaryView{ID: s.ID, South: s.South, North: s.North, Holes: s.Holes, Variant: s.Variant.String(),
		Moves: s.Moves, Result: s.Result, SeriesID: s.SeriesID, Created: s.Created, Updated: s.Updated}
	if s.Online {
		v.Online, v.ToMove, v.End = true, string(s.ToMove.Letter()), s.End
		switch {
		case s.End != "":
			v.Status = play.EndStatus(s.End)
		case s.Result == "*":
			v.Status = "playing"
		default:
			v.Status = "over"
		}
	}
	return v
}

// summaries are the listing's views of list, each with its score, its
// status and its computer player, which only the game itself knows.
func (s *Server) summaries(ctx context.Context, list []game.Summary) ([]summaryView, error) {
	views := make([]summaryView, 0, len(list))
	for _, sm := range list {
		v := newSummaryView(sm)
		g, err := s.table.Load(ctx, sm.ID)
		if err != nil {
			return nil, err
		}
		v.Status = g.Status()
		sc := scoreView{}
		sc.South, sc.North = g.Board().Score()
		v.Score = &sc
		if c := g.Info().Computer; c != nil {
			v.Computer = &computerRef{Side: string(c.Side.Letter()), Level: c.Level}
		}
		views = append(views, v)
	}
	return views, nil
}

// onlineView is the online part of a game as the API shows it.
type onlineView struct {
	Seats         sideFlags     `json:"seats"`
	Connected     sideFlags     `json:"connected"`
	Watchers      int           `json:"watchers"`
	Clock         *clockRequest `json:"clock"`
	Clocks        sideMillis    `json:"clocks"`
	Running       string        `json:"running"`
	DrawOffer     string        `json:"drawOffer"`
	TakebackOffer string        `json:"takebackOffer"`
	RematchOffer  string        `json:"rematchOffer"`
	Next          string        `json:"next"`
	End           string        `json:"end"`
	Rev           int64         `json:"rev"`
}

type sideFlags struct {
	South bool `json:"s"`
	North bool `json:"n"`
}

type sideMillis struct {
	South int64 `json:"s"`
	North int64 `json:"n"`
}

func clockView(c game.Clock) *clockRequest {
	switch {
	case c.Time == 0:
		return nil
	case c.PerMove:
		return &clockRequest{Days: int(c.Time / (24 * time.Hour))}
	}
	return &clockRequest{Minutes: int(c.Time / time.Minute), Increment: int(c.Increment / time.Second)}
}

// newOnlineView is the online part of game state st as the API shows it,
// but for who is connected, which the live hub knows.
func newOnlineView(st *play.State) *onlineView {
	o := st.Info.Online
	v := &onlineView{
		Seats:     sideFlags{o.Seats[rules.South] != "", o.Seats[rules.North] != ""},
		Clock:     clockView(o.Clock),
		Clocks:    sideMillis{st.Clocks[rules.South].Milliseconds(), st.Clocks[rules.North].Milliseconds()},
		DrawOffer: o.DrawOffer, TakebackOffer: o.TakebackOffer, RematchOffer: o.RematchOffer,
		Next: o.Next, End: o.End, Rev: o.Rev,
	}
	if st.Runs {
		v.Running = string(st.Running.Letter())
	}
	return v
}

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

// newSeriesView is series sr, whose score is t, as the API shows it.
func newSeriesView(sr *game.Series, t play.Tally) seriesView {
	v := seriesView{ID: sr.ID, Target: sr.Target, Results: make([]string, 0, len(sr.Games)),
		Wins: scoreView{South: t.Wins[rules.South], North: t.Wins[rules.North]}, Draws: t.Draws, Over: t.Over}
	for _, g := range sr.Games {
		v.Results = append(v.Results, g.Result)
	}
	if t.Over {
		v.Winner = string(t.Winner.Letter())
	}
	return v
}
