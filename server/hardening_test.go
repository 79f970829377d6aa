package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/store"
)

// send makes a request with the given headers and returns the recorder.
func (ts *testServer) send(method, path, body string, header map[string]string) *httptest.ResponseRecorder {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	ts.srv.ServeHTTP(rec, req)
	return rec
}

// isJSONError reports whether an answer is a JSON error with a message.
func isJSONError(rec *httptest.ResponseRecorder) bool {
	var e struct{ Error string }
	return strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") &&
		json.Unmarshal(rec.Body.Bytes(), &e) == nil && e.Error != ""
}

func TestPlayerNames(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"south": "Ann\tB"}`, 400},
		{`{"north": "A\u0000"}`, 400},
		{`{"south": "x\u202eevil"}`, 400},
		{`{"south": "` + strings.Repeat("n", api.MaxNameLength+1) + `"}`, 400},
		{`{"south": "` + strings.Repeat("ন", api.MaxNameLength) + `"}`, 201},
		{`{"south": "Naserian ole Sironka", "north": "نصیر احمد"}`, 201},
		{`{"north": "نصیر\u200cاحمد"}`, 400}, // the non-joiner follows a letter that never joins: it hides
		{`{"south": "  Lemayian  "}`, 201},
	} {
		var g gameView
		code, raw := ts.do("POST", "/api/games", tc.body, &g)
		if code != tc.want {
			t.Errorf("%.70s: %d %s, want %d", tc.body, code, raw, tc.want)
			continue
		}
		if code != 201 {
			continue
		}
		if strings.HasPrefix(g.South, " ") {
			t.Errorf("name %q kept its spaces", g.South)
		}
		for _, f := range []string{"text", "json"} {
			if code, raw := ts.do("GET", "/api/games/"+g.ID+"/record?format="+f, "", nil); code != 200 {
				t.Errorf("export %s of %s: %d %s", f, tc.body, code, raw)
			}
		}
	}
}

func TestExactDecoding(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6}`)
	moves := "/api/games/" + g.ID + "/moves"
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/api/games", `null`, 400},
		{"/api/games", `[]`, 400},
		{"/api/games", `"x"`, 400},
		{"/api/games", `{"Holes": 6}`, 400},
		{"/api/games", `{"holes": 6, "holes": 8}`, 400},
		{"/api/games", `{"computer": {"Side": "n", "level": 2}}`, 400},
		{moves, `{"Move": "c"}`, 400},
		{moves, `{"move": "c", "PLY": 0}`, 400},
		{moves, `null`, 400},
		{moves, ``, 400},
		{moves, `{"move": "c", "ply": -1}`, 400},
		{moves, `{"move": "c", "ply": 1.5}`, 400},
		{"/api/analyze", `{"position": "4,4/4,4 s 0 0", "timeMs": 4611686018427387904}`, 400},
		{"/api/analyze", `{"position": "4,4/4,4 s 0 0", "timeMs": 10001}`, 400},
		{"/api/analyze", `{"position": "4,4/4,4 s 0 0", "timeMs": 99999999999999999999}`, 400},
	} {
		start := time.Now()
		code, raw := ts.do("POST", tc.path, tc.body, nil)
		if code != tc.want {
			t.Errorf("POST %s %s: %d %s, want %d", tc.path, tc.body, code, raw, tc.want)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("POST %s %s took %v", tc.path, tc.body, d)
		}
	}
	if got := ts.get(g.ID); len(got.Moves) != 0 {
		t.Errorf("the game changed: %v", got.Moves)
	}
	// An empty body is {} where every field is optional.
	if code, raw := ts.do("POST", "/api/games", ``, nil); code != 201 {
		t.Errorf("empty body: %d %s", code, raw)
	}
}

func TestErrorsAreJSON(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6}`)
	json := map[string]string{"Content-Type": "application/json"}
	for _, tc := range []struct {
		method, path string
		header       map[string]string
		want         int
	}{
		{"GET", "/api/games/" + g.ID + "/moves", nil, 405},
		{"DELETE", "/api/games/" + g.ID, nil, 405},
		{"PUT", "/api/games", json, 405},
		{"GET", "/api/analyze", nil, 405},
		{"HEAD", "/api/analyze", nil, 405},
		{"HEAD", "/api/games/" + strings.Repeat("0", 16), nil, 404},
		{"GET", "/api/nothing", nil, 404},
		{"POST", "/api/nothing", json, 404},
		{"GET", "/api/games/" + g.ID, map[string]string{"X-Big": strings.Repeat("x", MaxHeaderBytes)}, 431},
	} {
		rec := ts.send(tc.method, tc.path, "", tc.header)
		if rec.Code != tc.want {
			t.Errorf("%s %s: %d, want %d", tc.method, tc.path, rec.Code, tc.want)
		}
		ct := rec.Header().Get("Content-Type")
		if !strings.HasPrefix(ct, "application/json") {
			t.Errorf("%s %s: Content-Type %q", tc.method, tc.path, ct)
		}
		if tc.method != "HEAD" && !isJSONError(rec) {
			t.Errorf("%s %s: %d is not a JSON error: %q", tc.method, tc.path, rec.Code, rec.Body)
		}
		if tc.want == 405 && rec.Header().Get("Allow") == "" {
			t.Errorf("%s %s: 405 without Allow", tc.method, tc.path)
		}
	}
}

func TestOtherSitesAreRefused(t *testing.T) {
	ts := newTestServer(t)
	create := `{"holes": 6}`
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"text/plain", map[string]string{"Content-Type": "text/plain"}, 415},
		{"form", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415},
		{"no type", nil, 415},
		{"other origin", map[string]string{"Content-Type": "application/json", "Origin": "http://evil.example"}, 403},
		{"text from other origin", map[string]string{"Content-Type": "text/plain", "Origin": "http://evil.example"}, 403},
		{"other port", map[string]string{"Content-Type": "application/json", "Origin": "http://example.com:9999"}, 403},
		{"null origin", map[string]string{"Content-Type": "application/json", "Origin": "null"}, 403},
		{"cross-site fetch", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403},
		{"same-site fetch", map[string]string{"Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403},
		{"own origin", map[string]string{"Content-Type": "application/json", "Origin": "http://example.com"}, 201},
		{"same-origin fetch", map[string]string{"Content-Type": "application/json; charset=utf-8", "Sec-Fetch-Site": "same-origin", "Origin": "http://example.com"}, 201},
		{"no browser", map[string]string{"Content-Type": "application/json"}, 201},
	} {
		rec := ts.send("POST", "/api/games", create, tc.header)
		if rec.Code != tc.want || !isJSONError(rec) && tc.want != 201 {
			t.Errorf("%s: %d %s, want %d", tc.name, rec.Code, rec.Body, tc.want)
		}
	}
	// Reading another site's view of the games is refused too.
	if rec := ts.send("GET", "/api/games", "", map[string]string{"Origin": "http://evil.example"}); rec.Code != 403 {
		t.Errorf("cross-origin listing: %d", rec.Code)
	}
	var list struct{ Games []api.Summary }
	ts.do("GET", "/api/games", "", &list)
	if len(list.Games) != 3 {
		t.Errorf("%d games stored, want the 3 of the allowed requests", len(list.Games))
	}
}

// Concurrent takebacks of one view of the game: exactly one is taken.
func TestConcurrentTakebacks(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6}`)
	for i, m := range []string{"c", "A", "b"} {
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, m, i), nil); code != 200 {
			t.Fatalf("move %s: %d %s", m, code, raw)
		}
	}
	var wg sync.WaitGroup
	codes := make([]int, 20)
	for i := range codes {
		wg.Go(func() {
			codes[i] = ts.send("POST", "/api/games/"+g.ID+"/takeback", `{"ply": 3}`,
				map[string]string{"Content-Type": "application/json"}).Code
		})
	}
	wg.Wait()
	taken := 0
	for _, c := range codes {
		switch c {
		case 200:
			taken++
		case 409:
		default:
			t.Errorf("takeback answered %d", c)
		}
	}
	if got := ts.get(g.ID); taken != 1 || len(got.Moves) != 2 {
		t.Errorf("%d takebacks taken, %d moves left; want 1 and 2", taken, len(got.Moves))
	}
}

// Requests naming games that do not exist leave nothing behind, and
// neither do those on real games once answered.
func TestGameLocksAreBounded(t *testing.T) {
	ts := newTestServer(t)
	long := strings.Repeat("f", 100_000)
	var wg sync.WaitGroup
	for i := range 200 {
		wg.Go(func() {
			rec := ts.send("POST", "/api/games/"+long+fmt.Sprint(i)+"/moves", `{"move": "c"}`,
				map[string]string{"Content-Type": "application/json"})
			if rec.Code != 404 || rec.Body.Len() > 1000 {
				t.Errorf("unknown long id: %d, %d bytes", rec.Code, rec.Body.Len())
			}
		})
	}
	g := ts.create(`{"holes": 6}`)
	for range 20 {
		wg.Go(func() {
			ts.send("POST", "/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`, map[string]string{"Content-Type": "application/json"})
		})
	}
	wg.Wait()
	if n := ts.srv.table.Busy(); n != 0 {
		t.Errorf("%d game locks left after every request was answered", n)
	}
	if code, _ := ts.do("GET", "/api/games/"+strings.Repeat("0", 16), "", nil); code != 404 {
		t.Errorf("well-formed unknown id: %d", code)
	}
}

func TestRateLimit(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir()+"/games.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{AnalysisRate: Rate{PerSecond: 0.01, Burst: 3}})
	ask := func(addr string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", "/api/analyze", strings.NewReader(`{"position": "1,1/1,1 s 0 0", "depth": 2}`))
		req.Header.Set("Content-Type", "application/json")
		req.RemoteAddr = addr
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	for i := range 3 {
		if rec := ask("192.0.2.7:1000"); rec.Code != 200 {
			t.Fatalf("analysis %d within the burst: %d %s", i, rec.Code, rec.Body)
		}
	}
	rec := ask("192.0.2.7:1001")
	if rec.Code != 429 || rec.Header().Get("Retry-After") == "" || !isJSONError(rec) {
		t.Errorf("beyond the burst: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if rec := ask("192.0.2.8:1000"); rec.Code != 200 {
		t.Errorf("another client: %d", rec.Code)
	}
	// One IPv6 client cannot escape by changing addresses within its /64.
	for i := range 3 {
		ask(fmt.Sprintf("[2001:db8::%x]:1000", i+1))
	}
	if rec := ask("[2001:db8::ffff]:1000"); rec.Code != 429 {
		t.Errorf("fourth address of one /64: %d", rec.Code)
	}
	// Moves are not limited.
	for range 10 {
		req := httptest.NewRequest("POST", "/api/games", strings.NewReader(`{}`))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != 201 {
			t.Fatalf("create: %d", rec.Code)
		}
	}
}

func TestClientBehindAProxy(t *testing.T) {
	for _, tc := range []struct {
		remote, forwarded string
		trust             bool
		want              string
	}{
		{"192.0.2.1:5", "", false, "192.0.2.1/32"},
		{"127.0.0.1:5", "203.0.113.9", false, "100::/64"}, // a proxy the server was not told of
		{"127.0.0.1:5", "203.0.113.9", true, "203.0.113.9/32"},
		{"10.0.0.2:5", "198.51.100.1, 203.0.113.9", true, "203.0.113.9/32"},
		{"192.0.2.1:5", "203.0.113.9", true, "192.0.2.1/32"}, // not from a proxy of ours
		{"127.0.0.1:5", "garbage", true, "127.0.0.1/32"},
		{"[::1]:5", "2001:db8:1:2::7", true, "2001:db8:1:2::/64"},
	} {
		req := httptest.NewRequest("GET", "/", nil)
		req.RemoteAddr = tc.remote
		if tc.forwarded != "" {
			req.Header.Set("X-Forwarded-For", tc.forwarded)
		}
		got := clientOf(req, tc.trust)
		if got.String() != tc.want {
			t.Errorf("%s forwarding %q (trust %v): %s, want %s", tc.remote, tc.forwarded, tc.trust, got, tc.want)
		}
		// Only the operator's own tools on this machine go unlimited.
		if exempt := !limits.Limited(got); exempt != (tc.want == "127.0.0.1/32") {
			t.Errorf("%s forwarding %q (trust %v): exempt from the limits: %v", tc.remote, tc.forwarded, tc.trust, exempt)
		}
	}
}

// Searches beyond the slots and their queue are answered 503 at once, and
// a move is answered meanwhile.
func TestSearchesAreBounded(t *testing.T) {
	st, err := store.Open(context.Background(), t.TempDir()+"/games.db")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{Searches: 1, SearchQueue: 1, SearchWait: 30 * time.Second, AnalysisRate: Rate{1000, 1000},
			ClientLimits: ClientLimits{SearchShare: 8}}) // the instance's queue, not the client's share
	post := func(path, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	long := `{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "timeMs": 1500}`
	var wg sync.WaitGroup
	codes := make(chan int, 8)
	for range 2 { // one runs, one waits
		wg.Go(func() { codes <- post("/api/analyze", long).Code })
		time.Sleep(100 * time.Millisecond)
	}
	for range 3 {
		rec := post("/api/analyze", long)
		if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !isJSONError(rec) {
			t.Errorf("beyond the queue: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
		}
	}
	var g gameView
	rec := post("/api/games", `{"holes": 6}`)
	if err := json.Unmarshal(rec.Body.Bytes(), &g); err != nil || rec.Code != 201 {
		t.Fatalf("create during searches: %d %s", rec.Code, rec.Body)
	}
	if rec := post("/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`); rec.Code != 200 {
		t.Errorf("move during searches: %d %s", rec.Code, rec.Body)
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != 200 {
			t.Errorf("queued analysis: %d", c)
		}
	}
}

// Searches reuse the engines' tables instead of allocating one each.
func TestEnginesAreReused(t *testing.T) {
	ts := newTestServer(t)
	body := `{"position": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "depth": 3}`
	ts.do("POST", "/api/analyze", body, nil)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 20
	for range n {
		if code, raw := ts.do("POST", "/api/analyze", body, nil); code != 200 {
			t.Fatalf("analysis: %d %s", code, raw)
		}
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4*analysis.SearchHashMiB<<20 {
		t.Errorf("%d analyses allocated %d MiB; a table each would be %d MiB", n, grew>>20, n*analysis.SearchHashMiB)
	}
}

func TestStorageBusyIs503(t *testing.T) {
	ts := newTestServer(t)
	rec := httptest.NewRecorder()
	ts.srv.fail(rec, httptest.NewRequest("POST", "/api/games/x/moves", nil), fmt.Errorf("storing a move: %w", store.ErrBusy))
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !isJSONError(rec) {
		t.Errorf("busy storage: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	rec = httptest.NewRecorder()
	ts.srv.fail(rec, httptest.NewRequest("POST", "/api/games/x/moves", nil), fmt.Errorf("storing a move: %w: disk full", store.ErrUnsaved))
	if rec.Code != 503 || rec.Header().Get("Retry-After") == "" || !isJSONError(rec) || strings.Contains(rec.Body.String(), "disk full") {
		t.Errorf("failed write: %d %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	rec = httptest.NewRecorder()
	ts.srv.fail(rec, httptest.NewRequest("GET", "/", nil), fmt.Errorf("reading: disk I/O error at /secret/path"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "/secret/path") {
		t.Errorf("internal error: %d %s; the details belong in the log", rec.Code, rec.Body)
	}
}
