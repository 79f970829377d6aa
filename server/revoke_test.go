package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/store"
)

// watchedSocket is a live connection (a game's or the lobby's) whose
// messages and close status a test watches.
type watchedSocket struct {
	t      testing.TB
	ws     *websocket.Conn
	msgs   chan map[string]any
	closed chan struct{}
	status websocket.StatusCode // once closed: the server's close status, -1 for none
	reason string
}

// dialWatched opens the live connection path of site as p (nil: nobody).
func dialWatched(t testing.TB, site *lobbySite, path string, p *lobbyPlayer) *watchedSocket {
	t.Helper()
	h := http.Header{}
	if p != nil {
		p.header(h)
	}
	c, err := dialSocket(t, site.web.URL, path, h)
	if err != nil {
		t.Fatalf("dialling %s: %v", path, err)
	}
	return c
}

// dialSocket opens the live connection path of the server at base, with
// the request's header h.
func dialSocket(t testing.TB, base, path string, h http.Header) (*watchedSocket, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(base, "http")+path, &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		return nil, err
	}
	c := &watchedSocket{t: t, ws: ws, msgs: make(chan map[string]any, 256), closed: make(chan struct{})}
	go func() {
		defer close(c.closed)
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				c.status = websocket.CloseStatus(err)
				var ce websocket.CloseError
				if errors.As(err, &ce) {
					c.reason = ce.Reason
				}
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				select {
				case c.msgs <- m:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() { ws.CloseNow() })
	return c, nil
}

func (c *watchedSocket) send(v any) {
	c.t.Helper()
	data, _ := json.Marshal(v)
	// A connection the server closes meanwhile refuses it: what the test
	// checks is what the server did.
	c.ws.Write(context.Background(), websocket.MessageText, data)
}

// waitMsg returns the next message that ok accepts, failing after
// liveWait or if the connection closes first.
func (c *watchedSocket) waitMsg(what string, ok func(map[string]any) bool) map[string]any {
	c.t.Helper()
	timeout := time.After(liveWait)
	for {
		select {
		case m := <-c.msgs:
			if ok(m) {
				return m
			}
		case <-c.closed:
			c.t.Fatalf("the connection closed (%d %q) waiting for %s", c.status, c.reason, what)
		case <-timeout:
			c.t.Fatalf("no %s within %v", what, liveWait)
		}
	}
}

// waitSignedOut fails unless the server closes the connection, saying the
// sign-in ended, within liveWait.
func (c *watchedSocket) waitSignedOut(what string) {
	c.t.Helper()
	select {
	case <-c.closed:
		if c.status != StatusSignedOut || !strings.Contains(c.reason, "signed out") {
			c.t.Errorf("%s closed with %d %q, want %d and a reason", what, c.status, c.reason, StatusSignedOut)
		}
	case <-time.After(liveWait):
		c.t.Errorf("%s still open %v after its sign-in ended", what, liveWait)
	}
}

// open reports whether the connection is still open.
func (c *watchedSocket) open() bool {
	select {
	case <-c.closed:
		return false
	default:
		return true
	}
}

// seated opens, on site, p's connection to game id, which takes p's seat,
// and p's lobby connection.
func seated(t *testing.T, site *lobbySite, id string, p *lobbyPlayer) (game, lobby *watchedSocket) {
	t.Helper()
	game = dialWatched(t, site, "/api/games/"+id+"/live", p)
	lobby = dialWatched(t, site, "/api/lobby/live", p)
	lobby.waitMsg("the lobby", func(m map[string]any) bool { return m["type"] == "lobby" })
	game.send(map[string]any{"type": "hello"})
	game.waitMsg("the seat", func(m map[string]any) bool { return m["event"] == "presence" })
	return game, lobby
}

// stoppedActing checks that an account whose every session has ended has
// stopped acting: whose's game and lobby connections are closed, the game
// g, as its opponent reads it, has no move more, and the account's seeks
// and pool places are gone.
func stoppedActing(t *testing.T, whose string, game, lobby *watchedSocket, opponent *lobbyPlayer, g gameView, id string) {
	t.Helper()
	game.waitSignedOut(whose + " game connection")
	lobby.waitSignedOut(whose + " lobby connection")
	if got := opponent.get(g.ID); len(got.Moves) != len(g.Moves) {
		t.Errorf("a move was played after the sign-in ended: %d moves, want %d", len(got.Moves), len(g.Moves))
	}
	if n := seeksOf(t, opponent.site.st, id); n != 0 {
		t.Errorf("%d seeks and places left after the sign-in ended", n)
	}
}

// pairedGame makes a game whose seats the accounts of a and b own (b
// accepts a's seek), and returns it with b's side.
func pairedGame(t *testing.T, a, b *lobbyPlayer) (id, side string) {
	t.Helper()
	var sk seekAnswer
	if code, raw := a.call("POST", "/api/lobby/seeks", `{"minutes": 5}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	var p pairedAnswer
	if code, raw := b.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", &p); code != http.StatusCreated {
		t.Fatalf("accept: %d %s", code, raw)
	}
	return p.Game, p.Side
}

// toMove makes the game id wait for p's move (p on side): the other side,
// other, plays first if it is its move. It returns the game.
func toMove(t *testing.T, id, side string, other *lobbyPlayer) gameView {
	t.Helper()
	var g gameView
	if code, raw := other.call("GET", "/api/games/"+id, "", &g); code != 200 {
		t.Fatalf("game: %d %s", code, raw)
	}
	if g.ToMove != side {
		var mv moveView
		if code, raw := other.call("POST", "/api/games/"+id+"/moves", fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0]), &mv); code != 200 {
			t.Fatalf("the opponent's move: %d %s", code, raw)
		}
		g = mv.Game
	}
	return g
}

// openPresence posts a real-time seek and a correspondence seek of p and
// puts p in a real-time pool and the correspondence pool; it returns the
// seeks' IDs.
func openPresence(t *testing.T, p *lobbyPlayer) (seeks []string) {
	t.Helper()
	for _, c := range []struct{ path, body string }{
		{"/api/lobby/seeks", `{"minutes": 3, "increment": 2}`},
		{"/api/lobby/seeks", `{"days": 3}`},
		{"/api/lobby/pools/8-3+2/join", ``},
		{"/api/lobby/pools/8-3d/join", ``},
	} {
		var sk seekAnswer
		if code, raw := p.call("POST", c.path, c.body, &sk); code >= 300 {
			t.Fatalf("%s: %d %s", c.path, code, raw)
		}
		if sk.Seek.ID != "" {
			seeks = append(seeks, sk.Seek.ID)
		}
	}
	return seeks
}

// seeksOf counts the seeks and pool places of account id in st.
func seeksOf(t *testing.T, st store.Store, id string) int {
	t.Helper()
	all, err := st.Seeks(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, sk := range all {
		if sk.Owner.ID == id {
			n++
		}
	}
	return n
}

// session gives p a second session of its account, as another browser.
func session(t *testing.T, p *lobbyPlayer) *lobbyPlayer {
	t.Helper()
	id, hash := account.NewSessionID()
	at := time.Now().UTC()
	if err := p.site.st.CreateSession(context.Background(), &store.Session{Hash: hash, AccountID: p.id, Created: at, Expires: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	q := *p
	q.session = id
	return &q
}

// Signing out closes that browser's live connections, and no other
// session's; signing out everywhere closes every one of the account's,
// at once: a move sent on a game's connection still open is not played,
// and the account's seeks and pool places are withdrawn (a real-time
// seek would otherwise outlive its socket by the grace, a correspondence
// seek for ever). Deleting an account does the same.
func TestSignOutClosesLiveConnections(t *testing.T) {
	site := newLobbySite(t, time.Hour)
	amina, baraka := site.player("Amina"), site.player("Baraka")
	phone := session(t, amina)
	watcher := site.dial(nil)
	id, side := pairedGame(t, baraka, amina)
	g := toMove(t, id, side, baraka)

	game := dialWatched(t, site, "/api/games/"+id+"/live", amina)
	lobby := dialWatched(t, site, "/api/lobby/live", amina)
	phoneGame := dialWatched(t, site, "/api/games/"+id+"/live", phone)
	phoneLobby := dialWatched(t, site, "/api/lobby/live", phone)
	for _, c := range []*watchedSocket{game, phoneGame} {
		c.waitMsg("the game", func(m map[string]any) bool { return m["type"] == "game" })
	}
	for _, c := range []*watchedSocket{lobby, phoneLobby} {
		c.waitMsg("the lobby", func(m map[string]any) bool { return m["type"] == "lobby" })
	}
	seeks := openPresence(t, amina)
	if n := seeksOf(t, site.st, amina.id); n != 4 || len(seeks) != 2 {
		t.Fatalf("%d seeks and places, want 4", n)
	}

	// One browser signs out: its connections close, the phone's stay.
	if code, raw := amina.call("POST", "/api/account/signout", "", nil); code != 200 {
		t.Fatalf("sign out: %d %s", code, raw)
	}
	game.waitSignedOut("the game's connection of the browser signed out")
	lobby.waitSignedOut("the lobby's connection of the browser signed out")
	if code, raw := baraka.call("POST", "/api/challenges", `{"to": "Amina", "minutes": 5}`, nil); code != http.StatusCreated {
		t.Fatalf("challenge: %d %s", code, raw)
	}
	phoneLobby.waitMsg("the challenge on the phone", func(m map[string]any) bool { return m["type"] == "challenge" })
	if !phoneGame.open() {
		t.Errorf("the phone's game connection closed when another browser signed out: %d %q", phoneGame.status, phoneGame.reason)
	}
	if n := seeksOf(t, site.st, amina.id); n != 4 {
		t.Errorf("%d seeks and places after signing out one browser, want 4", n)
	}

	// The phone signs out everywhere: a move sent right after, on its
	// game's connection, is not played.
	phoneGame.send(map[string]any{"type": "hello"})
	phoneGame.waitMsg("the phone's seat", func(m map[string]any) bool {
		g, _ := m["game"].(map[string]any)
		on, _ := g["online"].(map[string]any)
		conn, _ := on["connected"].(map[string]any)
		return m["event"] == "presence" && conn[side] == true
	})
	if code, raw := phone.call("POST", "/api/account/signout-everywhere", "", nil); code != 200 {
		t.Fatalf("sign out everywhere: %d %s", code, raw)
	}
	phoneGame.send(map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": len(g.Moves)})
	stoppedActing(t, "the phone's", phoneGame, phoneLobby, baraka, g, amina.id)
	for _, id := range seeks {
		watcher.wait("unseek", func(m map[string]any) bool { return m["id"] == id })
	}

	// A deleted account's connections close too, and its presence goes.
	cheku := site.player("Cheku")
	chekuLobby := dialWatched(t, site, "/api/lobby/live", cheku)
	chekuLobby.waitMsg("the lobby", func(m map[string]any) bool { return m["type"] == "lobby" })
	openPresence(t, cheku)
	if code, raw := cheku.call("POST", "/api/me/delete", `{"confirm": "Cheku"}`, nil); code != 200 {
		t.Fatalf("delete: %d %s", code, raw)
	}
	chekuLobby.waitSignedOut("the lobby connection of a deleted account")
	if n := seeksOf(t, site.st, cheku.id); n != 0 {
		t.Errorf("%d seeks and places left of a deleted account", n)
	}
}

// get reads game id as p.
func (p *lobbyPlayer) get(id string) gameView {
	p.site.t.Helper()
	var g gameView
	if code, raw := p.call("GET", "/api/games/"+id, "", &g); code != 200 {
		p.site.t.Fatalf("game %s: %d %s", id, code, raw)
	}
	return g
}

// An account the operator disables, with the command, outside the server
// (on SQLite, nothing tells the server): at once it moves on none of its
// seats, even on a connection still open; at the server's next check of
// its connections' sign-ins (every signInCheck, run here at once), they
// close and its seeks and pool places go.
func TestDisabledAccountStopsActing(t *testing.T) {
	dir := t.TempDir()
	st, err := store.Open(context.Background(), filepath.Join(dir, "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	site := startLobbySite(t, st, time.Hour)
	amina, baraka := site.player("Amina"), site.player("Baraka")
	id, side := pairedGame(t, baraka, amina)
	g := toMove(t, id, side, baraka)
	game, lobby := seated(t, site, id, amina)
	openPresence(t, amina)

	operatorDisables(t, "", dir, "Amina")
	game.send(map[string]any{"type": "move", "move": g.LegalMoves[0], "ply": len(g.Moves)})
	if m := game.waitMsg("the move's answer", func(m map[string]any) bool { return m["type"] == "error" }); m["status"] != float64(http.StatusUnauthorized) {
		t.Errorf("a disabled account's move: %v, want 401", m)
	}
	if got := baraka.get(id); len(got.Moves) != len(g.Moves) {
		t.Errorf("a disabled account moved: %d moves, want %d", len(got.Moves), len(g.Moves))
	}
	if code, raw := amina.call("POST", "/api/games/"+id+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), nil); code != http.StatusUnauthorized {
		t.Errorf("a disabled account's move over HTTP: %d %s, want 401", code, raw)
	}
	site.srv.recheckAll(context.Background())
	game.waitSignedOut("the game's connection of a disabled account")
	lobby.waitSignedOut("the lobby's connection of a disabled account")
	if n := seeksOf(t, site.st, amina.id); n != 0 {
		t.Errorf("%d seeks and places left of a disabled account", n)
	}
}

// Two instances on one PostgreSQL database: signing out everywhere
// through one closes the account's connections on the other at once, and
// so does disabling the account with the operator's command, which no
// server runs (with a message bus, which the command does not use, within
// the instances' check of their sign-ins, every signInCheck).
func TestInstancesRevokeSignIns(t *testing.T) { forEachBus(t, testInstancesRevokeSignIns) }

func testInstancesRevokeSignIns(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	open := func() *lobbySite {
		bs := openTestBus(t, busURL)
		st, err := store.OpenPostgres(context.Background(), url)
		if err != nil {
			t.Fatal(err)
		}
		site := startLobbySiteOn(t, st, time.Hour, bs)
		waitHearing(t, site.srv)
		return site
	}
	a, b := open(), open()
	amina, baraka := a.player("Amina"), a.player("Baraka")
	id, side := pairedGame(t, baraka, amina)
	g := toMove(t, id, side, baraka)
	onB := amina.on(b)
	game, lobby := seated(t, b, id, onB)
	openPresence(t, onB)
	if code, raw := amina.call("POST", "/api/account/signout-everywhere", "", nil); code != 200 {
		t.Fatalf("sign out everywhere on A: %d %s", code, raw)
	}
	stoppedActing(t, "B's", game, lobby, baraka, g, amina.id)

	cheku := a.player("Cheku")
	watcher := a.dial(nil)
	var sockets []*watchedSocket
	for _, site := range []*lobbySite{a, b} {
		c := dialWatched(t, site, "/api/lobby/live", cheku.on(site))
		c.waitMsg("the lobby", func(m map[string]any) bool { return m["type"] == "lobby" })
		sockets = append(sockets, c)
	}
	openPresence(t, cheku)
	operatorDisables(t, url, "", "Cheku")
	for i, c := range sockets {
		c.waitSignedOut(fmt.Sprintf("the disabled account's lobby connection on %c", 'A'+i))
	}
	// The instances withdraw the seeks and places as they hear of it,
	// and tell the lobby.
	watcher.wait("pools", func(m map[string]any) bool {
		pools, _ := m["pools"].([]any)
		for _, p := range pools {
			if p, _ := p.(map[string]any); p["waiting"] != float64(0) {
				return false
			}
		}
		return len(pools) > 0
	})
	if n := seeksOf(t, a.st, cheku.id); n != 0 {
		t.Errorf("%d seeks and places left of the disabled account", n)
	}
}

// operatorDisables disables account name as the operator's command does
// (endodoi admin disable, in internal/cli): on the database at dbURL, or
// the SQLite one in dataDir, from outside any server, telling the servers
// sharing a PostgreSQL database.
func operatorDisables(t *testing.T, dbURL, dataDir, name string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.OpenURL(ctx, dbURL, dataDir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ended, err := account.New(st, nil).Admin(ctx, "disable", name)
	if err != nil {
		t.Fatal(err)
	}
	if n, ok := st.(store.Notifier); ok {
		if err := n.Notify(ctx, account.Revocation{Account: ended.Account}.Notice()); err != nil {
			t.Fatal(err)
		}
	}
}
