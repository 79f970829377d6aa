package server

import (
	"net/http"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// UseTablebases makes the analysis, the hints and the strongest computer
// levels use the endgame databases of lib (package egtb): exact values and
// perfect play in the endgames they hold. Boards and rules without
// databases there are played as before. The opening book of proven values
// (package book) is used whether or not there are databases.
func (s *Server) UseTablebases(lib *egtb.Library) {
	s.tb = lib
}

// tablebase returns the databases for games of holes a row under r, or
// nil.
func (s *Server) tablebase(holes int, r rules.Rules) *egtb.Tablebase {
	if s.tb == nil {
		return nil
	}
	return s.tb.Get(holes, r)
}

// strongestLevels is the lowest computer level that uses the endgame
// databases and the opening book (the API's).
const strongestLevels = api.PerfectLevel

// solvedView is the verdict of the databases or the book on a position:
// the final margin from South's side with best play, the seeds already
// captured included.
type solvedView struct {
	South int    `json:"south"`
	Text  string `json:"text"` // "solved: South wins by 4"
}

// solved returns the proven verdict on p, or nil when neither the
// databases nor the book hold it.
func (s *Server) solved(p rules.Position, r rules.Rules) *solvedView {
	v, ok := 0, false
	if tb := s.tablebase(p.Holes(), r); tb != nil {
		v, ok = tb.Probe(&p)
	}
	if !ok {
		v, ok = book.For(r).Probe(&p)
	}
	if !ok {
		return nil
	}
	return &solvedView{South: rules.FinalMargin(p, v, 1), Text: egtb.Describe(p, v)}
}

// tablebaseStatus answers GET /api/tablebases: the endgame databases the
// server holds or is building, for the About page.
func (s *Server) tablebaseStatus(w http.ResponseWriter, r *http.Request) {
	out := struct {
		Dir  string             `json:"dir,omitempty"`
		Sets []egtb.BuildStatus `json:"sets"`
		Book int                `json:"bookPositions"`
	}{Sets: []egtb.BuildStatus{}}
	if s.tb != nil {
		out.Sets = s.tb.Status()
	}
	if es, err := book.Entries(); err == nil {
		out.Book = len(es)
	}
	writeJSON(w, http.StatusOK, out)
}
