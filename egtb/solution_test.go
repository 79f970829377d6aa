package egtb

import (
	"context"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

func TestSolve(t *testing.T) {
	r := rules.DefaultRules()
	p, _ := rules.NewPosition(3, 2)
	full, err := Build(context.Background(), Options{Holes: 3, MaxSeeds: p.OnBoard(), Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.Value(p)

	sol, err := Solve(context.Background(), p, SolveOptions{Rules: r, Memory: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Method != Complete || !sol.Solved || sol.Value != want || !sol.PVProven || len(sol.PV) == 0 {
		t.Errorf("complete: %+v, want value %d", sol, want)
	}

	// Too big for the memory: the bounds with databases of 8 seeds prove
	// the value even when the engine's search finds nothing.
	dir := t.TempDir()
	if _, err := Build(context.Background(), Options{Holes: 3, MaxSeeds: 8, Rules: r, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	var bounds []Bound
	sol, err = Solve(context.Background(), p, SolveOptions{Rules: r, Dir: dir, Memory: 1, SearchTime: 10 * time.Second,
		Search: func(ctx context.Context, tb *Tablebase, p rules.Position) (EngineResult, error) {
			<-ctx.Done() // stopped once the bounds meet
			return EngineResult{Depth: 1}, nil
		},
		Bound: func(b Bound) { bounds = append(bounds, b) }})
	if err != nil {
		t.Fatal(err)
	}
	if sol.Method != Searched || !sol.Solved || sol.Value != want || sol.Databases == nil || sol.Engine == nil {
		t.Errorf("searched: %+v, want value %d", sol, want)
	}
	if len(bounds) == 0 || bounds[len(bounds)-1] != sol.Bounds || sol.Bounds.Lo != sol.Bounds.Hi {
		t.Errorf("bounds %+v, solution's %+v", bounds, sol.Bounds)
	}

	// Without the engine: the bounds alone, side by side.
	sol, err = Solve(context.Background(), p, SolveOptions{Rules: r, Dir: dir, Memory: 1, SearchTime: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Solved || sol.Value != want || sol.Engine != nil || sol.Bounds.Lo != sol.Bounds.Hi {
		t.Errorf("bounds only: %+v, want value %d", sol, want)
	}
	// Its best move keeps the value.
	if q, err := p.Play(sol.Best, r); err != nil {
		t.Errorf("bounds only: best move %s: %v", sol.Best, err)
	} else if v, err := full.Value(q); err != nil || q.Captured(p.ToMove())-p.Captured(p.ToMove())-v != want {
		t.Errorf("bounds only: best move %s leads to %d for the opponent (%v), not what keeps %d", sol.Best, v, err, want)
	}

	// The engine proves a value at once: the bounds, stopped (unless they
	// met first), test that value alone, and confirm it.
	engineSays := func(v int) func(context.Context, *Tablebase, rules.Position) (EngineResult, error) {
		return func(context.Context, *Tablebase, rules.Position) (EngineResult, error) {
			return EngineResult{Depth: 1, Score: 100 * v, Exact: true}, nil
		}
	}
	sol, err = Solve(context.Background(), p, SolveOptions{Rules: r, Dir: dir, Memory: 1, SearchTime: 10 * time.Second,
		Search: engineSays(want)})
	if err != nil {
		t.Fatal(err)
	}
	if !sol.Solved || sol.Value != want || !sol.Confirmed || sol.Bounds.Lo != want || sol.Bounds.Hi != want {
		t.Errorf("engine first: %+v, want value %d confirmed", sol, want)
	}
	// The tests themselves, from the widest bounds: each side deepens
	// until it reaches the value.
	tb, err := Open(dir, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	bd, err := tb.NewBounder(p, 1)
	if err != nil {
		t.Fatal(err)
	}
	bounds = nil
	var confirmed Solution
	n := p.OnBoard()
	lo, hi := confirmed.confirm(context.Background(), p, bd, want, -n, n, 1, func(b Bound) { bounds = append(bounds, b) })
	if lo != want || hi != want || confirmed.Bounds.Lo != want || confirmed.Bounds.Hi != want || confirmed.Bounds.Depth == 0 {
		t.Errorf("confirm: [%d, %d], %+v; want %d", lo, hi, confirmed.Bounds, want)
	}
	held := map[string]bool{}
	for _, b := range bounds {
		if b.Target != want || b.Test != "lower" && b.Test != "upper" || held[b.Test] {
			t.Errorf("test %+v after %v held", b, held)
		}
		held[b.Test] = b.Held
	}
	if !held["lower"] || !held["upper"] {
		t.Errorf("tests %v: both sides should end held", bounds)
	}

	// An exact value the bounds already rule out is an error.
	if _, err := Solve(context.Background(), p, SolveOptions{Rules: r, Dir: dir, Memory: 1, SearchTime: 10 * time.Second,
		Search: engineSays(p.OnBoard() + 2)}); err == nil {
		t.Error("an engine's exact value beyond the seeds on the board was taken")
	}

	if _, err := Solve(context.Background(), p, SolveOptions{Rules: r, Dir: t.TempDir(), Memory: 1}); err == nil {
		t.Error("a search without databases did not fail")
	}
}
