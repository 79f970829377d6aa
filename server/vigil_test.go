package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// testClock is a clock that moves only when the test says.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock { return &testClock{t: time.Unix(1_800_000_000, 0)} }

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// seatSocket opens a live connection to game id on the server at base,
// as the seat token holds ("" for a spectator), once it has the game.
func seatSocket(t *testing.T, base, id, token string) *watchedSocket {
	t.Helper()
	c, err := dialSocket(t, base, "/api/games/"+id+"/live", http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	c.waitMsg("the game", func(m map[string]any) bool { return m["type"] == "game" })
	if token != "" {
		c.send(map[string]any{"type": "hello", "token": token})
	}
	return c
}

// waitAway fails unless c is closed with "going away" and a reason that
// says because.
func (c *watchedSocket) waitAway(what, because string) {
	c.t.Helper()
	select {
	case <-c.closed:
		if c.status != websocket.StatusGoingAway || !strings.Contains(c.reason, because) {
			c.t.Errorf("%s closed with %d %q, want 1001 and %q", what, c.status, c.reason, because)
		}
	case <-time.After(liveWait):
		c.t.Errorf("%s still open", what)
	}
}

// The faults an instance is sent away by: its database cut off (the
// connections closed, new ones refused), its database gone silent (a
// blackhole: nothing answers, nothing is refused), or its listening
// connection gone silent while the rest works (it no longer hears the
// others).
var outageFaults = []struct {
	name    string
	because string
	start   func(*pgtest.Proxy)
	end     func(*pgtest.Proxy)
}{
	{"cut", "cannot reach its database",
		func(p *pgtest.Proxy) { p.Refuse(true); p.Cut() },
		func(p *pgtest.Proxy) { p.Refuse(false) }},
	{"blackhole", "cannot reach its database",
		func(p *pgtest.Proxy) { p.Blackhole(true) },
		func(p *pgtest.Proxy) { p.Blackhole(false) }},
	{"deaf", "cannot hear the other servers",
		func(p *pgtest.Proxy) { p.StallListeners() },
		func(p *pgtest.Proxy) { p.Cut() }},
}

// An instance cut off, alone on its database: within the grace its
// clients stay; past it, each live connection, a game's and the lobby's,
// is closed with "going away" and the reason, new ones are refused with
// 503, the readiness check says why, and a request that needs the
// database is answered 503 within the store's limit rather than held.
// Once the database is back, it serves live clients again.
func TestOutageSendsClientsAway(t *testing.T) {
	for _, fault := range outageFaults[:2] {
		t.Run(fault.name, func(t *testing.T) {
			testOutage(t, fault.because, fault.start, fault.end, false)
		})
	}
}

// Two instances on one database, A cut off in each of the ways above: A's
// clients are sent away and carry on through B, which keeps the game
// going; then A takes clients again.
func TestInstancesSendClientsAwayWhenCutOff(t *testing.T) {
	for _, fault := range outageFaults {
		t.Run(fault.name, func(t *testing.T) {
			testOutage(t, fault.because, fault.start, fault.end, true)
		})
	}
}

// proxiedDatabase makes a database for the test, and a proxy to it: it
// returns the database's URL, the URL through the proxy, and the proxy.
func proxiedDatabase(t *testing.T) (direct, proxied string, proxy *pgtest.Proxy) {
	t.Helper()
	direct = pgtest.NewDatabase(t)
	u, err := url.Parse(direct)
	if err != nil {
		t.Fatal(err)
	}
	proxy = pgtest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	return direct, u.String(), proxy
}

func testOutage(t *testing.T, because string, fault, mend func(*pgtest.Proxy), peer bool) {
	dbURL, proxied, proxy := proxiedDatabase(t)
	clk := newTestClock()
	a := startInstanceWith(t, proxied, func(st *store.Postgres, srv *Server) {
		st.SetTimeout(500 * time.Millisecond)
		srv.vigil.now = clk.now
	})
	ta := &testServer{t: t, srv: a.srv}
	tb := ta
	b := a
	if peer {
		b = startInstance(t, dbURL)
		tb = &testServer{t: t, srv: b.srv}
	}
	g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 8, "clock": {"minutes": 5}}`)
	south := seatSocket(t, a.web.URL, g.ID, tokens[rules.South])
	spectator := seatSocket(t, a.web.URL, g.ID, "")
	lobby, err := dialSocket(t, a.web.URL, "/api/lobby/live", http.Header{})
	if err != nil {
		t.Fatal(err)
	}
	lobby.waitMsg("the lobby", func(m map[string]any) bool { return m["type"] == "lobby" })
	north := seatSocket(t, b.web.URL, g.ID, tokens[rules.North])
	south.waitMsg("the North's arrival", func(m map[string]any) bool { return m["event"] == "presence" })

	fault(proxy)
	ctx := context.Background()
	// Within the grace, nobody is sent away.
	clk.add(outageGrace / 2)
	a.srv.checkHealth(ctx)
	if err := a.srv.vigil.err(); err != nil || !south.open() || !spectator.open() {
		t.Fatalf("sent away within the grace: %v", err)
	}
	// Past it, A's checks send its clients away.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 100 {
			select {
			case <-spectator.closed:
				return
			default:
			}
			clk.add(vigilEvery)
			a.srv.checkHealth(ctx)
		}
	}()
	<-done
	south.waitAway("South's connection to A", because)
	spectator.waitAway("a spectator's connection to A", because)
	lobby.waitAway("the lobby's connection to A", because)
	if err := a.srv.Ready(ctx); err == nil {
		t.Error("A says it is ready while cut off")
	}
	if _, err := dialSocket(t, a.web.URL, "/api/games/"+g.ID+"/live", http.Header{}); err == nil || !strings.Contains(err.Error(), "503") {
		t.Errorf("a new connection to A while cut off: %v, want 503", err)
	}
	if because != "cannot hear the other servers" {
		answered := make(chan int, 1)
		go func() { code, _ := ta.do("GET", "/api/games/"+g.ID, "", nil); answered <- code }()
		select {
		case code := <-answered:
			if code != http.StatusServiceUnavailable {
				t.Errorf("GET of the game on A while cut off: %d, want 503", code)
			}
		case <-time.After(liveWait):
			t.Errorf("GET of the game on A still unanswered after %v", liveWait)
		}
	}

	if peer {
		// South's page reconnects through the balancer, to B, and the
		// game goes on there.
		south = seatSocket(t, b.web.URL, g.ID, tokens[rules.South])
		var mv moveView
		if code, raw := tb.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.South],
			fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), &mv); code != 200 {
			t.Fatalf("South's move on B: %d %s", code, raw)
		}
		for _, c := range []*watchedSocket{south, north} {
			c.waitMsg("South's move on B", func(m map[string]any) bool {
				gm, _ := m["game"].(map[string]any)
				moves, _ := gm["moves"].([]any)
				return len(moves) == 1
			})
		}
	}

	mend(proxy)
	for deadline := time.Now().Add(liveWait); a.srv.vigil.err() != nil; {
		if time.Now().After(deadline) {
			t.Fatalf("A still cut off after the fault ended: %v", a.srv.vigil.err())
		}
		clk.add(vigilEvery)
		a.srv.checkHealth(ctx)
	}
	back := seatSocket(t, a.web.URL, g.ID, tokens[rules.South])
	if peer {
		back.waitMsg("the game as B left it", func(m map[string]any) bool {
			gm, _ := m["game"].(map[string]any)
			moves, _ := gm["moves"].([]any)
			return len(moves) == 1
		})
	}
}
