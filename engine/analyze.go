package engine

import (
	"context"
	"fmt"
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
	var each func(Info, []Line)
	if report != nil {
		each = func(info Info, lines []Line) { report(info.Depth, lines) }
	}
	lines, _, err := e.analyze(ctx, p, history, lim, each)
	return lines, err
}

// BestLines returns the k best moves of p, best first, or all of them when
// k is 0; no lines when the side to move has none. One line asks only
// which move is best, so it is Search's answer; more lines are Analyze's,
// cut to k. report, if not nil, receives each completed iteration: the
// best line's score and moves, and the nodes and time so far. The Info
// returned is the last completed iteration's, with the nodes and time of
// the whole search; its Depth is 0 when the search was stopped before the
// first iteration ended, and the lines are then the moves, unscored.
func (e *Engine) BestLines(ctx context.Context, p rules.Position, history []rules.Position, lim Limits, k int, report func(Info)) ([]Line, Info, error) {
	if k < 0 {
		return nil, Info{}, fmt.Errorf("engine: %d best lines: want 0 (all) or more", k)
	}
	if k != 1 {
		var each func(Info, []Line)
		if report != nil {
			each = func(info Info, _ []Line) { report(info) }
		}
		lines, info, err := e.analyze(ctx, p, history, lim, each)
		if k > 0 && k < len(lines) {
			lines = lines[:k]
		}
		return lines, info, err
	}
	res, err := e.Search(ctx, p, history, lim, report)
	if err != nil || res.Move == rules.NoMove {
		return nil, res.Info, err
	}
	pv := res.PV
	if len(pv) == 0 || pv[0] != res.Move {
		pv = []rules.Move{res.Move}
	}
	return []Line{{Move: res.Move, Score: res.Score, Exact: res.Exact, PV: pv}}, res.Info, nil
}

// analyze is Analyze, reporting each iteration's Info beside its lines
// and returning the last one's.
func (e *Engine) analyze(ctx context.Context, p rules.Position, history []rules.Position, lim Limits, report func(Info, []Line)) ([]Line, Info, error) {
	if p.Holes() < rules.MinHoles {
		return nil, Info{}, ErrNoPosition
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
		info := bestInfo(1, lines, 0, start)
		if report != nil {
			report(info, lines)
		}
		if lim.Infinite {
			<-ctx.Done()
		}
		info.Elapsed = time.Since(start)
		return lines, info, nil
	}
	s := e.newSearcher(0, p, history, &stop, lim.Nodes)
	moves := p.LegalMoves(e.cfg.Rules)
	if len(moves) == 0 {
		return nil, Info{Score: -Score(p.OnBoard()) * Seed, Exact: true, Elapsed: time.Since(start)}, nil
	}
	var lines []Line
	var info Info
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
			v, proven := s.negamax(&q, 0, d-1, 1, -Infinity, Infinity)
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
		info = bestInfo(d, lines, s.nodes, start)
		if report != nil {
			report(info, lines)
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
	info.Nodes, info.Elapsed = s.nodes, time.Since(start)
	return lines, info, nil
}

// bestInfo reports an iteration of depth d of Analyze by its best line.
func bestInfo(d int, lines []Line, nodes uint64, start time.Time) Info {
	best := lines[0]
	return Info{Depth: d, Score: best.Score, Exact: best.Exact, Nodes: nodes, Elapsed: time.Since(start), PV: best.PV}
}
