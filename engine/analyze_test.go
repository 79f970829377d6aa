package engine

import (
	"context"
	"slices"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// TestBestLines: one line is Search's answer, more are Analyze's cut to
// k, and the reports and the Info returned follow the iterations.
func TestBestLines(t *testing.T) {
	r := rules.DefaultRules()
	tb := buildTablebase(t, 3, 8, r)
	for _, tc := range []struct {
		name     string
		position string
		k        int
		depth    int
		tb       Tablebase
		want     int // lines
		// wantDepth is the returned Info's Depth; -1 when the search may
		// end early with exact scores.
		wantDepth int
	}{
		{name: "one line", position: "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", k: 1, depth: 6, want: 1, wantDepth: 6},
		{name: "three of eight", position: "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", k: 3, depth: 5, want: 3, wantDepth: 5},
		{name: "all", position: "6,6,2,7,0,6/1,0,6,6,0,1 n 7 0", k: 0, depth: 5, want: 4, wantDepth: 5},
		{name: "more than the moves", position: "1,0,2,0,0,1/0,1,0,2,0,0 s 20 19", k: 5, depth: 8, want: 3, wantDepth: -1},
		{name: "no legal move", position: "0,0,0/0,0,1 s 10 7", k: 1, depth: 4, want: 0, wantDepth: 0},
		{name: "no legal move, all", position: "0,0,0/0,0,1 s 10 7", k: 0, depth: 4, want: 0, wantDepth: 0},
		{name: "tablebase, one line", position: "2,0,1/1,2,0 s 10 9", k: 1, depth: 6, tb: tb, want: 1, wantDepth: -1},
		{name: "tablebase, two lines", position: "2,0,1/1,2,0 s 10 9", k: 2, depth: 6, tb: tb, want: 2, wantDepth: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			p := rules.MustParsePosition(tc.position)
			lim := Limits{Depth: tc.depth}
			e, err := New(Config{Rules: r, HashMiB: 1, Tablebase: tc.tb})
			if err != nil {
				t.Fatal(err)
			}
			var reports []Info
			lines, info, err := e.BestLines(ctx, p, nil, lim, tc.k, func(i Info) { reports = append(reports, i) })
			if err != nil {
				t.Fatal(err)
			}
			if len(lines) != tc.want {
				t.Fatalf("%d lines, want %d: %v", len(lines), tc.want, lines)
			}
			if tc.wantDepth >= 0 && info.Depth != tc.wantDepth {
				t.Errorf("depth %d, want %d", info.Depth, tc.wantDepth)
			}
			if info.Depth > 0 {
				if len(reports) == 0 || reports[len(reports)-1].Depth != info.Depth {
					t.Fatalf("reports %v do not end at depth %d", reports, info.Depth)
				}
				for i := 1; i < len(reports); i++ {
					if reports[i].Depth <= reports[i-1].Depth || reports[i].Nodes < reports[i-1].Nodes {
						t.Errorf("report %d (depth %d, %d nodes) after depth %d, %d nodes", i, reports[i].Depth, reports[i].Nodes, reports[i-1].Depth, reports[i-1].Nodes)
					}
				}
				last := reports[len(reports)-1]
				if tc.tb == nil && (info.Nodes == 0 || info.Nodes < last.Nodes) {
					t.Errorf("%d nodes searched, %d at the last report", info.Nodes, last.Nodes)
				}
				if last.PV[0] != lines[0].Move || last.Score != lines[0].Score {
					t.Errorf("last report %s %s, best line %s %s", last.PV[0], last.Score, lines[0].Move, lines[0].Score)
				}
			}
			for _, l := range lines {
				if len(l.PV) == 0 || l.PV[0] != l.Move {
					t.Errorf("line %s: PV %v does not start with it", l.Move, l.PV)
				}
			}

			// The same question put to Search or Analyze on a fresh engine.
			f, _ := New(Config{Rules: r, HashMiB: 1, Tablebase: tc.tb})
			var want []Line
			if tc.k == 1 {
				res, err := f.Search(ctx, p, nil, lim, nil)
				if err != nil {
					t.Fatal(err)
				}
				if res.Move != rules.NoMove {
					want = []Line{{Move: res.Move, Score: res.Score, Exact: res.Exact, PV: res.PV}}
				}
			} else {
				all, err := f.Analyze(ctx, p, nil, lim, nil)
				if err != nil {
					t.Fatal(err)
				}
				want = all
				if tc.k > 0 && tc.k < len(all) {
					want = all[:tc.k]
				}
			}
			if !slices.EqualFunc(lines, want, func(a, b Line) bool {
				return a.Move == b.Move && a.Score == b.Score && a.Exact == b.Exact && slices.Equal(a.PV, b.PV)
			}) {
				t.Errorf("lines %v, want %v", lines, want)
			}
		})
	}
	e, _ := New(Config{HashMiB: 1})
	if _, _, err := e.BestLines(context.Background(), rules.MustParsePosition("4,4,4/4,4,4 s 0 0"), nil, Limits{Depth: 2}, -1, nil); err == nil {
		t.Error("k -1: no error")
	}
}
