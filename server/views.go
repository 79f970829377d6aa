package server

import (
	"context"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// gameView is a game as the API shows it (docs/api.md).
type gameView struct {
	ID         string       `json:"id"`
	South      string       `json:"south"`
	North      string       `json:"north"`
	Holes      int          `json:"holes"`
	Variant    string       `json:"variant"`
	MaxLaps    int          `json:"maxLaps"`
	Start      string       `json:"start"`
	Position   string       `json:"position"`
	Positions  []string     `json:"positions"` // after 0, 1, ... moves
	Moves      []string     `json:"moves"`
	ToMove     string       `json:"toMove"` // "s" or "n"
	LegalMoves []string     `json:"legalMoves"`
	Status     string       `json:"status"` // "playing", "no-legal-move", "repetition", or "resigned" and the others of an online game
	Result     string       `json:"result"` // "*", "1-0", "0-1" or "1/2-1/2"
	Score      scoreView    `json:"score"`  // captured seeds, the end-of-game sweep included
	Computer   *computerRef `json:"computer,omitempty"`
	Online     *onlineView  `json:"online,omitempty"`
	SeriesID   string       `json:"seriesId,omitempty"`
	Series     *seriesView  `json:"series,omitempty"`
	Created    time.Time    `json:"created"`
	Updated    time.Time    `json:"updated"`

	// Sowings are how the moves sowed, lap by lap, for replaying them:
	// Sowings[k] is move SowingsFrom+k+1's. The earliest moves of a game
	// whose laps exceed MaxViewLaps have none (SowingsFrom > 0).
	Sowings     []sowingView `json:"sowings"`
	SowingsFrom int          `json:"sowingsFrom"`
}

type scoreView struct {
	South int `json:"south"`
	North int `json:"north"`
}

type computerRef struct {
	Side  string `json:"side"` // "s" or "n"
	Level int    `json:"level"`
}

// view is game g as the API shows it, with its series' tally and, for an
// online game, its seats, clocks and offers.
func (s *Server) view(ctx context.Context, g *play.Game) (gameView, error) {
	v := newGameView(g)
	if g.Online() != nil {
		v.Online = s.newOnlineView(g, time.Now())
	}
	if id := g.Info().SeriesID; id != "" {
		sr, err := s.store.Series(ctx, id)
		if err != nil {
			return v, err
		}
		sv := newSeriesView(sr)
		v.Series = &sv
	}
	return v, nil
}

func newGameView(g *play.Game) gameView {
	b, info := g.Board(), g.Info()
	p := b.Position()
	v := gameView{
		ID: info.ID, South: info.South, North: info.North, Holes: p.Holes(),
		Variant: b.Rules().Variant.String(), MaxLaps: b.Rules().Laps(),
		Start: b.Start().String(), Position: p.String(), ToMove: string(p.ToMove().Letter()),
		Moves: []string{}, LegalMoves: []string{}, Positions: make([]string, 0, b.Ply()+1),
		Status: g.Status(), Result: g.Result(),
		SeriesID: info.SeriesID, Created: info.Created, Updated: info.Updated,
	}
	for i := 0; i <= b.Ply(); i++ {
		v.Positions = append(v.Positions, b.PositionAt(i).String())
	}
	for _, m := range b.Moves() {
		v.Moves = append(v.Moves, m.String())
	}
	if g.End() == "" {
		for _, m := range b.LegalMoves() {
			v.LegalMoves = append(v.LegalMoves, m.String())
		}
	}
	sowings, from := g.Sowings(MaxViewLaps)
	v.Sowings, v.SowingsFrom = make([]sowingView, 0, len(sowings)), from
	for _, sw := range sowings {
		v.Sowings = append(v.Sowings, newSowingView(sw))
	}
	v.Score.South, v.Score.North = b.Score()
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

// sowingView is one move lap by lap, for the animation. Holes are numbered
// in sowing order, 0..2H-1 (South's a.. then North's A..).
type sowingView struct {
	Move        string    `json:"move"`
	Laps        []lapView `json:"laps"`
	CaptureFrom int       `json:"captureFrom"` // -1: no capture
	Captured    int       `json:"captured"`
}

type lapView struct {
	From  int `json:"from"`
	Seeds int `json:"seeds"`
	To    int `json:"to"`
}

func newSowingView(sw rules.Sowing) sowingView {
	v := sowingView{Move: sw.Move.String(), CaptureFrom: sw.CaptureFrom, Captured: sw.Captured, Laps: []lapView{}}
	for _, l := range sw.Laps {
		v.Laps = append(v.Laps, lapView{From: l.From, Seeds: l.Seeds, To: l.To})
	}
	return v
}

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

// answerMove answers with game g after the move that made change ch, and
// how the move sowed.
func (s *Server) answerMove(w http.ResponseWriter, r *http.Request, g *play.Game, ch play.Change) error {
	v, err := s.view(r.Context(), g)
	if err == nil {
		writeJSON(w, http.StatusOK, moveView{Game: v, Sowing: newSowingView(*ch.Sowing)})
	}
	return err
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

func newSummaryView(s store.Summary) summaryView {
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
func (s *Server) summaries(ctx context.Context, list []store.Summary) ([]summaryView, error) {
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

func clockView(c store.Clock) *clockRequest {
	switch {
	case c.Time == 0:
		return nil
	case c.PerMove:
		return &clockRequest{Days: int(c.Time / (24 * time.Hour))}
	}
	return &clockRequest{Minutes: int(c.Time / time.Minute), Increment: int(c.Increment / time.Second)}
}

func (s *Server) newOnlineView(g *play.Game, now time.Time) *onlineView {
	o := g.Online()
	left, running, ok := g.Clocks(now)
	v := &onlineView{
		Seats:     sideFlags{o.Seats[rules.South] != "", o.Seats[rules.North] != ""},
		Clock:     clockView(o.Clock),
		Clocks:    sideMillis{left[rules.South].Milliseconds(), left[rules.North].Milliseconds()},
		DrawOffer: o.DrawOffer, TakebackOffer: o.TakebackOffer, RematchOffer: o.RematchOffer,
		Next: o.Next, End: o.End, Rev: o.Rev,
	}
	if ok {
		v.Running = string(running.Letter())
	}
	v.Connected, v.Watchers = s.live.presence(g.ID())
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

func newSeriesView(sr *store.Series) seriesView {
	t := play.TallyOf(sr)
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
