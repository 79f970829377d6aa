package server

import (
	"errors"
	"sync"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// tablebases opens the endgame databases of a folder (package egtb) on
// demand, one set per board size and ruleset, and keeps them open.
type tablebases struct {
	dir  string
	mu   sync.Mutex
	sets map[tablebaseKey]*egtb.Tablebase // nil: the folder has none
}

type tablebaseKey struct {
	holes int
	rules rules.Rules
}

// UseTablebases makes the analysis, the hints and the strongest computer
// levels use the endgame databases in dir (built by endodoi egtb build):
// exact values and perfect play in the endgames they hold. Boards and rules
// without databases there are played as before.
func (s *Server) UseTablebases(dir string) {
	s.tb = &tablebases{dir: dir, sets: map[tablebaseKey]*egtb.Tablebase{}}
}

// tablebase returns the databases for games of holes a row under r, or
// nil.
func (s *Server) tablebase(holes int, r rules.Rules) *egtb.Tablebase {
	if s.tb == nil {
		return nil
	}
	r = r.Canonical()
	k := tablebaseKey{holes, r}
	s.tb.mu.Lock()
	defer s.tb.mu.Unlock()
	tb, ok := s.tb.sets[k]
	if !ok {
		var err error
		if tb, err = egtb.Open(s.tb.dir, holes, r); err != nil {
			if !errors.Is(err, egtb.ErrNotFound) {
				s.log.Warn("endgame databases unusable", "dir", s.tb.dir, "holes", holes, "rules", r.String(), "err", err)
			}
			tb = nil
		}
		s.tb.sets[k] = tb
	}
	return tb
}

// strongestLevels is the lowest computer level that uses the endgame
// databases; weaker levels keep their human-like mistakes.
const strongestLevels = 9

// solvedView is the databases' verdict on a position: the final margin
// from South's side with best play, the seeds already captured included.
type solvedView struct {
	South int    `json:"south"`
	Text  string `json:"text"` // "solved: South wins by 4"
}

// solved returns the databases' verdict on p, or nil when they do not hold
// it.
func (s *Server) solved(p rules.Position, r rules.Rules) *solvedView {
	tb := s.tablebase(p.Holes(), r)
	if tb == nil {
		return nil
	}
	v, ok := tb.Probe(&p)
	if !ok {
		return nil
	}
	return &solvedView{South: rules.FinalMargin(p, v, 1), Text: egtb.Describe(p, v)}
}
