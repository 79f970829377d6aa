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
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/store"
)

// The attacks below come from one client and the victims from others,
// told apart by X-Forwarded-For: the servers trust their loopback proxy.
const (
	attacker = "203.0.113.66"
	victim   = "198.51.100.10"
)

// site is a server over HTTP on the loopback, for the attacks.
type site struct {
	t    *testing.T
	srv  *Server
	base string
	http *http.Client
}

func newSite(t *testing.T, o Options) *site {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	o.TrustProxy = true
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), o)
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv)
	t.Cleanup(func() {
		web.CloseClientConnections()
		web.Close()
		cancel()
		srv.Close()
		st.Close()
	})
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(tr.CloseIdleConnections)
	return &site{t: t, srv: srv, base: web.URL, http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
}

// answer is a response, read.
type answer struct {
	code       int
	body       string
	retryAfter string
	took       time.Duration
}

// call sends a request as client; out, if not nil, receives a 2xx JSON
// answer.
func (s *site) call(ctx context.Context, client, method, path, token, body string, out any) answer {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", client)
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	start := time.Now()
	resp, err := s.http.Do(req)
	if err != nil {
		return answer{code: -1, body: err.Error(), took: time.Since(start)}
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	a := answer{code: resp.StatusCode, body: string(data), retryAfter: resp.Header.Get("Retry-After"), took: time.Since(start)}
	if out != nil && a.code < 300 {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Errorf("%s %s: %v: %s", method, path, err, data)
		}
	}
	return a
}

// dial opens a live connection to game id as client.
func (s *site) dial(ctx context.Context, client, id string) (*websocket.Conn, *http.Response, error) {
	h := http.Header{"X-Forwarded-For": {client}}
	return websocket.Dial(ctx, "ws"+strings.TrimPrefix(s.base, "http")+"/api/games/"+id+"/live", &websocket.DialOptions{HTTPHeader: h})
}

// heap is the heap in use after a collection.
func heap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// slowest is the longest of ds.
func slowest(ds []time.Duration) time.Duration { return slices.Max(ds) }

// servedAsBefore checks that the victim's latencies under attack stay within a
// generous factor of those without it: the machine is shared and noisy.
func servedAsBefore(t *testing.T, what string, calm, attacked []time.Duration) {
	t.Helper()
	limit := 4*slowest(calm) + 300*time.Millisecond
	t.Logf("%s: slowest %v without the attacker, %v with it (limit %v)", what, slowest(calm), slowest(attacked), limit)
	if slowest(attacked) > limit {
		t.Errorf("%s: slowest %v under attack, over %v (without the attacker: %v)", what, slowest(attacked), limit, slowest(calm))
	}
}

// One client opening live connections without end gets its share, 429
// beyond it before the upgrade, and the others are served as before.
func TestAttackLiveConnections(t *testing.T) {
	s := newSite(t, Options{})
	ctx := context.Background()
	// The victim: a game made, a move played, a live connection opened and
	// its first message read.
	play := func(n int) []time.Duration {
		var took []time.Duration
		for range n {
			start := time.Now()
			var g gameView
			if a := s.call(ctx, victim, "POST", "/api/games", "", `{"holes": 6}`, &g); a.code != 201 {
				t.Fatalf("victim's game: %d %s", a.code, a.body)
			}
			if a := s.call(ctx, victim, "POST", "/api/games/"+g.ID+"/moves", "", `{"move": "c", "ply": 0}`, nil); a.code != 200 {
				t.Fatalf("victim's move: %d %s", a.code, a.body)
			}
			ws, _, err := s.dial(ctx, victim, g.ID)
			if err != nil {
				t.Fatalf("victim's live connection: %v", err)
			}
			if _, _, err := ws.Read(ctx); err != nil {
				t.Fatalf("victim's first live message: %v", err)
			}
			ws.CloseNow()
			took = append(took, time.Since(start))
		}
		return took
	}
	calm := play(15)
	var target gameView
	if a := s.call(ctx, "192.0.2.50", "POST", "/api/games", "", `{}`, &target); a.code != 201 {
		t.Fatalf("target: %d", a.code)
	}
	before := heap()
	const attempts = 1000
	var held []*websocket.Conn
	defer func() {
		for _, ws := range held {
			ws.CloseNow()
		}
	}()
	refused := 0
	for i := range attempts {
		ws, resp, err := s.dial(ctx, attacker, target.ID)
		if err == nil {
			held = append(held, ws)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
			t.Fatalf("connection %d: %v %+v", i, err, resp)
		}
		refused++
	}
	grown := int64(heap()) - int64(before)
	t.Logf("attacker: %d connections held, %d refused; heap grew %d KB", len(held), refused, grown>>10)
	if want := s.srv.clients.Limits().LivePerClient; len(held) != want {
		t.Errorf("the attacker holds %d live connections; the limit is %d", len(held), want)
	}
	// Both ends of every connection are in this process.
	if grown > 24<<20 {
		t.Errorf("the heap grew by %d MB under %d connection attempts", grown>>20, attempts)
	}
	servedAsBefore(t, "game, move and live connection", calm, play(15))
}

// The instance keeps a reserve: beyond MaxLive every client's new live
// connection is refused with 503, and ordinary requests are served.
func TestLiveConnectionsReserve(t *testing.T) {
	s := newSite(t, Options{ClientLimits: ClientLimits{MaxLive: 5}})
	ctx := context.Background()
	var g gameView
	if a := s.call(ctx, victim, "POST", "/api/games", "", `{}`, &g); a.code != 201 {
		t.Fatalf("game: %d", a.code)
	}
	for i := range 5 {
		ws, _, err := s.dial(ctx, fmt.Sprintf("192.0.2.%d", i+1), g.ID)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer ws.CloseNow()
	}
	_, resp, err := s.dial(ctx, victim, g.ID)
	if err == nil || resp == nil || resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a connection beyond the instance's limit: %v %+v", err, resp)
	}
	if a := s.call(ctx, victim, "GET", "/api/games/"+g.ID, "", "", nil); a.code != 200 {
		t.Errorf("an ordinary request: %d", a.code)
	}
}

// One client sending long analyses as fast as its allowance lets it
// neither delays another's games against the computer nor keeps another's
// analysis waiting for long; its own are refused beyond its share.
func TestAttackSearchSlots(t *testing.T) {
	s := newSite(t, Options{Searches: 1})
	ctx := context.Background()
	var g gameView
	if a := s.call(ctx, victim, "POST", "/api/games", "", `{"computer": {"side": "n", "level": 9}}`, &g); a.code != 201 {
		t.Fatalf("victim's game: %d %s", a.code, a.body)
	}
	// The victim: a move of its own, then the computer's, timed.
	play := func(n int) []time.Duration {
		var took []time.Duration
		for range n {
			if len(g.LegalMoves) == 0 || g.Status != "playing" {
				if a := s.call(ctx, victim, "POST", "/api/games", "", `{"computer": {"side": "n", "level": 9}}`, &g); a.code != 201 {
					t.Fatalf("victim's game: %d %s", a.code, a.body)
				}
			}
			var mv moveView
			if a := s.call(ctx, victim, "POST", "/api/games/"+g.ID+"/moves", "", fmt.Sprintf(`{"move": %q}`, g.LegalMoves[0]), &mv); a.code != 200 {
				t.Fatalf("victim's move: %d %s", a.code, a.body)
			}
			g = mv.Game
			if g.Status != "playing" {
				continue
			}
			a := s.call(ctx, victim, "POST", "/api/games/"+g.ID+"/computer", "", ``, &mv)
			if a.code != 200 {
				t.Fatalf("the computer's move for the victim: %d %s", a.code, a.body)
			}
			g = mv.Game
			took = append(took, a.took)
		}
		return took
	}
	calm := play(6)
	before := heap()
	attackCtx, stop := context.WithCancel(ctx)
	var codes sync.Map
	var wg sync.WaitGroup
	var sent atomic.Int32
	analyse := func() {
		a := s.call(attackCtx, attacker, "POST", "/api/analyze", "", `{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "timeMs": 10000}`, nil)
		n, _ := codes.LoadOrStore(a.code, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		if a.code == http.StatusTooManyRequests && a.retryAfter == "" {
			t.Errorf("a 429 without Retry-After: %s", a.body)
		}
	}
	wg.Go(func() {
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for attackCtx.Err() == nil && sent.Load() < 100 {
			sent.Add(1)
			wg.Go(analyse)
			select {
			case <-tick.C:
			case <-attackCtx.Done():
			}
		}
	})
	time.Sleep(time.Second) // the attacker holds the slot
	attacked := play(6)
	// Another client's analysis waits for the attacker's to give way.
	a := s.call(ctx, "198.51.100.11", "POST", "/api/analyze", "", `{"position": "3,3,3,3,3,3/3,3,3,3,3,3 s 0 0", "timeMs": 300}`, nil)
	if a.code != 200 || a.took > 4*time.Second {
		t.Errorf("another client's analysis under attack: %d in %v: %s", a.code, a.took, a.body)
	}
	// A burst: beyond the one running and those waiting their turn, the
	// attacker's searches are refused at once.
	const burst = 20
	var refusedBefore int32
	if n, ok := codes.Load(http.StatusTooManyRequests); ok {
		refusedBefore = n.(*atomic.Int32).Load()
	}
	var bursting sync.WaitGroup
	for range burst {
		bursting.Go(analyse)
	}
	time.Sleep(500 * time.Millisecond)
	stop()
	bursting.Wait()
	wg.Wait()
	grown := int64(heap()) - int64(before)
	summary := map[int]int32{}
	codes.Range(func(k, v any) bool { summary[k.(int)] = v.(*atomic.Int32).Load(); return true })
	t.Logf("attacker's answers by status: %v; heap grew %d KB", summary, grown>>10)
	if want := int32(burst - 1 - s.srv.analysis.QueuePerClient()); summary[http.StatusTooManyRequests]-refusedBefore < want {
		t.Errorf("of a burst of %d, %d of the attacker's searches were refused at once, want %d or more: %v",
			burst, summary[http.StatusTooManyRequests]-refusedBefore, want, summary)
	}
	// A search of the moves' own slot holds an engine of its own.
	if grown > 64<<20 {
		t.Errorf("the heap grew by %d MB", grown>>20)
	}
	servedAsBefore(t, "the computer's move", calm, attacked)
}

// A client's analyses take at most its engine time a minute.
func TestAnalysisTimeBudget(t *testing.T) {
	s := newSite(t, Options{Searches: 1, ClientLimits: ClientLimits{AnalysisTime: 2 * time.Second}})
	ctx := context.Background()
	body := `{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "timeMs": 1200, "multiPv": 0}`
	// Each takes at most 1.2 s: the budget lets two or three run.
	var a answer
	var searched time.Duration
	for i := range 5 {
		if a = s.call(ctx, attacker, "POST", "/api/analyze", "", body, nil); a.code != 200 {
			if i < 2 {
				t.Fatalf("analysis %d within the budget: %d %s", i, a.code, a.body)
			}
			break
		}
		searched += a.took
	}
	t.Logf("refused after %v of analyses", searched)
	if a.code != http.StatusTooManyRequests || a.retryAfter == "" || !strings.Contains(a.body, "share of the engine's time") {
		t.Errorf("beyond the budget: %d %q %s", a.code, a.retryAfter, a.body)
	}
	if a := s.call(ctx, victim, "POST", "/api/analyze", "", body, nil); a.code != 200 {
		t.Errorf("another client: %d %s", a.code, a.body)
	}
}

// One client creating games without end gets its hourly allowance, 429
// beyond it, and the others are served as before.
func TestAttackGameCreation(t *testing.T) {
	s := newSite(t, Options{})
	ctx := context.Background()
	lim := s.srv.clients.Limits()
	play := func(n int) []time.Duration {
		var took []time.Duration
		for range n {
			start := time.Now()
			var g gameView
			if a := s.call(ctx, victim, "POST", "/api/games", "", `{"holes": 6}`, &g); a.code != 201 {
				t.Errorf("victim's game: %d %s", a.code, a.body)
				return took
			}
			if a := s.call(ctx, victim, "POST", "/api/games/"+g.ID+"/moves", "", `{"move": "c", "ply": 0}`, nil); a.code != 200 {
				t.Errorf("victim's move: %d %s", a.code, a.body)
			}
			var c created
			if a := s.call(ctx, victim, "POST", "/api/games", "", `{"online": true, "clock": {"days": 7}}`, &c); a.code != 201 {
				t.Errorf("victim's online game: %d %s", a.code, a.body)
				return took
			}
			// Taken up at once, so that the victim's invitations stay few.
			if a := s.call(ctx, "198.51.100.12", "POST", "/api/join/"+c.Invite[len("/#/join/"):], "", ``, nil); a.code != 200 {
				t.Errorf("joining the victim's game: %d %s", a.code, a.body)
			}
			took = append(took, time.Since(start))
		}
		return took
	}
	calm := play(10)
	before := heap()
	// The attack: local games and online games with 7-day clocks, from
	// eight connections at once, and the victim meanwhile.
	var made, refused [2]atomic.Int32
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range jobs {
				online := i%2 == 1
				body := `{"holes": 6}`
				if online {
					body = `{"online": true, "clock": {"days": 7}}`
				}
				a := s.call(ctx, attacker, "POST", "/api/games", "", body, nil)
				k := 0
				if online {
					k = 1
				}
				switch {
				case a.code == 201:
					made[k].Add(1)
				case a.code == http.StatusTooManyRequests && a.retryAfter != "":
					refused[k].Add(1)
				default:
					t.Errorf("attacker's game: %d %q %s", a.code, a.retryAfter, a.body)
				}
			}
		})
	}
	attacked := make(chan []time.Duration)
	go func() { attacked <- play(10) }()
	for i := range 3000 {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	underAttack := <-attacked
	grown := int64(heap()) - int64(before)
	t.Logf("attacker: local %d made, %d refused; online %d made, %d refused; heap grew %d KB",
		made[0].Load(), refused[0].Load(), made[1].Load(), refused[1].Load(), grown>>10)
	if n := int(made[0].Load() + made[1].Load()); n > lim.GamesPerHour+2 {
		t.Errorf("the attacker made %d games; the limit is %d an hour", n, lim.GamesPerHour)
	}
	if n := int(made[1].Load()); n > lim.OpenInvites {
		t.Errorf("the attacker has %d online games waiting; the limit is %d", n, lim.OpenInvites)
	}
	if grown > 32<<20 {
		t.Errorf("the heap grew by %d MB", grown>>20)
	}
	servedAsBefore(t, "games made and played", calm, underAttack)
	// An invitation taken up no longer counts; beyond the hour's
	// invitations, none is made whatever is taken up.
	for i := range lim.InvitesPerHour {
		var c created
		a := s.call(ctx, "192.0.2.77", "POST", "/api/games", "", `{"online": true}`, &c)
		if a.code != 201 {
			t.Fatalf("invitation %d, the others taken up: %d %s", i, a.code, a.body)
		}
		s.call(ctx, "192.0.2.78", "POST", "/api/join/"+c.Invite[len("/#/join/"):], "", ``, nil)
	}
	if a := s.call(ctx, "192.0.2.77", "POST", "/api/games", "", `{"online": true}`, nil); a.code != http.StatusTooManyRequests || !strings.Contains(a.body, "an hour") {
		t.Errorf("beyond the invitations an hour: %d %s", a.code, a.body)
	}
}

// The engine does not analyse the position of an online game being
// played, however the request names it, on this instance or, told by the
// notices, on another; once the game has moved on or ended, it does.
func TestNoAnalysisOfALiveOnlineGame(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6}`)
	local := ts.create(`{"holes": 6}`)
	for len(g.Moves) < analysis.LivePly {
		var mv moveView
		m := g.LegalMoves[0]
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, m, len(g.Moves)), &mv); code != 200 {
			t.Fatalf("online move: %d %s", code, raw)
		}
		g = mv.Game
		if code, raw := ts.do("POST", "/api/games/"+local.ID+"/moves", fmt.Sprintf(`{"move": %q}`, m), &mv); code != 200 {
			t.Fatalf("local move: %d %s", code, raw)
		}
	}
	analyse := func(body string) int {
		code, _ := ts.do("POST", "/api/analyze", body, nil)
		return code
	}
	pos := g.Position
	rows, mover, _ := strings.Cut(pos, " ")
	south, north, _ := strings.Cut(rows, "/")
	other := map[string]string{"s": "n", "n": "s"}[mover[:1]]
	for _, body := range []string{
		fmt.Sprintf(`{"position": %q, "depth": 2}`, pos),
		fmt.Sprintf(`{"position": %q, "moves": %s, "depth": 2}`, g.Start, mustJSON(g.Moves)),
		// The captured seeds changed, and the board turned round.
		fmt.Sprintf(`{"position": "%s/%s %s 0 0", "depth": 2}`, south, north, mover[:1]),
		fmt.Sprintf(`{"position": "%s/%s %s %s", "depth": 2}`, north, south, other, mover[2:]),
	} {
		if code := analyse(body); code != http.StatusConflict {
			t.Errorf("analysis of the game's position %s: %d, want 409", body, code)
		}
	}
	if code, raw := ts.do("GET", "/api/games/"+local.ID+"/hint", "", nil); code != http.StatusConflict {
		t.Errorf("a hint in a game on one device at the online game's position: %d %s", code, raw)
	}
	// Another position is analysed.
	if code := analyse(fmt.Sprintf(`{"position": %q, "depth": 2}`, g.Start)); code != 200 {
		t.Errorf("analysis of the start: %d", code)
	}
	if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[0], fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != 200 {
		t.Fatalf("resign: %d %s", code, raw)
	}
	if code := analyse(fmt.Sprintf(`{"position": %q, "depth": 2}`, pos)); code != 200 {
		t.Errorf("analysis once the game is over: %d", code)
	}
	// A restarted server knows the games in play from the start.
	g2, tokens2 := ts.onlinePair(`{"online": true, "holes": 6, "clock": {"minutes": 30}}`)
	for len(g2.Moves) < analysis.LivePly {
		var mv moveView
		ts.seat("POST", "/api/games/"+g2.ID+"/moves", tokenOf(g2, tokens2), fmt.Sprintf(`{"move": %q, "ply": %d}`, g2.LegalMoves[len(g2.LegalMoves)-1], len(g2.Moves)), &mv)
		g2 = mv.Game
	}
	ts.restart()
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { cancel(); ts.srv.Close() }()
	if err := ts.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if code := analyse(fmt.Sprintf(`{"position": %q, "depth": 2}`, g2.Position)); code != http.StatusConflict {
		t.Errorf("after a restart, analysis of a game in play: %d, want 409", code)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// Two instances: a game played through one is not analysed by the other.
func TestInstancesRefuseAnalysisOfALiveGame(t *testing.T) {
	forEachBus(t, testInstancesRefuseAnalysisOfALiveGame)
}

func testInstancesRefuseAnalysisOfALiveGame(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 6}`)
	for len(g.Moves) < analysis.LivePly {
		var mv moveView
		if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), &mv); code != 200 {
			t.Fatalf("move on A: %d %s", code, raw)
		}
		g = mv.Game
	}
	body := fmt.Sprintf(`{"position": %q, "depth": 2}`, g.Position)
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, raw := tb.do("POST", "/api/analyze", body, nil)
		if code == http.StatusConflict {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("B analyses the position of a game played on A: %d %s", code, raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/actions", tokens[0], fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != 200 {
		t.Fatalf("resign on A: %d %s", code, raw)
	}
	for {
		code, _ := tb.do("POST", "/api/analyze", body, nil)
		if code == 200 {
			break
		}
		if time.Now().After(deadline.Add(5 * time.Second)) {
			t.Fatalf("B still refuses the position of a game over: %d", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
