package server

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/bustest"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/store"
)

// The bus goes down in the middle of games played across two instances,
// South's moves through A and North's through B, and comes back while
// they go on: NATS or Redis cut off from both instances (their connections
// cut, new ones refused, by a proxy between them and the bus), or, with
// PostgreSQL's NOTIFY, both instances' listening connections silenced and
// then cut. No move is lost or stored twice, and each instance's live
// clients see every move, in order, none told twice.
func TestInstancesBusRestart(t *testing.T) {
	for _, kind := range bustest.Kinds {
		t.Run(kind, func(t *testing.T) { testInstancesBusRestart(t, kind) })
	}
}

func testInstancesBusRestart(t *testing.T, kind string) {
	var dbURL, busURL string
	var down, up func()
	var setup func(*store.Postgres, *Server)
	if kind == bustest.Postgres {
		var proxy *pgtest.Proxy
		_, dbURL, proxy = proxiedDatabase(t)
		down = func() {
			if n := proxy.StallListeners(); n != 2 {
				t.Errorf("%d listening connections stalled, want 2", n)
			}
		}
		up = func() { proxy.CutListeners() }
		// The vigil, whose clock stands still, sends nobody away: the
		// instances' deafness is the outage under test.
		still := newTestClock()
		setup = func(_ *store.Postgres, srv *Server) { srv.vigil.now = still.now }
	} else {
		dbURL = pgtest.NewDatabase(t)
		proxy := pgtest.NewProxy(t, bustest.Server(t, kind).Host)
		busURL = bustest.Via(t, bustest.URL(t, kind), proxy.Addr())
		down = func() {
			proxy.Refuse(true)
			proxy.Cut()
		}
		up = func() { proxy.Refuse(false) }
	}
	a, b := startInstanceOn(t, dbURL, busURL, setup), startInstanceOn(t, dbURL, busURL, setup)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}

	type played struct {
		g       gameView
		tokens  [2]string
		clients [2]*recordedClient // on A, on B
	}
	const games = 3
	var ps []*played
	for range games {
		g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 8}`)
		p := &played{g: g, tokens: tokens}
		for i, in := range []*instance{a, b} {
			c := dialLive(t, in.web.URL, g.ID)
			c.wait("the first state", func(m liveMessage) bool { return m.Game != nil })
			p.clients[i] = recordLive(c)
		}
		ps = append(ps, p)
	}
	// The moves, a round every 100 ms; the bus is down from the fifth
	// round for 1.5 s.
	const rounds, downAt, downFor = 24, 5, 15
	for round := range rounds {
		switch round {
		case downAt:
			down()
		case downAt + downFor:
			up()
		}
		for _, p := range ps {
			if p.g.Status != "playing" {
				continue
			}
			ts := ta
			if p.g.ToMove == "n" {
				ts = tb
			}
			var mv moveView
			if code, raw := ts.seat("POST", "/api/games/"+p.g.ID+"/moves", tokenOf(p.g, p.tokens),
				fmt.Sprintf(`{"move": %q, "ply": %d}`, p.g.LegalMoves[len(p.g.LegalMoves)/2], len(p.g.Moves)), &mv); code != http.StatusOK {
				t.Fatalf("round %d: move %d of game %s: %d %s", round, len(p.g.Moves)+1, p.g.ID, code, raw)
			}
			p.g = mv.Game
		}
		time.Sleep(100 * time.Millisecond)
	}
	if kind != bustest.Postgres {
		for name, in := range map[string]*instance{"A": a, "B": b} {
			if s := in.srv.bus.Stats(); s.Outages < 1 {
				t.Errorf("%s's bus counts no outage: %+v", name, s)
			}
		}
	}
	for _, p := range ps {
		stored := tb.get(p.g.ID).Moves
		if !slices.Equal(stored, p.g.Moves) {
			t.Errorf("game %s: stored %q, the players were answered %q", p.g.ID, stored, p.g.Moves)
		}
		for i, c := range p.clients {
			where := fmt.Sprintf("game %s, the client on %c", p.g.ID, 'A'+i)
			msgs := c.until(func(m liveMessage) bool { return len(m.Game.Moves) == len(stored) })
			if msgs == nil {
				t.Errorf("%s: no word of the last moves in %v", where, liveWait)
				continue
			}
			checkTold(t, where, msgs, stored)
		}
	}
}

// checkTold checks the messages a live client had of a game whose moves
// are moves: each shows a beginning of them, never fewer than the one
// before, and no move is told twice.
func checkTold(t *testing.T, where string, msgs []liveMessage, moves []string) {
	t.Helper()
	seen, told := 0, 0
	for _, m := range msgs {
		n := len(m.Game.Moves)
		switch {
		case n > len(moves) || !slices.Equal(m.Game.Moves, moves[:n]):
			t.Errorf("%s: told moves %q, not a beginning of %q", where, m.Game.Moves, moves)
		case n < seen:
			t.Errorf("%s: told %d moves after %d", where, n, seen)
		case m.Event == "move" && n <= told:
			t.Errorf("%s: move %d told again (after move %d)", where, n, told)
		}
		seen = max(seen, n)
		if m.Event == "move" {
			told = n
		}
	}
}

// recordedClient keeps every game message a live client is sent.
type recordedClient struct {
	mu      sync.Mutex
	msgs    []liveMessage
	changed chan struct{}
}

// recordLive reads c's messages from now on.
func recordLive(c *liveClient) *recordedClient {
	r := &recordedClient{changed: make(chan struct{}, 1)}
	go func() {
		for m := range c.msgs {
			if m.Game == nil {
				continue
			}
			r.mu.Lock()
			r.msgs = append(r.msgs, m)
			r.mu.Unlock()
			select {
			case r.changed <- struct{}{}:
			default:
			}
		}
	}()
	return r
}

// until returns the messages received once one that ok accepts has come,
// or nil after liveWait.
func (r *recordedClient) until(ok func(liveMessage) bool) []liveMessage {
	deadline := time.After(liveWait)
	for {
		r.mu.Lock()
		msgs := slices.Clone(r.msgs)
		r.mu.Unlock()
		if slices.ContainsFunc(msgs, ok) {
			return msgs
		}
		select {
		case <-r.changed:
		case <-deadline:
			return nil
		}
	}
}
