// Package gameview is the JSON shape of a game's board as the API shows
// it (docs/api.md): its positions, moves, status, score and how each move
// sowed, lap by lap. The server and the browser's worker (cmd/wasm) both
// answer in it, so that a page reads one shape whichever of them answers.
package gameview

import "github.com/endodoi/endodoi/rules"

// Board is what a game's rules and moves alone decide of its view.
type Board struct {
	Holes      int      `json:"holes"`
	Variant    string   `json:"variant"`
	MaxLaps    int      `json:"maxLaps"`
	Start      string   `json:"start"`
	Position   string   `json:"position"`
	Positions  []string `json:"positions"` // after 0, 1, ... moves
	Moves      []string `json:"moves"`
	ToMove     string   `json:"toMove"` // "s" or "n"
	LegalMoves []string `json:"legalMoves"`
	// Status is "playing", or how the rules ended the game
	// ("no-legal-move", "repetition"); the server's view of a stored game
	// also says how it ended otherwise ("resigned", ...).
	Status string `json:"status"`
	Result string `json:"result"` // "*", "1-0", "0-1" or "1/2-1/2"
	Score  Score  `json:"score"`  // captured seeds, the end-of-game sweep included
	// Sowings are how the moves sowed, lap by lap, for replaying them: the
	// latest moves', as many as the caller gives.
	Sowings []Sowing `json:"sowings"`
}

// Score is each side's captured seeds.
type Score struct {
	South int `json:"south"`
	North int `json:"north"`
}

// Sowing is one move lap by lap, for the animation. Holes are numbered in
// sowing order, 0..2H-1 (South's a.. then North's A..).
type Sowing struct {
	Move        string `json:"move"`
	Laps        []Lap  `json:"laps"`
	CaptureFrom int    `json:"captureFrom"` // -1: no capture
	Captured    int    `json:"captured"`
}

// Lap is one lap of a sowing: the seeds lifted from a hole, and the hole
// where the last one fell.
type Lap struct {
	From  int `json:"from"`
	Seeds int `json:"seeds"`
	To    int `json:"to"`
}

// NewBoard is game g as the API shows it, with sowings, the latest moves'
// in the order played.
func NewBoard(g *rules.Game, sowings []rules.Sowing) Board {
	p := g.Position()
	v := Board{
		Holes: p.Holes(), Variant: g.Rules().Variant.String(), MaxLaps: g.Rules().Laps(),
		Start: g.Start().String(), Position: p.String(), ToMove: string(p.ToMove().Letter()),
		Positions: make([]string, 0, g.Ply()+1), Moves: make([]string, 0, g.Ply()), LegalMoves: []string{},
		Status: StatusName(g.Status()), Result: g.Result().Token(),
		Sowings: make([]Sowing, 0, len(sowings)),
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
	for _, sw := range sowings {
		v.Sowings = append(v.Sowings, NewSowing(sw))
	}
	v.Score.South, v.Score.North = g.Score()
	return v
}

// NewSowing is sowing sw as the API shows it.
func NewSowing(sw rules.Sowing) Sowing {
	v := Sowing{Move: sw.Move.String(), CaptureFrom: sw.CaptureFrom, Captured: sw.Captured, Laps: make([]Lap, 0, len(sw.Laps))}
	for _, l := range sw.Laps {
		v.Laps = append(v.Laps, Lap{From: l.From, Seeds: l.Seeds, To: l.To})
	}
	return v
}

// StatusName is the API's name of a status under the rules of play.
func StatusName(s rules.Status) string {
	switch s {
	case rules.NoLegalMove:
		return "no-legal-move"
	case rules.Repetition:
		return "repetition"
	}
	return "playing"
}
