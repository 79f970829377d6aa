package server

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/store"
)

// lobbySite is a running server for the lobby's tests: its work started
// (the lobby's sweeps and pairing), reachable over HTTP for sockets.
type lobbySite struct {
	t   testing.TB
	srv *Server
	st  store.Store
	web *httptest.Server
}

// newLobbySite starts a server on a new SQLite database, whose lobby
// forgets the seeks of players gone after grace.
func newLobbySite(t testing.TB, grace time.Duration) *lobbySite {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	return startLobbySite(t, st, grace)
}

func startLobbySite(t testing.TB, st store.Store, grace time.Duration) *lobbySite {
	t.Helper()
	return startLobbySiteOn(t, st, grace, nil)
}

// startLobbySiteOn is startLobbySite with the instances' notices on b
// (nil for the database's NOTIFY).
func startLobbySiteOn(t testing.TB, st store.Store, grace time.Duration, b bus.Bus) *lobbySite {
	t.Helper()
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Bus: b})
	srv.lobby.SetGrace(grace)
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	ls := &lobbySite{t: t, srv: srv, st: st, web: httptest.NewServer(srv)}
	t.Cleanup(func() {
		ls.web.Close()
		cancel()
		srv.Close()
		st.Close()
	})
	return ls
}

// lobbyPlayer is an account signed in on a site; a bot holds a token
// instead of a session.
type lobbyPlayer struct {
	site    *lobbySite
	name    string
	id      string
	session string
	bot     string // the bot's token
}

// player makes an account named name with a session, in the store.
func (ls *lobbySite) player(name string) *lobbyPlayer {
	ls.t.Helper()
	id, hash := account.NewSessionID()
	a := &store.Account{Name: name, Key: strings.ToLower(name)}
	at := time.Now().UTC()
	if err := ls.st.CreateAccount(context.Background(), a, nil, &store.Session{Hash: hash, Created: at, Expires: at.Add(time.Hour)}); err != nil {
		ls.t.Fatal(err)
	}
	return &lobbyPlayer{site: ls, name: name, id: a.ID, session: id}
}

// botPlayer makes a bot's account named name.
func (ls *lobbySite) botPlayer(name string) *lobbyPlayer {
	ls.t.Helper()
	token, hash := account.NewBotToken()
	a := &store.Account{Name: name, Key: strings.ToLower(name)}
	if err := ls.st.CreateBot(context.Background(), a, hash); err != nil {
		ls.t.Fatal(err)
	}
	return &lobbyPlayer{site: ls, name: name, id: a.ID, bot: token}
}

// on is p on another site sharing the database.
func (p *lobbyPlayer) on(ls *lobbySite) *lobbyPlayer {
	q := *p
	q.site = ls
	return &q
}

func (p *lobbyPlayer) header(h http.Header) {
	if p.session != "" {
		h.Set("Cookie", (&http.Cookie{Name: SessionCookie, Value: p.session}).String())
	}
	if p.bot != "" {
		h.Set("Authorization", "Bearer "+p.bot)
	}
}

// call sends a request as p from a client of the public network (held to
// the client limits), and decodes a JSON answer under 300 into out.
func (p *lobbyPlayer) call(method, path, body string, out any) (int, string) {
	return p.callFrom("192.0.2.1", method, path, body, out)
}

func (p *lobbyPlayer) callFrom(client, method, path, body string, out any) (int, string) {
	t := p.site.t
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.RemoteAddr = client + ":1234"
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	if p != nil {
		p.header(req.Header)
	}
	rec := httptest.NewRecorder()
	p.site.srv.ServeHTTP(rec, req)
	if out != nil && rec.Code < 300 {
		if err := json.Unmarshal(rec.Body.Bytes(), out); err != nil {
			t.Fatalf("%s %s: %v: %s", method, path, err, rec.Body)
		}
	}
	if rec.Code >= 400 && !isJSONError(rec) {
		t.Errorf("%s %s: %d is not a JSON error: %s", method, path, rec.Code, rec.Body)
	}
	return rec.Code, rec.Body.String()
}

// lobbySocket is a connection to the lobby's live route.
type lobbySocket struct {
	t    testing.TB
	ws   *websocket.Conn
	msgs chan map[string]any
}

// dial opens the lobby's live connection as p (nil: nobody signed in).
func (ls *lobbySite) dial(p *lobbyPlayer) *lobbySocket {
	ls.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	h := http.Header{}
	if p != nil {
		p.header(h)
	}
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(ls.web.URL, "http")+"/api/lobby/live", &websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		ls.t.Fatal(err)
	}
	c := &lobbySocket{t: ls.t, ws: ws, msgs: make(chan map[string]any, 256)}
	go func() {
		defer close(c.msgs)
		for {
			_, data, err := ws.Read(context.Background())
			if err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(data, &m) == nil {
				c.msgs <- m
			}
		}
	}()
	ls.t.Cleanup(func() { ws.CloseNow() })
	if first := c.wait("lobby", nil); first["seeks"] == nil || first["pools"] == nil {
		ls.t.Fatalf("first lobby message %v", first)
	}
	return c
}

// wait returns the next message of type typ that ok accepts (nil: any),
// failing the test after liveWait.
func (c *lobbySocket) wait(typ string, ok func(map[string]any) bool) map[string]any {
	c.t.Helper()
	timeout := time.After(liveWait)
	for {
		select {
		case m, open := <-c.msgs:
			if !open {
				c.t.Fatalf("the lobby connection closed while waiting for %q", typ)
			}
			if m["type"] == typ && (ok == nil || ok(m)) {
				return m
			}
		case <-timeout:
			c.t.Fatalf("no %q message within %v", typ, liveWait)
		}
	}
}

func (c *lobbySocket) close() { c.ws.Close(websocket.StatusNormalClosure, "") }

type seekAnswer struct{ Seek lobby.SeekView }

type pairedAnswer struct {
	Game string
	Side string
}

// A seek is posted, shown, refused when bad or over the limits, taken by
// one player; the game's seats are the accounts', which play it without
// seat tokens, and the game says which seat is the asker's.
func TestLobbySeeks(t *testing.T) {
	ls := newLobbySite(t, lobby.Grace)
	amina, baraka, cheku := ls.player("Amina"), ls.player("Baraka"), ls.player("Cheku")
	var nobody *lobbyPlayer = &lobbyPlayer{site: ls}
	if code, _ := nobody.call("POST", "/api/lobby/seeks", `{"minutes": 3, "increment": 2}`, nil); code != http.StatusUnauthorized {
		t.Errorf("a seek of nobody: %d, want 401", code)
	}
	for _, c := range []struct {
		body string
		want string
	}{
		{`{"minutes": 3, "colour": "s"}`, "unknown field"},
		{`{"minutes": 3, "holes": 1}`, "holes"},
		{`{"minutes": 3, "seeds": 9999}`, "seeds"},
		{`{}`, "clock"},
		{`{"minutes": 3, "days": 3}`, "not both"},
		{`{"minutes": 500}`, "minutes"},
		{`{"minutes": 3, "variant": "nonsense"}`, "variant"},
		{`{"minutes": 3, "min_rating": -1}`, "min_rating"},
		{`{"minutes": 3, "min_rating": 9000}`, "min_rating"},
		{`{"minutes": 3, "min_rating": 1800, "max_rating": 1200}`, "above"},
		{`{"minutes": 3, "rated": "yes"}`, "rated"},
		{`[1]`, "object"},
	} {
		if code, raw := amina.call("POST", "/api/lobby/seeks", c.body, nil); code != http.StatusBadRequest || !strings.Contains(raw, c.want) {
			t.Errorf("seek %s: %d %s, want 400 with %q", c.body, code, raw, c.want)
		}
	}
	var s1 seekAnswer
	if code, raw := amina.call("POST", "/api/lobby/seeks", `{"holes": 6, "minutes": 3, "increment": 2, "rated": true, "min_rating": 1000}`, &s1); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	sk := s1.Seek
	// A new player shows a new player's rating, provisional.
	if !store.ValidID(sk.ID) || sk.By.Name != "Amina" || sk.By.Bot || sk.By.Rating == nil || *sk.By.Rating != 1500 ||
		!sk.By.Provisional || sk.Holes != 6 || sk.Seeds != 4 ||
		sk.Clock != (lobby.Clock{Minutes: 3, Increment: 2}) || !sk.Rated || sk.Range == nil || *sk.Range != [2]int{1000, 0} ||
		sk.Category != "6-blitz" || !sk.Mine {
		t.Errorf("seek %+v", sk)
	}
	for range 2 {
		if code, raw := amina.call("POST", "/api/lobby/seeks", `{"days": 3}`, nil); code != http.StatusCreated {
			t.Fatalf("seek: %d %s", code, raw)
		}
	}
	if code, raw := amina.call("POST", "/api/lobby/seeks", `{"minutes": 1}`, nil); code != http.StatusTooManyRequests || !strings.Contains(raw, "open seeks") {
		t.Errorf("a fourth seek: %d %s, want 429", code, raw)
	}
	var lobbyView struct {
		Seeks      []lobby.SeekView
		Pools      []lobby.PoolView
		Challenges *struct{ Incoming, Outgoing []lobby.ChallengeView }
	}
	if code, raw := baraka.call("GET", "/api/lobby", "", &lobbyView); code != 200 || len(lobbyView.Seeks) != 3 || lobbyView.Seeks[0].Mine ||
		len(lobbyView.Pools) != 5 || lobbyView.Challenges == nil {
		t.Fatalf("the lobby as Baraka sees it: %d %s", code, raw)
	}
	lobbyView.Challenges = nil
	if code, raw := nobody.call("GET", "/api/lobby", "", &lobbyView); code != 200 || lobbyView.Challenges != nil || len(lobbyView.Seeks) != 3 {
		t.Errorf("the lobby as nobody sees it: %d %s", code, raw)
	}
	accept := "/api/lobby/seeks/" + sk.ID + "/accept"
	if code, _ := amina.call("POST", accept, "", nil); code != http.StatusConflict {
		t.Errorf("accepting one's own seek: %d", code)
	}
	if code, _ := baraka.call("POST", "/api/lobby/seeks/"+sk.ID+"/cancel", "", nil); code != http.StatusNotFound {
		t.Errorf("cancelling another's seek: %d", code)
	}
	if code, _ := baraka.call("POST", "/api/lobby/seeks/zzz/accept", "", nil); code != http.StatusNotFound {
		t.Errorf("accepting no seek: %d", code)
	}
	var p pairedAnswer
	if code, raw := baraka.call("POST", accept, "", &p); code != http.StatusCreated || !store.ValidID(p.Game) || (p.Side != "s" && p.Side != "n") {
		t.Fatalf("accept: %d %s", code, raw)
	}
	if code, _ := cheku.call("POST", accept, "", nil); code != http.StatusNotFound {
		t.Errorf("accepting a seek taken: %d, want 404", code)
	}
	// The game: both seats owned, names the accounts', rated; each asker
	// told their seat, a spectator none.
	var g askerView
	if code, raw := baraka.call("GET", "/api/games/"+p.Game, "", &g); code != 200 || g.You != p.Side || g.Holes != 6 ||
		g.Online == nil || !g.Online.Seats.South || !g.Online.Seats.North || *g.Online.Clock != (api.Clock{Minutes: 3, Increment: 2}) {
		t.Fatalf("the game as Baraka sees it: %d %s", code, raw)
	}
	other := map[string]string{"s": "n", "n": "s"}[p.Side]
	var ga askerView
	if amina.call("GET", "/api/games/"+p.Game, "", &ga); ga.You != other {
		t.Errorf("Amina's seat %q, want %q", ga.You, other)
	}
	if g.South+g.North != map[string]string{"s": "BarakaAmina", "n": "AminaBaraka"}[p.Side] {
		t.Errorf("players %q and %q", g.South, g.North)
	}
	var gc askerView
	if cheku.call("GET", "/api/games/"+p.Game, "", &gc); gc.You != "" {
		t.Errorf("a spectator's seat %q", gc.You)
	}
	if sg, err := ls.st.Game(context.Background(), p.Game); err != nil || !sg.Rated {
		t.Errorf("the stored game %+v, %v: want rated", sg, err)
	}
	// The accounts play it with no seat token; another account may not.
	mover, waiter := baraka, amina
	if g.ToMove != p.Side {
		mover, waiter = amina, baraka
	}
	move := fmt.Sprintf(`{"move": %q, "ply": 0}`, g.LegalMoves[0])
	if code, _ := cheku.call("POST", "/api/games/"+p.Game+"/moves", move, nil); code != http.StatusUnauthorized {
		t.Errorf("a move by a spectator's account: %d, want 401", code)
	}
	if code, _ := waiter.call("POST", "/api/games/"+p.Game+"/moves", move, nil); code != http.StatusConflict && code != http.StatusForbidden {
		t.Errorf("a move out of turn: %d", code)
	}
	if code, raw := mover.call("POST", "/api/games/"+p.Game+"/moves", move, nil); code != http.StatusOK {
		t.Fatalf("a move by the account to move: %d %s", code, raw)
	}
	if code, raw := waiter.call("POST", "/api/games/"+p.Game+"/actions", `{"action": "resign", "ply": 1}`, nil); code != http.StatusOK {
		t.Fatalf("a resignation by account: %d %s", code, raw)
	}
	// A seat token still wins over the account: a wrong one is refused.
	req := httptest.NewRequest("POST", "/api/games/"+p.Game+"/actions", strings.NewReader(`{"action": "rematch", "ply": 1}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer AAAAAAAAAAAAAAAAAAAAAA")
	mover.header(req.Header)
	req.Header.Set("Authorization", "Bearer AAAAAAAAAAAAAAAAAAAAAA")
	rec := httptest.NewRecorder()
	ls.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusUnauthorized {
		t.Errorf("an unknown seat token with a session: %d %s, want 401", rec.Code, rec.Body)
	}
	if list, _ := ls.st.Seeks(context.Background()); len(list) != 2 {
		t.Errorf("%d seeks left, want Amina's two others", len(list))
	}
}

// Many players accept one seek at the same moment: one game is made.
func TestLobbySeekAcceptedOnce(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	testAcceptedOnce(t, []*lobbySite{ls})
}

func testAcceptedOnce(t *testing.T, sites []*lobbySite) {
	before, err := sites[0].st.GameIDs(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seeker := sites[0].player("Seeker")
	sites[0].dial(seeker) // a real-time seek lives while its owner is in the lobby
	var sk seekAnswer
	if code, raw := seeker.call("POST", "/api/lobby/seeks", `{"minutes": 10, "increment": 5}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	const n = 12
	takers := make([]*lobbyPlayer, n)
	for i := range n {
		takers[i] = sites[0].player(fmt.Sprintf("Taker%d", i)).on(sites[i%len(sites)])
	}
	codes := make([]int, n)
	games := make([]string, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			var p pairedAnswer
			// Each from an address of its own: the client limits are not
			// what this tests.
			codes[i], _ = takers[i].callFrom(fmt.Sprintf("192.0.2.%d", i+10), "POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", &p)
			games[i] = p.Game
		})
	}
	close(start)
	wg.Wait()
	won := 0
	for i, code := range codes {
		switch code {
		case http.StatusCreated:
			won++
		case http.StatusConflict, http.StatusNotFound:
		default:
			t.Errorf("accept %d: %d", i, code)
		}
	}
	if won != 1 {
		t.Fatalf("%d accepts made a game (%v), want 1", won, codes)
	}
	ids, err := sites[0].st.GameIDs(context.Background())
	if err != nil || len(ids) != len(before)+1 {
		t.Errorf("games %v, %v: want one more than %v", ids, err, before)
	}
}

// Challenges: sent to a named player, seen on both sides and on the
// sockets, declined, cancelled, accepted into a game with the side asked
// for, expired; refused between players who block each other, and over
// the limits. Blocks listed, removed; reports of games.
func TestLobbyChallengesBlocksReports(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka, cheku := ls.player("Amina"), ls.player("Baraka"), ls.player("Cheku")
	bs := ls.dial(baraka)
	type chAnswer struct{ Challenge lobby.ChallengeView }
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`{"to": "nobody", "minutes": 5}`, 404, "no player"},
		{`{"to": "x", "minutes": 5}`, 404, "no player"},
		{`{"to": "amina", "minutes": 5}`, 400, "yourself"},
		{`{"to": "Baraka", "minutes": 5, "side": "up"}`, 400, "side"},
		{`{"to": "Baraka"}`, 400, "clock"},
		{`{"to": "Baraka", "minutes": 5, "extra": 1}`, 400, "unknown field"},
	} {
		if code, raw := amina.call("POST", "/api/challenges", c.body, nil); code != c.code || !strings.Contains(raw, c.want) {
			t.Errorf("challenge %s: %d %s, want %d with %q", c.body, code, raw, c.code, c.want)
		}
	}
	var c1 chAnswer
	if code, raw := amina.call("POST", "/api/challenges", `{"to": "BARAKA", "holes": 6, "minutes": 5, "side": "n", "rated": true}`, &c1); code != http.StatusCreated {
		t.Fatalf("challenge: %d %s", code, raw)
	}
	ch := c1.Challenge
	if ch.From.Name != "Amina" || ch.To.Name != "Baraka" || ch.Side != "n" || !ch.Rated || ch.Category != "6-blitz" || !ch.Expires.After(ch.Created) {
		t.Errorf("challenge %+v", ch)
	}
	if m := bs.wait("challenge", nil); m["challenge"].(map[string]any)["id"] != ch.ID {
		t.Errorf("Baraka's socket: %v", m)
	}
	var lv struct {
		Challenges struct{ Incoming, Outgoing []lobby.ChallengeView }
	}
	if baraka.call("GET", "/api/lobby", "", &lv); len(lv.Challenges.Incoming) != 1 || lv.Challenges.Incoming[0].ID != ch.ID || len(lv.Challenges.Outgoing) != 0 {
		t.Errorf("Baraka's challenges %+v", lv.Challenges)
	}
	if code, _ := amina.call("POST", "/api/challenges", `{"to": "Cheku", "minutes": 5}`, nil); code != http.StatusCreated {
		t.Fatalf("a second challenge: %d", code)
	}
	path := "/api/challenges/" + ch.ID
	if code, _ := amina.call("POST", path+"/accept", "", nil); code != http.StatusForbidden {
		t.Errorf("the challenger accepting: %d", code)
	}
	if code, _ := baraka.call("POST", path+"/cancel", "", nil); code != http.StatusForbidden {
		t.Errorf("the target cancelling: %d", code)
	}
	if code, _ := cheku.call("POST", path+"/decline", "", nil); code != http.StatusForbidden {
		t.Errorf("another declining: %d", code)
	}
	var p pairedAnswer
	if code, raw := baraka.call("POST", path+"/accept", "", &p); code != http.StatusCreated || p.Side != "s" {
		t.Fatalf("accept: %d %s, want South (Amina asked for North)", code, raw)
	}
	if m := bs.wait("challenge-gone", nil); m["id"] != ch.ID || m["why"] != "accepted" {
		t.Errorf("gone: %v", m)
	}
	if m := bs.wait("paired", nil); m["game"] != p.Game || m["side"] != "s" {
		t.Errorf("paired: %v", m)
	}
	if code, _ := baraka.call("POST", path+"/accept", "", nil); code != http.StatusNotFound {
		t.Errorf("accepting twice: %d", code)
	}
	var c2 chAnswer
	amina.call("POST", "/api/challenges", `{"to": "Baraka", "days": 3}`, &c2)
	if code, _ := baraka.call("POST", "/api/challenges/"+c2.Challenge.ID+"/decline", `{"reason": "not now"}`, nil); code != 200 {
		t.Errorf("decline: %d", code)
	}
	if m := bs.wait("challenge-gone", func(m map[string]any) bool { return m["id"] == c2.Challenge.ID }); m["why"] != "declined" || m["reason"] != "not now" {
		t.Errorf("declined: %v", m)
	}
	var c3 chAnswer
	amina.call("POST", "/api/challenges", `{"to": "Baraka", "minutes": 1}`, &c3)
	if code, _ := amina.call("POST", "/api/challenges/"+c3.Challenge.ID+"/cancel", "", nil); code != 200 {
		t.Errorf("cancel: %d", code)
	}
	if m := bs.wait("challenge-gone", func(m map[string]any) bool { return m["id"] == c3.Challenge.ID }); m["why"] != "cancelled" {
		t.Errorf("cancelled: %v", m)
	}
	// (Expiry is package lobby's, tested there on its clock.)

	// Blocks: either way, no challenge and no seek taken.
	type blocksAnswer struct{ Blocks []lobby.Player }
	var bl blocksAnswer
	if code, raw := baraka.call("POST", "/api/me/blocks", `{"name": "amina"}`, &bl); code != 200 || len(bl.Blocks) != 1 || bl.Blocks[0].Name != "Amina" {
		t.Fatalf("block: %d %s", code, raw)
	}
	for _, c := range []struct {
		body string
		code int
	}{{`{"name": "Baraka"}`, 400}, {`{"name": "nobody"}`, 404}, {`{}`, 404}, {`{"name": 3}`, 400}} {
		if code, raw := baraka.call("POST", "/api/me/blocks", c.body, nil); code != c.code {
			t.Errorf("block %s: %d %s, want %d", c.body, code, raw, c.code)
		}
	}
	if code, raw := amina.call("POST", "/api/challenges", `{"to": "Baraka", "minutes": 5}`, nil); code != http.StatusForbidden || !strings.Contains(raw, "does not take challenges from you") {
		t.Errorf("a challenge to who blocks you: %d %s", code, raw)
	}
	if code, _ := baraka.call("POST", "/api/challenges", `{"to": "Amina", "minutes": 5}`, nil); code != http.StatusForbidden {
		t.Errorf("a challenge to whom you block: %d", code)
	}
	var sk seekAnswer
	amina.call("POST", "/api/lobby/seeks", `{"days": 7}`, &sk)
	if code, _ := baraka.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", nil); code != http.StatusForbidden {
		t.Errorf("accepting the seek of whom you block: %d", code)
	}
	if code, _ := baraka.call("GET", "/api/me/blocks", "", &bl); code != 200 || len(bl.Blocks) != 1 {
		t.Errorf("blocks %d %+v", code, bl)
	}
	if code, _ := baraka.call("POST", "/api/me/blocks/AMINA/remove", "", &bl); code != 200 || len(bl.Blocks) != 0 {
		t.Errorf("unblock: %d %+v", code, bl)
	}
	if code, _ := baraka.call("POST", "/api/me/blocks/Amina/remove", "", nil); code != http.StatusNotFound {
		t.Errorf("unblocking twice: %d", code)
	}
	if code, _ := baraka.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", nil); code != http.StatusCreated {
		t.Errorf("accepting once unblocked: %d", code)
	}

	// Reports.
	report := "/api/games/" + p.Game + "/report"
	for _, c := range []struct {
		body string
		code int
	}{
		{`{"reason": "spite"}`, 400},
		{`{"reason": "abuse", "text": "` + strings.Repeat("x", lobby.MaxReportText+1) + `"}`, 400},
		{`{"reason": "abuse", "why": 1}`, 400},
	} {
		if code, raw := amina.call("POST", report, c.body, nil); code != c.code {
			t.Errorf("report %.60s: %d %.200s, want %d", c.body, code, raw, c.code)
		}
	}
	if code, _ := (&lobbyPlayer{site: ls}).call("POST", report, `{"reason": "abuse"}`, nil); code != http.StatusUnauthorized {
		t.Errorf("a report of nobody: %d", code)
	}
	if code, _ := amina.call("POST", "/api/games/0123456789abcdef/report", `{"reason": "abuse"}`, nil); code != http.StatusNotFound {
		t.Errorf("a report of no game: %d", code)
	}
	if code, raw := amina.call("POST", report, `{"reason": "cheating", "text": "engine moves"}`, nil); code != http.StatusCreated {
		t.Fatalf("report: %d %s", code, raw)
	}
	if code, _ := amina.call("POST", report, `{"reason": "other"}`, nil); code != http.StatusConflict {
		t.Errorf("a second report: %d", code)
	}
	if reps, err := ls.st.Reports(context.Background(), 10); err != nil || len(reps) != 1 || reps[0].Text != "engine moves" {
		t.Errorf("reports %+v, %v", reps, err)
	}
}

// The lobby's creations from one client are limited an hour; a client's
// pending challenges are limited for each target.
func TestLobbyCreationLimits(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	target := ls.player("Target")
	var last int
	for i := range LobbyCreationsPerHour + 1 {
		p := ls.player(fmt.Sprintf("Player%d", i))
		last, _ = p.callFrom("198.51.100.7", "POST", "/api/challenges", `{"to": "Target", "minutes": 5}`, nil)
		if i < MaxIncomingChallenges && last != http.StatusCreated {
			t.Fatalf("challenge %d: %d", i, last)
		}
		if i == MaxIncomingChallenges && last != http.StatusTooManyRequests {
			t.Errorf("challenge %d, over the pending challenges of a target: %d", i, last)
		}
	}
	if last != http.StatusTooManyRequests {
		t.Errorf("creation %d from one address: %d, want 429", LobbyCreationsPerHour+1, last)
	}
	if code, _ := target.callFrom("127.0.0.1", "POST", "/api/lobby/seeks", `{"minutes": 5}`, nil); code != http.StatusCreated {
		t.Errorf("a seek from this machine, not limited: %d", code)
	}
}

// A bot signs in with its token: it posts and accepts seeks, holds a
// lobby socket, and is shown as a bot; it never enters a pool. A bad
// token is refused.
func TestLobbyBots(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	bot, amina := ls.botPlayer("Kibot"), ls.player("Amina")
	bad := &lobbyPlayer{site: ls, bot: "bot_" + strings.Repeat("A", 43)}
	if code, _ := bad.call("POST", "/api/lobby/seeks", `{"minutes": 5}`, nil); code != http.StatusUnauthorized {
		t.Errorf("an unknown bot token: %d", code)
	}
	bs := ls.dial(bot)
	var sk seekAnswer
	if code, raw := bot.call("POST", "/api/lobby/seeks", `{"minutes": 5}`, &sk); code != http.StatusCreated || !sk.Seek.By.Bot || sk.Seek.By.Name != "Kibot" {
		t.Fatalf("a bot's seek: %d %s", code, raw)
	}
	if code, _ := bot.call("POST", "/api/lobby/pools/8-3+2/join", "", nil); code != http.StatusForbidden {
		t.Errorf("a bot in a pool: %d", code)
	}
	var p pairedAnswer
	if code, raw := amina.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", &p); code != http.StatusCreated {
		t.Fatalf("accepting a bot's seek: %d %s", code, raw)
	}
	m := bs.wait("paired", nil)
	var g askerView
	if bot.call("GET", "/api/games/"+p.Game, "", &g); g.You == "" || g.You != m["side"] {
		t.Errorf("the bot's seat %q, told %v", g.You, m)
	}
	// The bot plays over the game's WebSocket by its account.
	h := http.Header{}
	bot.header(h)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ls.web.URL, "http")+"/api/games/"+p.Game+"/live",
		&websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	c := &liveClient{t: t, ws: ws, msgs: make(chan liveMessage, 100)}
	go c.read()
	first, ok := waitLive(c, liveWait, func(m liveMessage) bool { return m.Type == "game" })
	if !ok {
		t.Fatal("no game message")
	}
	mover := bot
	if first.Game.ToMove != g.You {
		mover = amina
		move := fmt.Sprintf(`{"move": %q, "ply": 0}`, first.Game.LegalMoves[0])
		if code, raw := amina.call("POST", "/api/games/"+p.Game+"/moves", move, nil); code != 200 {
			t.Fatalf("Amina's move: %d %s", code, raw)
		}
		first, _ = waitLive(c, liveWait, func(m liveMessage) bool { return m.Type == "game" && len(m.Game.Moves) == 1 })
	}
	_ = mover
	c.send(map[string]any{"type": "hello"})
	ply := len(first.Game.Moves)
	c.send(map[string]any{"type": "move", "move": first.Game.LegalMoves[0], "ply": ply})
	if _, ok := waitLive(c, liveWait, func(m liveMessage) bool {
		if m.Type == "error" {
			t.Errorf("the bot's move: %+v", m)
		}
		return m.Type == "game" && m.Game != nil && len(m.Game.Moves) == ply+1
	}); !ok {
		t.Error("the bot's move over the WebSocket was not played")
	}
}

// The lobby's socket: seeks come and go on it, a real-time seek goes when
// its owner's last socket has been closed for the grace (a
// correspondence seek stays), and two players in a pool are paired and
// told.
func TestLobbyLive(t *testing.T) {
	ls := newLobbySite(t, 500*time.Millisecond)
	amina, baraka := ls.player("Amina"), ls.player("Baraka")
	watcher := ls.dial(nil)
	as := ls.dial(amina)
	var rt, corr seekAnswer
	amina.call("POST", "/api/lobby/seeks", `{"minutes": 3, "increment": 2}`, &rt)
	amina.call("POST", "/api/lobby/seeks", `{"days": 3}`, &corr)
	if m := watcher.wait("seek", nil); m["seek"].(map[string]any)["id"] != rt.Seek.ID || m["seek"].(map[string]any)["mine"] != false {
		t.Errorf("the watcher's seek %v", m)
	}
	if m := as.wait("seek", nil); m["seek"].(map[string]any)["mine"] != true {
		t.Errorf("Amina's own seek %v", m)
	}
	// Held past the grace while her socket is open.
	time.Sleep(3 * ls.srv.lobby.GraceTime())
	if _, err := ls.st.Seek(context.Background(), rt.Seek.ID); err != nil {
		t.Fatalf("the seek of a player in the lobby: %v", err)
	}
	as.close()
	if m := watcher.wait("unseek", nil); m["id"] != rt.Seek.ID {
		t.Errorf("unseek %v, want the real-time seek", m)
	}
	if _, err := ls.st.Seek(context.Background(), corr.Seek.ID); err != nil {
		t.Errorf("the correspondence seek: %v", err)
	}
	// The pool.
	as, bs := ls.dial(amina), ls.dial(baraka)
	if code, raw := amina.call("POST", "/api/lobby/pools/8-5+3/join", `{"rated": true}`, nil); code != 200 {
		t.Fatalf("join: %d %s", code, raw)
	}
	if code, _ := amina.call("POST", "/api/lobby/pools/8-5+3/join", ``, nil); code != http.StatusConflict {
		t.Errorf("joining twice: %d", code)
	}
	if code, _ := amina.call("POST", "/api/lobby/pools/8-9+9/join", ``, nil); code != http.StatusNotFound {
		t.Errorf("no such pool: %d", code)
	}
	watcher.wait("pools", func(m map[string]any) bool {
		for _, p := range m["pools"].([]any) {
			if p := p.(map[string]any); p["id"] == "8-5+3" && p["waiting"] == 1.0 && p["mine"] == false {
				return true
			}
		}
		return false
	})
	if code, _ := baraka.call("POST", "/api/lobby/pools/8-5+3/join", `{"rated": true}`, nil); code != 200 {
		t.Fatalf("join: %d", code)
	}
	ma, mb := as.wait("paired", nil), bs.wait("paired", nil)
	if ma["game"] != mb["game"] || ma["side"] == mb["side"] {
		t.Fatalf("paired %v and %v", ma, mb)
	}
	sg, err := ls.st.Game(context.Background(), ma["game"].(string))
	if err != nil || !sg.Rated || sg.Online.Clock.Time != 5*time.Minute || sg.Start.Holes() != 8 {
		t.Errorf("the pool's game %+v, %v", sg, err)
	}
	if list, _ := ls.st.Seeks(context.Background()); len(list) != 1 {
		t.Errorf("%d seeks and places left, want the correspondence seek", len(list))
	}
	// Leaving a pool.
	amina.call("POST", "/api/lobby/pools/8-1+0/join", ``, nil)
	if code, _ := amina.call("POST", "/api/lobby/pools/8-1+0/leave", ``, nil); code != 200 {
		t.Errorf("leave: %d", code)
	}
	if list, _ := ls.st.Seeks(context.Background()); len(list) != 1 {
		t.Errorf("%d seeks and places left after leaving", len(list))
	}
	if code, _ := amina.call("POST", "/api/lobby/live", "", nil); code != http.StatusMethodNotAllowed {
		t.Errorf("POST to the socket's route: %d", code)
	}
}

// A seat taken with its token while signed in follows the account: on
// another device, with the session alone, the account is told its seat
// and plays it, on HTTP and on the game's WebSocket.
func TestSeatFollowsAccount(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina := ls.player("Amina")
	var c created
	if code, raw := amina.call("POST", "/api/games", `{"online": true, "holes": 4, "seeds": 2, "side": "s"}`, &c); code != http.StatusCreated {
		t.Fatalf("create: %d %s", code, raw)
	}
	var j created
	nobody := &lobbyPlayer{site: ls}
	if code, raw := nobody.call("POST", "/api/join/"+c.Invite[len("/#/join/"):], "", &j); code != 200 || j.Seat == nil {
		t.Fatalf("join: %d %s", code, raw)
	}
	var g askerView
	if amina.call("GET", "/api/games/"+c.Game.ID, "", &g); g.You != "s" {
		t.Fatalf("Amina's seat %q, want s", g.You)
	}
	var gn askerView
	if nobody.call("GET", "/api/games/"+c.Game.ID, "", &gn); gn.You != "" {
		t.Errorf("nobody's seat %q", gn.You)
	}
	// Her session alone, over the WebSocket: hello, then a move.
	h := http.Header{}
	amina.header(h)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(ls.web.URL, "http")+"/api/games/"+c.Game.ID+"/live",
		&websocket.DialOptions{HTTPHeader: h})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	lc := &liveClient{t: t, ws: ws, msgs: make(chan liveMessage, 100)}
	go lc.read()
	first, ok := waitLive(lc, liveWait, func(m liveMessage) bool { return m.Type == "game" })
	if !ok || first.Game.ToMove != "s" {
		t.Fatalf("first message %+v", first)
	}
	lc.send(map[string]any{"type": "hello"})
	lc.send(map[string]any{"type": "move", "move": first.Game.LegalMoves[0], "ply": 0})
	if _, ok := waitLive(lc, liveWait, func(m liveMessage) bool {
		if m.Type == "error" {
			t.Errorf("error %+v", m)
		}
		return m.Type == "game" && m.Game != nil && len(m.Game.Moves) == 1
	}); !ok {
		t.Fatal("the account's move over the WebSocket was not played")
	}
	// North's token still plays North; Amina's session cannot.
	var after askerView
	amina.call("GET", "/api/games/"+c.Game.ID, "", &after)
	move := fmt.Sprintf(`{"move": %q, "ply": 1}`, after.LegalMoves[0])
	if code, _ := amina.call("POST", "/api/games/"+c.Game.ID+"/moves", move, nil); code != http.StatusForbidden {
		t.Errorf("Amina moving for North: %d, want 403 (not her turn)", code)
	}
	ts := &testServer{t: t, srv: ls.srv}
	if code, raw := ts.seat("POST", "/api/games/"+c.Game.ID+"/moves", j.Seat.Token, move, nil); code != 200 {
		t.Errorf("North's token: %d %s", code, raw)
	}
}

// The seeks of an account disabled are no longer shown, nor taken.
func TestLobbyDisabledAccount(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka := ls.player("Amina"), ls.player("Baraka")
	var sk seekAnswer
	amina.call("POST", "/api/lobby/seeks", `{"days": 3}`, &sk)
	if err := ls.st.DisableAccount(context.Background(), amina.id); err != nil {
		t.Fatal(err)
	}
	var lv struct{ Seeks []lobby.SeekView }
	if baraka.call("GET", "/api/lobby", "", &lv); len(lv.Seeks) != 0 {
		t.Errorf("seeks shown %+v", lv.Seeks)
	}
	if code, _ := baraka.call("POST", "/api/lobby/seeks/"+sk.Seek.ID+"/accept", "", nil); code != http.StatusNotFound {
		t.Errorf("accepting a disabled account's seek: %d", code)
	}
	if code, _ := baraka.call("POST", "/api/challenges", `{"to": "Amina", "minutes": 5}`, nil); code != http.StatusNotFound {
		t.Errorf("challenging a disabled account: %d", code)
	}
}

// A bot's token answers GET /api/me and GET /api/me/games as a session
// does; an unknown one is nobody.
func TestBotIsAsker(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	bot := ls.botPlayer("Kibot")
	var me struct{ Account *accountView }
	if code, raw := bot.call("GET", "/api/me", "", &me); code != 200 || me.Account == nil || me.Account.Name != "Kibot" || !me.Account.Bot {
		t.Errorf("GET /api/me as a bot: %d %s", code, raw)
	}
	if code, raw := bot.call("GET", "/api/me/games", "", nil); code != 200 {
		t.Errorf("GET /api/me/games as a bot: %d %s", code, raw)
	}
	bad := &lobbyPlayer{site: ls, bot: "bot_" + strings.Repeat("A", 43)}
	if code, raw := bad.call("GET", "/api/me", "", &me); code != 200 || me.Account != nil {
		t.Errorf("GET /api/me with an unknown bot token: %d %s", code, raw)
	}
	if code, _ := bad.call("GET", "/api/me/games", "", nil); code != http.StatusUnauthorized {
		t.Errorf("GET /api/me/games with an unknown bot token: %d", code)
	}
}
