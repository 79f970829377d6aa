package server

import (
	"net/http"
	"testing"
	"time"
)

// The lobby lists the bots and the people in the lobby now, each of whom
// may be challenged; not the asker, nor anyone the asker blocks or is
// blocked by. The socket follows people coming and going.
func TestLobbyPlayers(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka, cheku, dalila := ls.player("Amina"), ls.player("Baraka"), ls.player("Cheku"), ls.player("Dalila")
	ls.botPlayer("Olorien")
	if code, raw := dalila.local("POST", "/api/me/blocks", `{"name": "Amina"}`, nil); code != http.StatusOK {
		t.Fatalf("block: %d %s", code, raw)
	}
	as := ls.dial(amina)
	ls.dial(baraka)
	ls.dial(dalila)
	players := func(m jsonMap) map[string]jsonMap {
		out := map[string]jsonMap{}
		list, _ := m["players"].([]any)
		for _, p := range list {
			p := p.(jsonMap)
			out[p["name"].(string)] = p
		}
		return out
	}
	// Baraka's socket is recorded within a tick.
	var got map[string]jsonMap
	deadline := time.Now().Add(liveWait)
	for {
		var l jsonMap
		if code, raw := amina.local("GET", "/api/lobby", "", &l); code != http.StatusOK {
			t.Fatalf("lobby: %d %s", code, raw)
		}
		if got = players(l); got["Baraka"] != nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if b := got["Baraka"]; b == nil || b["bot"] != false || b["online"] != true {
		t.Errorf("Baraka, in the lobby: %v", pretty(got))
	}
	if o := got["Olorien"]; o == nil || o["bot"] != true {
		t.Errorf("the bot: %v", pretty(got))
	}
	for _, name := range []string{"Amina", "Cheku", "Dalila"} {
		if got[name] != nil {
			t.Errorf("%s listed to Amina: %v", name, pretty(got))
		}
	}
	// Cheku comes: Amina's socket is told.
	ls.dial(cheku)
	as.wait("players", func(m jsonMap) bool { return players(m)["Cheku"] != nil })
	if code, raw := amina.local("POST", "/api/challenges", `{"to": "Olorien", "minutes": 5}`, nil); code != http.StatusCreated {
		t.Errorf("a challenge to a bot listed: %d %s", code, raw)
	}
}
