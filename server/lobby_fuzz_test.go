package server

import (
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/lobby"
)

// FuzzLobbyRequests sends arbitrary bodies and Authorization headers to
// the lobby's routes, signed in: the answer is never a server error, an
// error is JSON, and a seek or challenge is made only from a body that
// says so.
func FuzzLobbyRequests(f *testing.F) {
	for _, seed := range []struct {
		endpoint uint8
		auth     string
		body     string
	}{
		{0, "", `{"minutes": 3, "increment": 2, "rated": true, "min_rating": 1200}`},
		{0, "", `{"days": 3, "holes": 6, "seeds": 3, "variant": "cross"}`},
		{1, "", `{"to": "Baraka", "minutes": 5, "side": "n"}`},
		{2, "", `{"name": "Baraka"}`},
		{3, "", `{"reason": "abuse", "text": "é\u0000"}`},
		{4, "", `{"rated": true}`},
		{5, "", `{"reason": "x"}`},
		{0, "Bearer bot_" + strings.Repeat("A", 43), `{"minutes": 1}`},
		{0, "Bearer bot_", `{}`},
		{0, "bearer   ", `null`},
		{1, "", `{"to": 5}`},
	} {
		f.Add(seed.endpoint, seed.auth, seed.body)
	}
	ls := newLobbySite(f, time.Hour)
	amina := ls.player("Amina")
	ls.player("Baraka")
	g := (&testServer{t: f, srv: ls.srv}).create(`{"holes": 6}`)
	var ch struct{ Challenge lobby.ChallengeView }
	amina.call("POST", "/api/challenges", `{"to": "Baraka", "minutes": 5}`, &ch)
	paths := []string{"/api/lobby/seeks", "/api/challenges", "/api/me/blocks", "/api/games/" + g.ID + "/report",
		"/api/lobby/pools/8-3+2/join", "/api/challenges/" + ch.Challenge.ID + "/decline"}
	f.Fuzz(func(t *testing.T, endpoint uint8, auth, body string) {
		path := paths[int(endpoint)%len(paths)]
		req := httptest.NewRequest("POST", path, strings.NewReader(body))
		req.RemoteAddr = "127.0.0.1:1" // the hourly limits are not what this tests
		req.Header.Set("Content-Type", "application/json")
		amina.header(req.Header)
		if auth != "" && len(auth) < 200 && !strings.ContainsAny(auth, "\r\n\x00") {
			req.Header.Set("Authorization", auth)
		}
		rec := httptest.NewRecorder()
		ls.srv.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("POST %s %q (%q): %d %s", path, body, auth, rec.Code, rec.Body)
		}
		if rec.Code >= 300 && !strings.HasPrefix(rec.Body.String(), `{"error":`) {
			t.Fatalf("POST %s %q: %d without a JSON error: %s", path, body, rec.Code, rec.Body)
		}
		if account.IsBotToken(bearer(req)) && rec.Code < 300 {
			t.Fatalf("POST %s with an unknown bot token %q: %d", path, auth, rec.Code)
		}
	})
}

// FuzzBotToken: IsBotToken accepts exactly the tokens NewBotToken makes'
// form, and never a seat token's.
func FuzzBotToken(f *testing.F) {
	tok, _ := account.NewBotToken()
	for _, s := range []string{tok, "bot_", "bot_" + strings.Repeat("-", 43), "AAAAAAAAAAAAAAAAAAAAAA", "bot_" + strings.Repeat("A", 42) + "="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ok := account.IsBotToken(s)
		if ok && (len(s) != 47 || !strings.HasPrefix(s, "bot_")) {
			t.Fatalf("IsBotToken(%q) with the wrong form", s)
		}
		if ok && len(s) == 22 {
			t.Fatalf("a seat token's length taken for a bot's: %q", s)
		}
	})
}
