// Package oracle is the tests' brute-force solver: a plain minimax over game
// histories with the rules applied literally, against which the engine, the
// endgame databases and the CLI's analysis are checked. It is slow on
// purpose and shares nothing with the code it checks but package rules.
package oracle

import (
	"fmt"

	"github.com/endodoi/endodoi/rules"
)

// Solver finds the exact value of a position: the future capture margin
// its side to move can force with best play on both sides. A game ends when
// the side to move has no legal move (the board goes to the last mover) or
// when a position occurs for the RepeatAt-th time (the board counts for
// neither player).
//
// After a capture no earlier position can occur again (captured seeds never
// return to the board), so the game from there is the game from a fresh
// start: its values are kept, by board and side to move. That and alpha-beta
// pruning are the only shortcuts. A Solver is not safe for concurrent use.
type Solver struct {
	Rules rules.Rules
	// RepeatAt is the occurrence of a position that ends the game: 3, rule
	// 9, when zero; 2 is the engine's shortcut of scoring any repetition 0.
	RepeatAt int
	// Budget is the number of nodes the solver may still visit: when it is
	// spent, the solver gives up (ok false). Set it before each question.
	Budget int

	memo map[rules.Position]int
}

// Value returns the value of p for its side to move, p being the start of
// a game, and false if the solver gave up.
func (s *Solver) Value(p rules.Position) (int, bool) {
	return s.fresh(p)
}

// ValueAfter returns the value of p for its side to move in a game whose
// positions so far occurred as occ counts them, p included (occ is left as
// it was). A position already at its RepeatAt-th occurrence is worth 0.
func (s *Solver) ValueAfter(p rules.Position, occ map[rules.Position]int) (int, bool) {
	if occ[p] >= s.repeatAt() {
		return 0, true
	}
	n := p.OnBoard()
	return s.value(p, occ, -n-1, n+1)
}

// MoveValues returns the value of each legal move in p (its capture less
// the opponent's value after it) in a game whose positions so far occurred
// as occ counts them, p included; nil occ means p starts the game. Each
// move gets a budget of its own, the solver's Budget when called.
func (s *Solver) MoveValues(p rules.Position, occ map[rules.Position]int) (map[rules.Move]int, bool) {
	if occ == nil {
		occ = map[rules.Position]int{p: 1}
	}
	budget := s.Budget
	vals := map[rules.Move]int{}
	for _, m := range p.LegalMoves(s.Rules) {
		q, err := p.Play(m, s.Rules)
		if err != nil {
			panic(fmt.Sprintf("oracle: legal move %s refused in %s: %v", m, p, err))
		}
		s.Budget = budget
		occ[q]++
		v, ok := s.ValueAfter(q, occ)
		occ[q]--
		if !ok {
			return nil, false
		}
		vals[m] = q.Captured(p.ToMove()) - p.Captured(p.ToMove()) - v
	}
	return vals, true
}

func (s *Solver) repeatAt() int {
	if s.RepeatAt == 0 {
		return 3
	}
	return s.RepeatAt
}

// fresh returns the value of p as the start of a game.
func (s *Solver) fresh(p rules.Position) (int, bool) {
	key, err := rules.NewPositionFromRows(p.Row(rules.South), p.Row(rules.North), p.ToMove(), 0, 0)
	if err != nil {
		panic(fmt.Sprintf("oracle: %s without its captures: %v", p, err))
	}
	if v, ok := s.memo[key]; ok {
		return v, true
	}
	n := key.OnBoard()
	v, ok := s.value(key, map[rules.Position]int{key: 1}, -n-1, n+1)
	if ok {
		if s.memo == nil {
			s.memo = map[rules.Position]int{}
		}
		s.memo[key] = v
	}
	return v, ok
}

// value returns the value of p for the side to move, given the occurrences
// occ of the positions of the game so far (p included), by alpha-beta: exact
// when it lies strictly between alpha and beta, otherwise a bound on the
// same side.
func (s *Solver) value(p rules.Position, occ map[rules.Position]int, alpha, beta int) (int, bool) {
	if s.Budget--; s.Budget < 0 {
		return 0, false
	}
	moves := p.LegalMoves(s.Rules)
	if len(moves) == 0 {
		return -p.OnBoard(), true
	}
	best := -1 << 30
	for _, m := range moves {
		q, err := p.Play(m, s.Rules)
		if err != nil {
			panic(fmt.Sprintf("oracle: legal move %s refused in %s: %v", m, p, err))
		}
		gain := q.Captured(p.ToMove()) - p.Captured(p.ToMove())
		child, ok := 0, true
		if gain > 0 {
			child, ok = s.fresh(q)
		} else {
			occ[q]++
			if occ[q] < s.repeatAt() {
				child, ok = s.value(q, occ, gain-beta, gain-alpha)
			}
			occ[q]--
		}
		if !ok {
			return 0, false
		}
		best = max(best, gain-child)
		if best >= beta {
			return best, true
		}
		alpha = max(alpha, best)
	}
	return best, true
}
