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

	if _, err := Solve(context.Background(), p, SolveOptions{Rules: r, Dir: t.TempDir(), Memory: 1}); err == nil {
		t.Error("a search without databases did not fail")
	}
}
