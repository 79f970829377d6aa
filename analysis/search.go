package analysis

// The searches of the requests: the computer's moves, the hints and the
// analyses, each with an engine of the pool once a search slot is free
// within its client's share (share.go).

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// slots bound the searches running at once and the requests waiting for
// one, so that a burst of analyses neither exhausts memory nor starves
// the moves of the CPU.
type slots struct {
	run     chan struct{}
	waiting chan struct{}
	wait    time.Duration
}

func newSlots(o Options) *slots {
	return &slots{run: make(chan struct{}, o.Searches), waiting: make(chan struct{}, o.SearchQueue), wait: o.SearchWait}
}

// acquire waits for a slot; it returns the function that frees it.
func (sl *slots) acquire(ctx context.Context) (func(), error) {
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	default:
	}
	select {
	case sl.waiting <- struct{}{}:
	default:
		return nil, busyError()
	}
	defer func() { <-sl.waiting }()
	t := time.NewTimer(sl.wait)
	defer t.Stop()
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	case <-t.C:
		return nil, busyError()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// pool keeps idle engines, so that a search reuses a transposition table
// instead of allocating one.
type pool struct {
	mu   sync.Mutex
	free map[engineKey][]*engine.Engine
	idle int // engines in free
	max  int
}

type engineKey struct {
	rules   rules.Rules
	tb      *egtb.Tablebase
	perfect bool
}

// SearchHashMiB is the table size of the engines (the API's).
const SearchHashMiB = api.SearchHashMiB

func (p *pool) get(k engineKey) (*engine.Engine, error) {
	p.mu.Lock()
	if list := p.free[k]; len(list) > 0 {
		e := list[len(list)-1]
		p.free[k] = list[:len(list)-1]
		p.idle--
		p.mu.Unlock()
		e.NewGame()
		return e, nil
	}
	p.mu.Unlock()
	cfg := engine.Config{Rules: k.rules, HashMiB: SearchHashMiB, Book: k.perfect}
	if k.tb != nil {
		cfg.Tablebase = k.tb // only a non-nil one: a nil pointer in the interface would be probed
	}
	return engine.New(cfg)
}

func (p *pool) put(k engineKey, e *engine.Engine) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.idle >= p.max {
		// Make room: an engine of a rarely used board goes first.
		for k2, list := range p.free {
			if len(list) > 0 {
				p.free[k2] = list[1:]
				p.idle--
				break
			}
		}
	}
	p.free[k] = append(p.free[k], e)
	p.idle++
}

// withEngine runs f with an engine for position p under r, once a search
// slot is free within the share of the client ctx's search is for
// (share.go); f searches with the context it is given, which ends early
// when an analysis must give way. A perfect engine takes every exact value
// the server knows: the opening book of proven values and the endgame
// databases (the hints, the analysis and the strongest levels); the others
// search on their own, and keep their mistakes. The position of an online
// game being played, and those near it, are refused (positions.go).
func (s *Service) withEngine(ctx context.Context, r rules.Rules, p rules.Position, perfect bool, f func(context.Context, *engine.Engine) error) error {
	if err := s.Positions.Check(p, r); err != nil {
		return err
	}
	holes := p.Holes()
	asked := time.Now()
	ctx, release, err := s.share.acquire(ctx, s.slots)
	if s.Waited != nil {
		s.Waited(time.Since(asked), err)
	}
	if err != nil {
		return err
	}
	defer release()
	k := engineKey{rules: r.Canonical(), perfect: perfect}
	if perfect {
		k.tb = s.tablebase(holes, r)
	}
	e, err := s.engines.get(k)
	if err != nil {
		return err
	}
	defer s.engines.put(k, e)
	return f(ctx, e)
}

var (
	rngMu sync.Mutex
	rng   = rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0x656e646f646f69))
)

func newRand() *rand.Rand {
	rngMu.Lock()
	defer rngMu.Unlock()
	return rand.New(rand.NewPCG(rng.Uint64(), rng.Uint64()))
}

// Choose returns the computer's move at level in game b (play.Chooser).
// The strongest levels play what is proven perfectly.
func (s *Service) Choose(ctx context.Context, b *rules.Game, level int) (rules.Move, error) {
	var res engine.Result
	err := s.withEngine(ctx, b.Rules(), b.Position(), level >= api.PerfectLevel, func(ctx context.Context, e *engine.Engine) (err error) {
		res, err = e.PlayLevel(ctx, b.Position(), b.History(), level, newRand())
		return err
	})
	return res.Move, err
}

// Hint returns the engine's best move in game g for the side to move.
func (s *Service) Hint(ctx context.Context, g *play.Game) (api.Line, error) {
	if err := g.CanHint(); err != nil {
		return api.Line{}, err
	}
	b := g.Board()
	p := b.Position()
	var res engine.Result
	err := s.withEngine(ctx, b.Rules(), p, true, func(ctx context.Context, e *engine.Engine) (err error) {
		res, err = e.Search(ctx, p, b.History(), api.HintLimits, nil)
		return err
	})
	if err != nil {
		return api.Line{}, err
	}
	return api.NewLine(p, res.Move, res.Score, res.Exact, res.PV), nil
}

// Analysis is the answer of an analysis (POST /api/analyze): the best
// lines of the position, with the proven verdict when one is known, or
// the score and result of a game over.
type Analysis struct {
	Position string          `json:"position"`
	Status   string          `json:"status"`
	Lines    []api.Line      `json:"lines"`
	Solved   *Solved         `json:"solved,omitempty"`
	Score    *gameview.Score `json:"score,omitempty"`
	Result   string          `json:"result,omitempty"`
}

// Analyze searches the position game g has reached within lim, for its
// multi best lines (0 for all).
func (s *Service) Analyze(ctx context.Context, g *rules.Game, lim engine.Limits, multi int) (*Analysis, error) {
	p := g.Position()
	out := &Analysis{Position: p.String(), Status: gameview.StatusName(g.Status()), Lines: []api.Line{}}
	if g.Over() {
		sc, nc := g.Score()
		out.Score = &gameview.Score{South: sc, North: nc}
		out.Result = g.Result().Token()
		return out, nil
	}
	if err := s.Positions.Check(p, g.Rules()); err != nil {
		return nil, err
	}
	out.Solved = s.solved(p, g.Rules())
	ctx, cancel := context.WithTimeout(ctx, api.MaxAnalysisTime+time.Second)
	defer cancel()
	err := s.withEngine(ctx, g.Rules(), p, true, func(ctx context.Context, e *engine.Engine) error {
		best, _, err := e.BestLines(ctx, p, g.History(), lim, multi, nil)
		for _, l := range best {
			out.Lines = append(out.Lines, api.NewLine(p, l.Move, l.Score, l.Exact, l.PV))
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
