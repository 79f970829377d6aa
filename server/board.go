package server

import (
	"net/http"

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

// parseRecord answers POST /api/records/parse: a record read and
// checked, for the analysis board.
func (s *Server) parseRecord(w http.ResponseWriter, r *http.Request) {
	rec, g, err := readRecord(w, r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, api.NewRecordView(rec, g))
}

// readRecord reads the game record of a request's body (api.Record) and
// replays it.
func readRecord(w http.ResponseWriter, r *http.Request) (*record.Record, *rules.Game, error) {
	var req api.Record
	if err := decode(w, r, &req, false); err != nil {
		return nil, nil, err
	}
	return req.Read()
}
