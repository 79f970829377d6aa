package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// seatTokens returns the tokens of a game's creator and joiner by side.
func seatTokens(c, j created) [2]string {
	var tokens [2]string
	for _, s := range []*seatView{c.Seat, j.Seat} {
		tokens[map[string]rules.Side{"s": rules.South, "n": rules.North}[s.Side]] = s.Token
	}
	return tokens
}

// instancePair makes an online game on a and seats its second player
// through b.
func instancePair(t *testing.T, ta, tb *testServer, body string) (gameView, [2]string) {
	t.Helper()
	var c created
	if code, raw := ta.do("POST", "/api/games", body, &c); code != http.StatusCreated {
		t.Fatalf("create on A: %d %s", code, raw)
	}
	var j created
	if code, raw := tb.do("POST", "/api/join/"+c.Invite[len("/#/join/"):], ``, &j); code != 200 || j.Seat == nil {
		t.Fatalf("join on B: %d %s", code, raw)
	}
	return c.Game, seatTokens(c, j)
}

// South asks instance A and North instance B for the next game of a
// series at the same moment: exactly one next game is made, the other
// request is refused with 409, and no game is left that the series' games
// do not lead to.
func TestInstancesRematchRace(t *testing.T) { forEachBus(t, testInstancesRematchRace) }

func testInstancesRematchRace(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 4, "seeds": 2, "series": 99}`)
	seriesID := g.Series.ID
	const rounds = 20
	for round := range rounds {
		// The side that resigns alternates, so that the series goes on.
		loser := tokens[round%2]
		if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/actions", loser,
			fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != http.StatusOK {
			t.Fatalf("round %d: resign: %d %s", round, code, raw)
		}
		start := make(chan struct{})
		type answer struct {
			code int
			raw  string
			game gameView
		}
		var answers [2]answer
		var wg sync.WaitGroup
		for side, ts := range []*testServer{ta, tb} {
			wg.Go(func() {
				<-start
				a := &answers[side]
				a.code, a.raw = ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[side],
					fmt.Sprintf(`{"action": "rematch", "ply": %d}`, len(g.Moves)), &a.game)
			})
		}
		close(start)
		wg.Wait()
		won := -1
		for side, a := range answers {
			switch a.code {
			case http.StatusOK:
				if won >= 0 {
					t.Errorf("round %d: both rematch requests answered 200", round)
				}
				won = side
			case http.StatusConflict:
			default:
				t.Errorf("round %d: rematch of %s: %d %s, want 200 or 409", round, rules.Side(side), a.code, a.raw)
			}
		}
		if won < 0 {
			t.Fatalf("round %d: no rematch request succeeded: %+v", round, answers)
		}
		next := answers[won].game.Online.Next
		if next == "" {
			t.Fatalf("round %d: the winning rematch names no next game", round)
		}
		if got := tb.get(g.ID); got.Online.Next != next {
			t.Errorf("round %d: game %s leads to %q, the winner was told %q", round, g.ID, got.Online.Next, next)
		}
		var sr api.Series
		if code, raw := tb.do("GET", "/api/series/"+seriesID, "", &sr); code != http.StatusOK {
			t.Fatalf("round %d: series: %d %s", round, code, raw)
		}
		if len(sr.Games) != round+2 || sr.Games[round+1].ID != next || sr.Results[round+1] != "*" {
			t.Fatalf("round %d: the series holds %d games %q, want %d, the last %s", round, len(sr.Games), sr.Results, round+2, next)
		}
		g = tb.get(next)
	}
	ids, err := a.st.GameIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != rounds+1 {
		t.Errorf("%d games stored, want the series' %d: a losing request left a game behind", len(ids), rounds+1)
	}
}

// waitLive returns the first message of c that ok accepts within d.
func waitLive(c *liveClient, d time.Duration, ok func(liveMessage) bool) (liveMessage, bool) {
	timeout := time.After(d)
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				return liveMessage{}, false
			}
			if ok(m) {
				return m, true
			}
		case <-timeout:
			return liveMessage{}, false
		}
	}
}

// Instance A reaches PostgreSQL through a proxy that cuts A's connection
// as the notice of South's move goes by: before the notice, right after
// it, or after the commit that follows. Whatever A answers, a move that
// is in the database reaches North's live connection on instance B
// within seconds, and a move A acknowledged is in the database.
func TestInstancesAnnounceWhatTheyCommit(t *testing.T) {
	dbURL := pgtest.NewDatabase(t)
	u, err := url.Parse(dbURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := pgtest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	a, b := startInstance(t, u.String()), startInstance(t, dbURL)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	const body = `{"online": true, "holes": 8}`
	g, tokens := instancePair(t, ta, tb, body)
	north := dialLive(t, b.web.URL, g.ID)
	// The move's notice, and no other: the event is in every notice's
	// text, as sent in the query's parameters.
	const marker = `"e":"move"`
	modes := []pgtest.CutPoint{pgtest.BeforeMarker, pgtest.AfterMarker, pgtest.AfterNext}
	const rounds = 9
	acked, refused := 0, 0
	for round := 0; round < rounds; {
		if g.Status != "playing" {
			north.ws.CloseNow()
			g, tokens = instancePair(t, ta, tb, body)
			north = dialLive(t, b.web.URL, g.ID)
		}
		ply := len(g.Moves)
		if g.ToMove == "n" {
			if code, raw := tb.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.North],
				fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != http.StatusOK {
				t.Fatalf("North's move on B: %d %s", code, raw)
			}
			g = tb.get(g.ID)
			continue
		}
		mode := modes[round%len(modes)]
		sprung := proxy.CutWhen(marker, mode)
		move := g.LegalMoves[len(g.LegalMoves)/2]
		code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.South],
			fmt.Sprintf(`{"move": %q, "ply": %d}`, move, ply), nil)
		select {
		case <-sprung:
		case <-time.After(5 * time.Second):
			t.Fatalf("round %d: the proxy never saw the notice of South's move (answer %d %s)", round, code, raw)
		}
		// A commit cut short may still land a moment after A's answer:
		// PostgreSQL settles it once it has read the bytes it was sent.
		stored := false
		for deadline := time.Now().Add(time.Second); !stored && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			stored = len(tb.get(g.ID).Moves) == ply+1
		}
		switch {
		case code == http.StatusOK:
			acked++
			if !stored {
				t.Errorf("round %d (%s): move %s acknowledged but not stored", round, mode, move)
			}
		case code == http.StatusServiceUnavailable:
			refused++
		default:
			t.Fatalf("round %d (%s): South's move: %d %s, want 200 or 503", round, mode, code, raw)
		}
		t.Logf("round %d, cut %s: South's move answered %d, stored %t", round, mode, code, stored)
		if !stored {
			// Not taken: South sends it again, with nothing in the way.
			if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.South],
				fmt.Sprintf(`{"move": %q, "ply": %d}`, move, ply), nil); code != http.StatusOK {
				t.Fatalf("round %d: South's move again: %d %s", round, code, raw)
			}
		}
		start := time.Now()
		if _, ok := waitLive(north, 5*time.Second, func(m liveMessage) bool {
			return m.Game != nil && len(m.Game.Moves) > ply
		}); !ok {
			t.Fatalf("round %d (%s, answered %d): South's move %s is stored, but North's live connection on B had no word of it in 5 s",
				round, mode, code, move)
		}
		t.Logf("round %d: North heard of the move after %v", round, time.Since(start).Round(time.Millisecond))
		g = tb.get(g.ID)
		round++
	}
	t.Logf("%d rounds: %d moves acknowledged, %d refused with 503", rounds, acked, refused)
}

// Instance B's listening connection goes silent without closing, as
// behind a firewall that drops it: B still tells North's live connection
// of South's moves on instance A within seconds. (B's vigil, whose clock
// stands still here, would send North away after a moment:
// TestInstancesSendClientsAwayWhenCutOff.)
func TestInstancesResyncSilentListener(t *testing.T) {
	dbURL, proxied, proxy := proxiedDatabase(t)
	still := newTestClock()
	a := startInstance(t, dbURL)
	b := startInstanceWith(t, proxied, func(_ *store.Postgres, srv *Server) { srv.vigil.now = still.now })
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 8}`)
	north := dialLive(t, b.web.URL, g.ID)
	north.wait("the first state", func(m liveMessage) bool { return m.Game != nil })
	// The news of North's arrival, which carries the game as it is, has
	// gone out before the moves.
	time.Sleep(3 * presenceDelay)
	if n := proxy.StallListeners(); n != 1 {
		t.Fatalf("%d listening connections of B stalled, want 1", n)
	}
	for range 3 {
		for g.ToMove == "n" {
			if code, raw := tb.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.North],
				fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), nil); code != http.StatusOK {
				t.Fatalf("North's move on B: %d %s", code, raw)
			}
			g = ta.get(g.ID)
		}
		ply := len(g.Moves)
		start := time.Now()
		if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.South],
			fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != http.StatusOK {
			t.Fatalf("South's move on A: %d %s", code, raw)
		}
		// The catching up tells the move as a move, with its sowing, so
		// that North's page animates it as usual.
		if _, ok := waitLive(north, liveWait, func(m liveMessage) bool {
			return m.Game != nil && len(m.Game.Moves) == ply+1 && m.Event == "move" && m.Sowing != nil
		}); !ok {
			t.Fatalf("South's move %d is stored, but North's live connection on B had no word of it as a move in %s", ply+1, liveWait)
		}
		t.Logf("North heard of move %d after %v", ply+1, time.Since(start).Round(time.Millisecond))
		g = ta.get(g.ID)
	}
}
