package engine

import (
	"slices"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Tablebase gives the exact values of the positions it holds: endgame
// databases (package egtb implements it). Its values must hold under the
// engine's rules and for the board being searched.
type Tablebase interface {
	// Probe returns p's value for the side to move, in seeds: the best
	// future capture margin it can force, as defined in docs/rules.md with
	// no game history. It returns false when it does not hold p.
	Probe(p *rules.Position) (value int, ok bool)
}

// Tablebases asks each of its tablebases in turn; nil interfaces are
// skipped.
type Tablebases []Tablebase

// Probe returns the value from the first tablebase that holds p.
func (tbs Tablebases) Probe(p *rules.Position) (int, bool) {
	for _, tb := range tbs {
		if tb == nil {
			continue
		}
		if v, ok := tb.Probe(p); ok {
			return v, true
		}
	}
	return 0, false
}

// progressBudget bounds, in nodes, the search for a way to realise a
// tablebase win at the root.
const progressBudget = 200_000

// tablebaseMoves returns the value of each legal move of p (the seeds it
// captures plus the future margin after it) when the tablebase holds every
// position they lead to, and false otherwise.
func (e *Engine) tablebaseMoves(p *rules.Position) ([]Line, bool) {
	tb := e.tb
	if tb == nil {
		return nil, false
	}
	if _, ok := tb.Probe(p); !ok {
		return nil, false
	}
	mover := p.ToMove()
	var lines []Line
	for _, m := range p.LegalMoves(e.cfg.Rules) {
		q, _ := p.Play(m, e.cfg.Rules)
		v, ok := tb.Probe(&q)
		if !ok {
			return nil, false
		}
		gain := q.Captured(mover) - p.Captured(mover)
		lines = append(lines, Line{Move: m, Score: Score(gain-v) * Seed, Exact: true})
	}
	return lines, true
}

// tablebaseResult answers a search of a position the tablebase holds: the
// exact value at once, and a move that keeps it. Where the value is a win
// that no capture realises at once, it looks for the shortest forced way to
// realise it, so that the engine does not wander round a cycle that the
// repetition rule would end at 0.
//
// A move to a position that has already occurred twice in the game ends it
// by the repetition rule (rule 9): it is worth the seeds it captures, which
// is none, and nothing more.
func (e *Engine) tablebaseResult(p rules.Position, history []rules.Position, start time.Time) (Result, bool) {
	lines, ok := e.tablebaseMoves(&p)
	if !ok || len(lines) == 0 {
		return Result{}, false
	}
	occurred := map[rules.Position]int{p: 1}
	for _, h := range history {
		if h.OnBoard() == p.OnBoard() {
			occurred[h]++
		}
	}
	for i := range lines {
		if q, err := p.Play(lines[i].Move, e.cfg.Rules); err == nil && occurred[q] >= 2 {
			lines[i].Score = 0
		}
	}
	best := lines[0].Score
	for _, l := range lines {
		best = max(best, l.Score)
	}
	res := Result{Move: rules.NoMove}
	res.Score, res.Exact, res.Depth = best, true, 1
	var candidates []rules.Move
	for _, l := range lines {
		if l.Score == best {
			candidates = append(candidates, l.Move)
		}
	}
	res.Move = candidates[0]
	if best > 0 {
		pf := progressFinder{e: e, budget: progressBudget}
		if line, ok := pf.find(p, candidates); ok {
			res.Move = line[0]
			res.PV = line
			res.Depth = len(line)
			res.Nodes = pf.nodes
		}
	}
	if res.PV == nil {
		res.PV = e.tablebasePV(p, res.Move, 16)
	}
	res.Elapsed = time.Since(start)
	return res, true
}

// tablebasePV returns a line that starts with m and goes on with moves that
// keep the tablebase value, up to limit moves or a repetition.
func (e *Engine) tablebasePV(p rules.Position, m rules.Move, limit int) []rules.Move {
	line := []rules.Move{m}
	seen := map[rules.Position]bool{p: true}
	q, err := p.Play(m, e.cfg.Rules)
	for err == nil && len(line) < limit && !seen[q] {
		seen[q] = true
		lines, ok := e.tablebaseMoves(&q)
		if !ok || len(lines) == 0 {
			break
		}
		bestLine := lines[0]
		for _, l := range lines[1:] {
			if l.Score > bestLine.Score {
				bestLine = l
			}
		}
		line = append(line, bestLine.Move)
		q, err = q.Play(bestLine.Move, e.cfg.Rules)
	}
	return line
}

// progressFinder searches, by iterative deepening, for the shortest line
// that forces the realisation of a tablebase win: the winner keeps the
// value with every move, and the line ends when a capture (by either side)
// or the end of the game settles it, or when the loser's move gives up
// more than the value. Positions repeat only round a cycle, and a cycle
// does not realise a win, so such lines fail.
type progressFinder struct {
	e      *Engine
	budget int
	nodes  uint64
	path   []rules.Position
}

// find returns a line from p (the winner to move) that starts with one of
// the candidate moves, and false when none is found within the budget.
func (pf *progressFinder) find(p rules.Position, candidates []rules.Move) ([]rules.Move, bool) {
	v, _ := pf.e.tb.Probe(&p)
	for depth := 1; depth <= MaxDepth; depth += 2 {
		for _, m := range candidates {
			pf.path = append(pf.path[:0], p)
			line, ok, exhausted := pf.win(p, m, v, depth)
			if exhausted {
				return nil, false
			}
			if ok {
				return line, true
			}
		}
	}
	return nil, false
}

// win reports whether the winner's move m in p (worth v) realises v within
// depth plies whatever the loser does, and returns the line expected.
func (pf *progressFinder) win(p rules.Position, m rules.Move, v, depth int) (line []rules.Move, ok, exhausted bool) {
	if pf.nodes++; pf.nodes > uint64(pf.budget) {
		return nil, false, true
	}
	r := pf.e.cfg.Rules
	tb := pf.e.tb
	mover := p.ToMove()
	q, err := p.Play(m, r)
	if err != nil {
		return nil, false, false
	}
	gain := q.Captured(mover) - p.Captured(mover)
	replies := q.LegalMoves(r)
	if gain > 0 || len(replies) == 0 {
		return []rules.Move{m}, true, false
	}
	if depth <= 1 || slices.Contains(pf.path, q) {
		return nil, false, false
	}
	pf.path = append(pf.path, q)
	defer func() { pf.path = pf.path[:len(pf.path)-1] }()
	var worst []rules.Move // the loser's longest resistance
	for _, reply := range replies {
		s, _ := q.Play(reply, r)
		loss := s.Captured(q.ToMove()) - q.Captured(q.ToMove())
		w, ok := tb.Probe(&s)
		if !ok {
			return nil, false, false
		}
		if loss > 0 || loss-w < -v || !s.HasLegalMove(r) {
			// A capture, the end of the game, or a reply that gives up
			// more than the value: the win is realised (or bettered).
			if worst == nil {
				worst = []rules.Move{reply}
			}
			continue
		}
		if slices.Contains(pf.path, s) {
			return nil, false, false
		}
		// The winner is to move in s, worth v again: find a move that
		// keeps it and makes progress.
		found := false
		for _, next := range s.LegalMoves(r) {
			t, _ := s.Play(next, r)
			g := t.Captured(s.ToMove()) - s.Captured(s.ToMove())
			tv, ok := tb.Probe(&t)
			if !ok || g-tv != w {
				continue
			}
			pf.path = append(pf.path, s)
			sub, ok, exhausted := pf.win(s, next, w, depth-2)
			pf.path = pf.path[:len(pf.path)-1]
			if exhausted {
				return nil, false, true
			}
			if ok {
				if len(sub)+1 > len(worst) {
					worst = append([]rules.Move{reply}, sub...)
				}
				found = true
				break
			}
		}
		if !found {
			return nil, false, false
		}
	}
	return append([]rules.Move{m}, worst...), true, false
}
