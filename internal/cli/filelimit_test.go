//go:build linux

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// noFileEnv, "soft:hard", sets the open-file limits of the server a test
// starts: it is this binary (TestMain), which sets them before anything
// else.
const noFileEnv = "ENDODOI_TEST_NOFILE"

// raceMemory is how many times the memory a server takes under the race
// detector (race_test.go).
var raceMemory = 1

func init() {
	soft, hard, ok := strings.Cut(os.Getenv(noFileEnv), ":")
	if !ok {
		return
	}
	s, err1 := strconv.ParseUint(soft, 10, 64)
	h, err2 := strconv.ParseUint(hard, 10, 64)
	if err1 != nil || err2 != nil {
		fmt.Fprintf(os.Stderr, "%s=%q: want soft:hard\n", noFileEnv, os.Getenv(noFileEnv))
		os.Exit(2)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: s, Max: h}); err != nil {
		fmt.Fprintf(os.Stderr, "setting the open-file limit: %v\n", err)
		os.Exit(2)
	}
}

// procField returns a line's fields of /proc/pid/file that starts with
// prefix.
func procField(t *testing.T, pid int, file, prefix string) []string {
	t.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/%s", pid, file))
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return strings.Fields(rest)
		}
	}
	t.Fatalf("no %q in /proc/%d/%s", prefix, pid, file)
	return nil
}

// A server whose process may open 256 files at most, one client opening
// live connections without end: the server raises its soft limit to the
// hard one, refuses the connections beyond its reserve with 503, and goes
// on answering the other clients' ordinary requests as fast as without
// the attacker; its memory stays bounded.
func TestServeKeepsAFileReserve(t *testing.T) {
	t.Setenv(noFileEnv, "128:256")
	p := startServerAt(t, t.TempDir(), "127.0.0.1:0", "--behind-proxy", "--live-per-client", "100000", "--egtb-build=false")
	pid := p.cmd.Process.Pid
	if got := procField(t, pid, "limits", "Max open files"); got[0] != "256" || got[1] != "256" {
		t.Errorf("the server's open-file limits: %v, want the soft one raised to the hard 256", got[:2])
	}
	base := strings.TrimSuffix(p.url, "/")
	client := &http.Client{Timeout: 10 * time.Second}
	call := func(from, method, path, body string, out any) (int, error) {
		req, err := http.NewRequest(method, base+path, strings.NewReader(body))
		if err != nil {
			return 0, err
		}
		req.Header.Set("X-Forwarded-For", from)
		if method == "POST" {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		if out != nil {
			return resp.StatusCode, json.NewDecoder(resp.Body).Decode(out)
		}
		io.Copy(io.Discard, resp.Body)
		return resp.StatusCode, nil
	}
	type game struct {
		ID string `json:"id"`
	}
	// The victim: a game made, a move played, the game read.
	play := func(n int) []time.Duration {
		var took []time.Duration
		for i := range n {
			start := time.Now()
			var g game
			if code, err := call("198.51.100.10", "POST", "/api/games", `{"holes": 6}`, &g); code != 201 || err != nil {
				t.Fatalf("victim's game %d: %d %v; stderr %s", i, code, err, p.stderr)
			}
			if code, err := call("198.51.100.10", "POST", "/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`, nil); code != 200 || err != nil {
				t.Fatalf("victim's move %d: %d %v", i, code, err)
			}
			if code, err := call("198.51.100.10", "GET", "/api/games/"+g.ID, "", nil); code != 200 || err != nil {
				t.Fatalf("victim's read %d: %d %v", i, code, err)
			}
			took = append(took, time.Since(start))
		}
		return took
	}
	calm := play(20)
	var target game
	if code, err := call("192.0.2.50", "POST", "/api/games", `{}`, &target); code != 201 || err != nil {
		t.Fatalf("target: %d %v", code, err)
	}
	rss := func() int {
		kb, _ := strconv.Atoi(procField(t, pid, "status", "VmRSS:")[0])
		return kb
	}
	before := rss()
	ws := "ws" + strings.TrimPrefix(base, "http") + "/api/games/" + target.ID + "/live"
	var held []*websocket.Conn
	defer func() {
		for _, c := range held {
			c.CloseNow()
		}
	}()
	refused := 0
	for i := range 400 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		c, resp, err := websocket.Dial(ctx, ws, &websocket.DialOptions{HTTPHeader: http.Header{"X-Forwarded-For": {"203.0.113.66"}}})
		cancel()
		if err == nil {
			held = append(held, c)
			continue
		}
		if resp == nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("connection %d: %v; stderr %s", i, err, p.stderr)
		}
		refused++
	}
	grown := rss() - before
	t.Logf("attacker: %d live connections held, %d refused; the server's memory grew by %d KB", len(held), refused, grown)
	if len(held) > 256-64 || refused == 0 {
		t.Errorf("%d live connections held, %d refused, under a limit of 256 open files", len(held), refused)
	}
	// About 50 KB a connection: its buffers, goroutines and their stacks.
	if limit := 192 * 128 * raceMemory; grown > limit {
		t.Errorf("the server's memory grew by %d MB, over %d MB", grown>>10, limit>>10)
	}
	attacked := play(20)
	limit := 4*slices.Max(calm) + 300*time.Millisecond
	t.Logf("victim: slowest %v without the attacker, %v with it (limit %v)", slices.Max(calm), slices.Max(attacked), limit)
	if slices.Max(attacked) > limit {
		t.Errorf("victim: slowest %v under attack, over %v", slices.Max(attacked), limit)
	}
	if strings.Contains(p.stderr.String(), "too many open files") {
		t.Errorf("the server ran out of files: %s", p.stderr)
	}
}
