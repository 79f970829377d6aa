package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServe starts the browser game on a free port, creates a game through
// the API, loads the page, and stops it; the game is in the data folder.
func TestServe(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data}, Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: &stderr})
		w.Close()
	}()
	lines := bufio.NewScanner(out)
	if !lines.Scan() {
		t.Fatalf("serve printed nothing; stderr %q", stderr.String())
	}
	first := lines.Text()
	url, ok := strings.CutPrefix(first, "endodoi: play at ")
	if !ok {
		t.Fatalf("first line %q", first)
	}
	go io.Copy(io.Discard, out)
	client := &http.Client{Timeout: 10 * time.Second}
	for _, tc := range []struct{ method, path, ctype string }{
		{"POST", "api/games", "application/json"},
		{"GET", "api/games", "application/json"},
		{"GET", "", "text/html"},
		{"GET", "api/nothing", "application/json"},
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(`{"holes": 6}`))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); !strings.HasPrefix(got, tc.ctype) {
			t.Errorf("%s /%s: %d %s, want %s", tc.method, tc.path, resp.StatusCode, got, tc.ctype)
		}
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("serve exited with %d: %s", code, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := os.Stat(filepath.Join(data, "games.db")); err != nil {
		t.Errorf("no database: %v", err)
	}
}

func TestServeErrors(t *testing.T) {
	if code, _, errOut := run(t, "", "serve", "extra"); code != 2 || !strings.Contains(errOut, "unexpected argument") {
		t.Errorf("extra argument: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "", "serve", "--addr", "127.0.0.1:99999", "--data", t.TempDir()); code != 1 || !strings.Contains(errOut, "listening on") {
		t.Errorf("bad address: %d %q", code, errOut)
	}
}
