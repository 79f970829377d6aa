package server

import (
	"context"
	"net/http"
	"testing"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// TestAnalyzeWithTablebases: with endgame databases for the board, the
// analysis says how the position ends with best play; without them, or
// beyond them, it says nothing of the kind.
func TestAnalyzeWithTablebases(t *testing.T) {
	dir := t.TempDir()
	if _, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 8, Rules: rules.Rules{}, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	ts.srv.UseTablebases(dir)
	type answer struct {
		Solved *solvedView
		Lines  []lineView
	}
	for _, tc := range []struct {
		body   string
		solved bool
	}{
		{`{"position": "1,1,1/1,1,1 s 0 0", "multiPv": 0}`, true},
		{`{"position": "1,1,1/1,1,1 s 0 0", "variant": "cross"}`, false}, // no cross databases
		{`{"position": "3,3,3/3,3,3 s 0 0"}`, false},                     // 18 seeds: beyond them
		{`{"position": "1,1/1,1 s 0 0"}`, false},                         // another board
	} {
		var a answer
		if code, raw := ts.do("POST", "/api/analyze", tc.body, &a); code != http.StatusOK || (a.Solved != nil) != tc.solved {
			t.Errorf("%s: %d %s", tc.body, code, raw)
			continue
		}
		if !tc.solved {
			continue
		}
		// The verdict agrees with the best line's exact final margin.
		if len(a.Lines) == 0 || !a.Lines[0].Exact || int(a.Lines[0].Final) != a.Solved.South || a.Solved.Text == "" {
			t.Errorf("%s: solved %+v, lines %+v", tc.body, a.Solved, a.Lines)
		}
	}
}
