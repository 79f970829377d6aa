package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
)

// The lobby's tests' ways to make and play games through the API, as its
// players would.

// jsonMap is an answer read as generic JSON.
type jsonMap = map[string]any

// local sends a request as p from this machine, which the client limits
// leave alone: for the tests that make many requests.
func (p *lobbyPlayer) local(method, path, body string, out any) (int, string) {
	p.site.t.Helper()
	return p.callFrom("127.0.0.1", method, path, body, out)
}

// challengeGame makes a game of from against to through a challenge with
// settings (a JSON object's members, without braces) that to accepts; it
// returns the game's ID.
func challengeGame(t testing.TB, from, to *lobbyPlayer, settings string) string {
	t.Helper()
	var ch struct{ Challenge struct{ ID string } }
	body := fmt.Sprintf(`{"to": %q, %s}`, to.name, settings)
	if code, raw := from.local("POST", "/api/challenges", body, &ch); code != http.StatusCreated {
		t.Fatalf("challenge %s: %d %s", body, code, raw)
	}
	var p pairedAnswer
	if code, raw := to.local("POST", "/api/challenges/"+ch.Challenge.ID+"/accept", "", &p); code != http.StatusCreated {
		t.Fatalf("accept: %d %s", code, raw)
	}
	return p.Game
}

// gameOf returns game id as p sees it.
func gameOf(t testing.TB, p *lobbyPlayer, id string) jsonMap {
	t.Helper()
	var g jsonMap
	if code, raw := p.local("GET", "/api/games/"+id, "", &g); code != http.StatusOK {
		t.Fatalf("GET game %s: %d %s", id, code, raw)
	}
	return g
}

// playPlies plays n moves of game id, each by the account of the side to
// move (of a and b), the first legal move each time.
func playPlies(t testing.TB, id string, a, b *lobbyPlayer, n int) {
	t.Helper()
	for range n {
		g := gameOf(t, a, id)
		mover := a
		if g["you"] != g["toMove"] {
			mover = b
		}
		moves := g["legalMoves"].([]any)
		body := fmt.Sprintf(`{"move": %q, "ply": %d}`, moves[0], len(g["moves"].([]any)))
		if code, raw := mover.local("POST", "/api/games/"+id+"/moves", body, nil); code != http.StatusOK {
			t.Fatalf("move %s: %d %s", body, code, raw)
		}
	}
}

// act makes p take action on game id, at the ply it is at.
func act(t testing.TB, p *lobbyPlayer, id, action string) (int, string) {
	t.Helper()
	g := gameOf(t, p, id)
	return p.local("POST", "/api/games/"+id+"/actions", fmt.Sprintf(`{"action": %q, "ply": %d}`, action, len(g["moves"].([]any))), nil)
}

// ratingsOf returns the profile ratings of player name by category.
func ratingsOf(t testing.TB, p *lobbyPlayer, name string) map[string]jsonMap {
	t.Helper()
	var prof struct{ Ratings []jsonMap }
	if code, raw := p.local("GET", "/api/players/"+name, "", &prof); code != http.StatusOK {
		t.Fatalf("profile of %s: %d %s", name, code, raw)
	}
	out := map[string]jsonMap{}
	for _, r := range prof.Ratings {
		out[r["category"].(string)] = r
	}
	return out
}

// pretty is v as indented JSON, for messages.
func pretty(v any) string {
	b, _ := json.MarshalIndent(v, "", " ")
	return string(b)
}
