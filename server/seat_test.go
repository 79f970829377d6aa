package server

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// A request to change an online game without its seat is refused for
// that before anything else is looked at: the answer tells a stranger
// nothing of the game's state or of what was wrong with the request.
func TestSeatIsCheckedFirst(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	_, otherTokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), nil); code != 200 {
		t.Fatalf("first move: %d %s", code, raw)
	}
	g = ts.get(g.ID)
	// A hole of the side not to move: illegal whoever sends it.
	wrongHole := "a"
	if g.ToMove == "s" {
		wrongHole = "A"
	}
	const bad = "AAAAAAAAAAAAAAAAAAAAAA"
	other := otherTokens[rules.South]
	base := "/api/games/" + g.ID
	for _, tc := range []struct {
		name, path, token, body string
		want                    int
	}{
		{"no token, stale ply", "/moves", "", fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), 401},
		{"no token, malformed move", "/moves", "", `{"move": "zz", "ply": 1}`, 401},
		{"no token, no ply", "/moves", "", fmt.Sprintf(`{"move": %q}`, g.LegalMoves[0]), 401},
		{"no token, malformed JSON", "/moves", "", `{"move": `, 401},
		{"no token, unknown field", "/moves", "", `{"mvoe": "a", "ply": 1}`, 401},
		{"no token, illegal move", "/moves", "", fmt.Sprintf(`{"move": %q, "ply": 1}`, wrongHole), 401},
		{"bad token, malformed move", "/moves", bad, `{"move": "zz", "ply": 1}`, 401},
		{"bad token, stale ply", "/moves", bad, fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), 401},
		{"bad token, empty body", "/moves", bad, ``, 401},
		{"other game's token, stale ply", "/moves", other, fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), 403},
		{"other game's token, malformed move", "/moves", other, `{"move": "zz", "ply": 1}`, 403},
		{"no token, unknown action", "/actions", "", `{"action": "dance", "ply": 1}`, 401},
		{"no token, stale resignation", "/actions", "", `{"action": "resign", "ply": 0}`, 401},
		{"bad token, malformed body", "/actions", bad, `[1]`, 401},
		{"bad token, offer without ply", "/actions", bad, `{"action": "draw-offer"}`, 401},
		{"other game's token, stale offer", "/actions", other, `{"action": "draw-offer", "ply": 0}`, 403},
		{"no token, takeback", "/takeback", "", `{"ply": 1}`, 401},
		{"bad token, takeback without ply", "/takeback", bad, `{}`, 401},
		{"no token, the computer's move", "/computer", "", `{"ply": 1}`, 401},
		{"other game's token, the computer's move", "/computer", other, `{}`, 403},
	} {
		if code, raw := ts.seat("POST", base+tc.path, tc.token, tc.body, nil); code != tc.want {
			t.Errorf("%s (%s): %d %s, want %d", tc.name, tc.path, code, raw, tc.want)
		}
	}
	if got := ts.get(g.ID); len(got.Moves) != 1 || got.Online.Rev != g.Online.Rev {
		t.Errorf("the refused requests changed the game: %d moves, rev %d", len(got.Moves), got.Online.Rev)
	}
	// The seat's own requests get the answers about them.
	me := tokenOf(g, tokens)
	for _, tc := range []struct {
		path, body string
		want       int
	}{
		{"/moves", fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), 409},
		{"/moves", `{"move": "zz", "ply": 1}`, 400},
		{"/moves", fmt.Sprintf(`{"move": %q, "ply": 1}`, wrongHole), 403},
		{"/takeback", `{"ply": 1}`, 409},
		{"/computer", `{}`, 409},
	} {
		if code, raw := ts.seat("POST", base+tc.path, me, tc.body, nil); code != tc.want {
			t.Errorf("the seat's %s %s: %d %s, want %d", tc.path, tc.body, code, raw, tc.want)
		}
	}
}

// The same holds over a live connection: a move or an action without a
// seat's hello, or after a wrong one, is refused for the seat first.
func TestLiveSeatIsCheckedFirst(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	_, otherTokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), nil)
	g = ts.get(g.ID)
	c := dialLive(t, web.URL, g.ID)
	c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	refused := func(what string, want int, msg map[string]any) {
		t.Helper()
		c.send(msg)
		if m := c.wait("an error", func(m liveMessage) bool { return m.Type == "error" }); m.Status != want {
			t.Errorf("%s: %d %q, want %d", what, m.Status, m.Error, want)
		}
	}
	stale := map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": 0}
	malformed := map[string]any{"type": "move", "move": "zz", "ply": 1}
	refused("no hello, stale ply", 401, stale)
	refused("no hello, malformed move", 401, malformed)
	refused("no hello, no ply", 401, map[string]any{"type": "move", "move": g.LegalMoves[0]})
	refused("no hello, unknown action", 401, map[string]any{"type": "action", "action": "dance", "ply": 1})
	refused("a wrong hello", 401, map[string]any{"type": "hello", "token": "AAAAAAAAAAAAAAAAAAAAAA"})
	refused("wrong hello, malformed move", 401, malformed)
	refused("wrong hello, stale ply", 401, stale)
	refused("wrong hello, stale resignation", 401, map[string]any{"type": "action", "action": "resign", "ply": 0})
	refused("another game's hello", 403, map[string]any{"type": "hello", "token": otherTokens[rules.North]})
	refused("another game's seat, malformed move", 403, malformed)
	refused("another game's seat, stale ply", 403, stale)
	c.send(map[string]any{"type": "hello", "token": tokenOf(g, tokens)})
	refused("the seat, stale ply", 409, stale)
	refused("the seat, malformed move", 400, malformed)
}

// A hello that fails leaves the connection a spectator's: it may no
// longer act, and the others no longer see that seat as connected.
func TestLiveFailedHelloDropsTheSeat(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	south, watcher := dialLive(t, web.URL, g.ID), dialLive(t, web.URL, g.ID)
	south.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	watcher.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	south.send(map[string]string{"type": "hello", "token": tokens[rules.South]})
	watcher.wait("South connected", func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.South && m.Game.Online.Watchers == 1
	})
	south.send(map[string]string{"type": "hello", "token": "AAAAAAAAAAAAAAAAAAAAAA"})
	if m := south.wait("an error", func(m liveMessage) bool { return m.Type == "error" }); m.Status != 401 {
		t.Errorf("a wrong hello: %+v", m)
	}
	watcher.wait("South gone, one more watching", func(m liveMessage) bool {
		return m.Game != nil && !m.Game.Online.Connected.South && m.Game.Online.Watchers == 2
	})
	if v := ts.get(g.ID); v.Online.Connected.South || v.Online.Watchers != 2 {
		t.Errorf("after a wrong hello, the game shows %+v", v.Online)
	}
	south.send(map[string]any{"type": "action", "action": "draw-offer", "ply": 0})
	if m := south.wait("an error", func(m liveMessage) bool { return m.Type == "error" }); m.Status != 401 {
		t.Errorf("an offer after a wrong hello: %+v", m)
	}
	// A right hello makes it the seat's again.
	south.send(map[string]string{"type": "hello", "token": tokens[rules.South]})
	watcher.wait("South back", func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.South && m.Game.Online.Watchers == 1
	})
}

// A game lost on time says, over the live connection as over HTTP, that
// it was last updated when the flag fell, not at the last move.
func TestTimeoutIsDatedWhenTheFlagFell(t *testing.T) {
	ts, fake := newTestServerAt(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6, "clock": {"minutes": 1}}`)
	for ply := range 2 {
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != 200 {
			t.Fatalf("move %d: %d %s", ply+1, code, raw)
		}
		g = ts.get(g.ID)
	}
	watcher := dialLive(t, web.URL, g.ID)
	watcher.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	fell := fake.Now().Add(time.Minute)
	// Nobody moves; the server notices a second late, as a busy one may.
	fake.Advance(time.Minute + time.Second)
	m := watcher.wait("the timeout", func(m liveMessage) bool { return m.Event == "timeout" })
	if m.Game.Status != "timeout" || !m.Game.Updated.Equal(fell) {
		t.Errorf("timeout event: %s, updated %v, want the flag's fall at %v", m.Game.Status, m.Game.Updated, fell)
	}
	if v := ts.get(g.ID); v.Status != "timeout" || !v.Updated.Equal(fell) {
		t.Errorf("the game over HTTP: %s, updated %v, want %v", v.Status, v.Updated, fell)
	}
}
