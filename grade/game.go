package grade

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// HashMiB is the transposition table size of a review's engine: a search
// within a node budget can end differently with another size, so whoever
// lends the engines (Options.Engine) makes them with this one.
const HashMiB = 16

// ErrNoMoves is returned for a game without moves: there is nothing to
// grade.
var ErrNoMoves = errors.New("the game has no moves to review")

// Options say how a game is graded.
type Options struct {
	// Nodes is the search budget of each position; 0 means DefaultNodes.
	Nodes uint64
	// Tablebase, if not nil, holds the endgame databases of the game's
	// board and rules: their exact values are taken, as the opening
	// book's are.
	Tablebase *egtb.Tablebase
	// Engine, if not nil, lends the engine of one search and returns the
	// function that gives it back; it may wait (the server waits for an
	// idle search slot). The engine must be as NewEngine makes it, new or
	// cleared by NewGame, so that a search's result depends on the
	// position and the limits alone. When nil, the review makes one
	// engine of its own and clears it before each search.
	Engine func(ctx context.Context) (*engine.Engine, func(), error)
	// Progress, if not nil, is called with the number of plies graded so
	// far, after each ply.
	Progress func(done int)
}

// NewEngine returns an engine that grades games under r: one thread, a
// table of HashMiB, and every exact value known, those of the opening
// book and of tb (when not nil).
func NewEngine(r rules.Rules, tb *egtb.Tablebase) (*engine.Engine, error) {
	cfg := engine.Config{Rules: r.Canonical(), HashMiB: HashMiB, Book: true}
	if tb != nil {
		cfg.Tablebase = tb // only a non-nil one: a nil pointer in the interface would be probed
	}
	return engine.New(cfg)
}

// grader holds what the grading of one game shares.
type grader struct {
	r     rules.Rules
	nodes uint64
	tb    *egtb.Tablebase
	lend  func(ctx context.Context) (*engine.Engine, func(), error)
}

// Game grades the moves of g, a game of at least one move, usually
// finished (a game not over is graded up to its last move).
//
// Each position is searched once for its best move and its value. A move
// other than the best one is then scored by the value of the position it
// led to: exact when the databases or the book hold it, or else searched
// one ply shallower than the search that found the best move, so that both
// are looked at equally far ahead (as deep as the budget allows when the
// best move's value is exact). When that shows it as good as the best move
// or better, it is the best move. The evaluation after a ply is the value
// of the position it led to, and at the end of a game over by the rules its
// exact outcome.
func Game(ctx context.Context, g *rules.Game, o Options) (*Review, error) {
	n := g.Ply()
	if n == 0 {
		return nil, ErrNoMoves
	}
	gr := &grader{r: g.Rules(), nodes: o.Nodes, tb: o.Tablebase, lend: o.Engine}
	if gr.nodes == 0 {
		gr.nodes = DefaultNodes
	}
	if gr.lend == nil {
		var own *engine.Engine
		gr.lend = func(context.Context) (*engine.Engine, func(), error) {
			if own == nil {
				e, err := NewEngine(gr.r, gr.tb)
				if err != nil {
					return nil, nil, fmt.Errorf("making the review's engine: %w", err)
				}
				own = e
			}
			own.NewGame()
			return own, func() {}, nil
		}
	}
	progress := o.Progress
	if progress == nil {
		progress = func(int) {}
	}
	r, nodes := gr.r, gr.nodes
	moves := g.Moves()
	positions := append(g.History(), g.Position())
	full := make([]engine.Result, n+1)
	searched := make([]bool, n+1)
	// search returns the search of position i, made once.
	search := func(i int) (engine.Result, error) {
		if !searched[i] {
			res, err := gr.search(ctx, positions[i], positions[:i], engine.Limits{Nodes: nodes})
			if err != nil {
				return res, err
			}
			full[i], searched[i] = res, true
		}
		return full[i], nil
	}
	// value returns the value of position i for its side to move, and
	// whether it is exact: the outcome of the final position of a game
	// over by the rules, the databases' or the book's, or the search's.
	value := func(i int) (engine.Score, bool, error) {
		p := positions[i]
		switch {
		case i == n && g.Status() == rules.NoLegalMove:
			return -engine.Score(p.OnBoard()) * engine.Seed, true, nil // the seeds left go to the last mover
		case i == n && g.Status() == rules.Repetition:
			return 0, true, nil // the seeds left count for neither
		}
		if v, ok := gr.probe(p); ok {
			return v, true, nil
		}
		res, err := search(i)
		return res.Score, res.Exact, err
	}

	view := &Review{Version: Version, Nodes: nodes, HalfLoss: HalfLoss,
		Thresholds: Thresholds{Inaccuracy: Inaccuracy, Mistake: Mistake, Blunder: Blunder},
		Plies:      make([]Ply, 0, n), Evaluation: make([]Eval, 0, n+1)}
	v, exact, err := value(0)
	if err != nil {
		return nil, err
	}
	view.Evaluation = append(view.Evaluation, Eval{South: rules.FinalMargin(positions[0], v.Seeds(), 1), Exact: exact})
	for i := 0; i < n; i++ {
		p, q, m := positions[i], positions[i+1], moves[i]
		mover := p.ToMove()
		best, err := search(i)
		if err != nil {
			return nil, err
		}
		ply := Ply{Ply: i + 1, Side: string(mover.Letter()), Move: m.String(), Best: best.Move.String(),
			BestScore: best.Score.Seeds(), BestExact: best.Exact, Depth: best.Depth,
			Forced: len(p.LegalMoves(r)) == 1}
		pv := best.PV
		score, exact := best.Score, best.Exact
		if m != best.Move {
			gain := engine.Score(q.Captured(mover)-p.Captured(mover)) * engine.Seed
			var child engine.Result
			over := i+1 == n && g.Over()
			if v, ok := gr.probe(q); ok && !over {
				child.Score, child.Exact = v, true
			} else if over {
				child.Score, child.Exact, err = value(n)
			} else {
				lim := engine.Limits{Nodes: nodes}
				if !best.Exact {
					lim.Depth = max(1, best.Depth-1)
				}
				child, err = gr.search(ctx, q, positions[:i+1], lim)
			}
			if err != nil {
				return nil, err
			}
			score, exact = gain-child.Score, child.Exact
			if score >= best.Score {
				// As good as the engine's choice, or better than its
				// search saw: the move played is a best move.
				ply.Best, ply.BestScore, ply.BestExact = ply.Move, score.Seeds(), exact
				pv = append([]rules.Move{m}, child.PV...)
			}
		}
		ply.Score, ply.Exact = score.Seeds(), exact
		ply.Loss = math.Max(0, round2(ply.BestScore-ply.Score))
		ply.Label = Label(ply.Loss)
		line, linePos, err := gr.line(ctx, positions[:i+1], pv)
		if err != nil {
			return nil, err
		}
		ply.PV = make([]string, 0, len(line))
		ply.PVPositions = make([]string, 0, len(linePos))
		for j, x := range line {
			ply.PV = append(ply.PV, x.String())
			ply.PVPositions = append(ply.PVPositions, linePos[j].String())
		}
		after, afterExact, err := value(i + 1)
		if err != nil {
			return nil, err
		}
		view.Evaluation = append(view.Evaluation, Eval{South: rules.FinalMargin(q, after.Seeds(), 1), Exact: afterExact})
		view.Plies = append(view.Plies, ply)
		progress(i + 1)
	}
	view.Players = Players(view.Plies)
	return view, nil
}

// search searches p (after the game's positions history) within lim, with
// an engine lent new or cleared, so that the result depends on the
// position and the limits alone.
func (gr *grader) search(ctx context.Context, p rules.Position, history []rules.Position, lim engine.Limits) (engine.Result, error) {
	e, release, err := gr.lend(ctx)
	if err != nil {
		return engine.Result{}, err
	}
	defer release()
	res, err := e.Search(ctx, p, history, lim, nil)
	if err == nil {
		// A cancelled search still answers, with what it had.
		err = ctx.Err()
	}
	return res, err
}

// probe returns the exact value of p for its side to move, when the
// endgame databases or the opening book of proven values hold it.
func (gr *grader) probe(p rules.Position) (engine.Score, bool) {
	if gr.tb != nil {
		if v, ok := gr.tb.Probe(&p); ok {
			return engine.Score(v) * engine.Seed, true
		}
	}
	if v, ok := book.For(gr.r).Probe(&p); ok {
		return engine.Score(v) * engine.Seed, true
	}
	return 0, false
}

// line returns the best line pv from the last of the game's positions so
// far, played on by the engine (the databases' or the book's moves where
// they hold the position, else a search of a quarter of the budget) until
// it is LineMin plies long and holds a capture, or is LineMax plies long,
// or the game would end; and the position after each of its moves. A move
// of pv that is not legal there ends the line.
func (gr *grader) line(ctx context.Context, history []rules.Position, pv []rules.Move) ([]rules.Move, []rules.Position, error) {
	r := gr.r
	path := slices.Clone(history)
	seen := map[rules.Position]int{}
	for _, h := range history {
		seen[h]++
	}
	var line []rules.Move
	var after []rules.Position
	captured := false
	// over reports whether the game would end at the line's last position.
	over := func() bool {
		p := path[len(path)-1]
		return seen[p] >= 3 || !p.HasLegalMove(r)
	}
	// play adds m to the line; false when it is not legal.
	play := func(m rules.Move) bool {
		p := path[len(path)-1]
		q, err := p.Play(m, r)
		if err != nil {
			return false
		}
		mover := p.ToMove()
		captured = captured || q.Captured(mover) > p.Captured(mover)
		line, after, path = append(line, m), append(after, q), append(path, q)
		seen[q]++
		return true
	}
	enough := func() bool {
		return len(line) >= LineMax || (len(line) >= LineMin && captured) || over()
	}
	for _, m := range pv {
		if over() || !play(m) {
			return line, after, nil
		}
	}
	budget := max(1, gr.nodes/4)
	for !enough() {
		p := path[len(path)-1]
		res, err := gr.search(ctx, p, path[:len(path)-1], engine.Limits{Nodes: budget})
		if err != nil {
			return nil, nil, fmt.Errorf("playing on the best line: %w", err)
		}
		added := false
		for _, m := range res.PV {
			if enough() || !play(m) {
				break
			}
			added = true
		}
		if !added {
			break // the search gave no move to play: the line stops here
		}
	}
	return line, after, nil
}
