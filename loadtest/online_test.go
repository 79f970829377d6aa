package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// fakeLength is the number of moves of the fake's games.
const fakeLength = 20

// fakeOnline is a small fake of the online play of docs/api.md: games of
// fakeLength moves, South and North in turn, with the legal moves a, b and
// c. Its knobs make it misbehave on purpose, each on every nth move (0 for
// never).
type fakeOnline struct {
	mu     sync.Mutex
	games  map[string]*fakeOGame
	codes  map[string]*fakeOGame
	moves  int // moves applied
	errors int // error messages sent

	delayOpponent time.Duration // before a move's message reaches the opponent
	dropOpponent  int           // the opponent does not get the move's message
	forget        int           // the mover gets its move's message; the server forgets the move
	twice         int           // the move is applied twice
	repeat        int           // every connection gets the move's message twice
	closeBefore   int           // the mover's connection closes before the move is taken
	closeAfter    int           // every connection of the game closes once the move is taken, before any message
	hellos        int           // hellos with a wrong token
	stats         map[string]int
}

type fakeOGame struct {
	id     string
	tokens map[string]string // by side
	moves  []string
	rev    int64
	conns  map[*fakeConn]bool
}

type fakeConn struct {
	c      *websocket.Conn
	deltas bool   // speaks the live protocol's version 2: moves as move messages
	side   string // after a good hello
	out    chan fakeOut
	done   chan struct{}
}

type fakeOut struct {
	data []byte
	at   time.Time // not before
}

func newFakeOnline() *fakeOnline {
	return &fakeOnline{games: map[string]*fakeOGame{}, codes: map[string]*fakeOGame{}, stats: map[string]int{}}
}

func (g *fakeOGame) view() map[string]any {
	status, toMove, legal := "playing", "s", []string{"a", "b", "c"}
	if len(g.moves)%2 == 1 {
		toMove = "n"
	}
	if len(g.moves) >= fakeLength {
		status, legal = "no-legal-move", []string{}
	}
	return map[string]any{"id": g.id, "moves": append([]string{}, g.moves...), "legalMoves": legal, "toMove": toMove,
		"status": status, "online": map[string]any{"rev": g.rev}}
}

func (f *fakeOnline) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	rest, _ := strings.CutPrefix(r.URL.Path, "/api/")
	switch {
	case r.Method == "POST" && rest == "games":
		var req struct {
			Online       bool
			Holes, Seeds int
			Name         string
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !req.Online || req.Holes == 0 {
			reply(400, map[string]string{"error": "want an online game"})
			return
		}
		f.mu.Lock()
		n := len(f.games)
		g := &fakeOGame{id: fmt.Sprintf("%016x", n), moves: []string{}, conns: map[*fakeConn]bool{},
			tokens: map[string]string{"s": fmt.Sprintf("S%d", n)}}
		f.games[g.id] = g
		f.codes[fmt.Sprintf("code%d", n)] = g
		v := g.view()
		f.mu.Unlock()
		reply(201, map[string]any{"game": v, "seat": map[string]string{"side": "s", "token": g.tokens["s"]},
			"invite": fmt.Sprintf("/#/join/code%d", n)})
	case r.Method == "POST" && strings.HasPrefix(rest, "join/"):
		f.mu.Lock()
		g := f.codes[strings.TrimPrefix(rest, "join/")]
		if g == nil {
			f.mu.Unlock()
			reply(404, map[string]string{"error": "no such code"})
			return
		}
		g.tokens["n"] = "N" + g.tokens["s"][1:]
		g.rev++
		v := g.view()
		f.mu.Unlock()
		reply(200, map[string]any{"game": v, "seat": map[string]string{"side": "n", "token": g.tokens["n"]}})
	case r.Method == "GET" && strings.HasSuffix(rest, "/live"):
		f.live(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "games/"), "/live"))
	case r.Method == "GET" && strings.HasPrefix(rest, "games/"):
		f.mu.Lock()
		g := f.games[strings.TrimPrefix(rest, "games/")]
		var v map[string]any
		if g != nil {
			v = g.view()
		}
		f.mu.Unlock()
		if v == nil {
			reply(404, map[string]string{"error": "no such game"})
			return
		}
		reply(200, v)
	default:
		reply(404, map[string]string{"error": "no such endpoint"})
	}
}

// live serves a game's WebSocket.
func (f *fakeOnline) live(w http.ResponseWriter, r *http.Request, id string) {
	f.mu.Lock()
	g := f.games[id]
	f.mu.Unlock()
	if g == nil {
		http.Error(w, "no such game", 404)
		return
	}
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	fc := &fakeConn{c: c, deltas: r.URL.Query().Get("v") == "2", out: make(chan fakeOut, 256), done: make(chan struct{})}
	ctx := r.Context()
	go func() { // the connection's writer: its messages in order
		defer close(fc.done)
		for o := range fc.out {
			time.Sleep(time.Until(o.at))
			if c.Write(ctx, websocket.MessageText, o.data) != nil {
				c.CloseNow()
				for range fc.out {
				}
				return
			}
		}
	}()
	f.mu.Lock()
	g.conns[fc] = true
	f.sendLocked(fc, map[string]any{"type": "game", "game": g.view()}, 0)
	f.mu.Unlock()
	defer func() {
		f.mu.Lock()
		if g.conns[fc] {
			delete(g.conns, fc)
			close(fc.out)
		}
		f.mu.Unlock()
		<-fc.done
		c.CloseNow()
	}()
	for {
		var msg struct {
			Type, Token, Move string
			Ply               *int
		}
		if err := wsjson.Read(ctx, c, &msg); err != nil {
			return
		}
		f.mu.Lock()
		switch msg.Type {
		case "hello":
			side := ""
			for s, tok := range g.tokens {
				if tok == msg.Token {
					side = s
				}
			}
			if side == "" {
				f.hellos++
				f.errors++
				f.sendLocked(fc, map[string]any{"type": "error", "status": 401, "error": "unknown token", "ref": map[string]any{"type": "hello"}}, 0)
			}
			fc.side = side
		case "sync":
			f.stats["sync"]++
			f.sendLocked(fc, map[string]any{"type": "game", "game": g.view()}, 0)
		case "move":
			if !f.moveLocked(g, fc, msg.Move, msg.Ply) {
				f.mu.Unlock()
				return // the connection closes
			}
		}
		f.mu.Unlock()
	}
}

// sendLocked queues v for fc; f.mu is held.
func (f *fakeOnline) sendLocked(fc *fakeConn, v any, delay time.Duration) {
	data, _ := json.Marshal(v)
	select {
	case fc.out <- fakeOut{data, time.Now().Add(delay)}:
	default: // too slow a reader: dropped, as a broken connection would
	}
}

// moveLocked plays a move sent by fc and reports whether fc stays open.
func (f *fakeOnline) moveLocked(g *fakeOGame, fc *fakeConn, move string, ply *int) bool {
	toMove := "s"
	if len(g.moves)%2 == 1 {
		toMove = "n"
	}
	refuse := func(status int, msg string) {
		f.errors++
		f.sendLocked(fc, map[string]any{"type": "error", "status": status, "error": msg,
			"ref": map[string]any{"type": "move", "move": move, "ply": ply}}, 0)
	}
	switch {
	case fc.side == "":
		refuse(401, "no seat")
		return true
	case ply == nil || *ply != len(g.moves) || fc.side != toMove || len(g.moves) >= fakeLength:
		refuse(409, "stale or not your move")
		return true
	}
	n := f.moves + 1
	nth := func(k int) bool { return k > 0 && n%k == 0 }
	if nth(f.closeBefore) {
		f.stats["closeBefore"]++
		f.moves++ // counted, so that the resend goes through
		fc.c.CloseNow()
		return false
	}
	f.moves++
	if nth(f.forget) {
		f.stats["forget"]++
		v := g.view()
		v["moves"] = append(v["moves"].([]string), move)
		v["toMove"] = map[string]string{"s": "n", "n": "s"}[toMove]
		v["online"] = map[string]any{"rev": g.rev + 1}
		f.sendLocked(fc, map[string]any{"type": "game", "game": v, "event": "move"}, 0)
		return true
	}
	g.moves = append(g.moves, move)
	if nth(f.twice) {
		f.stats["twice"]++
		g.moves = append(g.moves, move)
	}
	g.rev++
	if nth(f.closeAfter) {
		f.stats["closeAfter"]++
		for c := range g.conns {
			c.c.CloseNow()
		}
		return false
	}
	v := g.view()
	msg := map[string]any{"type": "game", "game": v, "event": "move"}
	delta := msg
	if v["status"] == "playing" {
		// As the server tells a move that does not end the game, to a
		// client that speaks version 2.
		delta = map[string]any{"type": "move", "id": g.id, "rev": g.rev, "ply": len(g.moves), "move": move,
			"toMove": v["toMove"], "legalMoves": v["legalMoves"], "status": v["status"], "online": v["online"]}
	}
	for c := range g.conns {
		msg := msg
		if c.deltas {
			msg = delta
		}
		delay := time.Duration(0)
		if c.side != fc.side {
			if nth(f.dropOpponent) {
				f.stats["dropOpponent"]++
				continue
			}
			delay = f.delayOpponent
		}
		f.sendLocked(c, msg, delay)
		if nth(f.repeat) {
			f.stats["repeat"]++
			f.sendLocked(c, msg, delay)
		}
	}
	return true
}

// storedMoves counts the moves the fake holds.
func (f *fakeOnline) storedMoves() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, g := range f.games {
		n += len(g.moves)
	}
	return n
}

func runFake(t *testing.T, f *fakeOnline, cfg Config) *Report {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return runOnlineAt(t, ts.URL, cfg)
}

func runOnlineAt(t *testing.T, url string, cfg Config) *Report {
	t.Helper()
	cfg.BaseURL, cfg.Online = url, true
	if cfg.Seed == 0 {
		cfg.Seed = 3
	}
	rep, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", rep)
	return rep
}

// TestOnlineFake checks the bookkeeping of a clean run: every move sent
// is echoed and delivered, the latencies are those of the fake's delays,
// and the check finds every move.
func TestOnlineFake(t *testing.T) {
	f := newFakeOnline()
	f.delayOpponent = 20 * time.Millisecond
	ts := httptest.NewServer(f)
	defer ts.Close()
	before := runtime.NumGoroutine()
	rep := runOnlineAt(t, ts.URL, Config{Games: 6, Rate: 20, Duration: 2 * time.Second, Ramp: 300 * time.Millisecond, Check: true})
	if rep.Failed() || rep.ErrorCount() != 0 || rep.DisconnectCount() != 0 {
		t.Errorf("failed: errors %v %v, disconnects %v", rep.Errors, rep.FirstErrors, rep.FirstDisconnects)
	}
	if rep.Offered < 20 || rep.Acked != rep.Offered || rep.Delivered != rep.Offered || rep.Lost != 0 || rep.Duplicated != 0 {
		t.Errorf("moves: %d sent, %d echoed, %d delivered, %d lost, %d duplicated", rep.Offered, rep.Acked, rep.Delivered, rep.Lost, rep.Duplicated)
	}
	// 6 games at 20 moves a second: at most one move or setup a slot.
	if max := int64(6 * 21 * 2); rep.Offered+rep.CreatesSent > max {
		t.Errorf("%d moves and %d setups, more than %d slots", rep.Offered, rep.CreatesSent, max)
	}
	if rep.MoveLatency.N != int(rep.Delivered) || rep.EchoLatency.N != int(rep.Acked) {
		t.Errorf("%d and %d samples for %d delivered, %d echoed", rep.MoveLatency.N, rep.EchoLatency.N, rep.Delivered, rep.Acked)
	}
	if rep.MoveLatency.P50 < 20*time.Millisecond || rep.EchoLatency.P50 >= rep.MoveLatency.P50 {
		t.Errorf("latency to the opponent %v, echo %v: want the fake's 20 ms delay on the first only", rep.MoveLatency, rep.EchoLatency)
	}
	if rep.GamesFinished == 0 || rep.GamesCreated <= 6 || int(rep.GamesCreated) != len(rep.Games) {
		t.Errorf("%d games created, %d finished, %d logged", rep.GamesCreated, rep.GamesFinished, len(rep.Games))
	}
	if rep.Check == nil || rep.Check.Failed() || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check %+v", rep.Check)
	}
	if n := f.storedMoves(); int64(n) != rep.Acked {
		t.Errorf("the fake holds %d moves, %d echoed", n, rep.Acked)
	}
	if rep.Reconnects != 0 || rep.Resyncs != 0 || rep.Stale != 0 || rep.Late != 0 || f.errors != 0 {
		t.Errorf("reconnects %d, resyncs %d, stale %d, late %d, error messages %d", rep.Reconnects, rep.Resyncs, rep.Stale, rep.Late, f.errors)
	}
	for _, s := range []string{"move→opponent   p50", "lost            0, duplicated 0", "errors          none", "no acknowledged move lost"} {
		if !strings.Contains(rep.String(), s) {
			t.Errorf("no %q in the summary", s)
		}
	}
	// Every connection is closed and every goroutine gone.
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after the run, %d before\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestOnlineReconnect drops connections before and after moves are taken:
// the seats reconnect, resync, resend what the server does not have, and
// nothing is lost or played twice.
func TestOnlineReconnect(t *testing.T) {
	f := newFakeOnline()
	f.closeBefore, f.closeAfter = 7, 11
	rep := runFake(t, f, Config{Games: 4, Rate: 20, Duration: 2 * time.Second, Check: true, ExpectRestart: true})
	if f.stats["closeBefore"] == 0 || f.stats["closeAfter"] == 0 {
		t.Fatalf("the fake closed no connection: %v", f.stats)
	}
	if rep.Lost != 0 || rep.Duplicated != 0 || rep.ErrorCount() != 0 || rep.Failed() {
		t.Errorf("lost %d, duplicated %d, errors %v %v", rep.Lost, rep.Duplicated, rep.Errors, rep.FirstErrors)
	}
	// A connection dropped at the very end may not be opened again.
	if rep.Resent == 0 || rep.Resent > int64(f.stats["closeBefore"]) || rep.Reconnects < int64(f.stats["closeBefore"]) ||
		rep.Resyncs == 0 || rep.Resyncs > rep.Reconnects || rep.DeliveredOnResync == 0 || rep.DisconnectCount() == 0 {
		t.Errorf("resent %d, reconnects %d, resyncs %d, delivered on a resync %d, disconnects %v; the fake %v",
			rep.Resent, rep.Reconnects, rep.Resyncs, rep.DeliveredOnResync, rep.Disconnects, f.stats)
	}
	if rep.Check == nil || rep.Check.Failed() {
		t.Errorf("check %+v", rep.Check)
	}
	// Without a restart expected, the dropped connections fail the run.
	rep.ExpectRestart = false
	if !rep.Failed() {
		t.Error("disconnects without a restart expected: not failed")
	}
}

// TestOnlineLostAndDuplicated makes the fake forget moves, apply moves
// twice, drop and repeat messages.
func TestOnlineLostAndDuplicated(t *testing.T) {
	t.Run("forget", func(t *testing.T) {
		f := newFakeOnline()
		f.forget = 13
		rep := runFake(t, f, Config{Games: 4, Rate: 20, Duration: 2 * time.Second, Timeout: time.Second, Check: true})
		// A game whose move was forgotten stalls: its mover saw the move,
		// its opponent never does.
		if n := f.stats["forget"]; n == 0 || rep.Lost != int64(n) || rep.Check == nil || rep.Check.Lost != n {
			t.Errorf("%d forgotten, %d lost, check %+v", n, rep.Lost, rep.Check)
		}
		if !rep.Failed() || rep.Errors["lost"] == 0 || rep.Errors["not delivered"] == 0 || !strings.Contains(rep.String(), "LOST") {
			t.Errorf("failed %v, errors %v", rep.Failed(), rep.Errors)
		}
	})
	t.Run("twice", func(t *testing.T) {
		f := newFakeOnline()
		f.twice = 9
		rep := runFake(t, f, Config{Games: 4, Rate: 20, Duration: time.Second, Check: true})
		if n := f.stats["twice"]; n == 0 || rep.Duplicated != int64(n) || !rep.Failed() || !strings.Contains(rep.String(), "DUPLICATED") {
			t.Errorf("%d applied twice, %d duplicated, errors %v", n, rep.Duplicated, rep.FirstErrors)
		}
		// A move applied twice is told in a move message that does not
		// follow the game the clients have: they ask for the game again.
		if f.stats["sync"] == 0 || rep.Syncs == 0 {
			t.Errorf("%d games asked for again (%d answered)", rep.Syncs, f.stats["sync"])
		}
		if !strings.Contains(rep.FirstErrors["duplicated"], "applied twice") {
			t.Errorf("first duplicated: %q", rep.FirstErrors["duplicated"])
		}
		if rep.Lost != 0 || rep.Check == nil || rep.Check.Failed() {
			t.Errorf("lost %d, check %+v", rep.Lost, rep.Check)
		}
	})
	t.Run("repeat", func(t *testing.T) {
		f := newFakeOnline()
		f.repeat = 5
		rep := runFake(t, f, Config{Games: 4, Rate: 20, Duration: time.Second, Check: true})
		// A message repeated as the connection closes may not be read.
		if n := f.stats["repeat"]; n == 0 || rep.Stale == 0 || rep.Stale > int64(n) || rep.Failed() || rep.Duplicated != 0 {
			t.Errorf("%d repeated, %d stale, %d duplicated, errors %v", n, rep.Stale, rep.Duplicated, rep.Errors)
		}
	})
	t.Run("drop", func(t *testing.T) {
		f := newFakeOnline()
		f.dropOpponent = 10
		rep := runFake(t, f, Config{Games: 4, Rate: 20, Duration: 1500 * time.Millisecond, Timeout: 200 * time.Millisecond, Check: true})
		// The opponent of a dropped message waits for the other's move,
		// which waits for its: the watchdog resyncs it.
		// A message dropped at the very end is never made up for: lost.
		if n := f.stats["dropOpponent"]; n == 0 || rep.Errors["not delivered"] == 0 || rep.DeliveredOnResync == 0 || rep.Lost > int64(n)/2 || !rep.Failed() {
			t.Errorf("%d dropped: errors %v, %d delivered on a resync, %d lost", n, rep.Errors, rep.DeliveredOnResync, rep.Lost)
		}
		if rep.Check == nil || rep.Check.Failed() {
			t.Errorf("check %+v", rep.Check)
		}
	})
}

func TestOnlineBounds(t *testing.T) {
	ok := Config{BaseURL: "http://192.0.2.1:1", Games: 1, Duration: time.Second, Rate: 1, Online: true}
	for name, change := range map[string]func(*Config){
		"rate 0":        func(c *Config) { c.Rate = 0 },
		"too fast":      func(c *Config) { c.Rate = MaxOnlineRate + 1 },
		"negative ramp": func(c *Config) { c.Ramp = -time.Second },
		"ramp too long": func(c *Config) { c.Ramp = time.Second },
	} {
		c := ok
		change(&c)
		if _, err := Run(context.Background(), c); err == nil || strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v, want a bounds error", name, err)
		}
	}
	if _, err := Run(context.Background(), ok); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("online to another host: %v", err)
	}
}

// TestOnlineRealServer plays online games against the real server over a
// SQLite store: every move reaches both seats once, and is stored.
func TestOnlineRealServer(t *testing.T) {
	ts := newRealServer(t)
	rep := runOnlineAt(t, ts.URL, Config{Games: 20, Rate: 5, Duration: 2 * time.Second, Ramp: 200 * time.Millisecond, Check: true, Seed: 4})
	if rep.Failed() || rep.ErrorCount() != 0 || rep.DisconnectCount() != 0 {
		t.Errorf("failed: errors %v, disconnects %v", rep.FirstErrors, rep.FirstDisconnects)
	}
	if rep.Offered == 0 || rep.Acked != rep.Offered || rep.Delivered != rep.Offered || rep.Lost != 0 || rep.Duplicated != 0 {
		t.Errorf("moves: %d sent, %d echoed, %d delivered, %d lost, %d duplicated", rep.Offered, rep.Acked, rep.Delivered, rep.Lost, rep.Duplicated)
	}
	if rep.GamesCreated < 20 || rep.Reconnects != 0 || rep.Resyncs != 0 || rep.Late != 0 {
		t.Errorf("%d games, %d reconnects, %d resyncs, %d late", rep.GamesCreated, rep.Reconnects, rep.Resyncs, rep.Late)
	}
	if rep.Check == nil || rep.Check.Failed() || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check %+v", rep.Check)
	}
}
