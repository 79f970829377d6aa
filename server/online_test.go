package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// created is the answer to the creation of an online game.
type created struct {
	Game   gameView
	Seat   *seatView
	Invite string
	Watch  string
}

// seat sends a request as a seat (token may be empty).
func (ts *testServer) seat(method, path, token, body string, out any) (int, string) {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	ts.srv.ServeHTTP(rec, req)
	if out != nil && rec.Code < 300 {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			ts.t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body)
		}
	}
	if rec.Code >= 400 && !isJSONError(rec) {
		ts.t.Errorf("%s %s: %d is not a JSON error: %s", method, path, rec.Code, rec.Body)
	}
	return rec.Code, rec.Body.String()
}

// onlinePair makes an online game and seats both players; it returns the
// game and the tokens by side.
func (ts *testServer) onlinePair(body string) (gameView, [2]string) {
	ts.t.Helper()
	var c created
	if code, raw := ts.do("POST", "/api/games", body, &c); code != http.StatusCreated {
		ts.t.Fatalf("create %s: %d %s", body, code, raw)
	}
	code := c.Invite[strings.LastIndex(c.Invite, "/")+1:]
	var j created
	if code, raw := ts.do("POST", "/api/join/"+code, `{"name": "Sironka"}`, &j); code != 200 || j.Seat == nil {
		ts.t.Fatalf("join: %d %s", code, raw)
	}
	var tokens [2]string
	for _, s := range []*seatView{c.Seat, j.Seat} {
		if s.Side == "s" {
			tokens[rules.South] = s.Token
		} else {
			tokens[rules.North] = s.Token
		}
	}
	if tokens[0] == "" || tokens[1] == "" || tokens[0] == tokens[1] {
		ts.t.Fatalf("seats %+v %+v", c.Seat, j.Seat)
	}
	return j.Game, tokens
}

// tokenOf returns the token of the side to move.
func tokenOf(g gameView, tokens [2]string) string {
	if g.ToMove == "s" {
		return tokens[rules.South]
	}
	return tokens[rules.North]
}

func TestOnlineInviteAndSeats(t *testing.T) {
	var logs bytes.Buffer
	ts := newTestServer(t)
	ts.srv = New(ts.st, slog.New(slog.NewTextHandler(&logs, nil)))
	var c created
	if code, raw := ts.do("POST", "/api/games", `{"online": true, "holes": 6, "side": "n", "name": "Naserian", "clock": {"minutes": 5, "increment": 3}}`, &c); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	if c.Seat == nil || c.Seat.Side != "n" || len(c.Seat.Token) < 22 || !strings.HasPrefix(c.Invite, "/#/join/") {
		t.Fatalf("created %+v", c)
	}
	if o := c.Game.Online; o == nil || !o.Seats.North || o.Seats.South || o.Clock == nil || o.Clock.Minutes != 5 || o.Clocks.South != 300000 || o.Running != "" || c.Game.North != "Naserian" {
		t.Fatalf("online view %+v", c.Game.Online)
	}
	code := c.Invite[len("/#/join/"):]
	var peek struct{ Game, Free string }
	if st, raw := ts.do("GET", "/api/join/"+code, "", &peek); st != 200 || peek.Game != c.Game.ID || peek.Free != "s" {
		t.Fatalf("peek: %d %s", st, raw)
	}
	var j created
	if st, raw := ts.do("POST", "/api/join/"+code, `{"name": "Sironka"}`, &j); st != 200 || j.Seat == nil || j.Seat.Side != "s" || j.Game.South != "Sironka" {
		t.Fatalf("join: %d %s", st, raw)
	}
	var third created
	if st, raw := ts.do("POST", "/api/join/"+code, ``, &third); st != 200 || third.Seat != nil || third.Watch != "/#/play/"+c.Game.ID {
		t.Fatalf("third join: %d %s", st, raw)
	}
	for _, bad := range []string{"nosuchcode12", "x", strings.Repeat("a", 5000)} {
		if st, _ := ts.do("POST", "/api/join/"+bad, ``, nil); st != 404 {
			t.Errorf("join %q: %d", bad[:min(len(bad), 20)], st)
		}
	}
	for _, tc := range []string{
		`{"online": true, "computer": {"side": "n", "level": 3}}`,
		`{"online": true, "south": "A"}`,
		`{"online": true, "position": "1,1/1,1 s 0 0"}`,
		`{"online": true, "clock": {"minutes": 0}}`,
		`{"online": true, "clock": {"days": 2}}`,
		`{"online": true, "clock": {"minutes": 5, "increment": 61}}`,
		`{"online": true, "side": "x"}`,
		`{"clock": {"minutes": 5}}`,
	} {
		if st, raw := ts.do("POST", "/api/games", tc, nil); st != 400 {
			t.Errorf("%s: %d %s, want 400", tc, st, raw)
		}
	}
	// The tokens appear nowhere but in the answers that gave them.
	var pages []string
	for _, path := range []string{"/api/games/" + c.Game.ID, "/api/games", "/api/online", "/api/games?ids=" + c.Game.ID,
		"/api/games/" + c.Game.ID + "/record", "/api/games/" + c.Game.ID + "/record?format=json", "/api/join/" + code} {
		_, raw := ts.do("GET", path, "", nil)
		pages = append(pages, raw)
	}
	ts.seat("POST", "/api/games/"+c.Game.ID+"/moves", c.Seat.Token, `{"move": "a", "ply": 0}`, nil)
	for _, secret := range []string{c.Seat.Token, j.Seat.Token, play.HashToken(c.Seat.Token)} {
		for i, p := range append(pages, logs.String()) {
			if strings.Contains(p, secret) {
				t.Errorf("a seat's secret is in answer %d: %.200s", i, p)
			}
		}
	}
}

func TestOnlineSeatsAreChecked(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6}`)
	other, otherTokens := ts.onlinePair(`{"online": true, "holes": 6}`)
	_ = other
	moves := "/api/games/" + g.ID + "/moves"
	south, north := tokens[rules.South], tokens[rules.North]
	for _, tc := range []struct {
		name, token, body string
		want              int
	}{
		{"no token", "", `{"move": "c", "ply": 0}`, 401},
		{"unknown token", "AAAAAAAAAAAAAAAAAAAAAA", `{"move": "c", "ply": 0}`, 401},
		{"another game's seat", otherTokens[rules.South], `{"move": "c", "ply": 0}`, 403},
		{"the other seat's hole", north, `{"move": "c", "ply": 0}`, 403},
		{"not your turn", north, `{"move": "C", "ply": 0}`, 409},
		{"no ply", south, `{"move": "c"}`, 400},
		{"stale ply", south, `{"move": "c", "ply": 3}`, 409},
		{"illegal", south, `{"move": "z", "ply": 0}`, 400},
	} {
		if code, raw := ts.seat("POST", moves, tc.token, tc.body, nil); code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.name, code, raw, tc.want)
		}
	}
	for _, path := range []string{"/api/games/" + g.ID + "/takeback", "/api/games/" + g.ID + "/computer"} {
		if code, _ := ts.seat("POST", path, south, `{"ply": 0}`, nil); code != 409 {
			t.Errorf("%s on an online game: %d", path, code)
		}
	}
	if code, _ := ts.seat("POST", "/api/games/"+g.ID+"/actions", "", `{"action": "resign", "ply": 0}`, nil); code != 401 {
		t.Errorf("resign without a token: %d", code)
	}
	if code, _ := ts.do("GET", "/api/games/"+g.ID+"/hint", "", nil); code != 409 {
		t.Errorf("a hint in an online game: %d", code)
	}
	// The same move sent twice at once by its seat: exactly one is taken.
	var wg sync.WaitGroup
	codes := make([]int, 10)
	for i := range codes {
		wg.Go(func() { codes[i], _ = ts.seat("POST", moves, south, `{"move": "c", "ply": 0}`, nil) })
	}
	wg.Wait()
	ok := 0
	for _, c := range codes {
		if c == 200 {
			ok++
		} else if c != 409 {
			t.Errorf("racing move: %d", c)
		}
	}
	if got := ts.get(g.ID); ok != 1 || len(got.Moves) != 1 || got.Online.Rev < 3 {
		t.Errorf("%d racing moves taken, %d stored, rev %d", ok, len(got.Moves), got.Online.Rev)
	}
}

func TestOnlineActions(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 3, "series": 2}`)
	act := func(side rules.Side, action string, ply int, want int) gameView {
		t.Helper()
		var v gameView
		code, raw := ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[side], fmt.Sprintf(`{"action": %q, "ply": %d}`, action, ply), &v)
		if code != want {
			t.Fatalf("%s by %s: %d %s, want %d", action, side, code, raw, want)
		}
		return v
	}
	move := func(m string) {
		t.Helper()
		cur := ts.get(g.ID)
		var mv moveView
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, m, len(cur.Moves)), &mv); code != 200 {
			t.Fatalf("move %s: %d %s", m, code, raw)
		}
	}
	act(rules.North, "draw-accept", 0, 409)
	v := act(rules.South, "draw-offer", 0, 200)
	if v.Online.DrawOffer != "s" {
		t.Errorf("draw offer: %+v", v.Online)
	}
	act(rules.South, "draw-offer", 0, 409)
	act(rules.South, "draw-accept", 0, 409)
	v = act(rules.North, "draw-decline", 0, 200)
	if v.Online.DrawOffer != "" {
		t.Errorf("declined offer still open: %+v", v.Online)
	}
	act(rules.South, "takeback-request", 0, 409) // no move yet
	move(ts.get(g.ID).LegalMoves[0])
	move(ts.get(g.ID).LegalMoves[0])
	act(rules.South, "abort", 2, 409) // after the second move
	v = act(rules.South, "takeback-request", 2, 200)
	if v.Online.TakebackOffer != "s" {
		t.Errorf("takeback request: %+v", v.Online)
	}
	v = act(rules.North, "takeback-accept", 2, 200)
	if len(v.Moves) != 0 || v.ToMove != "s" || v.Online.TakebackOffer != "" {
		t.Errorf("after the takeback: %d moves, %s to move, %+v", len(v.Moves), v.ToMove, v.Online)
	}
	act(rules.South, "rematch", 0, 409) // not over
	act(rules.South, "fly", 0, 400)
	v = act(rules.North, "resign", 0, 200)
	if v.Status != "resigned" || v.Result != "1-0" || v.Online.End != "resign" || len(v.LegalMoves) != 0 || v.Series.Wins.South != 1 {
		t.Errorf("after North resigned: %s %s %+v %+v", v.Status, v.Result, v.Online, v.Series)
	}
	if code, _ := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokens[rules.South], `{"move": "a", "ply": 0}`, nil); code != 409 {
		t.Errorf("a move after resigning: %d", code)
	}
	if code, _ := ts.do("POST", "/api/series/"+g.SeriesID+"/next", ``, nil); code != 409 {
		t.Errorf("next game of an online series without a seat: %d", code)
	}
	v = act(rules.North, "rematch", 0, 200)
	if v.Online.Next == "" {
		t.Fatalf("no next game: %+v", v.Online)
	}
	act(rules.South, "rematch", 0, 409)
	next := ts.get(v.Online.Next)
	if next.ToMove != "n" || next.SeriesID != g.SeriesID || !next.Online.Seats.South || !next.Online.Seats.North {
		t.Errorf("next game %+v", next)
	}
	// Both seats carry over.
	if code, raw := ts.seat("POST", "/api/games/"+next.ID+"/actions", tokens[rules.North], `{"action": "abort", "ply": 0}`, nil); code != 200 {
		t.Errorf("abort in the next game: %d %s", code, raw)
	}
	if got := ts.get(next.ID); got.Status != "aborted" || got.Result != "*" {
		t.Errorf("aborted game: %s %s", got.Status, got.Result)
	}
	// The record says how the resigned game ended.
	if _, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil); !strings.Contains(text, `[Termination "resigned; South won"]`) {
		t.Errorf("record:\n%s", text)
	}
}

// TestOnlineClock: the clock runs from the third move, and its timer
// flags the side to move when its time is up, not a moment before.
func TestOnlineClock(t *testing.T) {
	ts, fake := newTestServerAt(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6, "clock": {"minutes": 1, "increment": 2}}`)
	for i := range 2 {
		cur := ts.get(g.ID)
		if cur.Online.Running != "" {
			t.Fatalf("clock runs before the third move (ply %d)", i)
		}
		fake.Advance(10 * time.Second) // not counted: no clock runs yet
		var mv moveView
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[0], i), &mv); code != 200 {
			t.Fatalf("move: %d %s", code, raw)
		}
	}
	cur := ts.get(g.ID)
	if cur.Online.Running != cur.ToMove || cur.Online.Clocks.South != 60000 || cur.Online.Clocks.North != 60000 {
		t.Fatalf("after two moves: %+v", cur.Online)
	}
	started := fake.Now()
	fake.Advance(59 * time.Second)
	if mid := ts.get(g.ID); mid.Status != "playing" || mid.Online.Running != cur.ToMove {
		t.Fatalf("59 s into a minute: %s, running %q", mid.Status, mid.Online.Running)
	}
	fake.Advance(time.Second + 10*time.Millisecond) // the timer fires 10 ms after the deadline
	after := ts.get(g.ID)
	loser := cur.ToMove
	want := "0-1"
	if loser == "n" {
		want = "1-0"
	}
	if after.Status != "timeout" || after.Result != want || after.Online.Running != "" {
		t.Errorf("after the flag fell: %s %s %+v", after.Status, after.Result, after.Online)
	}
	if fell := started.Add(time.Minute); !after.Updated.Equal(fell) {
		t.Errorf("the game ended at %v, want when the flag fell, %v", after.Updated, fell)
	}
	if code, _ := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": 2}`, cur.LegalMoves[0]), nil); code != 409 {
		t.Errorf("a move after the flag fell: %d", code)
	}
}

// A restart gives the running clock the time the server was down.
func TestOnlineClockSurvivesARestart(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := ts.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6, "clock": {"minutes": 3, "increment": 0}}`)
	for i := range 2 {
		cur := ts.get(g.ID)
		ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[0], i), nil)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	ts.srv.Close()
	before := ts.get(g.ID).Online
	// The server stopped a second later, and is down for two minutes.
	l, err := ts.srv.table.Load(context.Background(), g.ID)
	if err != nil {
		t.Fatal(err)
	}
	o := *l.Online()
	o.TurnStart = o.TurnStart.Add(-2*time.Minute - time.Second)
	if err := ts.st.Update(context.Background(), g.ID, game.Change{Ply: 2, Rev: o.Rev, From: 2, Result: "*", Online: &o}); err != nil {
		t.Fatal(err)
	}
	if err := ts.st.SetAlive(context.Background(), o.TurnStart.Add(time.Second)); err != nil {
		t.Fatal(err)
	}
	ts.restart()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer func() { cancel2(); ts.srv.Close() }()
	if err := ts.srv.Start(ctx2); err != nil {
		t.Fatal(err)
	}
	after := ts.get(g.ID)
	running := before.Clocks.South
	now := after.Online.Clocks.South
	if after.ToMove == "n" {
		running, now = before.Clocks.North, after.Online.Clocks.North
	}
	// It ran about 1.3 s while the server was up: 180 s - 1.3 s is left.
	if after.Status != "playing" || now < 178000 || now > running {
		t.Errorf("the running clock had %d ms before the outage and %d after; status %s", running, now, after.Status)
	}
}

// TestOnlineExpiry: an online game nobody touched for IdleExpiry ends at
// the hourly sweep: the side to move loses, and a game whose second seat
// was never taken is aborted; a game touched since is left alone.
func TestOnlineExpiry(t *testing.T) {
	ts, fake := newTestServerAt(t)
	g, _ := ts.onlinePair(`{"online": true, "holes": 6}`)
	var lone, recent created
	ts.do("POST", "/api/games", `{"online": true}`, &lone)
	fake.Advance(IdleExpiry - time.Hour)
	ts.do("POST", "/api/games", `{"online": true}`, &recent)
	ts.srv.expireIdle(context.Background())
	if got := ts.get(g.ID); got.Status != "playing" {
		t.Fatalf("a game idle for less than IdleExpiry: %s", got.Status)
	}
	fake.Advance(time.Hour + time.Millisecond)
	ts.srv.expireIdle(context.Background())
	if got := ts.get(g.ID); got.Status != "expired" || got.Result != "0-1" {
		t.Errorf("idle game: %s %s, want expired 0-1 (South to move lost)", got.Status, got.Result)
	}
	if got := ts.get(lone.Game.ID); got.Status != "aborted" || got.Result != "*" {
		t.Errorf("game never joined: %s %s, want aborted", got.Status, got.Result)
	}
	if got := ts.get(recent.Game.ID); got.Status != "playing" {
		t.Errorf("a game made an hour ago: %s, want playing", got.Status)
	}
}

// liveClient is a WebSocket connection to a game's live updates.
type liveClient struct {
	t    *testing.T
	ws   *websocket.Conn
	msgs chan liveMessage
	// errs has a copy of each error message the server sends, besides
	// msgs: a test waiting on another connection watches it for its
	// requests refused without taking what it reads from msgs.
	errs chan liveMessage
	// mu guards last, which the reading goroutine changes and a test may
	// change too (forgetLastMove).
	mu sync.Mutex
	// last is the game as last told, to which the moves and who is
	// connected, told alone, are applied (take).
	last *gameView
}

// dialLive connects to game id's live updates at base as today's page
// does, speaking the protocol's version api.LiveProtocol.
func dialLive(t *testing.T, base, id string) *liveClient {
	t.Helper()
	return dialLiveV(t, base, id, "?v="+strconv.Itoa(api.LiveProtocol))
}

// dialLiveV connects to game id's live updates at base, with query q.
func dialLiveV(t *testing.T, base, id, q string) *liveClient {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+"/api/games/"+id+"/live"+q, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &liveClient{t: t, ws: ws, msgs: make(chan liveMessage, 100), errs: make(chan liveMessage, 100)}
	go c.read()
	t.Cleanup(func() { ws.CloseNow() })
	return c
}

// read reads the connection's messages into c.msgs until it ends.
func (c *liveClient) read() {
	defer close(c.msgs)
	for {
		_, data, err := c.ws.Read(context.Background())
		if err != nil {
			return
		}
		m, ok := c.take(data)
		if !ok {
			continue
		}
		m.wire = data
		if m.Type == "error" && c.errs != nil {
			select {
			case c.errs <- m:
			default: // more than anyone reads
			}
		}
		c.msgs <- m
	}
}

// take reads a message of the live connection as a client does: a game is
// taken as it is; a move or who is connected is applied to the game last
// told and read as that game, with the move's event and sowing; one that
// does not follow it asks for the game again (a sync), as the page does,
// and is not read.
func (c *liveClient) take(data []byte) (liveMessage, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(data, &head) != nil {
		return liveMessage{}, false
	}
	switch head.Type {
	case "move":
		var mv api.MoveMessage
		if json.Unmarshal(data, &mv) != nil || c.last == nil {
			c.sync()
			return liveMessage{}, false
		}
		g := c.copyLast()
		if err := g.Apply(&mv); err != nil {
			c.sync()
			return liveMessage{}, false
		}
		c.last = g
		m := liveMessage{Type: "game", Event: "move", Game: g}
		if mv.Sowing != nil {
			sw := mv.Sowing.Unpack(mv.Move)
			m.Sowing = &sw
		}
		return m, true
	case "presence":
		var p api.PresenceMessage
		if json.Unmarshal(data, &p) != nil || c.last == nil || c.last.Online == nil || p.Rev != c.last.Online.Rev {
			if c.last == nil || c.last.Online == nil || p.Rev > c.last.Online.Rev {
				c.sync()
			}
			return liveMessage{}, false
		}
		g := c.copyLast()
		g.Online.Connected, g.Online.Watchers = p.Connected, p.Watchers
		c.last = g
		return liveMessage{Type: "game", Event: "presence", Game: g}, true
	}
	var m liveMessage
	if json.Unmarshal(data, &m) != nil {
		return liveMessage{}, false
	}
	if m.Type == "game" && m.Game != nil {
		if m.V != api.LiveProtocol {
			c.t.Errorf("a game told in protocol %d, want %d", m.V, api.LiveProtocol)
		}
		c.last = m.Game
	}
	return m, true
}

// forgetLastMove makes the client's game one move behind the game last
// told, as if it had missed that move.
func (c *liveClient) forgetLastMove() {
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.copyLast()
	last.Moves, last.Positions = last.Moves[:len(last.Moves)-1], last.Positions[:len(last.Positions)-1]
	last.Online.Rev--
	c.last = last
}

// copyLast is the game as last told, sharing nothing that a move changes;
// c.mu is held.
func (c *liveClient) copyLast() *gameView {
	g := *c.last
	g.Moves, g.Positions, g.Sowings = slices.Clone(g.Moves), slices.Clone(g.Positions), slices.Clone(g.Sowings)
	if g.Online != nil {
		o := *g.Online
		g.Online = &o
	}
	return &g
}

// sync asks the server for the game again.
func (c *liveClient) sync() {
	data, _ := json.Marshal(map[string]string{"type": "sync"})
	c.ws.Write(context.Background(), websocket.MessageText, data)
}

func (c *liveClient) send(v any) {
	c.t.Helper()
	data, _ := json.Marshal(v)
	if err := c.ws.Write(context.Background(), websocket.MessageText, data); err != nil {
		c.t.Fatal(err)
	}
}

// liveWait bounds a wait for a live message: generous, since CI runs the
// browser tests beside these on two cores; a passing test comes nowhere
// near it.
const liveWait = 20 * time.Second

// wait returns the first message that ok accepts.
func (c *liveClient) wait(what string, ok func(liveMessage) bool) liveMessage {
	c.t.Helper()
	return c.waitWatching(what, ok, nil)
}

// waitWatching returns the first message that ok accepts, failing at once
// if the server refuses a request of sender (when not nil), the connection
// whose request the message waited for should follow: a refused request
// is told, not waited for until the time runs out.
func (c *liveClient) waitWatching(what string, ok func(liveMessage) bool, sender *liveClient) liveMessage {
	c.t.Helper()
	var refused <-chan liveMessage
	if sender != nil {
		refused = sender.errs
	}
	timeout := time.After(liveWait)
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				c.t.Fatalf("connection closed waiting for %s", what)
			}
			if ok(m) {
				return m
			}
		case m := <-refused:
			c.t.Fatalf("waiting for %s: the sender's request %v was refused: %d %s", what, m.Ref, m.Status, m.Error)
		case <-timeout:
			c.t.Fatalf("no %s within %s", what, liveWait)
		}
	}
}

func TestLiveGame(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	south, north, watcher := dialLive(t, web.URL, g.ID), dialLive(t, web.URL, g.ID), dialLive(t, web.URL, g.ID)
	for _, c := range []*liveClient{south, north, watcher} {
		c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" && m.Game.ID == g.ID })
	}
	south.send(map[string]string{"type": "hello", "token": tokens[rules.South]})
	north.send(map[string]string{"type": "hello", "token": tokens[rules.North]})
	watcher.wait("both seats connected", func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.South && m.Game.Online.Connected.North && m.Game.Online.Watchers == 1
	})
	// A move on one connection reaches the others, committed.
	mover, other := south, north
	if g.ToMove == "n" {
		mover, other = north, south
	}
	mover.send(map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": 0})
	for _, c := range []*liveClient{other, watcher} {
		m := c.wait("the move", func(m liveMessage) bool { return m.Event == "move" })
		if len(m.Game.Moves) != 1 || m.Sowing == nil || m.Sowing.Move != g.LegalMoves[0] {
			t.Errorf("move message %+v", m)
		}
	}
	if got := ts.get(g.ID); len(got.Moves) != 1 {
		t.Errorf("the move is not stored: %v", got.Moves)
	}
	// The same move again is refused to its sender only; so is a spectator's.
	mover.send(map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": 0})
	if m := mover.wait("an error", func(m liveMessage) bool { return m.Type == "error" }); m.Status != 409 {
		t.Errorf("repeated move: %+v", m)
	}
	watcher.send(map[string]any{"type": "action", "action": "resign", "ply": 1})
	if m := watcher.wait("an error", func(m liveMessage) bool { return m.Type == "error" }); m.Status != 401 {
		t.Errorf("a spectator's resignation: %+v", m)
	}
	watcher.send(map[string]string{"type": "hello", "token": "wrong"})
	watcher.wait("an error", func(m liveMessage) bool { return m.Type == "error" && m.Status == 401 })
	// A move over HTTP reaches the live clients too.
	cur := ts.get(g.ID)
	ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": 1}`, cur.LegalMoves[0]), nil)
	watcher.wait("the second move", func(m liveMessage) bool { return m.Event == "move" && len(m.Game.Moves) == 2 })
	// A seat leaving is seen by the others.
	north.ws.Close(websocket.StatusNormalClosure, "")
	watcher.wait("North gone", func(m liveMessage) bool { return m.Game != nil && !m.Game.Online.Connected.North })
	// Oversized and malformed messages.
	big := strings.Repeat("x", MaxLiveMessage+1)
	watcher.send(map[string]string{"type": big})
	if _, open := <-watcher.msgs; open {
		for range watcher.msgs {
		}
	}
}

// A page of another site cannot open a live connection.
func TestLiveOrigin(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, _ := ts.onlinePair(`{"online": true}`)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(web.URL, "http")+"/api/games/"+g.ID+"/live",
		&websocket.DialOptions{HTTPHeader: http.Header{"Origin": {"http://evil.example"}}})
	if err == nil || resp == nil || resp.StatusCode != 403 {
		t.Errorf("cross-origin live connection: %v %v", err, resp)
	}
}
