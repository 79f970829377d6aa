package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// newRealServer serves the API over a fresh SQLite store.
func newRealServer(t *testing.T) *httptest.Server {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil))))
	t.Cleanup(func() {
		ts.Close()
		st.Close()
	})
	return ts
}

func TestRunRealServer(t *testing.T) {
	ts := newRealServer(t)
	var progress bytes.Buffer
	rep, err := Run(context.Background(), Config{
		BaseURL: ts.URL, Games: 20, Duration: 1500 * time.Millisecond, Check: true, Seed: 1,
		Progress: &progress, ProgressInterval: 500 * time.Millisecond,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", rep)
	if n := rep.ErrorCount(); n != 0 {
		t.Errorf("%d errors: %v %v", n, rep.Errors, rep.FirstErrors)
	}
	if rep.Acked == 0 || rep.Acked != int64(rep.MoveLatency.N) || rep.Offered < rep.Acked {
		t.Errorf("moves: %d sent, %d acknowledged, %d samples", rep.Offered, rep.Acked, rep.MoveLatency.N)
	}
	if rep.GamesCreated < 20 || int(rep.GamesCreated) != len(rep.Games) {
		t.Errorf("%d games created, %d logged", rep.GamesCreated, len(rep.Games))
	}
	var logged int64
	for _, g := range rep.Games {
		logged += int64(len(g.Moves))
	}
	if logged != rep.Acked {
		t.Errorf("%d moves logged, %d acknowledged", logged, rep.Acked)
	}
	if rep.Check == nil || rep.Check.Lost != 0 || rep.Check.Failed() || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check: %+v", rep.Check)
	}
	if rep.Failed() {
		t.Error("the run failed")
	}
	if !strings.Contains(progress.String(), "moves acked") {
		t.Errorf("progress %q", progress.String())
	}
}

func TestRefusesOtherHosts(t *testing.T) {
	defer func(f func(context.Context, string) ([]net.IPAddr, error)) { lookupIPAddr = f }(lookupIPAddr)
	lookupIPAddr = func(ctx context.Context, host string) ([]net.IPAddr, error) {
		switch host {
		case "mixed.test": // one loopback address is not enough
			return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 1)}, {IP: net.ParseIP("192.0.2.7")}}, nil
		case "loop.test":
			return []net.IPAddr{{IP: net.IPv4(127, 0, 0, 2)}, {IP: net.IPv6loopback}}, nil
		case "none.test":
			return nil, nil
		}
		return net.DefaultResolver.LookupIPAddr(ctx, host)
	}
	for _, u := range []string{
		"http://192.0.2.1:8080", "http://[2001:db8::1]:8080", "http://0.0.0.0:8080", "http://[::ffff:192.0.2.1]:80",
		"http://mixed.test:8080", "http://none.test", "http://example.invalid:8080",
		"ftp://127.0.0.1/", "127.0.0.1:8080", "http://:8080", "http://%zz",
	} {
		rep, err := Run(context.Background(), Config{BaseURL: u, Games: 1, Duration: time.Second})
		if err == nil || rep != nil {
			t.Errorf("%s: no error", u)
		}
		if _, err := Check(context.Background(), u, nil); err == nil {
			t.Errorf("check %s: no error", u)
		}
	}
	for _, u := range []string{"http://127.0.0.1:8080", "http://127.9.9.9", "https://[::1]:8443/", "http://loop.test:8080", "http://[::ffff:127.0.0.1]:80"} {
		if _, err := target(context.Background(), u); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	// The dialer checks the address it dials, whatever resolved it.
	for addr, ok := range map[string]bool{"127.0.0.1:80": true, "[::1]:80": true, "192.0.2.1:80": false, "[2001:db8::1]:80": false} {
		if err := loopbackOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("dial %s: %v", addr, err)
		}
	}
}

func TestBounds(t *testing.T) {
	ok := Config{BaseURL: "http://192.0.2.1:1", Games: 1, Duration: time.Second}
	for name, change := range map[string]func(*Config){
		"no games":        func(c *Config) { c.Games = 0 },
		"too many games":  func(c *Config) { c.Games = MaxGames + 1 },
		"no duration":     func(c *Config) { c.Duration = 0 },
		"too long":        func(c *Config) { c.Duration = MaxDuration + time.Second },
		"negative rate":   func(c *Config) { c.Rate = -1 },
		"NaN rate":        func(c *Config) { c.Rate = math.NaN() },
		"too fast":        func(c *Config) { c.Rate = MaxRate + 1 },
		"holes":           func(c *Config) { c.Holes = 1 },
		"seeds":           func(c *Config) { c.Seeds = 99 },
		"negative timout": func(c *Config) { c.Timeout = -time.Second },
	} {
		c := ok
		change(&c)
		if _, err := Run(context.Background(), c); err == nil || strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v, want a bounds error", name, err)
		}
	}
}

func TestValidate(t *testing.T) {
	ok := Config{Games: 1, Rate: 1, Duration: 20 * time.Second, Holes: 6, Seeds: 4, Timeout: time.Second}
	if err := ok.Validate(); err != nil {
		t.Fatalf("a sound config: %v", err)
	}
	online := ok
	online.Online, online.Ramp, online.ExpectRestart, online.PeerURL = true, time.Second, true, "http://127.0.0.1:8081"
	if err := online.Validate(); err != nil {
		t.Fatalf("a sound online config: %v", err)
	}
	for _, tc := range []struct {
		cfg    Config
		change func(*Config)
		want   string
	}{
		{ok, func(c *Config) { c.Games = 0 }, "--games 0 out of range (1 to 10000)"},
		{ok, func(c *Config) { c.Rate = math.NaN() }, "--rate NaN out of range (0 to 1000)"},
		{ok, func(c *Config) { c.Rate = -1 }, "--rate -1 out of range (0 to 1000)"},
		{ok, func(c *Config) { c.Duration = 11 * time.Minute }, "--duration 11m0s out of range (above 0, up to 10m0s)"},
		{ok, func(c *Config) { c.Holes = 0 }, "--holes 0 out of range (2 to 16)"},
		{ok, func(c *Config) { c.Seeds = 0 }, "--seeds 0 out of range (1 to " + strconv.Itoa(rules.MaxStartSeeds) + ")"},
		{ok, func(c *Config) { c.Timeout = 0 }, "--timeout 0s: want a positive duration"},
		{ok, func(c *Config) { c.Ramp = time.Second }, "--peer, --ramp and --expect-restart go with --online"},
		{ok, func(c *Config) { c.ExpectRestart = true }, "--peer, --ramp and --expect-restart go with --online"},
		{ok, func(c *Config) { c.PeerURL = "http://127.0.0.1:8081" }, "--peer, --ramp and --expect-restart go with --online"},
		{online, func(c *Config) { c.Rate = 0 }, "--rate 0 out of range with --online (above 0, up to 20: the server allows each connection 20 messages a second)"},
		{online, func(c *Config) { c.Ramp = c.Duration }, "--ramp 20s out of range (0 up to less than --duration 20s)"},
		{online, func(c *Config) { c.Ramp = -time.Second }, "--ramp -1s out of range (0 up to less than --duration 20s)"},
	} {
		c := tc.cfg
		tc.change(&c)
		if err := c.Validate(); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", c, err, tc.want)
		}
	}
	// Run fills in the zero fields before validating.
	zero := Config{BaseURL: "http://192.0.2.1:1", Games: 1, Duration: time.Second}
	if _, err := Run(context.Background(), zero); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Errorf("a config with its defaults to fill in: %v, want the loopback refusal", err)
	}
}

// fakeServer plays games of at most 30 moves between the legal moves a and
// b, and misbehaves on purpose: it answers some moves 500 or 503, and it
// stores only the first four moves of every game while acknowledging all.
type fakeServer struct {
	mu       sync.Mutex
	games    map[string]*fakeGame
	moves    int // move requests
	statuses map[int]int
	bodies   int  // requests without the JSON content type
	healthy  bool // no 500 or 503
}

type fakeGame struct{ answered, stored []string }

func newFakeServer() *fakeServer {
	return &fakeServer{games: map[string]*fakeGame{}, statuses: map[int]int{}}
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method == "POST" && r.Header.Get("Content-Type") != "application/json" {
		f.bodies++
	}
	reply := func(status int, v any) {
		f.statuses[status]++
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		json.NewEncoder(w).Encode(v)
	}
	view := func(id string, moves []string) map[string]any {
		status, legal := "playing", []string{"a", "b"}
		if len(moves) >= 30 {
			status, legal = "no-legal-move", []string{}
		}
		return map[string]any{"id": id, "moves": moves, "legalMoves": legal, "status": status}
	}
	switch {
	case r.Method == "POST" && r.URL.Path == "/api/games":
		id := fmt.Sprintf("g%d", len(f.games))
		f.games[id] = &fakeGame{answered: []string{}, stored: []string{}}
		reply(http.StatusCreated, view(id, []string{}))
	case r.Method == "POST" && strings.HasSuffix(r.URL.Path, "/moves"):
		g := f.games[strings.TrimSuffix(strings.TrimPrefix(r.URL.Path, "/api/games/"), "/moves")]
		var req struct {
			Move string
			Ply  int
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || g == nil || req.Ply != len(g.answered) {
			reply(http.StatusConflict, map[string]string{"error": "stale"})
			return
		}
		f.moves++
		switch {
		case f.healthy:
		case f.moves%7 == 0:
			reply(http.StatusInternalServerError, map[string]string{"error": "broken"})
			return
		case f.moves%11 == 0:
			w.Header().Set("Retry-After", "1")
			reply(http.StatusServiceUnavailable, map[string]string{"error": "busy"})
			return
		}
		g.answered = append(g.answered, req.Move)
		if len(g.answered) < 5 {
			g.stored = append(g.stored, req.Move)
		}
		reply(http.StatusOK, map[string]any{"game": view("", g.answered), "sowing": map[string]any{}})
	case r.Method == "GET":
		id := strings.TrimPrefix(r.URL.Path, "/api/games/")
		if g := f.games[id]; g != nil {
			reply(http.StatusOK, view(id, g.stored))
			return
		}
		reply(http.StatusNotFound, map[string]string{"error": "no such game"})
	default:
		reply(http.StatusNotFound, map[string]string{"error": "no such endpoint"})
	}
}

func TestErrorsAndLostMoves(t *testing.T) {
	f := newFakeServer()
	ts := httptest.NewServer(f)
	defer ts.Close()
	before := runtime.NumGoroutine()
	rep, err := Run(context.Background(), Config{BaseURL: ts.URL, Games: 8, Duration: time.Second, Check: true, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%v", rep)
	f.mu.Lock()
	want := map[string]int{"HTTP 500": f.statuses[500], "HTTP 503": f.statuses[503]}
	conflicts, bodies := f.statuses[409], f.bodies
	f.mu.Unlock()
	if conflicts != 0 || bodies != 0 {
		t.Errorf("%d stale plies, %d requests without the JSON type", conflicts, bodies)
	}
	if want["HTTP 500"] == 0 || want["HTTP 503"] == 0 {
		t.Fatalf("the fake answered no errors: %v", want)
	}
	for k, n := range want {
		if rep.Errors[k] != n {
			t.Errorf("%s: %d counted, %d sent", k, rep.Errors[k], n)
		}
	}
	if len(rep.Errors) != 2 || !rep.Failed() {
		t.Errorf("errors %v, failed %v", rep.Errors, rep.Failed())
	}
	lost, finished := 0, 0
	for _, g := range rep.Games {
		if len(g.Moves) >= 5 {
			lost += len(g.Moves) - 4
		}
		if len(g.Moves) == 30 {
			finished++
		}
	}
	if lost == 0 || rep.Check == nil || rep.Check.Lost != lost || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check %+v, want %d lost of %d games", rep.Check, lost, len(rep.Games))
	}
	if int64(finished) != rep.GamesFinished {
		t.Errorf("%d games finished, %d counted", finished, rep.GamesFinished)
	}
	if !strings.Contains(rep.String(), "LOST") || !strings.Contains(rep.String(), "HTTP 503 × ") {
		t.Errorf("summary:\n%s", rep)
	}
	// A game the server forgot entirely loses every acknowledged move.
	res, err := Check(context.Background(), ts.URL, []GameLog{{ID: "nope", Moves: []string{"a", "b"}}})
	if err != nil || res.LostGames != 1 || res.Lost != 2 {
		t.Errorf("forgotten game: %+v %v", res, err)
	}
	// No goroutine of the run is left once the server's are gone.
	ts.CloseClientConnections()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after the run, %d before", n, before)
	}
}

// TestRate checks the schedule: at 20 moves a second, 5 games send about
// 100 requests in a second, and never more than the slots allow.
func TestRate(t *testing.T) {
	f := newFakeServer()
	f.healthy = true
	ts := httptest.NewServer(f)
	defer ts.Close()
	rep, err := Run(context.Background(), Config{BaseURL: ts.URL, Games: 5, Rate: 20, Duration: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	sent := rep.Offered + rep.CreatesSent
	if sent > 5*21 || sent < 50 {
		t.Errorf("%d requests at 5 games × 20/s for 1 s", sent)
	}
	if rep.ErrorCount() != 0 {
		t.Errorf("errors %v %v", rep.Errors, rep.FirstErrors)
	}
}

func TestCancel(t *testing.T) {
	ts := httptest.NewServer(newFakeServer())
	defer ts.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	rep, err := Run(ctx, Config{BaseURL: ts.URL, Games: 3, Rate: 50, Duration: time.Minute, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v after the cancel", d)
	}
	if !rep.Interrupted || rep.Check != nil || rep.Acked == 0 {
		t.Errorf("interrupted %v, check %v, %d acknowledged", rep.Interrupted, rep.Check, rep.Acked)
	}
}

func TestLatency(t *testing.T) {
	var s []time.Duration
	for i := 1000; i >= 1; i-- {
		s = append(s, time.Duration(i)*time.Millisecond)
	}
	l := summarize(s)
	want := Latency{N: 1000, P50: 500 * time.Millisecond, P90: 900 * time.Millisecond, P99: 990 * time.Millisecond,
		P999: 999 * time.Millisecond, Max: time.Second}
	if l != want {
		t.Errorf("got %+v, want %+v", l, want)
	}
	if got := summarize(nil).String(); got != "no samples" {
		t.Errorf("no samples: %q", got)
	}
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := group(n); got != want {
			t.Errorf("group(%d) = %q", n, got)
		}
	}
	for d, want := range map[time.Duration]string{410 * time.Microsecond: "0.41 ms", 12340 * time.Microsecond: "12.3 ms", 2 * time.Second: "2,000 ms"} {
		if got := ms(d); got != want {
			t.Errorf("ms(%v) = %q", d, got)
		}
	}
}
