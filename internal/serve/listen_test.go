package serve

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/store"
)

// openStore opens a store of its own for t, closed when t ends.
func openStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// TestListenAndServe serves on a free loopback port: the startup lines,
// the API and the site beside it, the host check, and a graceful stop.
func TestListenAndServe(t *testing.T) {
	st := openStore(t)
	lib := egtb.NewLibrary(filepath.Join(t.TempDir(), "egtb"), egtb.LibraryOptions{})
	defer lib.Close()
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html>")
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outW := io.Pipe()
	var warn strings.Builder
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, st, ListenConfig{Addr: "127.0.0.1:0", Tablebases: lib, Site: site,
			StoreName: "the test database", Out: outW, Warn: &warn, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		outW.Close()
	}()
	lines := bufio.NewScanner(out)
	var got []string
	for len(got) < 3 && lines.Scan() {
		got = append(got, lines.Text())
	}
	go io.Copy(io.Discard, out)
	if len(got) != 3 {
		t.Fatalf("startup lines %q", got)
	}
	url, ok := strings.CutPrefix(got[0], "endodoi: play at ")
	if !ok || !strings.HasPrefix(url, "http://localhost:") || !strings.HasSuffix(url, "/") {
		t.Fatalf("first line %q", got[0])
	}
	if want := "endodoi: games are kept in the test database; press Ctrl-C to stop"; got[1] != want {
		t.Errorf("second line %q, want %q", got[1], want)
	}
	if want := "endodoi: endgame databases in " + lib.Dir(); got[2] != want {
		t.Errorf("third line %q, want %q", got[2], want)
	}
	if warn.Len() > 0 {
		t.Errorf("a warning for a loopback address: %q", warn.String())
	}

	client := &http.Client{Timeout: 10 * time.Second}
	for _, tc := range []struct {
		method, path, host string
		status             int
		ctype              string
	}{
		{"POST", "api/games", "", http.StatusCreated, "application/json"},
		{"GET", "api/games", "", http.StatusOK, "application/json"},
		{"GET", "", "", http.StatusOK, "text/html"},
		{"GET", "api/nothing", "", http.StatusNotFound, "application/json"},
		{"GET", "api/games", "localhost", http.StatusOK, "application/json"},
		// DNS rebinding: a name the server was not told of.
		{"GET", "api/games", "attacker.example", http.StatusMisdirectedRequest, "application/json"},
	} {
		req, err := http.NewRequest(tc.method, url+tc.path, strings.NewReader(`{"holes": 6}`))
		if err != nil {
			t.Fatal(err)
		}
		if tc.method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		if tc.host != "" {
			req.Host = tc.host
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); resp.StatusCode != tc.status || !strings.HasPrefix(got, tc.ctype) {
			t.Errorf("%s /%s (host %q): %d %s, want %d %s", tc.method, tc.path, tc.host, resp.StatusCode, got, tc.status, tc.ctype)
		}
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("stopping: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not stop")
	}
	// Stopped: the games are in the store, which is still open.
	games, err := st.Games(context.Background(), 10, 0)
	if err != nil || len(games) != 1 {
		t.Errorf("after the stop: %d games, %v", len(games), err)
	}
}

func TestListenAndServeTaken(t *testing.T) {
	st := openStore(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var out strings.Builder
	err = ListenAndServe(context.Background(), st, ListenConfig{Addr: ln.Addr().String(), Out: &out})
	if err == nil || !strings.HasPrefix(err.Error(), "listening on "+ln.Addr().String()+": ") || !strings.Contains(err.Error(), "choose another with --addr") {
		t.Errorf("an address in use: %v", err)
	}
	if out.Len() > 0 {
		t.Errorf("startup lines of a server that did not start: %q", out.String())
	}
	// The address was checked before the start's work.
	if _, ok, err := st.Alive(context.Background()); ok || err != nil {
		t.Errorf("a server refused its address started: alive %t, %v", ok, err)
	}
}

// slowStart is a store whose first Alive, the start's first step, waits
// for release.
type slowStart struct {
	store.Store
	started chan struct{}
	release chan struct{}
}

func (s *slowStart) Alive(ctx context.Context) (time.Time, bool, error) {
	select {
	case <-s.started:
	default:
		close(s.started)
		<-s.release
	}
	return s.Store.Alive(ctx)
}

// TestListensOnceStarted: while the server's start is under way, a
// client that connects is refused at once, rather than left waiting in
// a listener nobody serves yet; once it has started, it is served.
func TestListensOnceStarted(t *testing.T) {
	st := openStore(t)
	free, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := free.Addr().String()
	free.Close()
	slow := &slowStart{Store: st, started: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, slow, ListenConfig{Addr: addr, Out: outW, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		outW.Close()
	}()
	<-slow.started
	if c, err := net.DialTimeout("tcp", addr, 5*time.Second); err == nil {
		c.Close()
		t.Errorf("a connection to %s was taken while the server was starting", addr)
	} else if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("connecting while the server was starting: %v, want a refusal", err)
	}
	close(slow.release)
	lines := bufio.NewScanner(out)
	if !lines.Scan() || !strings.HasPrefix(lines.Text(), "endodoi: play at ") {
		t.Fatalf("first line %q", lines.Text())
	}
	go io.Copy(io.Discard, out)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + addr + "/api/games")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("once started: %s", resp.Status)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("stopping: %v", err)
	}
}

func TestStartupLines(t *testing.T) {
	for _, tc := range []struct {
		addr       net.Addr
		play, warn string
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, "http://localhost:8080/", ""},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, "http://localhost:8080/", ""},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 9000}, "http://localhost:9000/", "listening on 0.0.0.0:9000, reachable from other computers"},
		{&net.TCPAddr{IP: net.IPv6unspecified, Port: 9000}, "http://localhost:9000/", "listening on [::]:9000, reachable from other computers"},
		{&net.TCPAddr{IP: net.IPv4(192, 0, 2, 7), Port: 80}, "http://192.0.2.7:80/", "listening on 192.0.2.7:80, reachable from other computers"},
	} {
		var out, warn strings.Builder
		writeStartup(ListenConfig{StoreName: "games.db", Out: &out, Warn: &warn}, tc.addr)
		want := "endodoi: play at " + tc.play + "\nendodoi: games are kept in games.db; press Ctrl-C to stop\n"
		if out.String() != want {
			t.Errorf("%v: %q, want %q", tc.addr, out.String(), want)
		}
		if tc.warn == "" && warn.Len() > 0 || !strings.Contains(warn.String(), tc.warn) ||
			tc.warn != "" && !strings.HasPrefix(warn.String(), "endodoi: WARNING: ") {
			t.Errorf("%v: warning %q, want one with %q", tc.addr, warn.String(), tc.warn)
		}
	}
	// Nowhere to write is no failure.
	writeStartup(ListenConfig{}, &net.TCPAddr{IP: net.IPv4zero})
}

// A server on loopback prints the address a browser can use passkeys at,
// http://localhost:PORT/, and sends pages opened at a loopback address
// there; the API, the page's files and programs are served where they ask.
func TestLocalhostPages(t *testing.T) {
	site := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "page") })
	h := LocalhostPages(site)
	for _, tc := range []struct {
		method, target, host string
		headers              map[string]string
		location             string // "" for no redirect
	}{
		{"GET", "/", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Mode": "navigate"}, "http://localhost:8080/"},
		{"GET", "/?lang=sw", "127.0.0.1:8080", map[string]string{"Accept": "text/html,application/xhtml+xml"}, "http://localhost:8080/?lang=sw"},
		{"GET", "/", "[::1]:9000", map[string]string{"Sec-Fetch-Mode": "navigate"}, "http://localhost:9000/"},
		{"HEAD", "/", "127.0.0.2:8080", map[string]string{"Sec-Fetch-Mode": "navigate"}, "http://localhost:8080/"},
		{"GET", "/", "localhost:8080", map[string]string{"Sec-Fetch-Mode": "navigate"}, ""},
		{"GET", "/", "192.0.2.7:8080", map[string]string{"Sec-Fetch-Mode": "navigate"}, ""},
		{"GET", "/static/js/main.js", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Mode": "no-cors"}, ""},
		{"GET", "/", "127.0.0.1:8080", map[string]string{"Accept": "*/*"}, ""}, // curl
		{"GET", "/api/games", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Mode": "navigate", "Accept": "text/html"}, ""},
		{"POST", "/", "127.0.0.1:8080", map[string]string{"Sec-Fetch-Mode": "navigate"}, ""},
	} {
		req := httptest.NewRequest(tc.method, tc.target, nil)
		req.Host = tc.host
		for k, v := range tc.headers {
			req.Header.Set(k, v)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if got := rec.Header().Get("Location"); got != tc.location || (tc.location == "") != (rec.Code == 200) {
			t.Errorf("%s %s at %s %v: %d to %q, want %q", tc.method, tc.target, tc.host, tc.headers, rec.Code, got, tc.location)
		}
	}
}
