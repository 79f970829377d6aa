package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Line is one root move's analysis: its score for the side to move (the
// future capture margin after playing it, its own captures included) and
// the line the search expects.
type Line struct {
	Move  rules.Move
	Score Score
	Exact bool
	PV    []rules.Move // starts with Move
}

// Analyze scores every legal move of p, best first, searching each with a
// full window in every iteration (slower than Search, which only proves
// the best move best). report, if not nil, receives the lines after each
// completed iteration. The limits work as in Search; the search stops early
// once every score is exact, unless lim.Infinite. It returns no lines when
// the side to move has no legal move.
func (e *Engine) Analyze(ctx context.Context, p rules.Position, history []rules.Position, lim Limits, report func(depth int, lines []Line)) ([]Line, error) {
	if p.Holes() < rules.MinHoles {
		return nil, ErrNoPosition
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	start := time.Now()
	if lim.MoveTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, lim.MoveTime)
		defer cancel()
	}
	var stop atomic.Bool
	stopWatch := context.AfterFunc(ctx, func() { stop.Store(true) })
	defer stopWatch()

	if lines, ok := e.tablebaseMoves(&p); ok && len(lines) > 0 {
		slices.SortStableFunc(lines, func(a, b Line) int { return int(b.Score - a.Score) })
		for i := range lines {
			lines[i].PV = e.tablebasePV(p, lines[i].Move, 16)
		}
		if report != nil {
			report(1, lines)
		}
		if lim.Infinite {
			<-ctx.Done()
		}
		return lines, nil
	}
	s := e.newSearcher(0, p, history, &stop, lim.Nodes)
	moves := p.LegalMoves(e.cfg.Rules)
	if len(moves) == 0 {
		return nil, nil
	}
	var lines []Line
	maxDepth := MaxDepth
	if lim.Depth > 0 {
		maxDepth = min(lim.Depth, MaxDepth)
	}
	mover := p.ToMove()
	for d := 1; d <= maxDepth; d++ {
		next := make([]Line, 0, len(moves))
		allExact := true
		for _, m := range moves {
			q, _ := p.Play(m, e.cfg.Rules)
			gain := Score(q.Captured(mover)-p.Captured(mover)) * Seed
			v, proven := s.negamax(&q, d-1, 1, -Infinity, Infinity)
			if s.aborted {
				break
			}
			pv := append([]rules.Move{m}, s.pv[1][1:s.pvLen[1]]...)
			next = append(next, Line{Move: m, Score: gain - v, Exact: proven, PV: s.extendPV(p, pv, d)})
			allExact = allExact && proven
		}
		if s.aborted {
			break
		}
		slices.SortStableFunc(next, func(a, b Line) int { return int(b.Score - a.Score) })
		lines = next
		if report != nil {
			report(d, lines)
		}
		if allExact && !lim.Infinite {
			break
		}
		if lim.MoveTime > 0 && time.Since(start) > lim.MoveTime/2 {
			break
		}
	}
	if lines == nil {
		// Cut short before the first iteration finished: the moves, unscored.
		for _, m := range moves {
			lines = append(lines, Line{Move: m, PV: []rules.Move{m}})
		}
	}
	if lim.Infinite {
		<-ctx.Done()
	}
	return lines, nil
}
