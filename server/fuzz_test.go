package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzRequests sends arbitrary bodies to the endpoints that read one: the
// answer is never a server error, and a refused request leaves the game as
// it was.
func FuzzRequests(f *testing.F) {
	for _, seed := range []struct {
		endpoint uint8
		body     string
	}{
		{0, `{"move": "c", "ply": 0}`},
		{0, `{"move": "A"}`},
		{1, `{"holes": 6, "seeds": 3, "series": 2, "computer": {"side": "n", "level": 1}}`},
		{1, `{"position": "1,0/0,1 n 0 0", "first": "n"}`},
		{2, `{"record": "[Holes \"6\"]\n\n1. c A *\n"}`},
		{2, `{"record": "{\"holes\": 6, \"seeds\": 4, \"moves\": [\"c\"]}"}`},
		{0, `{"Move": "c"}`},
		{0, `null`},
		{3, `{"position": "4,4/4,4 s 0 0", "moves": ["a", "B"]}`},
		{4, `{"position": "4,4/4,4 s 0 0", "depth": 2, "multiPv": 0}`},
		{5, `{"holes": 6}`},
	} {
		f.Add(seed.endpoint, seed.body)
	}
	ts := newTestServer(f)
	g := ts.create(`{"holes": 6}`)
	before := ts.get(g.ID).Position
	paths := []string{"/api/games/" + g.ID + "/moves", "/api/games", "/api/games/import", "/api/position",
		"/api/analyze", "/api/records/parse"}
	f.Fuzz(func(t *testing.T, endpoint uint8, body string) {
		path := paths[int(endpoint)%len(paths)]
		if path == "/api/analyze" && len(body) > 200 {
			return // keeps each search short
		}
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		ts.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q: %d %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code >= 300 && !strings.HasPrefix(rec.Body.String(), `{"error":`) {
			t.Fatalf("POST %s %q: %d without a JSON error: %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code == http.StatusOK && strings.HasSuffix(path, "/moves") {
			// A legal move: take it back so that the next input starts alike.
			back := httptest.NewRequest("POST", "/api/games/"+g.ID+"/takeback", strings.NewReader(`{"ply": 1}`))
			back.Header.Set("Content-Type", "application/json")
			ts.srv.ServeHTTP(httptest.NewRecorder(), back)
		}
		got := httptest.NewRecorder()
		ts.srv.ServeHTTP(got, httptest.NewRequest("GET", "/api/games/"+g.ID, nil))
		if now := got.Body.String(); !strings.Contains(now, `"position":"`+before+`"`) {
			t.Fatalf("POST %s %q changed the game: %s", path, body, now)
		}
	})
}
