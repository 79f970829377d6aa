package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// fakeLobby is a small fake of the lobby of docs/api.md, as the lobby
// load test uses it: accounts with sessions, one pool whose two longest
// waiting players are paired at once (South the first), games of length
// moves (South and North in turn, the legal moves a, b and c) played
// over the game's WebSocket with the session, ended by their last move
// or a resignation and then rated (each end adds a point to both
// players' rating histories). Its knobs make it misbehave on purpose.
type fakeLobby struct {
	length      int           // moves of a game
	signupDelay time.Duration // each sign-up's hashing

	twiceAt   int  // the move at this ply (above 0) of the first game to reach it is applied twice
	forgetAt  int  // the store forgets the moves from this ply (above 0) of the first game to reach it
	rateTwice bool // the first rated end changes each player's rating twice
	rateNone  bool // the first rated end changes no rating
	silentAt  int  // the nth pairing (from 1) is told to no one: its players' lobby connections close instead
	unasked   bool // the first pairing is told twice, the second time as another game
	// casualAfter, when above 0, ends casual every game of two players
	// who have played that many rated games.
	casualAfter int

	mu       sync.Mutex
	accounts map[string]*fakeAccount // by name
	sessions map[string]*fakeAccount // by session cookie's value
	pool     []*fakeAccount
	games    map[string]*fakeLGame
	order    []*fakeLGame // in the order made
	pairings int
	done     map[string]bool // knobs used
	rated    map[[2]*fakeAccount]int
}

type fakeAccount struct {
	name, password string
	lobby          map[*fakeConn]bool
	rating         float64
	history        []map[string]any
}

type fakeLGame struct {
	id        string
	seats     [2]*fakeAccount // South, North
	moves     []string
	status    string
	rev       int64
	conns     map[*fakeConn]bool
	forgotten int // moves stored: -1 for all
	change    map[string]ratingDiff
	casual    bool
	ended     time.Time
}

func newFakeLobby(length int) *fakeLobby {
	return &fakeLobby{length: length, accounts: map[string]*fakeAccount{}, sessions: map[string]*fakeAccount{},
		games: map[string]*fakeLGame{}, done: map[string]bool{}, rated: map[[2]*fakeAccount]int{}}
}

func (f *fakeLobby) start(t *testing.T) string {
	t.Helper()
	ts := httptest.NewServer(f)
	t.Cleanup(ts.Close)
	return ts.URL
}

var fakePools = []map[string]any{{"id": DefaultPool, "category": "8-blitz", "waiting": 0}}

func (g *fakeLGame) toMove() string {
	if len(g.moves)%2 == 1 {
		return "n"
	}
	return "s"
}

// view is the game as the live connection shows it; stored as GET
// /api/games/{id} does, with what the store forgot left out.
func (g *fakeLGame) view(stored bool) map[string]any {
	moves := append([]string{}, g.moves...)
	if stored && g.forgotten >= 0 && g.forgotten < len(moves) {
		moves = moves[:g.forgotten]
	}
	legal := []string{"a", "b", "c"}
	if g.status != "playing" {
		legal = []string{}
	}
	return map[string]any{"id": g.id, "moves": moves, "legalMoves": legal, "toMove": g.toMove(), "status": g.status,
		"rated": !g.casual, "rating_change": g.change, "online": map[string]any{"rev": g.rev}, "updated": g.ended}
}

func (f *fakeLobby) account(r *http.Request) *fakeAccount {
	c, err := r.Cookie("endodoi_session")
	if err != nil {
		return nil
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.sessions[c.Value]
}

func (f *fakeLobby) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	rest, _ := strings.CutPrefix(r.URL.Path, "/api/")
	pool := "lobby/pools/" + DefaultPool
	switch {
	case r.Method == "GET" && rest == "lobby":
		reply(200, map[string]any{"seeks": []any{}, "pools": fakePools})
	case r.Method == "POST" && (rest == "account/signup" || rest == "account/signin"):
		var body struct{ Name, Password string }
		json.NewDecoder(r.Body).Decode(&body)
		f.mu.Lock()
		a := f.accounts[body.Name]
		switch {
		case rest == "account/signup" && a != nil:
			f.mu.Unlock()
			reply(409, map[string]string{"error": "name taken"})
			return
		case rest == "account/signup":
			a = &fakeAccount{name: body.Name, password: body.Password, rating: 1500, lobby: map[*fakeConn]bool{}}
			f.accounts[body.Name] = a
		case a == nil || a.password != body.Password:
			f.mu.Unlock()
			reply(401, map[string]string{"error": "wrong name or password"})
			return
		}
		session := fmt.Sprintf("s%d", len(f.sessions))
		f.sessions[session] = a
		f.mu.Unlock()
		time.Sleep(f.signupDelay)
		http.SetCookie(w, &http.Cookie{Name: "endodoi_session", Value: session, Path: "/"})
		status := 200
		if rest == "account/signup" {
			status = 201
		}
		reply(status, map[string]any{"account": map[string]string{"name": a.name}})
	case r.Method == "GET" && rest == "lobby/live":
		f.lobbyLive(w, r)
	case r.Method == "POST" && (rest == pool+"/join" || rest == pool+"/leave"):
		a := f.account(r)
		if a == nil {
			reply(401, map[string]string{"error": "not signed in"})
			return
		}
		f.mu.Lock()
		defer f.mu.Unlock()
		at := -1
		for i, b := range f.pool {
			if b == a {
				at = i
			}
		}
		switch {
		case strings.HasSuffix(rest, "/leave"):
			if at >= 0 {
				f.pool = append(f.pool[:at], f.pool[at+1:]...)
			}
			reply(200, map[string]any{})
		case at >= 0:
			reply(409, map[string]string{"error": "you are in this pool already"})
		default:
			f.pool = append(f.pool, a)
			f.pairLocked()
			reply(200, map[string]any{"pool": DefaultPool, "waiting": true})
		}
	case r.Method == "GET" && rest == "me/games":
		a := f.account(r)
		if a == nil {
			reply(401, map[string]string{"error": "not signed in"})
			return
		}
		f.mu.Lock()
		var list []map[string]any
		for i := len(f.order) - 1; i >= 0; i-- {
			g := f.order[i]
			for s, side := range []string{"s", "n"} {
				if g.seats[s] == a {
					list = append(list, map[string]any{"id": g.id, "status": g.status, "side": side})
				}
			}
		}
		f.mu.Unlock()
		reply(200, map[string]any{"games": list})
	case r.Method == "GET" && strings.HasPrefix(rest, "games/") && strings.HasSuffix(rest, "/live"):
		f.gameLive(w, r, strings.TrimSuffix(strings.TrimPrefix(rest, "games/"), "/live"))
	case r.Method == "GET" && strings.HasPrefix(rest, "games/"):
		f.mu.Lock()
		g := f.games[strings.TrimPrefix(rest, "games/")]
		var v map[string]any
		if g != nil {
			v = g.view(true)
		}
		f.mu.Unlock()
		if v == nil {
			reply(404, map[string]string{"error": "no such game"})
			return
		}
		reply(200, v)
	case r.Method == "GET" && strings.HasPrefix(rest, "players/") && strings.HasSuffix(rest, "/ratings"):
		f.mu.Lock()
		a := f.accounts[strings.TrimSuffix(strings.TrimPrefix(rest, "players/"), "/ratings")]
		var points []map[string]any
		if a != nil {
			points = append(points, a.history...)
		}
		f.mu.Unlock()
		if a == nil {
			reply(404, map[string]string{"error": "no such player"})
			return
		}
		reply(200, map[string]any{"category": r.URL.Query().Get("category"), "points": points})
	default:
		reply(404, map[string]string{"error": "no such endpoint"})
	}
}

// pairLocked pairs the two longest waiting, as long as two wait.
func (f *fakeLobby) pairLocked() {
	for len(f.pool) >= 2 {
		s, n := f.pool[0], f.pool[1]
		f.pool = f.pool[2:]
		f.pairings++
		g := &fakeLGame{id: fmt.Sprintf("%016x", len(f.order)+1), seats: [2]*fakeAccount{s, n}, moves: []string{},
			status: "playing", conns: map[*fakeConn]bool{}, forgotten: -1}
		f.games[g.id] = g
		f.order = append(f.order, g)
		if f.pairings == f.silentAt {
			for _, a := range g.seats {
				for c := range a.lobby {
					c.c.CloseNow()
				}
			}
			continue
		}
		for i, a := range g.seats {
			side := []string{"s", "n"}[i]
			for c := range a.lobby {
				fakeSend(c, map[string]any{"type": "paired", "game": g.id, "side": side})
				if f.unasked && !f.done["unasked"] {
					f.done["unasked"] = true
					fakeSend(c, map[string]any{"type": "paired", "game": "ffffffffffffffff", "side": side})
				}
			}
		}
	}
}

// fakeSend queues v on c, or drops it for a reader too slow.
func fakeSend(c *fakeConn, v any) {
	data, _ := json.Marshal(v)
	select {
	case c.out <- fakeOut{data: data}:
	default:
	}
}

// serveConn accepts a WebSocket and writes its queue until it closes;
// read reads it until it fails; closed is called, under f.mu, once.
func (f *fakeLobby) serveConn(w http.ResponseWriter, r *http.Request, opened func(*fakeConn), read func(*fakeConn) error, closed func(*fakeConn)) {
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	fc := &fakeConn{c: c, out: make(chan fakeOut, 256), done: make(chan struct{})}
	ctx := r.Context()
	go func() {
		defer close(fc.done)
		for o := range fc.out {
			if c.Write(ctx, websocket.MessageText, o.data) != nil {
				c.CloseNow()
				for range fc.out {
				}
				return
			}
		}
	}()
	f.mu.Lock()
	opened(fc)
	f.mu.Unlock()
	read(fc)
	f.mu.Lock()
	closed(fc)
	close(fc.out)
	f.mu.Unlock()
	<-fc.done
	c.CloseNow()
}

func (f *fakeLobby) lobbyLive(w http.ResponseWriter, r *http.Request) {
	a := f.account(r)
	f.serveConn(w, r, func(c *fakeConn) {
		if a != nil {
			a.lobby[c] = true
		}
		fakeSend(c, map[string]any{"type": "lobby", "seeks": []any{}, "pools": fakePools})
	}, func(c *fakeConn) error {
		for {
			if _, _, err := c.c.Read(r.Context()); err != nil {
				return err
			}
		}
	}, func(c *fakeConn) {
		if a != nil {
			delete(a.lobby, c)
		}
	})
}

func (f *fakeLobby) gameLive(w http.ResponseWriter, r *http.Request, id string) {
	a := f.account(r)
	f.mu.Lock()
	g := f.games[id]
	f.mu.Unlock()
	if g == nil || a == nil {
		http.Error(w, "no such game", 404)
		return
	}
	side := "s"
	if g.seats[1] == a {
		side = "n"
	}
	f.serveConn(w, r, func(c *fakeConn) {
		g.conns[c] = true
		fakeSend(c, map[string]any{"type": "game", "game": g.view(false)})
	}, func(c *fakeConn) error {
		for {
			var msg struct {
				Type, Move, Action string
				Ply                int
			}
			if err := wsjson.Read(r.Context(), c.c, &msg); err != nil {
				return err
			}
			f.mu.Lock()
			f.actLocked(g, c, side, msg.Type, msg.Move, msg.Action, msg.Ply)
			f.mu.Unlock()
		}
	}, func(c *fakeConn) { delete(g.conns, c) })
}

// actLocked plays a move or a resignation of side.
func (f *fakeLobby) actLocked(g *fakeLGame, c *fakeConn, side, typ, move, action string, ply int) {
	refuse := func(msg string) {
		fakeSend(c, map[string]any{"type": "error", "status": 409, "error": msg})
	}
	switch {
	case typ == "hello":
		return
	case g.status != "playing" || ply != len(g.moves):
		refuse("stale")
		return
	case typ == "action" && action == "resign":
		g.status = "resigned"
	case typ == "move" && side == g.toMove():
		g.moves = append(g.moves, move)
		if f.twiceAt > 0 && ply == f.twiceAt && !f.done["twice"] {
			f.done["twice"] = true
			g.moves = append(g.moves, move)
		}
		if f.forgetAt > 0 && ply == f.forgetAt && !f.done["forget"] {
			f.done["forget"] = true
			g.forgotten = ply
		}
		if len(g.moves) >= f.length {
			g.status = "no-legal-move"
		}
	default:
		refuse("not your move")
		return
	}
	g.rev++
	if g.status != "playing" {
		f.rateLocked(g)
	}
	for c := range g.conns {
		fakeSend(c, map[string]any{"type": "game", "game": g.view(false), "event": typ})
	}
}

// rateLocked changes both players' ratings for g's end: South gains.
func (f *fakeLobby) rateLocked(g *fakeLGame) {
	g.ended = time.Now()
	pair := g.seats
	if pair[0].name > pair[1].name {
		pair[0], pair[1] = pair[1], pair[0]
	}
	if f.casualAfter > 0 && f.rated[pair] >= f.casualAfter {
		g.casual = true
		return
	}
	f.rated[pair]++
	g.change = map[string]ratingDiff{}
	times := 1
	if f.rateTwice && !f.done["rateTwice"] {
		f.done["rateTwice"] = true
		times = 2
	}
	if f.rateNone && !f.done["rateNone"] {
		f.done["rateNone"] = true
		times = 0
	}
	for i, a := range g.seats {
		d := 8.0
		if i == 1 {
			d = -8
		}
		before := a.rating
		a.rating += d
		g.change[[]string{"s", "n"}[i]] = ratingDiff{Before: int(before), After: int(a.rating), Diff: int(d)}
		for range times {
			a.history = append(a.history, map[string]any{"rating": a.rating, "game": g.id})
		}
	}
}

// runLobbyFake runs cfg against the fake at url.
func runLobbyFake(t *testing.T, url string, cfg LobbyConfig) *LobbyReport {
	t.Helper()
	cfg.Servers, cfg.Rated, cfg.Check = []string{url}, true, true
	if cfg.Rate == 0 {
		cfg.Rate = MaxOnlineRate
	}
	rep, err := RunLobby(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", rep)
	return rep
}

// TestLobbyPlaysGamesOut: games still being played when the duration
// ends are played out, and the run is clean. The games are too long to
// end within the duration (40 moves, each at least 25 ms after the last).
func TestLobbyPlaysGamesOut(t *testing.T) {
	f := newFakeLobby(40)
	rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 10, Duration: 300 * time.Millisecond, Seed: 1})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Games != 5 || rep.Finished != 5 {
		t.Errorf("%d games made, %d played to the end; want 5 and 5", rep.Games, rep.Finished)
	}
	if rep.Elapsed <= rep.Duration {
		t.Errorf("elapsed %v, no longer than the duration %v: no game was played out", rep.Elapsed, rep.Duration)
	}
	if c := rep.Check; c == nil || c.Games != 5 || c.Rated != 5 || c.ChangedOnce != 10 || c.Moves != 5*40 || c.CutOff != 0 {
		t.Errorf("check %v; want 5 games rated, 200 moves, 10 ratings changed once", c)
	}
}

// TestLobbySignsUpBeforeTheClock: sign-ups longer than the duration do
// not eat it: every client signs up, then plays.
func TestLobbySignsUpBeforeTheClock(t *testing.T) {
	f := newFakeLobby(6)
	f.signupDelay = 40 * time.Millisecond
	var progress strings.Builder
	rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 12, Duration: 200 * time.Millisecond, SignupAtOnce: 1,
		Progress: &lockedWriter{w: &progress}, ProgressInterval: 100 * time.Millisecond, Seed: 2})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.SignedUp != 12 || rep.SignupTime < 12*f.signupDelay {
		t.Errorf("%d signed up in %v; want 12, in at least %v", rep.SignedUp, rep.SignupTime, 12*f.signupDelay)
	}
	if rep.Games < 6 || rep.Finished != rep.Games {
		t.Errorf("%d games, %d finished; want at least 6, all finished", rep.Games, rep.Finished)
	}
	if !strings.Contains(progress.String(), "accounts ready") {
		t.Errorf("no progress of the sign-ups in %q", progress.String())
	}
}

// lockedWriter serialises the writes of the progress lines.
type lockedWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestLobbyCutOffIsNotAFailure: games still being played at the cap are
// counted as cut off, and the run is not failed for them.
func TestLobbyCutOffIsNotAFailure(t *testing.T) {
	f := newFakeLobby(1 << 20)
	rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 6, Duration: 200 * time.Millisecond,
		PlayOut: 300 * time.Millisecond, Seed: 3})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Games != 3 || rep.CutOff != 3 || rep.Finished != 0 || !rep.Capped {
		t.Errorf("%d games, %d cut off, %d finished, capped %v; want 3 cut off by the cap", rep.Games, rep.CutOff, rep.Finished, rep.Capped)
	}
	if c := rep.Check; c == nil || c.CutOff != 3 || c.Moves == 0 {
		t.Errorf("check %v; want 3 games cut off, their moves checked", c)
	}
	if !strings.Contains(rep.String(), "3 cut off by the cap") {
		t.Errorf("the report does not say 3 cut off:\n%v", rep)
	}
}

// TestLobbyCheckFindsFaults: a doubled or lost move, a rating changed
// twice or not at all, a pairing no one waited for each fail the run.
func TestLobbyCheckFindsFaults(t *testing.T) {
	for _, tc := range []struct {
		name  string
		knob  func(*fakeLobby)
		found func(*LobbyReport) int
	}{
		{"a move applied twice", func(f *fakeLobby) { f.twiceAt = 3 }, func(r *LobbyReport) int { return r.Check.MovesDoubled }},
		{"a move forgotten", func(f *fakeLobby) { f.forgetAt = 4 }, func(r *LobbyReport) int { return r.Check.MovesLost }},
		{"a game rated twice", func(f *fakeLobby) { f.rateTwice = true }, func(r *LobbyReport) int { return r.Check.RatingsDoubled }},
		{"a game not rated", func(f *fakeLobby) { f.rateNone = true }, func(r *LobbyReport) int { return r.Check.RatingsMissing }},
		{"a pairing not waited for", func(f *fakeLobby) { f.unasked = true }, func(r *LobbyReport) int { return r.PairedTwice }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeLobby(10)
			tc.knob(f)
			rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 4, Duration: 200 * time.Millisecond, Seed: 4})
			if rep.Check == nil {
				t.Fatal("no check")
			}
			if tc.found(rep) == 0 {
				t.Errorf("not found")
			}
			if rep.Err() == nil {
				t.Errorf("the run did not fail")
			}
		})
	}
}

// TestLobbyCheckAllowsFarmingPolicy: games that the farming policy leaves
// casual (two players' seventh rated game in a day and later) are no
// failure; a game left casual before then is.
func TestLobbyCheckAllowsFarmingPolicy(t *testing.T) {
	for _, tc := range []struct {
		after int
		fails bool
	}{{6, false}, {1, true}} {
		f := newFakeLobby(4)
		f.casualAfter = tc.after
		rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 2, Duration: 3 * time.Second, Seed: 5})
		c := rep.Check
		if c == nil {
			t.Fatal("no check")
		}
		switch {
		case c.Games <= tc.after+1:
			t.Errorf("after %d: %d games, too few to see the policy", tc.after, c.Games)
		case tc.fails && (rep.Err() == nil || c.Unrated == 0):
			t.Errorf("after %d: a game left casual too early passed the check: %s", tc.after, c)
		case !tc.fails && (rep.Err() != nil || c.Casual != c.Games-tc.after):
			t.Errorf("after %d: %v; %s", tc.after, rep.Err(), c)
		}
	}
}

// TestLobbyReusesAccounts: a second run with the same names signs in to
// the accounts of the first, and their earlier ratings do not count
// against it.
func TestLobbyReusesAccounts(t *testing.T) {
	f := newFakeLobby(6)
	url := f.start(t)
	for run, want := range []struct{ up, in int }{{6, 0}, {0, 6}} {
		rep := runLobbyFake(t, url, LobbyConfig{Clients: 6, Duration: 200 * time.Millisecond, Names: "again", Seed: uint64(run)})
		if err := rep.Err(); err != nil {
			t.Fatalf("run %d: %v", run, err)
		}
		if rep.SignedUp != want.up || rep.SignedIn != want.in || rep.Check.ChangedOnce == 0 {
			t.Errorf("run %d: %d signed up, %d signed in, %d ratings changed once; want %d, %d, some",
				run, rep.SignedUp, rep.SignedIn, rep.Check.ChangedOnce, want.up, want.in)
		}
	}
}

// TestLobbyFindsAPairingItWasNotTold: a pairing whose message is lost
// with the lobby connection is found by listing the account's games,
// and played.
func TestLobbyFindsAPairingItWasNotTold(t *testing.T) {
	f := newFakeLobby(6)
	f.silentAt = 1
	rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 4, Duration: 300 * time.Millisecond, Seed: 5})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Listed != 2 || rep.Finished != rep.Games {
		t.Errorf("%d pairings found by listing, %d of %d games finished; want 2, all", rep.Listed, rep.Finished, rep.Games)
	}
}

// TestLobbyLastWaiterLeaves: once the duration is over, a player left
// alone in the pool leaves it, and the run ends without waiting for the
// cap.
func TestLobbyLastWaiterLeaves(t *testing.T) {
	f := newFakeLobby(10)
	rep := runLobbyFake(t, f.start(t), LobbyConfig{Clients: 3, Duration: 200 * time.Millisecond, Seed: 6})
	if err := rep.Err(); err != nil {
		t.Fatal(err)
	}
	if rep.Left != 1 || rep.WaitingAtEnd != 0 || rep.Capped {
		t.Errorf("%d left, %d waiting at the end, capped %v; want 1 left, none waiting", rep.Left, rep.WaitingAtEnd, rep.Capped)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.pool) != 0 {
		t.Errorf("%d still in the fake's pool", len(f.pool))
	}
}
