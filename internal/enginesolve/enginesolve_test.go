package enginesolve

import (
	"context"
	"testing"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// TestSearch: the search proves small positions' values, with databases
// or without, and egtb.Solve takes them.
func TestSearch(t *testing.T) {
	r := rules.DefaultRules()
	dir := t.TempDir()
	tb, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 8, Rules: r, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	full, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 12, Rules: r})
	if err != nil {
		t.Fatal(err)
	}
	search := Search(r, 0)
	for _, tc := range []struct {
		name string
		tb   *egtb.Tablebase
		p    string
	}{
		{"no databases", nil, "2,1,0/1,0,2 s 0 0"},
		{"databases below", tb, "3,1,2/0,2,3 s 0 0"},
		{"databases hold it", tb, "2,0,1/1,2,0 n 4 5"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := rules.MustParsePosition(tc.p)
			want, err := full.Value(p)
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res, err := search(ctx, tc.tb, p)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Exact || res.Score != want*int(engine.Seed) {
				t.Errorf("score %d (exact %v), want %d exact", res.Score, res.Exact, want*int(engine.Seed))
			}
			if res.ScoreText != engine.Score(res.Score).String() || len(res.PV) == 0 || res.Depth == 0 {
				t.Errorf("result %+v", res)
			}
		})
	}
	// Too little memory for a complete solution: Solve searches.
	p := rules.MustParsePosition("3,1,2/0,2,3 s 0 0")
	sol, err := egtb.Solve(context.Background(), p, egtb.SolveOptions{Rules: r, Dir: dir, Memory: 1, SearchTime: time.Minute, Workers: 1, Search: search})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := full.Value(p)
	if !sol.Solved || sol.Value != want || sol.Engine == nil || !sol.Engine.Exact {
		t.Errorf("Solve: solved %v, value %d (want %d), engine %+v", sol.Solved, sol.Value, want, sol.Engine)
	}
}
