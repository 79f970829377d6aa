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

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// scrape reads the metrics at url, in Prometheus's text format.
func scrape(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parsing the metrics: %v", err)
	}
	return fams
}

// sample finds the metric of family name whose labels include those of
// labels (name=value pairs); nil if none.
func sample(fams map[string]*dto.MetricFamily, name string, labels ...string) *dto.Metric {
	f := fams[name]
	if f == nil {
		return nil
	}
next:
	for _, m := range f.GetMetric() {
		have := map[string]string{}
		for _, l := range m.GetLabel() {
			have[l.GetName()] = l.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		return m
	}
	return nil
}

// value is the value of a counter or gauge, or the count of a histogram;
// -1 if there is no such metric.
func value(fams map[string]*dto.MetricFamily, name string, labels ...string) float64 {
	m := sample(fams, name, labels...)
	switch {
	case m == nil:
		return -1
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Histogram != nil:
		return float64(m.Histogram.GetSampleCount())
	}
	return -1
}

// httpClient sends the API's requests over HTTP, keeping the secrets it
// sees (game IDs, invite codes, seat tokens).
type httpClient struct {
	t       *testing.T
	base    string
	mu      sync.Mutex
	secrets []string
}

func (c *httpClient) keep(s ...string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.secrets = append(c.secrets, s...)
}

func (c *httpClient) call(method, path, token, body string, out any) int {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			c.t.Fatalf("%s %s: %v: %s", method, path, err, raw)
		}
	}
	return resp.StatusCode
}

// move plays the first legal move of game g as token's seat (none for a
// game on one device) and returns the game after it.
func (c *httpClient) move(g gameView, token string) gameView {
	c.t.Helper()
	var mv moveView
	if code := c.call("POST", "/api/games/"+g.ID+"/moves", token,
		fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), &mv); code != http.StatusOK {
		c.t.Fatalf("move in %s: %d", g.ID, code)
	}
	return mv.Game
}

// online makes an online game and seats both players.
func (c *httpClient) online() (gameView, [2]string) {
	c.t.Helper()
	var cr, j created
	if code := c.call("POST", "/api/games", "", `{"online": true, "holes": 4, "seeds": 2}`, &cr); code != http.StatusCreated {
		c.t.Fatalf("create online: %d", code)
	}
	invite := cr.Invite[strings.LastIndex(cr.Invite, "/")+1:]
	if code := c.call("GET", "/api/join/"+invite, "", "", nil); code != http.StatusOK {
		c.t.Fatalf("peek invite: %d", code)
	}
	if code := c.call("POST", "/api/join/"+invite, "", `{"name": "Sironka"}`, &j); code != http.StatusOK || j.Seat == nil {
		c.t.Fatalf("join: %d", code)
	}
	tokens := seatTokens(cr, j)
	c.keep(cr.Game.ID, invite, cr.Invite, tokens[0], tokens[1], play.HashToken(tokens[0]), play.HashToken(tokens[1]))
	return j.Game, tokens
}

// The metrics, scraped over HTTP on their own address, count the load the
// test drove: the requests by route and status, the moves by kind, the
// live connections by role, the searches, the store's commits and pool;
// no label holds a game ID, an invite code or a seat token; and the site
// itself does not serve them.
func TestMetricsShowTheLoad(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The server as package serve wires it: its registry with the
	// process's own metrics, served apart from the site.
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Metrics: reg})
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	site := httptest.NewServer(srv)
	defer site.Close()
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	defer metrics.Close()
	base, metricsURL := site.URL, metrics.URL+"/metrics"
	c := &httpClient{t: t, base: base}

	// Local games: two people on one device.
	const localGames, localMoves = 3, 4
	for range localGames {
		var g gameView
		if code := c.call("POST", "/api/games", "", `{"holes": 6}`, &g); code != http.StatusCreated {
			t.Fatalf("create: %d", code)
		}
		c.keep(g.ID)
		for range localMoves {
			g = c.move(g, "")
		}
	}
	// A game against the computer: one move each.
	var cg gameView
	if code := c.call("POST", "/api/games", "", `{"holes": 4, "seeds": 2, "computer": {"side": "n", "level": 1}}`, &cg); code != http.StatusCreated {
		t.Fatalf("create against the computer: %d", code)
	}
	c.keep(cg.ID)
	cg = c.move(cg, "")
	if code := c.call("POST", "/api/games/"+cg.ID+"/computer", "", "", nil); code != http.StatusOK {
		t.Fatalf("computer's move: %d", code)
	}
	// Online games: moves over HTTP, and one over a live connection.
	const onlineGames = 2
	var httpOnlineMoves int
	var live gameView
	var liveTokens [2]string
	for i := range onlineGames {
		g, tokens := c.online()
		for range 2 {
			g = c.move(g, tokenOf(g, tokens))
			httpOnlineMoves++
		}
		if i == 0 {
			live, liveTokens = g, tokens
		}
	}
	south, north, watcher := dialLive(t, base, live.ID), dialLive(t, base, live.ID), dialLive(t, base, live.ID)
	south.send(map[string]string{"type": "hello", "token": liveTokens[rules.South]})
	north.send(map[string]string{"type": "hello", "token": liveTokens[rules.North]})
	watcher.wait("both seats and a spectator", func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.South && m.Game.Online.Connected.North && m.Game.Online.Watchers == 1
	})
	mover := south
	if live.ToMove == "n" {
		mover = north
	}
	mover.send(map[string]any{"type": "move", "move": live.LegalMoves[0], "ply": len(live.Moves)})
	watcher.wait("the live move", func(m liveMessage) bool { return m.Event == "move" })
	// An analysis; a game that does not exist; a path that is no route.
	if code := c.call("POST", "/api/analyze", "", `{"position": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "timeMs": 50}`, nil); code != http.StatusOK {
		t.Fatalf("analyze: %d", code)
	}
	const missing = "00000000deadbeef"
	if code := c.call("GET", "/api/games/"+missing, "", "", nil); code != http.StatusNotFound {
		t.Fatalf("a missing game: %d", code)
	}
	if code := c.call("GET", "/api/no/such/"+missing, "", "", nil); code != http.StatusNotFound {
		t.Fatalf("no such route: %d", code)
	}
	c.keep(missing)

	fams := scrape(t, metricsURL)
	for _, tc := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"endodoi_http_requests_total", []string{"route", "/api/games", "method", "POST", "code", "201"}, localGames + 1 + onlineGames},
		{"endodoi_http_requests_total", []string{"route", "/api/games/{id}/moves", "method", "POST", "code", "200"},
			localGames*localMoves + 1 + float64(httpOnlineMoves)},
		{"endodoi_http_request_duration_seconds", []string{"route", "/api/games/{id}/moves", "method", "POST"},
			localGames*localMoves + 1 + float64(httpOnlineMoves)},
		{"endodoi_http_requests_total", []string{"route", "/api/games/{id}/computer", "method", "POST", "code", "200"}, 1},
		{"endodoi_http_requests_total", []string{"route", "/api/join/{code}", "method", "GET", "code", "200"}, onlineGames},
		{"endodoi_http_requests_total", []string{"route", "/api/join/{code}", "method", "POST", "code", "200"}, onlineGames},
		{"endodoi_http_requests_total", []string{"route", "/api/analyze", "method", "POST", "code", "200"}, 1},
		{"endodoi_http_requests_total", []string{"route", "/api/games/{id}", "method", "GET", "code", "404"}, 1},
		{"endodoi_http_requests_total", []string{"route", "unmatched", "method", "GET", "code", "404"}, 1},
		// The live connections: upgraded (101), and not timed, as they last.
		{"endodoi_http_requests_total", []string{"route", "/api/games/{id}/live", "method", "GET", "code", "101"}, 3},
		{"endodoi_http_request_duration_seconds", []string{"route", "/api/games/{id}/live"}, -1},
		{"endodoi_moves_total", []string{"kind", "local"}, localGames*localMoves + 1},
		{"endodoi_moves_total", []string{"kind", "computer"}, 1},
		{"endodoi_moves_total", []string{"kind", "online"}, float64(httpOnlineMoves) + 1},
		{"endodoi_live_connections", []string{"role", "player"}, 2},
		{"endodoi_live_connections", []string{"role", "spectator"}, 1},
		{"endodoi_live_connections", []string{"role", "pending"}, 0},
		{"endodoi_live_games", nil, 1},
		{"endodoi_search_slots_busy", nil, 0},
		{"endodoi_search_queued", nil, 0},
		{"endodoi_search_wait_seconds", []string{"outcome", "run"}, 2}, // the computer's move and the analysis
		{"endodoi_store_write_failures_total", nil, 0},
	} {
		if got := value(fams, tc.name, tc.labels...); got != tc.want {
			t.Errorf("%s%v = %v, want %v", tc.name, tc.labels, got, tc.want)
		}
	}
	// Every game, move and seat is a write; SQLite's writer gathers them
	// into transactions, each observed once.
	writes := float64(localGames+1+onlineGames) + localGames*localMoves + 2 + float64(httpOnlineMoves) + 1 + onlineGames
	batch, commit := sample(fams, "endodoi_store_commit_batch_size"), sample(fams, "endodoi_store_commit_duration_seconds")
	if batch == nil || commit == nil {
		t.Fatal("no store commit metrics")
	}
	if b := batch.Histogram; b.GetSampleSum() < writes || b.GetSampleCount() == 0 || b.GetSampleCount() > uint64(b.GetSampleSum()) ||
		b.GetSampleCount() != commit.Histogram.GetSampleCount() {
		t.Errorf("commits: %d batches of %v writes in all, %d timed; want at least %v writes",
			b.GetSampleCount(), b.GetSampleSum(), commit.Histogram.GetSampleCount(), writes)
	}
	if max := value(fams, "endodoi_db_pool_max_connections"); max <= 0 {
		t.Errorf("pool of %v connections", max)
	}
	if value(fams, "endodoi_search_slots") < 1 || value(fams, "go_goroutines") <= 0 || value(fams, "process_open_fds") <= 0 {
		t.Errorf("search slots %v, goroutines %v, open files %v", value(fams, "endodoi_search_slots"),
			value(fams, "go_goroutines"), value(fams, "process_open_fds"))
	}
	// No label holds a secret, or a path.
	for name, f := range fams {
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				v := l.GetValue()
				for _, s := range c.secrets {
					if s != "" && strings.Contains(v, s) {
						t.Errorf("%s: label %s=%q holds a secret", name, l.GetName(), v)
					}
				}
			}
		}
	}
	// The site does not serve the metrics.
	if code := c.call("GET", "/metrics", "", "", nil); code == http.StatusOK {
		t.Errorf("GET /metrics on the site: %d", code)
	}
	cancel()
}

// BenchmarkMoveRoundTripMetrics is BenchmarkMoveRoundTrip with the
// metrics counted: the difference is their cost.
func BenchmarkMoveRoundTripMetrics(b *testing.B) {
	benchMoveRoundTrip(b, Options{Metrics: prometheus.NewRegistry()})
}

// startMeteredInstance is startInstance with metrics, served at the
// returned URL.
func startMeteredInstance(t *testing.T, url, busURL string) (*instance, string) {
	t.Helper()
	b := openTestBus(t, busURL)
	st, err := store.OpenPostgres(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	srv := NewWithOptions(st, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{Metrics: reg, Bus: b})
	ctx, cancel := context.WithCancel(context.Background())
	if err := srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := srv.WaitListening(ctx); err != nil {
		t.Fatal(err)
	}
	in := &instance{st: st, srv: srv, web: httptest.NewServer(srv)}
	mw := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	t.Cleanup(func() {
		mw.Close()
		in.web.Close()
		cancel()
		srv.Close()
		st.Close()
	})
	return in, mw.URL + "/metrics"
}

// Two instances on one PostgreSQL database: the notices of A's moves
// reach B, which measures their lag; each counts its own moves, commits
// one change at a time, and shows its pool.
func TestMetricsInstances(t *testing.T) { forEachBus(t, testMetricsInstances) }

func testMetricsInstances(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, aMetrics := startMeteredInstance(t, url, busURL)
	b, bMetrics := startMeteredInstance(t, url, busURL)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	g, tokens := instancePair(t, ta, tb, `{"online": true, "holes": 4, "seeds": 2}`)
	north := dialLive(t, b.web.URL, g.ID)
	north.send(map[string]string{"type": "hello", "token": tokens[rules.North]})
	const moves = 4
	for i := range moves {
		g = ta.get(g.ID)
		if g.Status != "playing" {
			t.Fatalf("the game ended after %d moves", i)
		}
		ts := ta
		if g.ToMove == "n" {
			ts = tb
		}
		ply := len(g.Moves)
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens),
			fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply), nil); code != http.StatusOK {
			t.Fatalf("move %d: %d %s", i, code, raw)
		}
		north.wait("the move", func(m liveMessage) bool { return m.Game != nil && len(m.Game.Moves) > ply })
	}
	fa, fb := scrape(t, aMetrics), scrape(t, bMetrics)
	if got := value(fa, "endodoi_moves_total", "kind", "online") + value(fb, "endodoi_moves_total", "kind", "online"); got != moves {
		t.Errorf("online moves counted on A and B: %v, want %d", got, moves)
	}
	// B heard at least A's moves and the creation's changes.
	movesOnA := value(fa, "endodoi_moves_total", "kind", "online")
	lag := sample(fb, "endodoi_notice_lag_seconds")
	if lag == nil || float64(lag.Histogram.GetSampleCount()) < movesOnA || movesOnA < 1 {
		t.Fatalf("B's notice lag %v, for %v moves on A", lag, movesOnA)
	}
	if h := lag.Histogram; h.GetSampleSum()/float64(h.GetSampleCount()) > 5 {
		t.Errorf("notices took %v s on average", h.GetSampleSum()/float64(h.GetSampleCount()))
	}
	for name, f := range map[string]map[string]*dto.MetricFamily{"A": fa, "B": fb} {
		if v := value(f, "endodoi_notice_listening"); v != 1 {
			t.Errorf("%s: listening %v", name, v)
		}
		for _, m := range []string{"endodoi_bus_outages_total", "endodoi_bus_notices_dropped_total"} {
			if v := sample(f, m); v == nil || v.Counter.GetValue() != 0 {
				t.Errorf("%s: %s %v, want 0", name, m, v)
			}
		}
		if v := value(f, "endodoi_db_pool_max_connections"); v < 8 {
			t.Errorf("%s: pool of %v connections", name, v)
		}
		if v := value(f, "endodoi_db_pool_connections", "state", "idle") + value(f, "endodoi_db_pool_connections", "state", "in_use"); v < 1 {
			t.Errorf("%s: %v connections open", name, v)
		}
		// PostgreSQL commits each change alone.
		if b := sample(f, "endodoi_store_commit_batch_size"); b == nil || b.Histogram.GetSampleCount() == 0 ||
			b.Histogram.GetSampleSum() != float64(b.Histogram.GetSampleCount()) {
			t.Errorf("%s: commit batches %v", name, b)
		}
	}
}

// BenchmarkInstrument is the metrics' own cost on a request: the route's
// counter and histogram, and the status writer.
func BenchmarkInstrument(b *testing.B) {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/games/{id}/moves", func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
	})
	s := NewWithOptions(nil, slog.New(slog.NewTextHandler(io.Discard, nil)), Options{})
	for _, tc := range []struct {
		name string
		m    *meters
	}{{"off", nil}, {"on", newMeters(prometheus.NewRegistry(), s)}} {
		h := tc.m.instrument(mux)
		b.Run(tc.name, func(b *testing.B) {
			req := httptest.NewRequest("POST", "/api/games/0123456789abcdef/moves", nil)
			w := httptest.NewRecorder()
			for b.Loop() {
				h.ServeHTTP(w, req)
			}
		})
	}
}
