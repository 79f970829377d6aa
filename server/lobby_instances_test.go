package server

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/store"
)

// lobbyInstances starts two servers on one new PostgreSQL database, their
// notices on the bus at busURL ("" for the database's NOTIFY), once they
// hear each other.
func lobbyInstances(t *testing.T, grace time.Duration, busURL string) (a, b *lobbySite) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	open := func() *lobbySite {
		bs := openTestBus(t, busURL)
		st, err := store.OpenPostgres(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		site := startLobbySiteOn(t, st, grace, bs)
		waitHearing(t, site.srv)
		return site
	}
	return open(), open()
}

// The lobby across two instances: a seek posted on one reaches the
// sockets of the other, its acceptance there tells the seeker here; a
// seek lives while its owner holds a socket on either; many accepts
// through both make one game; players in a pool through both are each
// paired once.
func TestLobbyInstances(t *testing.T) { forEachBus(t, testLobbyInstances) }

func testLobbyInstances(t *testing.T, busURL string) {
	a, b := lobbyInstances(t, time.Second, busURL)
	amina, baraka := a.player("Amina"), a.player("Baraka")
	aminaB := amina.on(b)
	watcherA := a.dial(nil)
	as := b.dial(aminaB)
	bs := a.dial(baraka)
	var sk seekAnswer
	if code, raw := baraka.call("POST", "/api/lobby/seeks", `{"minutes": 3, "increment": 2}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek on A: %d %s", code, raw)
	}
	if m := as.wait("seek", nil); m["seek"].(map[string]any)["id"] != sk.Seek.ID {
		t.Errorf("the seek on B's socket: %v", m)
	}
	var p pairedAnswer
	if code, raw := aminaB.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", &p); code != http.StatusCreated {
		t.Fatalf("accept on B: %d %s", code, raw)
	}
	if m := bs.wait("paired", nil); m["game"] != p.Game || m["side"] == p.Side {
		t.Errorf("the seeker told on A: %v, the acceptor %+v", m, p)
	}
	if m := watcherA.wait("unseek", nil); m["id"] != sk.Seek.ID {
		t.Errorf("unseek on A: %v", m)
	}

	// Amina's socket is on B, her seek posted on A: it stays while the
	// socket does, whichever instance sweeps.
	var s2 seekAnswer
	amina.call("POST", "/api/lobby/seeks", `{"minutes": 1}`, &s2)
	time.Sleep(4 * time.Second)
	if _, err := a.st.Seek(context.Background(), s2.Seek.ID); err != nil {
		t.Fatalf("the seek of a player in the lobby on B: %v", err)
	}
	as.close()
	watcherA.wait("unseek", func(m map[string]any) bool { return m["id"] == s2.Seek.ID })

	testAcceptedOnce(t, []*lobbySite{a, b})

	// Pools: six players, three through each instance, each with a socket
	// there, join at once; each is paired exactly once.
	const n = 6
	players := make([]*lobbyPlayer, n)
	sockets := make([]*lobbySocket, n)
	for i := range n {
		site := []*lobbySite{a, b}[i%2]
		players[i] = a.player(fmt.Sprintf("Pooler%d", i)).on(site)
		sockets[i] = site.dial(players[i])
	}
	for i, p := range players {
		if code, raw := p.callFrom(fmt.Sprintf("192.0.2.%d", 100+i), "POST", "/api/lobby/pools/8-3+2/join", "", nil); code != 200 {
			t.Fatalf("join %d: %d %s", i, code, raw)
		}
	}
	games := map[string][]string{}
	for _, s := range sockets {
		m := s.wait("paired", nil)
		games[m["game"].(string)] = append(games[m["game"].(string)], m["side"].(string))
	}
	if len(games) != n/2 {
		t.Errorf("%d games for %d players: %v", len(games), n, games)
	}
	for id, sides := range games {
		if len(sides) != 2 || sides[0] == sides[1] {
			t.Errorf("game %s: sides %v", id, sides)
		}
	}
	// No second pairing arrives.
	time.Sleep(2 * lobby.Tick)
	for i, s := range sockets {
		for len(s.msgs) > 0 {
			if m := <-s.msgs; m["type"] == "paired" {
				t.Errorf("player %d paired twice: %v", i, m)
			}
		}
	}
	if list, _ := a.st.Seeks(context.Background()); len(list) != 0 {
		t.Errorf("%d places left", len(list))
	}
}

// An account deleted through one instance leaves the lobby of the other
// at once: its challenges go from its targets' sockets there, its seeks
// from every socket.
func TestLobbyWithdrawInstances(t *testing.T) { forEachBus(t, testLobbyWithdrawInstances) }

func testLobbyWithdrawInstances(t *testing.T, busURL string) {
	a, b := lobbyInstances(t, time.Minute, busURL)
	amina, victim := a.player("Amina"), a.player("Victim")
	vs := b.dial(victim.on(b))
	watcher := b.dial(nil)
	var ch struct{ Challenge struct{ ID string } }
	if code, raw := amina.local("POST", "/api/challenges", `{"to": "Victim", "days": 3}`, &ch); code != http.StatusCreated {
		t.Fatalf("challenge: %d %s", code, raw)
	}
	vs.wait("challenge", nil)
	var sk seekAnswer
	if code, raw := amina.local("POST", "/api/lobby/seeks", `{"days": 3}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	watcher.wait("seek", nil)
	if code, raw := amina.local("POST", "/api/me/delete", `{"confirm": "Amina"}`, nil); code != http.StatusOK {
		t.Fatalf("delete: %d %s", code, raw)
	}
	if m := vs.wait("challenge-gone", nil); m["id"] != ch.Challenge.ID || m["why"] != "withdrawn" {
		t.Errorf("the target told %v", m)
	}
	if m := watcher.wait("unseek", nil); m["id"] != sk.Seek.ID {
		t.Errorf("the watcher told %v", m)
	}
}
