package server

import (
	"time"

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

func statusName(s rules.Status) string {
	switch s {
	case rules.NoLegalMove:
		return "no-legal-move"
	case rules.Repetition:
		return "repetition"
	}
	return "playing"
}

func newGameView(l *loaded) gameView {
	g, sg := l.game, l.stored
	p := g.Position()
	v := gameView{
		ID: sg.ID, South: sg.South, North: sg.North, Holes: p.Holes(),
		Variant: g.Rules().Variant.String(), MaxLaps: g.Rules().Laps(),
		Start: g.Start().String(), Position: p.String(), ToMove: string(p.ToMove().Letter()),
		Moves: []string{}, LegalMoves: []string{}, Positions: make([]string, 0, g.Ply()+1),
		Status: statusName(g.Status()), Result: g.Result().Token(),
		SeriesID: sg.SeriesID, Created: sg.Created, Updated: sg.Updated,
	}
	for i := 0; i <= g.Ply(); i++ {
		v.Positions = append(v.Positions, g.PositionAt(i).String())
	}
	for _, m := range g.Moves() {
		v.Moves = append(v.Moves, m.String())
	}
	for _, m := range g.LegalMoves() {
		v.LegalMoves = append(v.LegalMoves, m.String())
	}
	v.Sowings, v.SowingsFrom = sowingsOf(g, MaxViewLaps)
	v.Score.South, v.Score.North = g.Score()
	if sg.Computer != nil {
		v.Computer = &computerRef{Side: string(sg.Computer.Side.Letter()), Level: sg.Computer.Level}
	}
	if resigned(l) {
		v.Status, v.Result, v.LegalMoves = onlineStatus(endResign), sg.Result, []string{}
	}
	return v
}

// gameStatus is the status of game l as its view shows it: "playing", how
// the rules ended it, or how it ended otherwise (a resignation; online
// also time, agreement, abort or expiry).
func gameStatus(l *loaded) string {
	if o := l.stored.Online; o != nil && o.End != "" {
		return onlineStatus(o.End)
	}
	if resigned(l) {
		return onlineStatus(endResign)
	}
	return statusName(l.game.Status())
}

// MaxViewLaps bounds the laps a game view lists in its sowings, since
// every answer about a game carries its view: nothing but the repetition
// rule bounds a game's length, nor anything but its lap cap (at most
// MaxLaps) a move's laps. Whole games hold a few hundred laps, random
// games on 16 holes of 12 seeds under two thousand; the latest move
// always fits.
const MaxViewLaps = 2 * MaxLaps

// sowingsOf traces the moves of g, the latest first, while their laps
// stay within budget; it returns the sowings in the order played and the
// number of earlier moves left out.
func sowingsOf(g *rules.Game, budget int) ([]sowingView, int) {
	moves := g.Moves()
	from, laps := len(moves), 0
	var rev []sowingView
	for from > 0 {
		_, sw, err := g.PositionAt(from-1).Trace(moves[from-1], g.Rules())
		if err != nil || laps+len(sw.Laps) > budget {
			// A stored move always replays; the error leaves the earlier
			// moves out rather than failing the whole view.
			break
		}
		laps += len(sw.Laps)
		rev = append(rev, newSowingView(sw))
		from--
	}
	out := make([]sowingView, len(rev))
	for i, sv := range rev {
		out[len(rev)-1-i] = sv
	}
	return out, from
}

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
			v.Status = onlineStatus(s.End)
		case s.Result == "*":
			v.Status = "playing"
		default:
			v.Status = "over"
		}
	}
	return v
}
