package cli

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/store"
)

// TestServe starts the browser game on a free port, checks its startup
// lines and that the page and the API are served (the server's own
// behaviour is tested in package server), and stops it: the game is in
// the data folder, and the last line says so.
func TestServe(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	out, w := io.Pipe()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--data", data, "--egtb-build=false"}, Env{Stdin: strings.NewReader(""), Stdout: w, Stderr: &stderr})
		w.Close()
	}()
	lines := bufio.NewScanner(out)
	var got []string
	for len(got) < 3 && lines.Scan() {
		got = append(got, lines.Text())
	}
	if len(got) != 3 {
		t.Fatalf("serve printed %q; stderr %q", got, stderr.String())
	}
	url, ok := strings.CutPrefix(got[0], "endodoi: play at http://localhost:")
	if !ok {
		t.Fatalf("first line %q", got[0])
	}
	url = "http://localhost:" + url
	for i, want := range []string{
		"endodoi: games are kept in " + filepath.Join(data, "games.db") + "; press Ctrl-C to stop",
		"endodoi: endgame databases in " + filepath.Join(data, "egtb"),
	} {
		if got[i+1] != want {
			t.Errorf("line %d: %q, want %q", i+2, got[i+1], want)
		}
	}
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(out)
		rest <- string(b)
	}()
	client := &http.Client{Timeout: 10 * time.Second}
	for _, tc := range []struct{ method, path, ctype string }{
		{"POST", "api/games", "application/json"},
		{"GET", "", "text/html"},
	} {
		req, _ := http.NewRequest(tc.method, url+tc.path, strings.NewReader(`{"holes": 6}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if got := resp.Header.Get("Content-Type"); resp.StatusCode >= 300 || !strings.HasPrefix(got, tc.ctype) {
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
	if last := <-rest; last != "endodoi: stopped; every move was saved\n" {
		t.Errorf("after the stop: %q", last)
	}
	if stderr.String() != "" {
		t.Errorf("stderr %q", stderr.String())
	}
	st, err := store.OpenReadOnly(context.Background(), filepath.Join(data, "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if games, err := st.Games(context.Background(), 10, 0); err != nil || len(games) != 1 {
		t.Errorf("the data folder's database holds %d games, %v; want the one made", len(games), err)
	}
}

func TestServeErrors(t *testing.T) {
	if code, _, errOut := run(t, "", "serve", "extra"); code != 2 || !strings.Contains(errOut, "unexpected argument") {
		t.Errorf("extra argument: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "", "serve", "--addr", "127.0.0.1:99999", "--data", t.TempDir()); code != 1 || !strings.Contains(errOut, "listening on") {
		t.Errorf("bad address: %d %q", code, errOut)
	}
	for _, args := range [][]string{
		{"--bus", "nats://127.0.0.1:4222"}, // no other server to tell
		{"--db", "postgres://postgres@127.0.0.1:1/x", "--bus", "http://127.0.0.1:4222"},
		{"--db", "postgres://postgres@127.0.0.1:1/x", "--bus", "nats://127.0.0.1:4222?channel=a>b"},
	} {
		if code, _, errOut := run(t, "", append([]string{"serve", "--data", t.TempDir()}, args...)...); code != 2 || !strings.Contains(errOut, "--bus") {
			t.Errorf("serve %q: %d %q", args, code, errOut)
		}
	}
}
