package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/store"
)

type testServer struct {
	t    testing.TB
	path string
	st   *store.SQLite
	srv  *Server
	// clock, when not nil, is the server's clock (newTestServerAt).
	clock *clock.Fake
}

// newTestServerAt returns a test server whose games' time is a fake
// clock, set at a moment years from now so that a reading of the
// system's clock instead shows.
func newTestServerAt(t testing.TB) (*testServer, *clock.Fake) {
	ts := &testServer{t: t, path: filepath.Join(t.TempDir(), "games.db"),
		clock: clock.NewFake(time.Date(2040, 1, 1, 9, 0, 0, 0, time.UTC))}
	ts.open()
	t.Cleanup(func() { ts.st.Close() })
	return ts, ts.clock
}

func newTestServer(t testing.TB) *testServer {
	ts := &testServer{t: t, path: filepath.Join(t.TempDir(), "games.db")}
	ts.open()
	t.Cleanup(func() { ts.st.Close() })
	return ts
}

func (ts *testServer) open() {
	st, err := store.Open(context.Background(), ts.path)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.st = st
	var o Options
	if ts.clock != nil {
		o.Clock = ts.clock
	}
	ts.srv = NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), o)
}

// restart closes the database and opens a new server on it.
func (ts *testServer) restart() {
	ts.st.Close()
	ts.open()
}

// do sends a request and decodes a JSON answer into out (if not nil); it
// returns the status and the raw body.
func (ts *testServer) do(method, path, body string, out any) (int, string) {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	ts.srv.ServeHTTP(rec, req)
	raw := rec.Body.String()
	if out != nil && rec.Code < 300 {
		if err := json.Unmarshal([]byte(raw), out); err != nil {
			ts.t.Fatalf("%s %s: answer %q: %v", method, path, raw, err)
		}
	}
	if rec.Code >= 400 {
		var e struct{ Error string }
		if err := json.Unmarshal([]byte(raw), &e); err != nil || e.Error == "" {
			ts.t.Errorf("%s %s: error answer %d is not a JSON error: %q", method, path, rec.Code, raw)
		}
	}
	return rec.Code, raw
}

// recordBody is the JSON body that carries a game record.
func recordBody(text string) string {
	b, _ := json.Marshal(map[string]string{"record": text})
	return string(b)
}

func (ts *testServer) create(body string) gameView {
	ts.t.Helper()
	var g gameView
	if code, raw := ts.do("POST", "/api/games", body, &g); code != http.StatusCreated {
		ts.t.Fatalf("create %s: %d %s", body, code, raw)
	}
	return g
}

func (ts *testServer) get(id string) gameView {
	ts.t.Helper()
	var g gameView
	if code, raw := ts.do("GET", "/api/games/"+id, "", &g); code != http.StatusOK {
		ts.t.Fatalf("get %s: %d %s", id, code, raw)
	}
	return g
}

func TestCreateAndPlay(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6, "south": "Naserian", "north": "Sironka"}`)
	if g.Holes != 6 || g.Position != "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0" || len(g.LegalMoves) != 6 || g.Status != "playing" || g.Result != "*" {
		t.Fatalf("new game %+v", g)
	}
	var mv moveView
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`, &mv); code != http.StatusOK {
		t.Fatalf("move c: %d %s", code, raw)
	}
	if mv.Game.Position != "6,6,2,7,0,6/1,0,6,6,0,1 n 7 0" || len(mv.Sowing.Laps) != 5 || mv.Sowing.Captured != 7 ||
		mv.Sowing.CaptureFrom != 7 || mv.Game.Positions[1] != mv.Game.Position || mv.Game.Moves[0] != "c" {
		t.Errorf("after c: %+v", mv)
	}
	if got := ts.get(g.ID); got.Position != mv.Game.Position || len(got.Moves) != 1 {
		t.Errorf("stored game %+v", got)
	}
}

func TestBadRequestsLeaveTheGameAlone(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6}`)
	moves := "/api/games/" + g.ID + "/moves"
	for _, tc := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/api/games", `{"holes": 6`, 400},
		{"POST", "/api/games", `{"holes": 17}`, 400},
		{"POST", "/api/games", `{"seeds": 0, "holes": 1}`, 400},
		{"POST", "/api/games", `{"colour": "red"}`, 400},
		{"POST", "/api/games", `{"variant": "mystery"}`, 400},
		{"POST", "/api/games", `{"maxLaps": 1000000}`, 400},
		{"POST", "/api/games", `{"computer": {"side": "n", "level": 11}}`, 400},
		{"POST", "/api/games", `{"computer": {"side": "x", "level": 3}}`, 400},
		{"POST", "/api/games", `{"position": "4,4/4 s 0 0"}`, 400},
		{"POST", "/api/games", `{"holes": 6} {"holes": 8}`, 400},
		{"POST", "/api/games", `{"south": "` + strings.Repeat("x", 2<<20) + `"}`, 413},
		{"POST", moves, `{"move": "C"}`, 409},
		{"POST", moves, `{"move": "z"}`, 400},
		{"POST", moves, `{"move": "g"}`, 422},
		{"POST", moves, `{"move": "c", "ply": 3}`, 409},
		{"POST", moves, `not json`, 400},
		{"POST", "/api/games/nosuchgame/moves", `{"move": "c"}`, 404},
		{"GET", "/api/games/nosuchgame", ``, 404},
		{"POST", "/api/games/" + g.ID + "/computer", ``, 409},
		{"POST", "/api/games/" + g.ID + "/takeback", `{"ply": 0}`, 409},
		{"POST", "/api/games/" + g.ID + "/takeback", ``, 400},
		{"GET", "/api/games/" + g.ID + "/record?format=pdf", ``, 400},
		{"GET", "/api/games?limit=0", ``, 400},
		{"GET", "/api/nothing", ``, 404},
		{"POST", "/api/games/import", recordBody(`[Holes "6"]`), 422},
		{"POST", "/api/games/import", `[Holes "6"]`, 400},
		{"POST", "/api/analyze", `{"position": "nonsense"}`, 400},
		{"POST", "/api/analyze", `{}`, 400},
		{"POST", "/api/analyze", `{"position": "4,4/4,4 s 0 0", "moves": ["a", "a"]}`, 422},
		{"POST", "/api/analyze", `{"position": "4,4/4,4 s 0 0", "depth": 1000}`, 400},
	} {
		if code, raw := ts.do(tc.method, tc.path, tc.body, nil); code != tc.want {
			t.Errorf("%s %s %.60s: %d %s, want %d", tc.method, tc.path, tc.body, code, raw, tc.want)
		}
	}
	if got := ts.get(g.ID); len(got.Moves) != 0 || got.Position != g.Position {
		t.Errorf("the game changed after refused requests: %+v", got)
	}
}

// A whole game against the computer, with a restart of the server in the
// middle: the game goes on where it was.
func TestGameAgainstTheComputerAcrossARestart(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 4, "seeds": 2, "computer": {"side": "n", "level": 3}}`)
	for turn := 0; g.Status == "playing"; turn++ {
		if turn == 3 {
			ts.restart()
			if again := ts.get(g.ID); again.Position != g.Position || len(again.Moves) != len(g.Moves) {
				t.Fatalf("after the restart the game is %+v, was %+v", again, g)
			}
		}
		var mv moveView
		path := "/api/games/" + g.ID + "/moves"
		body := `{"move": "` + g.LegalMoves[0] + `"}`
		if g.ToMove == "n" {
			path, body = "/api/games/"+g.ID+"/computer", ""
		}
		if code, raw := ts.do("POST", path, body, &mv); code != http.StatusOK {
			t.Fatalf("turn %d: %d %s", turn, code, raw)
		}
		g = mv.Game
		if turn > 400 {
			t.Fatal("the game does not end")
		}
	}
	if g.Result == "*" || len(g.LegalMoves) != 0 {
		t.Errorf("finished game: %+v", g)
	}
	if code, _ := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "a"}`, nil); code != http.StatusConflict {
		t.Errorf("a move after the end: %d, want 409", code)
	}
	// Take back: the person's last move and the computer's reply.
	var back gameView
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/takeback", fmt.Sprintf(`{"ply": %d}`, len(g.Moves)), &back); code != http.StatusOK {
		t.Fatalf("takeback: %d %s", code, raw)
	}
	if back.ToMove != "s" || len(back.Moves) >= len(g.Moves) || back.Status != "playing" {
		t.Errorf("after takeback: to move %s, %d moves (had %d), %s", back.ToMove, len(back.Moves), len(g.Moves), back.Status)
	}
	var list struct{ Games []api.Summary }
	if code, _ := ts.do("GET", "/api/games", "", &list); code != 200 || len(list.Games) != 1 || list.Games[0].ID != g.ID {
		t.Errorf("listing: %+v", list)
	}
}

func TestRecordExportAndImport(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6, "first": "n", "south": "Naserian"}`)
	for _, m := range []string{"C", "a", "D"} {
		var mv moveView
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "`+m+`"}`, &mv); code != 200 {
			t.Fatalf("move %s: %d %s", m, code, raw)
		}
		g = mv.Game
	}
	code, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil)
	if code != 200 || !strings.Contains(text, `[South "Naserian"]`) || !strings.Contains(text, "1... C 2. a D") {
		t.Fatalf("text record: %d\n%s", code, text)
	}
	if _, err := record.Parse(text); err != nil {
		t.Errorf("exported record does not read back: %v", err)
	}
	code, js := ts.do("GET", "/api/games/"+g.ID+"/record?format=json", "", nil)
	if code != 200 || !json.Valid([]byte(js)) {
		t.Fatalf("JSON record: %d %s", code, js)
	}
	// The text and the JSON form are the same record: one game.
	var first gameView
	for i, body := range []string{text, js, text} {
		want := http.StatusOK
		if i == 0 {
			want = http.StatusCreated
		}
		var imported gameView
		if code, raw := ts.do("POST", "/api/games/import", recordBody(body), &imported); code != want {
			t.Fatalf("import %d: %d %s, want %d", i, code, raw, want)
		}
		if imported.ID == g.ID || imported.Position != g.Position || imported.South != "Naserian" || len(imported.Moves) != 3 {
			t.Errorf("imported %+v, want a copy of %+v", imported, g)
		}
		if i == 0 {
			first = imported
		} else if imported.ID != first.ID {
			t.Errorf("import %d made game %s, the first made %s", i, imported.ID, first.ID)
		}
	}
}

func TestAnalyze(t *testing.T) {
	ts := newTestServer(t)
	var out struct {
		Position string
		Lines    []api.Line
	}
	body := `{"position": "1,1,1/1,0,2 s 10 10", "depth": 40, "multiPv": 0}`
	if code, raw := ts.do("POST", "/api/analyze", body, &out); code != 200 {
		t.Fatalf("analyze: %d %s", code, raw)
	}
	if len(out.Lines) != 3 || out.Lines[0].Move != "b" || !out.Lines[0].Exact || out.Lines[0].Final != 0 {
		t.Errorf("analysis %+v: want three lines, b first, an exact draw", out)
	}
	var one struct{ Lines []api.Line }
	if code, _ := ts.do("POST", "/api/analyze", `{"position": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "moves": ["c"], "timeMs": 100}`, &one); code != 200 || len(one.Lines) != 1 {
		t.Errorf("one line after a move: %+v", one)
	}
	var over struct {
		Status string
		Result string
	}
	if code, _ := ts.do("POST", "/api/analyze", `{"position": "0,0/1,1 s 3 0"}`, &over); code != 200 || over.Status != "no-legal-move" || over.Result != "0-1" && over.Result != "1-0" {
		t.Errorf("finished position: %+v", over)
	}
	g := ts.create(`{"holes": 6}`)
	var hint api.Line
	if code, raw := ts.do("GET", "/api/games/"+g.ID+"/hint", "", &hint); code != 200 || hint.Move == "" || len(hint.PV) == 0 {
		t.Errorf("hint: %d %s", code, raw)
	}
}

func TestBodyLimit(t *testing.T) {
	ts := newTestServer(t)
	big := bytes.Repeat([]byte("x"), MaxBody+10)
	req := httptest.NewRequest("POST", "/api/games/import", bytes.NewReader(big))
	req.Header.Set("Content-Type", "application/json")
	rec := httptest.NewRecorder()
	ts.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("oversized import: %d, want 413", rec.Code)
	}
}

// The listing gives each game's score and computer player, and a record
// names the computer with its level.
func TestListingScoresAndComputer(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6, "computer": {"side": "n", "level": 4}, "south": "Naserian"}`)
	var mv moveView
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`, &mv); code != 200 {
		t.Fatalf("move: %d %s", code, raw)
	}
	var list struct{ Games []api.Summary }
	for _, path := range []string{"/api/games", "/api/games?ids=" + g.ID} {
		if code, raw := ts.do("GET", path, "", &list); code != 200 || len(list.Games) != 1 {
			t.Fatalf("%s: %d %s", path, code, raw)
		}
		sm := list.Games[0]
		if sm.Score == nil || sm.Score.South != mv.Game.Score.South || sm.Score.North != mv.Game.Score.North ||
			sm.Computer == nil || sm.Computer.Side != "n" || sm.Computer.Level != 4 {
			t.Errorf("%s: summary %+v, score %+v, computer %+v", path, sm, sm.Score, sm.Computer)
		}
	}
	if _, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil); !strings.Contains(text, `[North "endodoi (level 4)"]`) || !strings.Contains(text, `[South "Naserian"]`) {
		t.Errorf("record:\n%s", text)
	}
}
