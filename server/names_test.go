package server

import (
	"net/http"
	"strings"
	"testing"
)

// Every request that takes a name applies the same rules: an invisible
// name is refused with 400 and a message, a good one is stored normalized.
func TestNamesInRequests(t *testing.T) {
	ts := newTestServer(t)
	for _, tc := range []struct{ body, want string }{
		{`{"south": "\u3164"}`, "U+3164"},
		{`{"north": "ad\u200dmin"}`, "U+200D"},
		{`{"south": "Jiří", "north": "\u2800"}`, "U+2800"},
		{`{"south": ""}`, "no visible character"},
		{`{"online": true, "name": "   "}`, "no visible character"},
		{`{"online": true, "name": "\ufe0f"}`, "U+FE0F"},
	} {
		code, raw := ts.do("POST", "/api/games", tc.body, nil)
		if code != http.StatusBadRequest || !strings.Contains(raw, tc.want) {
			t.Errorf("%s: %d %s, want 400 saying %q", tc.body, code, raw, tc.want)
		}
	}
	if g := ts.create(`{"south": " Zoe\u0308 ", "north": "Ｎａｓｅｒｉａｎ"}`); g.South != "Zoë" || g.North != "Naserian" {
		t.Errorf("names stored as %q, %q", g.South, g.North)
	}
	// Absent or null, a name is simply not given.
	ts.create(`{"south": null}`)
	var c created
	if code, raw := ts.do("POST", "/api/games", `{"online": true, "side": "n", "name": "Nguye\u0302\u0303n"}`, &c); code != 201 || c.Game.North != "Nguyễn" {
		t.Fatalf("create online: %d %s", code, raw)
	}
	code := c.Invite[len("/#/join/"):]
	for _, body := range []string{`{"name": "\u3164"}`, `{"name": "a` + strings.Repeat(`\u0301`, 49) + `"}`, `{"name": ""}`} {
		if st, raw := ts.do("POST", "/api/join/"+code, body, nil); st != http.StatusBadRequest || !strings.Contains(raw, "the player's name") {
			t.Errorf("join with %s: %d %s", body, st, raw)
		}
	}
	var j created
	if st, raw := ts.do("POST", "/api/join/"+code, `{"name": " Šárka  Čermáková "}`, &j); st != 200 || j.Game.South != "Šárka Čermáková" {
		t.Errorf("join: %d %s", st, raw)
	}
	// A record's names too.
	rec := "[South \"\u2800\"]\n[North \"Amani\"]\n[Holes \"6\"]\n[Seeds \"4\"]\n\n*\n"
	if st, raw := ts.do("POST", "/api/games/import", recordBody(rec), nil); st != http.StatusUnprocessableEntity || !strings.Contains(raw, "U+2800") {
		t.Errorf("import of an invisible name: %d %s", st, raw)
	}
}
