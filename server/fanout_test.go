package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/internal/bustest"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// instance is one server of several sharing a PostgreSQL database.
type instance struct {
	st  *store.Postgres
	srv *Server
	web *httptest.Server
}

// startInstance starts a server on the PostgreSQL database at url, its
// notices carried by the database's NOTIFY.
func startInstance(t *testing.T, url string) *instance { return startInstanceOn(t, url, "", nil) }

// startInstanceWith is startInstance with setup, if not nil, called on
// the store and the server before it starts.
func startInstanceWith(t *testing.T, url string, setup func(*store.Postgres, *Server)) *instance {
	return startInstanceOn(t, url, "", setup)
}

// forEachBus runs test once on each kind of bus (bustest.Kinds), as a
// subtest named after it, with the URL of a bus of the subtest's own: ""
// for PostgreSQL's NOTIFY, a channel of its own on NATS or Redis.
func forEachBus(t *testing.T, test func(t *testing.T, busURL string)) {
	for _, kind := range bustest.Kinds {
		t.Run(kind, func(t *testing.T) { test(t, bustest.URL(t, kind)) })
	}
}

// openTestBus opens the bus at busURL for a server of the test, closed
// once the test's servers are: nil for "", the database's NOTIFY.
func openTestBus(t testing.TB, busURL string) bus.Bus {
	t.Helper()
	if busURL == "" {
		return nil
	}
	b, err := bus.Open(busURL, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// waitHearing waits, as a load balancer would (the instance's health
// check says so), for srv to hear the others: notices sent before are
// caught up on, not relayed as the events they were.
func waitHearing(t testing.TB, srv *Server) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); srv.bus.Listening() != nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the instance does not hear the others (%s) after 30 s", srv.bus)
		}
	}
}

// startInstanceOn is startInstanceWith with the instances' notices on the
// bus at busURL ("" for the database's NOTIFY).
func startInstanceOn(t *testing.T, url, busURL string, setup func(*store.Postgres, *Server)) *instance {
	t.Helper()
	b := openTestBus(t, busURL)
	st, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Bus: b})
	if setup != nil {
		setup(st, srv)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	in := &instance{st: st, srv: srv, web: httptest.NewServer(srv)}
	t.Cleanup(func() {
		in.web.Close()
		cancel()
		srv.Close()
		st.Close()
	})
	waitHearing(t, srv)
	return in
}

// A game made on one instance is played from another, and each
// instance's live clients see the other's moves, presence included.
func TestInstancesShareLiveGames(t *testing.T) { forEachBus(t, testInstancesShareLiveGames) }

func testInstancesShareLiveGames(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta := &testServer{t: t, srv: a.srv}
	tb := &testServer{t: t, srv: b.srv}
	var c created
	if code, raw := ta.do("POST", "/api/games", `{"online": true, "holes": 4, "seeds": 2, "clock": {"minutes": 1}}`, &c); code != 201 {
		t.Fatalf("create on A: %d %s", code, raw)
	}
	var j created
	if code, raw := tb.do("POST", "/api/join/"+c.Invite[len("/#/join/"):], ``, &j); code != 200 || j.Seat == nil {
		t.Fatalf("join on B: %d %s", code, raw)
	}
	var tokens [2]string
	for _, s := range []*seatView{c.Seat, j.Seat} {
		tokens[map[string]rules.Side{"s": rules.South, "n": rules.North}[s.Side]] = s.Token
	}
	id := c.Game.ID
	onA, onB := dialLive(t, a.web.URL, id), dialLive(t, b.web.URL, id)
	onA.wait("the first state", func(m liveMessage) bool { return m.Game != nil })
	onB.wait("the first state", func(m liveMessage) bool { return m.Game != nil })
	onA.send(map[string]string{"type": "hello", "token": tokens[rules.South]})
	onB.send(map[string]string{"type": "hello", "token": tokens[rules.North]})
	onA.wait("North connected on B", func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.North && m.Game.Online.Connected.South
	})
	g := ta.get(id)
	for ply := 0; ply < 4 && g.Status == "playing"; ply++ {
		mover, other := onA, onB
		if g.ToMove == "n" {
			mover, other = onB, onA
		}
		start := time.Now()
		mover.send(map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": ply})
		// A move refused on the mover's instance fails the test at once,
		// saying why, rather than leaving the other to wait in vain.
		m := other.waitWatching(fmt.Sprintf("move %d on the other instance", ply+1), func(m liveMessage) bool {
			return m.Game != nil && len(m.Game.Moves) == ply+1
		}, mover)
		if m.Event != "move" || m.Sowing == nil || m.Sowing.Move != g.LegalMoves[0] {
			t.Errorf("move %d arrived as event %q without its sowing: %+v", ply+1, m.Event, m)
		}
		t.Logf("move %d reached the other instance's client in %v", ply+1, time.Since(start))
		g = *m.Game
	}
	if got := tb.get(id); len(got.Moves) != len(g.Moves) {
		t.Errorf("B stores %d moves, A's client saw %d", len(got.Moves), len(g.Moves))
	}
	// B's client leaves: A's client hears of it.
	onB.ws.CloseNow()
	onA.wait("North gone", func(m liveMessage) bool { return m.Game != nil && !m.Game.Online.Connected.North })
}

// A clock started on an instance that is gone still falls: another
// instance's check finds it.
func TestInstancesKeepClocks(t *testing.T) { forEachBus(t, testInstancesKeepClocks) }

func testInstancesKeepClocks(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta := &testServer{t: t, srv: a.srv}
	var c created
	ta.do("POST", "/api/games", `{"online": true, "holes": 6, "clock": {"minutes": 1}}`, &c)
	var j created
	ta.do("POST", "/api/join/"+c.Invite[len("/#/join/"):], ``, &j)
	tokens := map[string]string{c.Seat.Side: c.Seat.Token, j.Seat.Side: j.Seat.Token}
	g := ta.get(c.Game.ID)
	for ply := range 2 {
		ta.seat("POST", "/api/games/"+g.ID+"/moves", tokens[g.ToMove], fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil)
		g = ta.get(g.ID)
	}
	if g.Online.Running == "" {
		t.Fatal("no clock runs after two moves")
	}
	// A stops; the running clock is wound back past its time.
	a.srv.clocks.stopAll()
	l, err := b.srv.table.Load(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	o := *l.Online()
	o.TurnStart = time.Now().Add(-2 * time.Minute)
	if err := b.st.Update(context.Background(), g.ID, game.Change{Ply: 2, Rev: o.Rev, From: 2, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	b.srv.clocks.stopAll()
	b.srv.checkClocks(context.Background())
	tbs := &testServer{t: t, srv: b.srv}
	if got := tbs.get(g.ID); got.Status != "timeout" {
		t.Errorf("after B's check: %s, want timeout", got.Status)
	}
	if a.srv.instance == "" || a.srv.instance == b.srv.instance {
		t.Errorf("instances named alike: %q %q", a.srv.instance, b.srv.instance)
	}
}

// A presence change told after a move was stored but before the move's own
// notice was handled carries the move: it is told as the move, with its
// sowing, since the move's notice then finds it sent. So it is whether the
// presence is another instance's (relay) or this one's (publishPresence,
// a connection that came or went here), and whether the game had moves
// before its first connection here or not.
func TestPresenceCatchingUpTellsTheMove(t *testing.T) {
	tells := map[string]func(s *Server, id string){
		"another instance's": func(s *Server, id string) { s.relay(id, "presence", false) },
		"this instance's":    func(s *Server, id string) { s.publishPresence(s.ctx, id) },
	}
	for name, tell := range tells {
		for _, before := range []int{0, 2} {
			t.Run(fmt.Sprintf("%s presence after %d moves", name, before), func(t *testing.T) {
				presenceCatchingUp(t, before, tell)
			})
		}
	}
}

// presenceCatchingUp plays before moves of a game, opens a live connection
// to it, has a server beside this one play another, and checks that the
// presence tell sends it as the move.
func presenceCatchingUp(t *testing.T, before int, tell func(s *Server, id string)) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	for ply := range before {
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != 200 {
			t.Fatalf("move %d: %d %s", ply+1, code, raw)
		}
		g = ts.get(g.ID)
	}
	if g.Status != "playing" {
		t.Fatalf("the game is %s after %d moves", g.Status, before)
	}
	c := dialLive(t, web.URL, g.ID)
	first := c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" && m.Game.ID == g.ID })
	// The room knows what its first connection was sent (taken under the
	// game's lock, after the connection's own): the revision and the moves
	// whose next one a presence may catch up on.
	var rev int64
	var moves int
	ts.srv.table.With(context.Background(), g.ID, func(*play.Game) error {
		rev, moves = ts.srv.live.sent(g.ID)
		return nil
	})
	if rev != first.Game.Online.Rev || moves != before {
		t.Errorf("the room notes revision %d with %d moves sent; its connection had %d with %d", rev, moves, first.Game.Online.Rev, before)
	}
	// A server beside this one on the same database plays the move: this
	// one hears nothing of it.
	st, err := store.Open(context.Background(), ts.path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	other := &testServer{t: t, path: ts.path, st: st, srv: New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))}
	if code, raw := other.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], before), nil); code != 200 {
		t.Fatalf("the move on the other server: %d %s", code, raw)
	}
	// This server keeps the game as it sent it; a presence told after
	// another instance's change, and before its notice, reads the game
	// when this one no longer keeps it (it left memory, or this server
	// restarted meanwhile).
	ts.srv.table.Forget(g.ID)
	tell(ts.srv, g.ID)
	m := c.wait("the move", func(m liveMessage) bool { return m.Game != nil && len(m.Game.Moves) == before+1 })
	if m.Event != "move" || m.Sowing == nil || m.Sowing.Move != g.LegalMoves[0] {
		t.Errorf("the move came as event %q with sowing %+v", m.Event, m.Sowing)
	}
}

// TestOneFlagAClock: the instance that made a game's last change flags its
// clock when it falls; another arms only a fallback, flagGrace later,
// which the flag's notice stops; with that instance gone, the fallback
// flags the game, dated when the clock fell.
func TestOneFlagAClock(t *testing.T) { forEachBus(t, testOneFlagAClock) }

func testOneFlagAClock(t *testing.T, busURL string) {
	for _, gone := range []bool{false, true} {
		t.Run(fmt.Sprintf("the mover's instance gone: %t", gone), func(t *testing.T) {
			url := pgtest.NewDatabase(t)
			fake := clock.NewFake(time.Date(2040, 1, 1, 9, 0, 0, 0, time.UTC))
			withClock := func(_ *store.Postgres, s *Server) { s.clock, s.table.Clock = fake, fake }
			a, b := startInstanceOn(t, url, busURL, withClock), startInstanceOn(t, url, busURL, withClock)
			ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
			g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 6, "clock": {"minutes": 1}}`)
			for ply := range 2 {
				if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != 200 {
					t.Fatalf("move %d: %d %s", ply+1, code, raw)
				}
				g = ta.get(g.ID)
			}
			fell := fake.Now().Add(time.Minute)
			armed := func(in *instance) bool {
				_, ok := in.srv.clocks.due(g.ID)
				return ok
			}
			// B hears of the moves and arms its fallback, flagGrace after
			// A's timer.
			for deadline := time.Now().Add(liveWait); ; time.Sleep(10 * time.Millisecond) {
				if due, ok := b.srv.clocks.due(g.ID); ok && due.After(fell.Add(flagGrace)) {
					break
				}
				if time.Now().After(deadline) {
					due, ok := b.srv.clocks.due(g.ID)
					t.Fatalf("B never armed its fallback after the grace: due %v (%t), the clock falls at %v", due, ok, fell)
				}
			}
			if due, ok := a.srv.clocks.due(g.ID); !ok || due.After(fell.Add(time.Second)) {
				t.Fatalf("A, which made the last move, flags at %v (%t); the clock falls at %v", due, ok, fell)
			}
			if gone {
				a.srv.clocks.stopAll()
			}
			fake.Advance(time.Minute + 20*time.Millisecond)
			if !gone {
				if got := ta.get(g.ID); got.Status != "timeout" {
					t.Fatalf("A did not flag the clock when it fell: %s", got.Status)
				}
				// A's notice of the flag stops B's fallback before it is due.
				for deadline := time.Now().Add(liveWait); ; time.Sleep(10 * time.Millisecond) {
					if !armed(b) {
						break
					}
					if time.Now().After(deadline) {
						t.Fatal("B's fallback is still armed after A flagged the clock")
					}
				}
			} else if got := tb.get(g.ID); got.Status != "playing" {
				t.Fatalf("B flagged the clock before its grace: %s", got.Status)
			}
			fake.Advance(flagGrace)
			got := tb.get(g.ID)
			if got.Status != "timeout" || !got.Updated.Equal(fell) {
				t.Errorf("after the grace: %s, updated %v, want timeout at %v", got.Status, got.Updated, fell)
			}
		})
	}
}
