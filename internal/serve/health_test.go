package serve

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/store"
)

// probe answers the status of GET path on the server at url, with Host
// host if not empty.
func probe(t *testing.T, c *http.Client, method, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// The probes answer whatever the Host, unlike the API; /readyz says 503
// at once when the server is told to stop, while it drains: the requests
// in flight and the new ones are still served, the live connections are
// told the server is going away once it stops accepting, and the request
// in flight finishes rather than being cut off.
func TestHealthAndStop(t *testing.T) {
	var logs lockedBuffer
	s := startServing(t, ListenConfig{DrainTime: time.Second, ShutdownTimeout: 10 * time.Second,
		Log: slog.New(slog.NewTextHandler(&logs, nil))})
	c := &http.Client{Timeout: 10 * time.Second}
	for _, tc := range []struct {
		method, path, host string
		status             int
	}{
		{"GET", "healthz", "", http.StatusOK},
		{"GET", "readyz", "", http.StatusOK},
		{"HEAD", "readyz", "", http.StatusOK},
		// A load balancer probing by address.
		{"GET", "healthz", "10.1.2.3:8080", http.StatusOK},
		{"GET", "readyz", "10.1.2.3:8080", http.StatusOK},
		{"POST", "readyz", "", http.StatusMethodNotAllowed},
		// The API still refuses a name it was not given.
		{"GET", "api/games", "10.1.2.3:8080", http.StatusMisdirectedRequest},
	} {
		if code, body := probe(t, c, tc.method, s.url+tc.path, tc.host); code != tc.status {
			t.Errorf("%s /%s (Host %q): %d %q, want %d", tc.method, tc.path, tc.host, code, body, tc.status)
		}
	}

	id := newGame(t, c, s.url)
	ws, _, err := websocket.Dial(context.Background(), "ws"+strings.TrimPrefix(s.url, "http")+"api/games/"+id+"/live", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	closed := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.Read(context.Background()); err != nil {
				closed <- err
				return
			}
		}
	}()

	// An analysis in flight when the stop begins.
	analysis := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.url+"api/analyze",
			strings.NewReader(`{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "timeMs": 1500}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			t.Errorf("the analysis in flight: %v", err)
			analysis <- 0
			return
		}
		resp.Body.Close()
		analysis <- resp.StatusCode
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	stopped := make(chan error, 1)
	go func() { stopped <- s.stop() }()

	time.Sleep(100 * time.Millisecond)
	if code, body := probe(t, c, "GET", s.url+"readyz", ""); code != http.StatusServiceUnavailable || !strings.Contains(body, "stopping") {
		t.Errorf("GET /readyz while stopping: %d %q, want 503", code, body)
	}
	if code, _ := probe(t, c, "GET", s.url+"healthz", ""); code != http.StatusOK {
		t.Errorf("GET /healthz while draining: %d, want 200", code)
	}
	if code, _ := probe(t, c, "GET", s.url+"api/games", ""); code != http.StatusOK {
		t.Errorf("GET /api/games while draining: %d, want 200", code)
	}
	select {
	case err := <-closed:
		t.Errorf("the live connection ended during the drain: %v", err)
	default:
	}

	select {
	case err := <-closed:
		if websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Errorf("the live connection ended with %v, want going away", err)
		}
		if d := time.Since(start); d < 900*time.Millisecond {
			t.Errorf("the live connection was closed %v after the stop began, before the drain's end", d)
		}
	case <-time.After(5 * time.Second):
		t.Error("the live connection was not closed")
	}
	if code := <-analysis; code != http.StatusOK {
		t.Errorf("the analysis in flight: %d, want 200", code)
	}
	if err := <-stopped; err != nil {
		t.Errorf("ListenAndServe: %v", err)
	}
	if _, err := net.DialTimeout("tcp", strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/"), time.Second); err == nil {
		t.Error("connections still accepted after the stop")
	}
	if out := logs.String(); !strings.Contains(out, "draining") || strings.Contains(out, "cut off") {
		t.Errorf("the log of the stop:\n%s", out)
	}
}

// Without a probe, no load balancer needs telling: the stop does not wait
// for the drain.
func TestStopUnprobedSkipsDrain(t *testing.T) {
	s := startServing(t, ListenConfig{DrainTime: 5 * time.Second})
	start := time.Now()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the stop took %v", d)
	}
}

// A request still running at the shutdown timeout is cut off, and the
// server stops in time.
func TestStopTimeout(t *testing.T) {
	s := startServing(t, ListenConfig{ShutdownTimeout: 500 * time.Millisecond})
	c := &http.Client{Timeout: 10 * time.Second}
	done := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", s.url+"api/analyze",
			strings.NewReader(`{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "timeMs": 8000}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.Do(req)
		if err != nil {
			done <- 0
			return
		}
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	time.Sleep(200 * time.Millisecond)
	start := time.Now()
	if err := s.stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the stop took %v with a timeout of 0.5 s", d)
	}
	select {
	case <-done:
	case <-time.After(3 * time.Second):
		t.Error("the request still runs after the stop")
	}
}

// waitStatus polls GET url until it answers want, for up to limit, and
// returns how long that took.
func waitStatus(t *testing.T, c *http.Client, url string, want int, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		code, body := probe(t, c, "GET", url, "")
		if code == want {
			return time.Since(start)
		}
		if time.Since(start) > limit {
			t.Fatalf("GET %s: %d %q after %v, want %d", url, code, body, limit, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// On PostgreSQL, /readyz says 503 when the database cannot be reached and
// 200 again once it can, the notice listener connected again.
func TestReadyDatabaseCut(t *testing.T) {
	u, err := url.Parse(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	proxy := pgtest.NewProxy(t, u.Host)
	u.Host = proxy.Addr()
	st, err := store.OpenPostgres(context.Background(), u.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	if err := st.Listening(); !errors.Is(err, store.ErrNotListening) {
		t.Errorf("listening before any Listen: %v", err)
	}
	var logs lockedBuffer
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, st, ListenConfig{Addr: "127.0.0.1:0", Out: outW, Log: slog.New(slog.NewTextHandler(&logs, nil))})
		outW.Close()
	}()
	line, err := readLine(out)
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, out)
	base := strings.TrimPrefix(line, "endodoi: play at ")
	c := &http.Client{Timeout: 5 * time.Second}
	// The server serves once its listener is connected: ready at once.
	if code, body := probe(t, c, "GET", base+"readyz", ""); code != http.StatusOK {
		t.Fatalf("GET /readyz at the start: %d %q", code, body)
	}
	proxy.Refuse(true)
	proxy.Cut()
	d := waitStatus(t, c, base+"readyz", http.StatusServiceUnavailable, 5*time.Second)
	t.Logf("not ready %v after the cut", d)
	if code, body := probe(t, c, "GET", base+"readyz", ""); !strings.Contains(body, "not ready") || strings.Contains(body, proxy.Addr()) {
		t.Errorf("GET /readyz with the database cut: %d %q", code, body)
	}
	if code, _ := probe(t, c, "GET", base+"healthz", ""); code != http.StatusOK {
		t.Errorf("GET /healthz with the database cut: %d, want 200 (alive)", code)
	}
	proxy.Refuse(false)
	d = waitStatus(t, c, base+"readyz", http.StatusOK, 15*time.Second)
	t.Logf("ready %v after the database came back", d)
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); !strings.Contains(out, "not ready") || !strings.Contains(out, "ready again") {
		t.Errorf("the log does not tell of the outage:\n%s", out)
	}
}

// readLine reads the first line of r.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for {
		if _, err := r.Read(one); err != nil {
			return string(b), err
		}
		if one[0] == '\n' {
			return string(b), nil
		}
		b = append(b, one[0])
	}
}
