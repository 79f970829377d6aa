// Package analysis is the site's engine at work for its players: the
// computer's moves, the hints and the analyses, each searched on a pool
// of engines within search slots that the clients share fairly; the
// reviews of finished games, graded in the background and stored; the
// proven values of the opening book and the endgame databases; and the
// refusal to analyse the positions of the online games being played. It
// speaks no HTTP: the server asks it, and answers with what it returns
// (its refusals are the API's, api.Error).
package analysis

import (
	"context"
	"log/slog"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Options size the searches; every field must be set (the server sets
// their defaults).
type Options struct {
	// Searches is how many searches run at once; SearchQueue how many
	// more may wait for one, for at most SearchWait.
	Searches, SearchQueue int
	SearchWait            time.Duration
	// SearchShare is how many searches one client may run at once;
	// AnalysisTime the engine time its analyses and hints may take a
	// minute; MoveSearches the slots kept for the computer's moves besides
	// Searches (limits.ClientLimits).
	SearchShare  int
	AnalysisTime time.Duration
	MoveSearches int
	// ReviewNodes is the search budget of each position a review grades;
	// 0 means grade.DefaultNodes.
	ReviewNodes uint64
}

// Store is what the analysis keeps: the reviews of games (package store
// implements it). A review not stored is an error wrapping
// game.ErrNotFound.
type Store interface {
	Review(ctx context.Context, id string) (*game.Review, error)
	SaveReview(ctx context.Context, r *game.Review) error
}

// Service runs a server's searches and reviews.
type Service struct {
	store   Store
	log     *slog.Logger
	slots   *slots
	engines *pool
	share   *share
	tb      *egtb.Library // nil without endgame databases
	// Positions are those of the online games being played, which the
	// engine does not analyse (positions.go).
	Positions Positions
	// Reviews are the reviews under way (review.go).
	Reviews *Reviews
	// Waited, if set, is told how long each search waited for a slot,
	// and with what error (the metrics).
	Waited func(took time.Duration, err error)
}

// New returns the analysis of a server over st, sized by o.
func New(st Store, log *slog.Logger, o Options) *Service {
	s := &Service{store: st, log: log, slots: newSlots(o), engines: &pool{free: map[engineKey][]*engine.Engine{}, max: o.Searches},
		share: newShare(o)}
	s.Reviews = &Reviews{s: s, Nodes: o.ReviewNodes}
	return s
}

// Start lets the reviews run until ctx ends; Close waits for them.
func (s *Service) Start(ctx context.Context) { s.Reviews.start(ctx) }

// Close cancels the reviews under way and waits for them to end; no
// review starts afterwards. A review is made again on request.
func (s *Service) Close() { s.Reviews.wait() }

// UseTablebases makes the analysis, the hints and the strongest computer
// levels use the endgame databases of lib (package egtb): exact values and
// perfect play in the endgames they hold. Boards and rules without
// databases there are played as before. The opening book of proven values
// (package book) is used whether or not there are databases.
func (s *Service) UseTablebases(lib *egtb.Library) { s.tb = lib }

// tablebase returns the databases for games of holes a row under r, or
// nil.
func (s *Service) tablebase(holes int, r rules.Rules) *egtb.Tablebase {
	if s.tb == nil {
		return nil
	}
	return s.tb.Get(holes, r)
}

// Solved is the verdict of the databases or the book on a position: the
// final margin from South's side with best play, the seeds already
// captured included.
type Solved struct {
	South int    `json:"south"`
	Text  string `json:"text"` // "solved: South wins by 4"
}

// solved returns the proven verdict on p, or nil when neither the
// databases nor the book hold it.
func (s *Service) solved(p rules.Position, r rules.Rules) *Solved {
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
	return &Solved{South: rules.FinalMargin(p, v, 1), Text: egtb.Describe(p, v)}
}

// Tablebases are the endgame databases a server holds or is building,
// and the positions of the opening book, for the About page.
type Tablebases struct {
	Dir  string             `json:"dir,omitempty"`
	Sets []egtb.BuildStatus `json:"sets"`
	Book int                `json:"bookPositions"`
}

// Tablebases returns the endgame databases held or being built.
func (s *Service) Tablebases() Tablebases {
	out := Tablebases{Sets: []egtb.BuildStatus{}}
	if s.tb != nil {
		out.Sets = s.tb.Status()
	}
	if es, err := book.Entries(); err == nil {
		out.Book = len(es)
	}
	return out
}

// Slots says how many searches may run at once, how many run now
// (reviews included) and how many requests wait for a slot.
func (s *Service) Slots() (slots, busy, queued int) {
	return cap(s.slots.run), len(s.slots.run), len(s.slots.waiting)
}

// QueuePerClient is how many searches one client may have waiting for
// its share; beyond it, its searches are refused at once.
func (s *Service) QueuePerClient() int { return s.share.queue }

// busyError is the answer when no search can be run now.
func busyError() error {
	return &api.Error{Status: api.StatusServiceUnavailable, RetryAfter: 2,
		Msg: "the server is busy with other searches; try again in a moment"}
}
