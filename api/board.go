package api

import (
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// MaxAnalysisTime is the longest search an analysis may ask for.
const MaxAnalysisTime = 10 * time.Second

// Board names a position, the rules and moves played from it: the
// analysis board's state, which the server does not store. It is the body
// of POST /api/position.
type Board struct {
	Position string   `json:"position"`
	Moves    []string `json:"moves"` // played from the position first
	Variant  string   `json:"variant"`
	MaxLaps  int      `json:"maxLaps"`
}

// Replay plays the board's moves from its position. It also returns how
// the last move sowed, if there was one.
func (req *Board) Replay() (*rules.Game, *rules.Sowing, error) {
	if req.Position == "" {
		return nil, nil, Errorf(StatusBadRequest, "no position given")
	}
	ng := NewGame{Position: req.Position, Variant: req.Variant, MaxLaps: req.MaxLaps}
	sg, err := ng.Game()
	if err != nil {
		return nil, nil, err
	}
	g, err := rules.NewGame(sg.Start, sg.Rules)
	if err != nil {
		return nil, nil, Errorf(StatusBadRequest, "%v", err)
	}
	if len(req.Moves) > record.MaxMoves {
		return nil, nil, Errorf(StatusBadRequest, "%d moves, more than the limit of %d", len(req.Moves), record.MaxMoves)
	}
	var last *rules.Sowing
	for i, text := range req.Moves {
		m, err := rules.ParseMove(text)
		if err != nil {
			return nil, nil, Errorf(StatusUnprocessableEntity, "move %d: %v", i+1, err)
		}
		if i == len(req.Moves)-1 && !g.Over() {
			if _, sw, err := g.Position().Trace(m, g.Rules()); err == nil {
				last = &sw
			}
		}
		if err := g.Play(m); err != nil {
			return nil, nil, Errorf(StatusUnprocessableEntity, "move %d (%s): %v", i+1, m, err)
		}
	}
	return g, last, nil
}

// BoardView answers POST /api/position: the position after a board's
// moves, its legal moves and, for the animation, how the last move sowed.
type BoardView struct {
	Position   string           `json:"position"`
	Positions  []string         `json:"positions"` // after 0, 1, ... moves
	ToMove     string           `json:"toMove"`
	LegalMoves []string         `json:"legalMoves"`
	Status     string           `json:"status"`
	Result     string           `json:"result"`
	Score      gameview.Score   `json:"score"`
	Sowing     *gameview.Sowing `json:"sowing,omitempty"` // the last move's
}

// NewBoardView is game g, whose last move sowed as sw (nil for none), as
// the analysis board shows it.
func NewBoardView(g *rules.Game, sw *rules.Sowing) BoardView {
	p := g.Position()
	v := BoardView{Position: p.String(), ToMove: string(p.ToMove().Letter()), LegalMoves: []string{},
		Status: gameview.StatusName(g.Status()), Result: g.Result().Token()}
	for i := 0; i <= g.Ply(); i++ {
		v.Positions = append(v.Positions, g.PositionAt(i).String())
	}
	for _, m := range g.LegalMoves() {
		v.LegalMoves = append(v.LegalMoves, m.String())
	}
	v.Score.South, v.Score.North = g.Score()
	if sw != nil {
		sv := gameview.NewSowing(*sw)
		v.Sowing = &sv
	}
	return v
}

// Analyze is the body of POST /api/analyze: a board, and how long to
// search it.
type Analyze struct {
	Board
	Depth   int  `json:"depth"`
	TimeMS  int  `json:"timeMs"`  // default 1000
	MultiPV *int `json:"multiPv"` // lines: default 1, 0 for all
}

// Limits are the search's limits the request asks for, and the lines:
// 0 for all.
func (req *Analyze) Limits() (engine.Limits, int, error) {
	lim := engine.Limits{MoveTime: time.Second}
	switch {
	case req.Depth < 0 || req.Depth > engine.MaxDepth:
		return lim, 0, Errorf(StatusBadRequest, "depth %d out of range (1 to %d)", req.Depth, engine.MaxDepth)
	case req.TimeMS < 0 || int64(req.TimeMS) > MaxAnalysisTime.Milliseconds():
		return lim, 0, Errorf(StatusBadRequest, "timeMs %d out of range (1 to %d)", req.TimeMS, MaxAnalysisTime.Milliseconds())
	case req.MultiPV != nil && *req.MultiPV < 0:
		return lim, 0, Errorf(StatusBadRequest, "multiPv %d: want 0 (all) or more", *req.MultiPV)
	case req.Depth > 0:
		lim = engine.Limits{Depth: req.Depth, MoveTime: MaxAnalysisTime}
	case req.TimeMS > 0:
		lim.MoveTime = time.Duration(req.TimeMS) * time.Millisecond
	}
	multi := 1
	if req.MultiPV != nil {
		multi = *req.MultiPV
	}
	return lim, multi, nil
}
