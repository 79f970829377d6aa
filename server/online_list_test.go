package server

import (
	"net/http"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
)

// TestOnlineListClockAndYou: the list of the online games being played
// gives each game's time control, correspondence included, and tells the
// signed-in player which of them are theirs and on which side; nobody
// else is told.
func TestOnlineListClockAndYou(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina := ls.player("Amina")
	baraka := ls.player("Baraka")
	nobody := &lobbyPlayer{site: ls}
	start := func(p *lobbyPlayer, body string) string {
		t.Helper()
		var c created
		if code, raw := p.call("POST", "/api/games", body, &c); code != http.StatusCreated {
			t.Fatalf("create %s: %d %s", body, code, raw)
		}
		if code, raw := nobody.call("POST", "/api/join/"+c.Invite[len("/#/join/"):], "", nil); code != http.StatusOK {
			t.Fatalf("join: %d %s", code, raw)
		}
		return c.Game.ID
	}
	post := start(amina, `{"online": true, "holes": 4, "seeds": 2, "side": "n", "clock": {"days": 3}}`)
	blitz := start(baraka, `{"online": true, "holes": 4, "seeds": 2, "side": "s", "clock": {"minutes": 5, "increment": 3}}`)
	type entry struct {
		ID    string     `json:"id"`
		You   string     `json:"you"`
		Clock *api.Clock `json:"clock"`
	}
	list := func(p *lobbyPlayer) map[string]entry {
		t.Helper()
		var l struct{ Games []entry }
		if code, raw := p.call("GET", "/api/online", "", &l); code != http.StatusOK {
			t.Fatalf("GET /api/online: %d %s", code, raw)
		}
		out := map[string]entry{}
		for _, e := range l.Games {
			out[e.ID] = e
		}
		return out
	}
	for _, c := range []struct {
		who        *lobbyPlayer
		post, fast string // the side each game is the asker's
	}{{amina, "n", ""}, {baraka, "", "s"}, {nobody, "", ""}} {
		l := list(c.who)
		p, f := l[post], l[blitz]
		if p.ID == "" || f.ID == "" {
			t.Fatalf("%q: the list lacks a game: %+v", c.who.name, l)
		}
		if p.Clock == nil || p.Clock.Days != 3 || f.Clock == nil || f.Clock.Minutes != 5 || f.Clock.Increment != 3 {
			t.Errorf("%q: the clocks %+v and %+v, want 3 days a move and 5+3", c.who.name, p.Clock, f.Clock)
		}
		if p.You != c.post || f.You != c.fast {
			t.Errorf("%q: yours %q and %q, want %q and %q", c.who.name, p.You, f.You, c.post, c.fast)
		}
	}
}
