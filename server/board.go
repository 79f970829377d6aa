package server

import (
	"net/http"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// position answers POST /api/position: the position after the request's
// moves, its legal moves and, for the animation, how the last move sowed
// (api.BoardView).
func (s *Server) position(w http.ResponseWriter, r *http.Request) {
	var req api.Board
	err := decode(w, r, &req, false)
	if err == nil {
		var g *rules.Game
		var sw *rules.Sowing
		if g, sw, err = req.Replay(); err == nil && !g.Over() {
			// The analysis board sets up no position the engine refuses.
			err = s.analysis.Positions.Check(g.Position(), g.Rules())
		}
		if err == nil {
			writeJSON(w, http.StatusOK, api.NewBoardView(g, sw))
			return
		}
	}
	s.fail(w, r, err)
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
