package bot

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// site is a real server on an SQLite database, listening on one address
// across restarts, for the bot's tests against the server itself.
type site struct {
	t    *testing.T
	path string
	addr string

	mu     sync.Mutex
	st     *store.SQLite
	srv    *server.Server
	web    *httptest.Server
	cancel context.CancelFunc
}

func newSite(t *testing.T) *site {
	s := &site{t: t, path: filepath.Join(t.TempDir(), "games.db")}
	s.start()
	t.Cleanup(s.stop)
	return s
}

// start opens the database and serves it, on the address of the last
// start if there was one.
func (s *site) start() {
	s.t.Helper()
	st, err := store.Open(context.Background(), s.path)
	if err != nil {
		s.t.Fatal(err)
	}
	srv := server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		s.t.Fatal(err)
	}
	addr := s.addr
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	var ln net.Listener
	for range 100 { // the port of the last start may take a moment to be free
		if ln, err = net.Listen("tcp", addr); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatal(err)
	}
	web := httptest.NewUnstartedServer(srv)
	web.Listener = ln
	web.Start()
	s.mu.Lock()
	s.st, s.srv, s.web, s.cancel, s.addr = st, srv, web, cancel, ln.Addr().String()
	s.mu.Unlock()
}

// stop ends every connection and closes the server and its database.
func (s *site) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.web == nil {
		return
	}
	s.web.CloseClientConnections()
	s.web.Close()
	s.cancel()
	s.srv.Close()
	s.st.Close()
	s.web = nil
}

// restart stops the server and starts it again on the same database and
// address: every connection drops.
func (s *site) restart() {
	s.stop()
	s.start()
}

func (s *site) url() string { return "http://" + s.addr }

// player makes an account with a session, as signing up does.
func (s *site) player(name string) string {
	s.t.Helper()
	id, hash := account.NewSessionID()
	a := &store.Account{Name: name, Key: strings.ToLower(name)}
	at := time.Now().UTC()
	if err := s.st.CreateAccount(context.Background(), a, nil, &store.Session{Hash: hash, Created: at, Expires: at.Add(time.Hour)}); err != nil {
		s.t.Fatal(err)
	}
	return id
}

// bot makes a bot's account, as endodoi admin bot does, and returns its
// token.
func (s *site) bot(name string) string {
	s.t.Helper()
	token, hash := account.NewBotToken()
	if err := s.st.CreateBot(context.Background(), &store.Account{Name: name, Key: strings.ToLower(name)}, hash); err != nil {
		s.t.Fatal(err)
	}
	return token
}

// human is a signed-in player's client.
type human struct {
	t       *testing.T
	site    *site
	session string
}

func (h *human) header() http.Header {
	hd := http.Header{}
	hd.Set("Cookie", (&http.Cookie{Name: server.SessionCookie, Value: h.session}).String())
	return hd
}

// call sends a request and decodes a successful answer into out.
func (h *human) call(method, path string, body any, out any) (int, string) {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, err := http.NewRequest(method, h.site.url()+path, rd)
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header = h.header()
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode < 300 && out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return resp.StatusCode, string(data)
}

// dial opens a live socket as h; it returns nil when the site is down.
func (h *human) dial(path string) *websocket.Conn {
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+h.site.addr+path, &websocket.DialOptions{HTTPHeader: h.header()})
	if err != nil {
		return nil
	}
	ws.SetReadLimit(MaxAnswer)
	return ws
}

// paired waits on the lobby's socket for the game a challenge made.
func (h *human) paired(ws *websocket.Conn) (string, string) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			h.t.Fatalf("waiting for the pairing: %v", err)
		}
		var m lobbyMessage
		if json.Unmarshal(data, &m) == nil && m.Type == "paired" {
			return m.Game, m.Side
		}
		if m.Type == "challenge-gone" && m.Why != "accepted" {
			h.t.Fatalf("the challenge is gone: %s", data)
		}
	}
}

// playOut plays side's moves in game id, the first legal one each time,
// reading the game from its live socket and reconnecting when it drops,
// until the game is over; before each of its moves it calls beforeMove
// with the number of moves played. It returns the final state and
// whether the bot's seat was ever seen connected.
func (h *human) playOut(id, side string, beforeMove func(ply int)) (*gameView, bool) {
	h.t.Helper()
	deadline := time.Now().Add(10 * liveWait)
	botSide := map[string]string{"s": "n", "n": "s"}[side]
	botSeen := false
	for time.Now().Before(deadline) {
		ws := h.dial("/api/games/" + id + "/live")
		if ws == nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		for {
			ctx, cancel := context.WithTimeout(context.Background(), liveWait)
			_, data, err := ws.Read(ctx)
			cancel()
			if err != nil {
				break // dropped: dial again
			}
			var m struct {
				liveMessage
				Game *struct {
					gameView
					Online *struct {
						onlineView
						Connected map[string]bool `json:"connected"`
					} `json:"online"`
				} `json:"game"`
			}
			if json.Unmarshal(data, &m) != nil || m.Type != "game" || m.Game == nil {
				continue
			}
			v := &m.Game.gameView
			if o := m.Game.Online; o != nil {
				v.Online = &o.onlineView
				botSeen = botSeen || o.Connected[botSide]
			}
			if v.over() {
				ws.CloseNow()
				return v, botSeen
			}
			if v.ToMove != side {
				continue
			}
			ply := len(v.Moves)
			if beforeMove != nil {
				beforeMove(ply)
			}
			code, body := h.call("POST", "/api/games/"+id+"/moves", map[string]any{"move": v.LegalMoves[0], "ply": ply}, nil)
			if code != http.StatusOK && code != http.StatusConflict && code != 0 {
				h.t.Fatalf("the human's move at ply %d: %d %s", ply, code, body)
			}
		}
		ws.CloseNow()
	}
	h.t.Fatal("the game did not end in time")
	return nil, false
}

func siteConfig(t *testing.T, s *site, token string) Config {
	p := DefaultPolicy()
	p.Holes = Ranges{{4, 10}}
	return Config{Server: s.url(), Token: token, Engine: testEngineConfig(t, "engine"), Policy: p, MaxGames: 2,
		Timing: Timing{Max: 30 * time.Millisecond, Overhead: 100 * time.Millisecond}, Log: testLog(t),
		Backoff: Backoff{Min: 20 * time.Millisecond, Max: 200 * time.Millisecond}}
}

// challengeBot challenges the bot named Robo from h and returns the game
// the bot's acceptance made and h's side in it.
func (h *human) challengeBot(settings map[string]any) (string, string) {
	h.t.Helper()
	lobby := h.dial("/api/lobby/live")
	if lobby == nil {
		h.t.Fatal("cannot open the lobby")
	}
	defer lobby.CloseNow()
	settings["to"] = "Robo"
	if code, body := h.call("POST", "/api/challenges", settings, nil); code != http.StatusCreated {
		h.t.Fatalf("challenging the bot: %d %s", code, body)
	}
	return h.paired(lobby)
}

func TestSiteBotPlaysAChallenge(t *testing.T) {
	s := newSite(t)
	h := &human{t: t, site: s, session: s.player("Naserian")}
	runBot(t, siteConfig(t, s, s.bot("Robo")))
	id, side := h.challengeBot(map[string]any{"holes": 6, "seeds": 4, "minutes": 5, "increment": 3, "side": "n"})
	if side != "n" {
		t.Fatalf("the challenger plays %q, want n as asked", side)
	}
	end, botSeen := h.playOut(id, side, nil)
	if end.Result == "*" || end.Status == "timeout" {
		t.Errorf("the game ended %s %s: want a result by the rules", end.Status, end.Result)
	}
	if !botSeen {
		t.Error("the bot's seat never showed as connected")
	}
	t.Logf("%d moves, %s", len(end.Moves), end.Result)
}

// TestSiteBotSurvivesARestart: the server goes down twice between the
// bot's move and the human's reply; the bot comes back each time, moves
// between the two, and plays the game to its end.
func TestSiteBotSurvivesARestart(t *testing.T) {
	s := newSite(t)
	h := &human{t: t, site: s, session: s.player("Naserian")}
	runBot(t, siteConfig(t, s, s.bot("Robo")))
	id, side := h.challengeBot(map[string]any{"holes": 8, "seeds": 4, "minutes": 10, "increment": 5, "side": "s"})
	// The restarts come early, so that any game lasts long enough: at the
	// human's turn from ply 4 on, and at the human's next turn after the
	// bot has moved since. The same ply seen again (a later message of it,
	// or the human's move lost to the restart) restarts nothing.
	var restarts []int
	end, _ := h.playOut(id, side, func(ply int) {
		n := len(restarts)
		if n == 2 || ply < 4 || n == 1 && ply < restarts[0]+2 {
			return
		}
		restarts = append(restarts, ply)
		s.restart()
	})
	if len(restarts) != 2 {
		t.Fatalf("the server restarted at plies %v, want twice: the game ended after %d moves", restarts, len(end.Moves))
	}
	// A bot that did not come back would leave the game unfinished: its
	// clock has ten minutes, and playOut gives up long before.
	if end.Result == "*" || end.Status == "timeout" {
		t.Errorf("the game ended %s %s: want a result by the rules", end.Status, end.Result)
	}
}

func TestSiteBotDeclinesOutsideItsLimits(t *testing.T) {
	s := newSite(t)
	h := &human{t: t, site: s, session: s.player("Naserian")}
	runBot(t, siteConfig(t, s, s.bot("Robo")))
	lobby := h.dial("/api/lobby/live")
	defer lobby.CloseNow()
	if code, body := h.call("POST", "/api/challenges", map[string]any{"to": "Robo", "holes": 12, "seeds": 4, "minutes": 5}, nil); code != http.StatusCreated {
		t.Fatalf("challenging the bot: %d %s", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), liveWait)
	defer cancel()
	for {
		_, data, err := lobby.Read(ctx)
		if err != nil {
			t.Fatalf("waiting for the bot's answer: %v", err)
		}
		var m struct {
			lobbyMessage
			Reason string `json:"reason"`
		}
		if json.Unmarshal(data, &m) != nil || m.Type != "challenge-gone" {
			continue
		}
		if m.Why != "declined" || m.Reason != "this bot plays boards of 4-10 holes a row" {
			t.Fatalf("the challenge went: %s", data)
		}
		return
	}
}

// TestSiteBotTakesUpItsGames: a bot stopped mid-game and started again
// finds its game among the account's and plays it to the end.
func TestSiteBotTakesUpItsGames(t *testing.T) {
	s := newSite(t)
	h := &human{t: t, site: s, session: s.player("Naserian")}
	cfg := siteConfig(t, s, s.bot("Robo"))
	stop := runBot(t, cfg)
	id, side := h.challengeBot(map[string]any{"holes": 6, "seeds": 4, "minutes": 10, "increment": 5, "side": "s"})
	restarted := false
	end, _ := h.playOut(id, side, func(ply int) {
		if ply == 6 && !restarted {
			if err := stop(); err != nil {
				t.Errorf("the first bot stopped with %v", err)
			}
			runBot(t, cfg)
			restarted = true
		}
	})
	if !restarted {
		t.Errorf("the game ended after %d moves, before the bot's restart", len(end.Moves))
	}
	if end.Result == "*" || end.Status == "timeout" {
		t.Errorf("the game ended %s %s: want a result by the rules", end.Status, end.Result)
	}
}

// The bot answers a draw offer and a takeback request at once, with a no:
// the person offering is not left waiting.
func TestSiteBotDeclinesOffers(t *testing.T) {
	s := newSite(t)
	h := &human{t: t, site: s, session: s.player("Naserian")}
	runBot(t, siteConfig(t, s, s.bot("Robo")))
	id, side := h.challengeBot(map[string]any{"holes": 6, "seeds": 4, "minutes": 10, "increment": 5, "side": "s"})
	offers := map[int]string{2: "draw-offer", 4: "takeback-request"}
	declined := 0
	end, _ := h.playOut(id, side, func(ply int) {
		action, ok := offers[ply]
		if !ok {
			return
		}
		delete(offers, ply) // a later message of the same ply calls again
		if code, body := h.call("POST", "/api/games/"+id+"/actions", map[string]any{"action": action, "ply": ply}, nil); code != http.StatusOK {
			t.Fatalf("%s at ply %d: %d %s", action, ply, code, body)
		}
		// It is the human's turn: only the bot's answer can close the offer.
		for deadline := time.Now().Add(liveWait); ; time.Sleep(20 * time.Millisecond) {
			var v gameView
			if code, body := h.call("GET", "/api/games/"+id, nil, &v); code != http.StatusOK {
				t.Fatalf("reading the game: %d %s", code, body)
			}
			if len(v.Moves) != ply {
				t.Fatalf("after the %s at ply %d the game has %d moves", action, ply, len(v.Moves))
			}
			if v.Online.DrawOffer == "" && v.Online.TakebackOffer == "" {
				declined++
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the bot left the %s at ply %d unanswered for %v", action, ply, liveWait)
			}
		}
	})
	if declined != 2 {
		t.Errorf("%d offers declined, want 2 (the game ended after %d moves)", declined, len(end.Moves))
	}
	if end.Result == "*" {
		t.Errorf("the game ended %s without a result", end.Status)
	}
}
