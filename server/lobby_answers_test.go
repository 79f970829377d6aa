package server

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/lobby"
)

// A challenger who cancels a challenge that was answered meanwhile (by a
// person or a bot, accepted or declined) or has expired is not told 404:
// the challenge is gone either way, and the page clears its notice. Only
// another player's challenge is refused.
func TestCancelAnsweredChallenge(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka, bot := ls.player("Amina"), ls.player("Baraka"), ls.botPlayer("Olorien")
	as := ls.dial(amina)
	send := func(to *lobbyPlayer) string {
		t.Helper()
		var ch struct{ Challenge struct{ ID string } }
		if code, raw := amina.local("POST", "/api/challenges", fmt.Sprintf(`{"to": %q, "minutes": 5}`, to.name), &ch); code != http.StatusCreated {
			t.Fatalf("challenge: %d %s", code, raw)
		}
		return ch.Challenge.ID
	}
	for _, c := range []struct {
		who    *lobbyPlayer
		answer string
		why    string
	}{
		{baraka, "decline", "declined"},
		{bot, "decline", "declined"},
		{bot, "accept", "accepted"},
		{baraka, "accept", "accepted"},
	} {
		id := send(c.who)
		if code, raw := c.who.local("POST", "/api/challenges/"+id+"/"+c.answer, "", nil); code >= 300 {
			t.Fatalf("%s %s: %d %s", c.who.name, c.answer, code, raw)
		}
		if m := as.wait("challenge-gone", func(m jsonMap) bool { return m["id"] == id }); m["why"] != c.why {
			t.Errorf("the challenger told %v, want %s", m, c.why)
		}
		if code, raw := amina.local("POST", "/api/challenges/"+id+"/cancel", "", nil); code != http.StatusOK {
			t.Errorf("cancelling a challenge %s by %s: %d %s, want 200", c.why, c.who.name, code, raw)
		}
	}
	// Expired: cancelled all the same.
	id := send(baraka)
	if _, err := ls.st.ExpireChallenges(context.Background(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if code, raw := amina.local("POST", "/api/challenges/"+id+"/cancel", "", nil); code != http.StatusOK {
		t.Errorf("cancelling an expired challenge: %d %s", code, raw)
	}
	// Another's challenge, still waiting, is not hers to cancel.
	var ch struct{ Challenge struct{ ID string } }
	baraka.local("POST", "/api/challenges", `{"to": "Olorien", "minutes": 5}`, &ch)
	if code, raw := amina.local("POST", "/api/challenges/"+ch.Challenge.ID+"/cancel", "", nil); code != http.StatusForbidden {
		t.Errorf("cancelling another's challenge: %d %s, want 403", code, raw)
	}
}

// Joining and leaving the pools are limited per client as the lobby's
// other writes are: a client flipping in and out gets 429 with
// Retry-After, and another client is not held by it.
func TestPoolWritesLimited(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka := ls.player("Amina"), ls.player("Baraka")
	refused := 0
	for i := range 200 {
		path := "/api/lobby/pools/8-3+2/join"
		if i%2 == 1 {
			path = "/api/lobby/pools/8-3+2/leave"
		}
		code, raw := amina.callFrom("192.0.2.7", "POST", path, "", nil)
		switch code {
		case http.StatusOK:
		case http.StatusTooManyRequests:
			refused++
			if !strings.Contains(raw, "pool") {
				t.Errorf("the refusal says %s", raw)
			}
		default:
			t.Fatalf("%s: %d %s", path, code, raw)
		}
	}
	if refused < 100 {
		t.Errorf("%d of 200 pool writes from one client refused", refused)
	}
	if code, raw := baraka.callFrom("192.0.2.8", "POST", "/api/lobby/pools/8-3+2/join", "", nil); code != http.StatusOK {
		t.Errorf("another client's join: %d %s", code, raw)
	}
}

// An online game whose creation is refused (too many of the client's
// games wait for an opponent) costs none of the client's games an hour.
func TestRefusedCreationKeepsBudget(t *testing.T) {
	s := newSite(t, Options{ClientLimits: ClientLimits{GamesPerHour: 4, OpenInvites: 1}})
	ctx := context.Background()
	online := `{"online": true, "clock": {"minutes": 5}}`
	if a := s.call(ctx, attacker, "POST", "/api/games", "", online, nil); a.code != http.StatusCreated {
		t.Fatalf("the first online game: %d %s", a.code, a.body)
	}
	for range 5 {
		if a := s.call(ctx, attacker, "POST", "/api/games", "", online, nil); a.code != http.StatusTooManyRequests || !strings.Contains(a.body, "waiting for an opponent") {
			t.Fatalf("an online game over the open invitations: %d %s", a.code, a.body)
		}
	}
	for i := range 3 {
		if a := s.call(ctx, attacker, "POST", "/api/games", "", `{}`, nil); a.code != http.StatusCreated {
			t.Fatalf("game %d of 4 an hour after refusals: %d %s", i+2, a.code, a.body)
		}
	}
	if a := s.call(ctx, attacker, "POST", "/api/games", "", `{}`, nil); a.code != http.StatusTooManyRequests {
		t.Errorf("a fifth game in the hour: %d %s", a.code, a.body)
	}
}

// A player who blocks another, and the player blocked, see neither's
// seeks: not in the lobby's listing, not on its socket, and not after
// the block is made while the seek is open.
func TestBlockedSeeksHidden(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka, cheku := ls.player("Amina"), ls.player("Baraka"), ls.player("Cheku")
	if code, raw := amina.local("POST", "/api/me/blocks", `{"name": "Baraka"}`, nil); code != http.StatusOK {
		t.Fatalf("block: %d %s", code, raw)
	}
	bs, as, cs := ls.dial(baraka), ls.dial(amina), ls.dial(cheku)
	var sa, sb seekAnswer
	amina.local("POST", "/api/lobby/seeks", `{"days": 3}`, &sa)
	baraka.local("POST", "/api/lobby/seeks", `{"days": 3}`, &sb)
	cs.wait("seek", func(m jsonMap) bool { return m["seek"].(jsonMap)["id"] == sb.Seek.ID })
	seeksSeen := func(p *lobbyPlayer) map[string]bool {
		var l struct{ Seeks []lobby.SeekView }
		p.local("GET", "/api/lobby", "", &l)
		out := map[string]bool{}
		for _, s := range l.Seeks {
			out[s.By.Name] = true
		}
		return out
	}
	if got := seeksSeen(baraka); got["Amina"] {
		t.Errorf("the player blocked sees the blocker's seek: %v", got)
	}
	if got := seeksSeen(amina); got["Baraka"] {
		t.Errorf("the blocker sees the blocked player's seek: %v", got)
	}
	if got := seeksSeen(cheku); !got["Amina"] || !got["Baraka"] {
		t.Errorf("a third player's lobby: %v", got)
	}
	// On the sockets: a seek of Cheku's reaches both, after which
	// neither has had the other's.
	var sc seekAnswer
	cheku.local("POST", "/api/lobby/seeks", `{"days": 3}`, &sc)
	for who, s := range map[string]*lobbySocket{"Baraka": bs, "Amina": as} {
		s.wait("seek", func(m jsonMap) bool {
			by := m["seek"].(jsonMap)["by"].(jsonMap)["name"]
			if by != "Cheku" && by != who {
				t.Errorf("%s's socket had a seek of %v", who, by)
			}
			return by == "Cheku"
		})
	}
	// A block made while seeks are open takes them off both sides.
	if code, raw := cheku.local("POST", "/api/me/blocks", `{"name": "Amina"}`, nil); code != http.StatusOK {
		t.Fatalf("block: %d %s", code, raw)
	}
	cs.wait("unseek", func(m jsonMap) bool { return m["id"] == sa.Seek.ID })
	as.wait("unseek", func(m jsonMap) bool { return m["id"] == sc.Seek.ID })
	if got := seeksSeen(cheku); got["Amina"] {
		t.Errorf("Cheku still sees Amina's seek after blocking her: %v", got)
	}
	// Unblocked, it is seen again.
	if code, raw := cheku.local("POST", "/api/me/blocks/Amina/remove", "", nil); code != http.StatusOK {
		t.Fatalf("unblock: %d %s", code, raw)
	}
	cs.wait("seek", func(m jsonMap) bool { return m["seek"].(jsonMap)["id"] == sa.Seek.ID })
	if got := seeksSeen(cheku); !got["Amina"] {
		t.Errorf("Cheku does not see Amina's seek after unblocking her: %v", got)
	}
}
