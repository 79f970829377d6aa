package server

import (
	"net/http"
	"strings"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// boardView answers POST /api/position.
type boardView struct {
	Position   string           `json:"position"`
	Positions  []string         `json:"positions"` // after 0, 1, ... moves
	ToMove     string           `json:"toMove"`
	LegalMoves []string         `json:"legalMoves"`
	Status     string           `json:"status"`
	Result     string           `json:"result"`
	Score      gameview.Score   `json:"score"`
	Sowing     *gameview.Sowing `json:"sowing,omitempty"` // the last move's
}

// position answers with the position after the request's moves, its
// legal moves and, for the animation, how the last move sowed.
func (s *Server) position(w http.ResponseWriter, r *http.Request) {
	var req api.Board
	if err := decode(w, r, &req, false); err != nil {
		s.fail(w, r, err)
		return
	}
	g, sw, err := req.Replay()
	if err != nil {
		s.fail(w, r, err)
		return
	}
	p := g.Position()
	if !g.Over() {
		// The analysis board sets up no position the engine refuses.
		if err := s.analysis.Positions.Check(p, g.Rules()); err != nil {
			s.fail(w, r, err)
			return
		}
	}
	v := boardView{Position: p.String(), ToMove: string(p.ToMove().Letter()), LegalMoves: []string{},
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
	writeJSON(w, http.StatusOK, v)
}

// recordView answers POST /api/records/parse: a record read and checked,
// for the analysis board.
type recordView struct {
	Start   string   `json:"start"`
	Moves   []string `json:"moves"`
	Variant string   `json:"variant"`
	MaxLaps int      `json:"maxLaps"`
	South   string   `json:"south"`
	North   string   `json:"north"`
	Result  string   `json:"result"`
}

// recordRequest is the body of POST /api/games/import and POST
// /api/records/parse: a game record, in either form, as a JSON string.
type recordRequest struct {
	Record string `json:"record"`
}

// readRecord reads a game record from the request body and replays it.
func readRecord(w http.ResponseWriter, r *http.Request) (*record.Record, *rules.Game, error) {
	var req recordRequest
	if err := decode(w, r, &req, false); err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(req.Record) == "" {
		return nil, nil, errorf(http.StatusBadRequest, "no record given: send {\"record\": \"<the record's text>\"}")
	}
	rec, err := record.Read([]byte(req.Record))
	if err != nil {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	if rec.Rules.Laps() > MaxLaps {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "MaxLaps %d: the server plays at most %d", rec.Rules.Laps(), MaxLaps)
	}
	g, err := rec.Game()
	if err != nil {
		return nil, nil, errorf(http.StatusUnprocessableEntity, "%v", err)
	}
	return rec, g, nil
}

func (s *Server) parseRecord(w http.ResponseWriter, r *http.Request) {
	rec, g, err := readRecord(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v := recordView{Start: rec.Start.String(), Moves: []string{}, Variant: rec.Rules.Variant.String(),
		MaxLaps: rec.Rules.Laps(), South: rec.South, North: rec.North, Result: g.Result().Token()}
	for _, m := range rec.Moves {
		v.Moves = append(v.Moves, m.String())
	}
	writeJSON(w, http.StatusOK, v)
}
