package server

// The engine's routes (package analysis): the analysis of a board, the
// hints, the reviews of finished games and the endgame databases; and
// which client each search is made for.

import (
	"net/http"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// ReviewNodes is the search budget of each position a review grades
// (package grade).
const ReviewNodes = analysis.ReviewNodes

// UseTablebases makes the analysis, the hints and the strongest computer
// levels use the endgame databases of lib (analysis.Service.UseTablebases).
func (s *Server) UseTablebases(lib *egtb.Library) { s.analysis.UseTablebases(lib) }

// searching marks h's searches as searches of kind for the request's
// client (analysis.ForClient).
func (s *Server) searching(kind analysis.Kind, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h(w, r.WithContext(analysis.ForClient(r.Context(), clientOf(r, s.trustProxy), kind)))
	}
}

// analyze answers POST /api/analyze: the best lines of a board.
func (s *Server) analyze(w http.ResponseWriter, r *http.Request) {
	var req api.Analyze
	err := decode(w, r, &req, false)
	if err == nil {
		var g *rules.Game
		if g, _, err = req.Replay(); err == nil {
			lim, multi, lerr := req.Limits()
			var a *analysis.Analysis
			if err = lerr; err == nil {
				if a, err = s.analysis.Analyze(r.Context(), g, lim, multi); err == nil {
					writeJSON(w, http.StatusOK, a)
					return
				}
			}
		}
	}
	s.fail(w, r, err)
}

// hint answers with the engine's best move for the side to move.
func (s *Server) hint(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	line, err := s.analysis.Hint(r.Context(), g)
	if err == nil {
		writeJSON(w, http.StatusOK, line)
	}
	return err
}

// getReview answers GET /api/games/{id}/review.
func (s *Server) getReview(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	st, err := s.analysis.Reviews.Get(r.Context(), g)
	if err == nil {
		writeJSON(w, http.StatusOK, st)
	}
	return err
}

// startReview answers POST /api/games/{id}/review: the stored review, the
// one under way, or a new one started (202 Accepted).
func (s *Server) startReview(w http.ResponseWriter, r *http.Request, g *play.Game) error {
	var req struct{}
	if err := decode(w, r, &req, true); err != nil {
		return err
	}
	st, err := s.analysis.Reviews.Ask(r.Context(), g)
	if err != nil {
		return err
	}
	code := http.StatusAccepted
	if st.Status == "done" {
		code = http.StatusOK
	}
	writeJSON(w, code, st)
	return nil
}

// tablebaseStatus answers GET /api/tablebases: the endgame databases the
// server holds or is building, for the About page.
func (s *Server) tablebaseStatus(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.analysis.Tablebases())
}

// livePositions are the positions of the online games in play that the
// engine does not analyse (analysis.Positions), as this instance's
// changes and the other instances' notices tell them.
type livePositions struct{ p *analysis.Positions }

func (lp livePositions) note(g *play.Game)                       { lp.p.Note(g) }
func (lp livePositions) set(id, key string, laps int, rev int64) { lp.p.Set(id, key, laps, rev) }

// liveKey is the key of the position of board that a notice carries
// (analysis.LiveKey).
func liveKey(board *rules.Game) string { return analysis.LiveKey(board) }
