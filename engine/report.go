package engine

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// WriteBench runs Bench to depth and writes a line for each position (the
// search's depth, move, score, nodes and time), then the nodes, the time
// and the nodes a second of all the searches.
func (e *Engine) WriteBench(ctx context.Context, w io.Writer, depth int) error {
	i := 0
	nodes, elapsed, err := e.Bench(ctx, depth, func(s string, res Result) {
		i++
		exact := ""
		if res.Exact {
			exact = " exact"
		}
		fmt.Fprintf(w, "%2d  %-46s depth %2d  %-6s score %s%s  nodes %d  %v\n",
			i, s, res.Depth, res.Move, res.Score, exact, res.Nodes, res.Elapsed.Round(time.Millisecond))
	})
	if err != nil {
		return err
	}
	nps := uint64(float64(nodes) / max(elapsed.Seconds(), 1e-9))
	_, err = fmt.Fprintf(w, "nodes %d\ntime %v\nnps %d\n", nodes, elapsed.Round(time.Millisecond), nps)
	return err
}

// verdictWriter is a Tablebase that says in words what it knows of a
// position (package egtb's databases do).
type verdictWriter interface {
	WriteVerdict(w io.Writer, p rules.Position) error
}

// WriteAnalysis writes the analysis of p: the position and the seeds
// captured, what the engine's tablebase says of it when it can, then the
// search for its k best moves (all of them for k == 0): the search's depth,
// nodes and time, and a line for each move with its score, how the game
// ends with it and its expected line. A position without a legal move is
// described, not searched. progress, if not nil, receives a line for each
// depth completed.
func (e *Engine) WriteAnalysis(ctx context.Context, w, progress io.Writer, p rules.Position, lim Limits, k int) error {
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "%s to move; captured so far: South %d, North %d\n", p.ToMove(), p.Captured(rules.South), p.Captured(rules.North))
	if !p.HasLegalMove(e.cfg.Rules) {
		_, err := fmt.Fprintf(w, "%s\n", rules.GameOverText(p, -1))
		return err
	}
	if tb, ok := e.cfg.Tablebase.(verdictWriter); ok {
		if err := tb.WriteVerdict(w, p); err != nil {
			return err
		}
	}
	var report func(Info)
	if progress != nil {
		moves := len(p.LegalMoves(e.cfg.Rules))
		report = func(info Info) {
			if k == 1 {
				fmt.Fprintf(progress, "depth %d: %s  %s  nodes %d  time %dms  %s\n", info.Depth,
					info.PV[0], ScoreText(info.Score, info.Exact), info.Nodes, info.Elapsed.Milliseconds(), rules.MoveList(info.PV))
			} else {
				fmt.Fprintf(progress, "depth %d: best %s  %s  (%d moves scored)\n", info.Depth, info.PV[0], ScoreText(info.Score, info.Exact), moves)
			}
		}
	}
	lines, info, err := e.BestLines(ctx, p, nil, lim, k, report)
	if err != nil {
		return err
	}
	if len(lines) == 0 {
		return fmt.Errorf("the search found no move in %v", p)
	}
	elapsed := info.Elapsed.Round(time.Millisecond)
	switch {
	case k == 1:
		fmt.Fprintf(w, "search: depth %d, %d nodes, %v\n", info.Depth, info.Nodes, elapsed)
	case info.Depth == 0:
		fmt.Fprintf(w, "search: stopped before the first depth was done; the moves are unscored, %v\n", elapsed)
	default:
		fmt.Fprintf(w, "search: depth %d, %v\n", info.Depth, elapsed)
	}
	for i, l := range lines {
		fmt.Fprintf(w, "%d. %s  %s  (%s)  %s\n", i+1, l.Move, ScoreText(l.Score, l.Exact), FinalText(p, l.Score, l.Exact), rules.MoveList(l.PV))
	}
	return nil
}
