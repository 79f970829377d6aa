package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/bustest"
	"github.com/endodoi/endodoi/internal/pgtest"
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
	return startServerAt(t, data, "127.0.0.1:0")
}

// startServerAt is startServer on the address addr, with extra options.
func startServerAt(t *testing.T, data, addr string, extra ...string) *serverProcess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, append([]string{"serve", "--addr", addr, "--data", data}, extra...)...)
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
	// The load phase outlasts a slow start (games on a busy machine may
	// play their first move seconds in) plus the kill and the restart.
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

// A load test with a restart plays on for afterRestart once the server is
// back, however long the restart took on a busy machine, and ends then;
// restartRunLimit only bounds a run whose restart failed.
const (
	afterRestart    = 5 * time.Second
	restartRunLimit = 2 * time.Minute
)

// loadStop ends a load test's load phase (loadtest.Config.Stop) once.
type loadStop struct {
	ch   chan struct{}
	once sync.Once
	at   time.Time // when after was called
}

// newLoadStop is a loadStop that ends the load phase when t ends, at the
// latest.
func newLoadStop(t *testing.T) *loadStop {
	s := &loadStop{ch: make(chan struct{})}
	t.Cleanup(s.close)
	return s
}

func (s *loadStop) close() { s.once.Do(func() { close(s.ch) }) }

// after ends the load phase d from now.
func (s *loadStop) after(d time.Duration) {
	s.at = time.Now()
	time.AfterFunc(d, s.close)
}

// check fails t if rep's load phase did not end about when s ended it.
func (s *loadStop) check(t *testing.T, rep *loadtest.Report) {
	t.Helper()
	if late := time.Since(s.at); late > restartRunLimit/2 {
		t.Errorf("the run ended %v after the restart, its load phase of %v: Stop did not end it", late, rep.Elapsed)
	}
}

// TestLoadtestKill9Online kills the server with SIGKILL in the middle of
// an online load and restarts it at once on the same data folder and port:
// the clients reconnect by themselves, resync, resend the moves the server
// does not have, and carry on; afterwards every move a client saw is
// stored, and none twice.
func TestLoadtestKill9Online(t *testing.T) {
	data := filepath.Join(t.TempDir(), "data")
	first := startServer(t, data)
	u, err := url.Parse(first.url)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		rep *loadtest.Report
		err error
	}
	done := make(chan result, 1)
	count := newMoveCounter()
	stop := newLoadStop(t)
	go func() {
		rep, err := loadtest.Run(context.Background(), loadtest.Config{
			BaseURL: first.url, Online: true, Games: 30, Rate: 10, Duration: restartRunLimit, Ramp: 300 * time.Millisecond,
			Timeout: 3 * time.Second, Seed: 11, Check: true, ExpectRestart: true, Stop: stop.ch,
			Progress: count.writer(), ProgressInterval: 100 * time.Millisecond,
		})
		done <- result{rep, err}
	}()
	select {
	case <-count.delivered:
	case <-time.After(5 * time.Second):
		t.Fatal("no move delivered after 5 s")
	}
	time.Sleep(500 * time.Millisecond)
	// At 10 moves a second in each of 30 games, moves are in flight: the
	// kill falls between a commit and its messages for some of them.
	first.kill(t)
	// While the server is down nothing is delivered: the count a progress
	// line later is that of the kill.
	time.Sleep(150 * time.Millisecond)
	before := count.Load()
	second := startServerAt(t, data, u.Host)
	stop.after(afterRestart)
	res := <-done
	if res.err != nil {
		t.Fatal(res.err)
	}
	rep := res.rep
	t.Logf("\n%v", rep)
	stop.check(t, rep)
	if rep.Reconnects == 0 || rep.Resyncs == 0 || rep.DisconnectCount() == 0 {
		t.Errorf("%d reconnects, %d resyncs, %d disconnects: the kill was not mid-load", rep.Reconnects, rep.Resyncs, rep.DisconnectCount())
	}
	if rep.Lost != 0 || rep.Duplicated != 0 || rep.ErrorCount() != 0 || rep.Failed() {
		t.Errorf("%d lost, %d duplicated, errors %v; server stderr %s", rep.Lost, rep.Duplicated, rep.FirstErrors, second.stderr)
	}
	if rep.Check == nil || rep.Check.Failed() || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check after SIGKILL: %+v; server stderr %s", rep.Check, second.stderr)
	}
	// The load went on after the restart.
	if rep.Delivered <= before+rep.DeliveredOnResync {
		t.Errorf("%d moves delivered before the kill, %d in all, %d of them by a resync", before, rep.Delivered, rep.DeliveredOnResync)
	}
	second.kill(t)
}

// Two servers share a PostgreSQL database, the two players of each game
// on different ones, their notices on each kind of bus (--bus); one is
// killed mid-load and restarted: its clients reconnect, and no move is
// lost or duplicated, though on NATS or Redis the notices of its last
// changes may never have been published.
func TestLoadtestKill9OneOfTwoInstances(t *testing.T) {
	for _, kind := range bustest.Kinds {
		t.Run(kind, func(t *testing.T) { testLoadtestKill9OneOfTwoInstances(t, kind) })
	}
}

func testLoadtestKill9OneOfTwoInstances(t *testing.T, kind string) {
	args := []string{"--db", pgtest.NewDatabase(t)}
	if u := bustest.URL(t, kind); u != "" {
		args = append(args, "--bus", u)
	}
	dir := t.TempDir()
	a := startServerAt(t, filepath.Join(dir, "a"), "127.0.0.1:0", args...)
	b := startServerAt(t, filepath.Join(dir, "b"), "127.0.0.1:0", args...)
	ub, err := url.Parse(b.url)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *loadtest.Report, 1)
	count := newMoveCounter()
	stop := newLoadStop(t)
	go func() {
		rep, err := loadtest.Run(context.Background(), loadtest.Config{
			BaseURL: a.url, PeerURL: b.url, Online: true, Games: 20, Rate: 5, Duration: restartRunLimit,
			Ramp: 300 * time.Millisecond, Timeout: 3 * time.Second, Seed: 5, Check: true, ExpectRestart: true, Stop: stop.ch,
			Progress: count.writer(), ProgressInterval: 100 * time.Millisecond,
		})
		if err != nil {
			t.Error(err)
		}
		done <- rep
	}()
	select {
	case <-count.delivered:
	case <-time.After(5 * time.Second):
		t.Fatal("no move delivered after 5 s")
	}
	time.Sleep(500 * time.Millisecond)
	b.kill(t)
	time.Sleep(150 * time.Millisecond)
	before := count.Load()
	again := startServerAt(t, filepath.Join(dir, "b"), ub.Host, args...)
	stop.after(afterRestart)
	rep := <-done
	if rep == nil {
		t.FailNow()
	}
	t.Logf("\n%v", rep)
	stop.check(t, rep)
	if rep.Reconnects == 0 {
		t.Errorf("no client reconnected: the kill was not mid-load")
	}
	if rep.Lost != 0 || rep.Duplicated != 0 || rep.ErrorCount() != 0 || rep.Failed() {
		t.Errorf("%d lost, %d duplicated, errors %v; stderr of A %s, of B %s", rep.Lost, rep.Duplicated, rep.FirstErrors, a.stderr, again.stderr)
	}
	if rep.Check == nil || rep.Check.Failed() || rep.Check.GamesChecked != len(rep.Games) {
		t.Errorf("check: %+v", rep.Check)
	}
	// The load went on after the restart (a throughput figure would
	// depend on how busy the machine is).
	if rep.Delivered <= before+rep.DeliveredOnResync {
		t.Errorf("%d moves delivered before the restart, %d in all, %d of them by a resync", before, rep.Delivered, rep.DeliveredOnResync)
	}
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
	code, out, errOut = run(t, "", "loadtest", "--online", "--url", ts.URL, "--games", "5", "--rate", "10", "--ramp", "100ms",
		"--duration", "700ms", "--check")
	if code != 0 || !strings.Contains(out, "online load test") || !strings.Contains(out, "lost            0, duplicated 0") ||
		!strings.Contains(out, "no acknowledged move lost") {
		t.Errorf("online: exit %d\nstdout %s\nstderr %s", code, out, errOut)
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
		{[]string{"--ramp", "1s"}, 2, "--ramp and --expect-restart go with --online"},
		{[]string{"--online", "--rate", "0"}, 2, "--rate 0 out of range with --online"},
		{[]string{"--online", "--ramp", "20s", "--duration", "20s"}, 2, "--ramp 20s out of range"},
		{[]string{"--online", "--url", "http://192.0.2.1:8080", "--games", "1", "--duration", "1s"}, 1, "not a loopback address"},
	} {
		code, _, errOut := run(t, "", append([]string{"loadtest"}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}

// moveCounter is the count of moves delivered in a load test, read from
// its progress lines.
type moveCounter struct {
	atomic.Int64
	once      sync.Once
	delivered chan struct{}
}

// newMoveCounter returns a moveCounter whose delivered channel closes
// when its load test has delivered its first move.
func newMoveCounter() *moveCounter {
	return &moveCounter{delivered: make(chan struct{})}
}

// writer returns the writer of the load test's progress lines.
func (c *moveCounter) writer() io.Writer {
	return writerFunc(func(p []byte) (int, error) {
		if _, after, ok := bytes.Cut(p, []byte(": ")); ok {
			n, _, _ := bytes.Cut(after, []byte(" "))
			if v, err := strconv.ParseInt(string(bytes.ReplaceAll(n, []byte(","), nil)), 10, 64); err == nil {
				c.Store(v)
				if v > 0 {
					c.once.Do(func() { close(c.delivered) })
				}
			}
		}
		return len(p), nil
	})
}
