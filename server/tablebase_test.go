package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// newTestServerWithTablebases returns a test server with the databases
// of every 3-hole position up to 8 seeds (standard rules).
func newTestServerWithTablebases(t *testing.T) *testServer {
	t.Helper()
	dir := t.TempDir()
	if _, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 8, Rules: rules.Rules{}, Dir: dir}); err != nil {
		t.Fatal(err)
	}
	ts := newTestServer(t)
	lib := egtb.NewLibrary(dir, egtb.LibraryOptions{})
	t.Cleanup(func() { lib.Close() })
	ts.srv.UseTablebases(lib)
	return ts
}

// TestAnalyzeWithTablebases: with endgame databases for the board, the
// analysis says how the position ends with best play; without them, or
// beyond them, it says nothing of the kind.
func TestAnalyzeWithTablebases(t *testing.T) {
	ts := newTestServerWithTablebases(t)
	type answer struct {
		Solved *analysis.Solved
		Lines  []api.Line
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

// TestBookWithoutDatabases: with no databases at all, the analysis and the
// hints know the value of the traditional 2×6×4 start from the opening
// book of proven values.
func TestBookWithoutDatabases(t *testing.T) {
	ts := newTestServer(t)
	var a struct {
		Solved *analysis.Solved
		Lines  []api.Line
	}
	if code, raw := ts.do("POST", "/api/analyze", `{"position": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "timeMs": 2000}`, &a); code != http.StatusOK {
		t.Fatalf("%d %s", code, raw)
	}
	if a.Solved == nil || a.Solved.South != 8 || a.Solved.Text != "solved: South wins by 8" {
		t.Fatalf("solved = %+v, want South wins by 8", a.Solved)
	}
	if len(a.Lines) == 0 || !a.Lines[0].Exact || a.Lines[0].Final != 8 {
		t.Fatalf("lines = %+v, want an exact +8", a.Lines)
	}
	var st struct {
		Sets []egtb.BuildStatus
		Book int `json:"bookPositions"`
	}
	if code, raw := ts.do("GET", "/api/tablebases", "", &st); code != http.StatusOK || st.Book == 0 || len(st.Sets) != 0 {
		t.Fatalf("status %d %s", code, raw)
	}
}

// TestTablebaseBuiltOnFirstUse: a server whose library builds databases by
// itself starts the build when a board is first analysed, reports it, and
// uses the databases once they are there.
func TestTablebaseBuiltOnFirstUse(t *testing.T) {
	lib := egtb.NewLibrary(t.TempDir(), egtb.LibraryOptions{AutoBuild: true, Budget: 5000})
	defer lib.Close()
	ts := newTestServer(t)
	ts.srv.UseTablebases(lib)
	body := `{"position": "1,1,1/1,1,1 s 0 0", "multiPv": 0}`
	deadline := time.Now().Add(30 * time.Second)
	for {
		var a struct{ Solved *analysis.Solved }
		if code, raw := ts.do("POST", "/api/analyze", body, &a); code != http.StatusOK {
			t.Fatalf("%d %s", code, raw)
		}
		if a.Solved != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the databases were not built within 30 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	var st struct{ Sets []egtb.BuildStatus }
	if code, raw := ts.do("GET", "/api/tablebases", "", &st); code != http.StatusOK || len(st.Sets) != 1 {
		t.Fatalf("status %d %s", code, raw)
	}
	got := st.Sets[0]
	if got.Holes != 3 || got.Variant != "standard" || got.State != egtb.StateReady || got.MaxSeeds != egtb.AutoMaxSeeds(3, 5000) {
		t.Fatalf("status %+v", got)
	}
}
