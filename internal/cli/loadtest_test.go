package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/loadtest"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// serveMainEnv makes the test binary run the endodoi command instead of
// the tests, so that a test can run a server in a process it can kill.
const serveMainEnv = "ENDODOI_TEST_SERVE_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(serveMainEnv) == "1" {
		os.Exit(Run(context.Background(), os.Args[1:], Env{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}))
	}
	os.Exit(m.Run())
}

// serverProcess is endodoi serve in a child process.
type serverProcess struct {
	url    string
	cmd    *exec.Cmd
	stderr *syncBuffer
	wait   func() error
}

// startServer starts endodoi serve on a free loopback port over the data
// folder, and kills it at the end of the test.
func startServer(t *testing.T, data string) *serverProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve", "--addr", "127.0.0.1:0", "--data", data)
	cmd.Env = append(os.Environ(), serveMainEnv+"=1")
	out := &firstLine{ch: make(chan string, 1)}
	p := &serverProcess{cmd: cmd, stderr: &syncBuffer{}}
	cmd.Stdout, cmd.Stderr = out, p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p.wait = sync.OnceValue(cmd.Wait)
	t.Cleanup(func() {
		cmd.Process.Kill()
		p.wait()
	})
	select {
	case line := <-out.ch:
		url, ok := strings.CutPrefix(line, "endodoi: play at ")
		if !ok {
			t.Fatalf("first line %q; stderr %s", line, p.stderr)
		}
		p.url = url
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not start; stderr %s", p.stderr)
	}
	return p
}

// kill stops the server with SIGKILL: no chance to finish anything.
func (p *serverProcess) kill(t *testing.T) {
	t.Helper()
	if err := p.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	p.wait()
}

// writerFunc is a function that is a writer.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// firstLine is a writer that sends the first line written to ch.
type firstLine struct {
	mu   sync.Mutex
	buf  []byte
	sent bool
	ch   chan string
}

func (f *firstLine) Write(b []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.sent {
		f.buf = append(f.buf, b...)
		if line, _, ok := bytes.Cut(f.buf, []byte("\n")); ok {
			f.ch <- string(line)
			f.sent = true
		}
	}
	return len(b), nil
}

// TestLoadtestKill9 kills the server with SIGKILL in the middle of a load,
// restarts it on the same data folder, and finds there every move it had
// acknowledged.
func TestLoadtestKill9(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	first := startServer(t, data)
	type result struct {
		rep *loadtest.Report
		err error
	}
	done := make(chan result, 1)
	// The progress lines tell when the server has acknowledged moves.
	acked := make(chan struct{})
	var once sync.Once
	progress := writerFunc(func(p []byte) (int, error) {
		if !bytes.Contains(p, []byte(": 0 moves acked")) {
			once.Do(func() { close(acked) })
		}
		return len(p), nil
	})
	go func() {
		rep, err := loadtest.Run(context.Background(), loadtest.Config{
			BaseURL: first.url, Games: 50, Duration: 3 * time.Second, Timeout: 2 * time.Second, Seed: 9,
			Progress: progress, ProgressInterval: 100 * time.Millisecond,
		})
		done <- result{rep, err}
	}()
	// At rate 0 every game always has a request in flight: the kill falls
	// between a commit and its answer for some of them.
	time.Sleep(time.Second)
	select {
	case <-acked:
	case <-time.After(2 * time.Second):
		t.Fatal("no move acknowledged after 3 s")
	}
	first.kill(t)
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	t.Logf("before the restart:\n%v", rep)
	if rep.Acked == 0 || rep.ErrorCount() == 0 {
		t.Fatalf("%d moves acknowledged, %d failed requests: the kill was not mid-load", rep.Acked, rep.ErrorCount())
	}

	second := startServer(t, data)
	check, err := loadtest.Check(context.Background(), second.url, rep.Games)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after the restart: %v", check)
	if check.Failed() || check.GamesChecked != len(rep.Games) {
		t.Errorf("check after SIGKILL: %+v; server stderr %s", check, second.stderr)
	}
	second.kill(t)
}

func TestLoadtestCommand(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ts := httptest.NewServer(server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer ts.Close()

	code, out, errOut := run(t, "", "loadtest", "--url", ts.URL, "--games", "5", "--rate", "0", "--duration", "500ms", "--check")
	if code != 0 || !strings.Contains(out, "no acknowledged move lost") || !strings.Contains(out, "errors          none") {
		t.Errorf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"--url", "http://192.0.2.1:8080", "--games", "1", "--duration", "1s"}, 1, "not a loopback address"},
		{[]string{"--url", "http://example.invalid:8080", "--games", "1", "--duration", "1s"}, 1, "resolving example.invalid"},
		{[]string{"--games", "0"}, 2, "--games 0 out of range"},
		{[]string{"--duration", "11m"}, 2, "--duration 11m0s out of range"},
		{[]string{"--rate", "-1"}, 2, "--rate -1 out of range"},
		{[]string{"extra"}, 2, "unexpected argument"},
	} {
		code, _, errOut := run(t, "", append([]string{"loadtest"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}
