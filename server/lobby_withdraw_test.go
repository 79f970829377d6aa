package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// incoming returns the challenges waiting for p's answer, as the lobby
// shows them to p.
func incoming(t testing.TB, p *lobbyPlayer) []jsonMap {
	t.Helper()
	var l struct{ Challenges struct{ Incoming []jsonMap } }
	if code, raw := p.local("GET", "/api/lobby", "", &l); code != http.StatusOK {
		t.Fatalf("lobby: %d %s", code, raw)
	}
	return l.Challenges.Incoming
}

// Accounts that challenged a player and then deleted themselves leave
// nothing behind: their challenges are withdrawn (the player's sockets
// are told), their seeks and pool places go, and the player takes new
// challenges again. Challenges of accounts disabled by the operator no
// longer count against the player's limit either.
func TestDeletedAccountsWithdraw(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	victim, other := ls.player("Victim"), ls.player("Other")
	vs := ls.dial(victim)
	watcher := ls.dial(nil)
	senders := make([]*lobbyPlayer, 10)
	for i := range senders {
		senders[i] = ls.player(fmt.Sprintf("Sender%d", i))
		for range 2 {
			if code, raw := senders[i].local("POST", "/api/challenges", `{"to": "Victim", "days": 3}`, nil); code != http.StatusCreated {
				t.Fatalf("challenge: %d %s", code, raw)
			}
		}
	}
	if n := len(incoming(t, victim)); n != MaxIncomingChallenges {
		t.Fatalf("%d challenges waiting, want %d", n, MaxIncomingChallenges)
	}
	if code, _ := other.local("POST", "/api/challenges", `{"to": "Victim", "days": 3}`, nil); code != http.StatusTooManyRequests {
		t.Fatalf("a challenge over the limit: %d, want 429", code)
	}
	// One sender also has a correspondence seek and a pool place.
	var sk seekAnswer
	if code, raw := senders[0].local("POST", "/api/lobby/seeks", `{"days": 3}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	if code, raw := senders[0].local("POST", "/api/lobby/pools/8-3d/join", "", nil); code != http.StatusOK {
		t.Fatalf("join: %d %s", code, raw)
	}
	for _, s := range senders {
		if code, raw := s.local("POST", "/api/me/delete", fmt.Sprintf(`{"confirm": %q}`, s.name), nil); code != http.StatusOK {
			t.Fatalf("delete: %d %s", code, raw)
		}
	}
	gone := 0
	for gone < MaxIncomingChallenges {
		m := vs.wait("challenge-gone", nil)
		if m["why"] != "withdrawn" {
			t.Errorf("a deleted challenger's challenge gone %v, want withdrawn", m)
		}
		gone++
	}
	watcher.wait("unseek", func(m jsonMap) bool { return m["id"] == sk.Seek.ID })
	watcher.wait("pools", func(m jsonMap) bool {
		for _, p := range m["pools"].([]any) {
			if p := p.(jsonMap); p["id"] == "8-3d" {
				return p["waiting"] == 0.0
			}
		}
		return false
	})
	if n := len(incoming(t, victim)); n != 0 {
		t.Errorf("%d challenges shown after their senders' deletion", n)
	}
	if code, raw := other.local("POST", "/api/challenges", `{"to": "Victim", "days": 3}`, nil); code != http.StatusCreated {
		t.Errorf("a challenge once the deleted accounts' are gone: %d %s", code, raw)
	}

	// Disabled by the operator, from another program: the challenges
	// stay stored, but neither shown nor counted.
	victim2 := ls.player("Victim2")
	for i := range 10 {
		s := ls.player(fmt.Sprintf("Disabled%d", i))
		for range 2 {
			if code, raw := s.local("POST", "/api/challenges", `{"to": "Victim2", "days": 3}`, nil); code != http.StatusCreated {
				t.Fatalf("challenge: %d %s", code, raw)
			}
		}
		if err := ls.st.DisableAccount(context.Background(), s.id); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(incoming(t, victim2)); n != 0 {
		t.Errorf("%d challenges of disabled accounts shown", n)
	}
	if code, raw := other.local("POST", "/api/challenges", `{"to": "Victim2", "days": 3}`, nil); code != http.StatusCreated {
		t.Errorf("a challenge beside disabled accounts' challenges: %d %s", code, raw)
	}
}

// One challenger may have only a few challenges waiting for one player's
// answer; the player declines all of them, from everyone, at once.
func TestChallengesPerSenderAndDeclineAll(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	baraka := ls.player("Baraka")
	challengers := []*lobbyPlayer{ls.player("Amina"), ls.player("Cheku"), ls.player("Dalila")}
	sockets := make([]*lobbySocket, len(challengers))
	for i, c := range challengers {
		sockets[i] = ls.dial(c)
	}
	amina := challengers[0]
	for range MaxChallengesToOne {
		if code, raw := amina.local("POST", "/api/challenges", `{"to": "Baraka", "minutes": 5}`, nil); code != http.StatusCreated {
			t.Fatalf("challenge: %d %s", code, raw)
		}
	}
	code, raw := amina.local("POST", "/api/challenges", `{"to": "Baraka", "minutes": 5}`, nil)
	if code != http.StatusTooManyRequests || !strings.Contains(raw, "Baraka") {
		t.Errorf("challenge %d to one player: %d %s, want 429 naming the player", MaxChallengesToOne+1, code, raw)
	}
	// Another player is not held by Amina's.
	if code, raw := amina.local("POST", "/api/challenges", `{"to": "Cheku", "minutes": 5}`, nil); code != http.StatusCreated {
		t.Errorf("a challenge to another player: %d %s", code, raw)
	}
	for _, c := range challengers[1:] {
		if code, raw := c.local("POST", "/api/challenges", `{"to": "Baraka", "minutes": 5}`, nil); code != http.StatusCreated {
			t.Fatalf("challenge: %d %s", code, raw)
		}
	}
	nobody := &lobbyPlayer{site: ls}
	if code, _ := nobody.local("POST", "/api/challenges/decline-all", "", nil); code != http.StatusUnauthorized {
		t.Errorf("decline-all by nobody: %d, want 401", code)
	}
	var ans struct{ Declined int }
	if code, raw := baraka.local("POST", "/api/challenges/decline-all", "", &ans); code != http.StatusOK || ans.Declined != MaxChallengesToOne+2 {
		t.Fatalf("decline-all: %d %s, want %d declined", code, raw, MaxChallengesToOne+2)
	}
	for i, s := range sockets {
		m := s.wait("challenge-gone", nil)
		if m["why"] != "declined" {
			t.Errorf("challenger %d told %v", i, m)
		}
	}
	if n := len(incoming(t, baraka)); n != 0 {
		t.Errorf("%d challenges left after decline-all", n)
	}
	// Amina's challenge to Cheku is not Baraka's to decline.
	if n := len(incoming(t, challengers[1])); n != 1 {
		t.Errorf("Cheku's challenges: %d, want 1", n)
	}
	if code, raw := baraka.local("POST", "/api/challenges/decline-all", "", &ans); code != http.StatusOK || ans.Declined != 0 {
		t.Errorf("decline-all again: %d %s", code, raw)
	}
}
