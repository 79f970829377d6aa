package protocol

import (
	"context"
	"errors"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// waitLimit bounds every wait in these tests, so that a hang fails.
const waitLimit = 30 * time.Second

// lineSink collects written lines in a channel.
type lineSink struct {
	mu      sync.Mutex
	partial []byte
	lines   chan string
}

func newLineSink() *lineSink { return &lineSink{lines: make(chan string, 1<<14)} }

func (w *lineSink) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.partial = append(w.partial, b...)
	for {
		i := strings.IndexByte(string(w.partial), '\n')
		if i < 0 {
			return len(b), nil
		}
		w.lines <- string(w.partial[:i])
		w.partial = w.partial[i+1:]
	}
}

// until returns the lines written up to and including the first that
// starts with prefix.
func (w *lineSink) until(t *testing.T, prefix string) []string {
	t.Helper()
	timer := time.NewTimer(waitLimit)
	defer timer.Stop()
	var got []string
	for {
		select {
		case l := <-w.lines:
			got = append(got, l)
			if strings.HasPrefix(l, prefix) {
				return got
			}
		case <-timer.C:
			t.Fatalf("no %q line within %v; got %q", prefix, waitLimit, got)
		}
	}
}

// drain returns the lines written so far.
func (w *lineSink) drain() []string {
	var got []string
	for {
		select {
		case l := <-w.lines:
			got = append(got, l)
		default:
			return got
		}
	}
}

// harness runs a session on a pipe, as a client would.
type harness struct {
	in   *io.PipeWriter
	sink *lineSink
	sess *Session
	errc chan error
}

func newHarness(t *testing.T) *harness {
	t.Helper()
	pr, pw := io.Pipe()
	h := &harness{in: pw, sink: newLineSink(), sess: NewSession("dev"), errc: make(chan error, 1)}
	go func() { h.errc <- Serve(context.Background(), pr, h.sink, h.sess) }()
	t.Cleanup(func() {
		pw.Close()
		select {
		case <-h.errc:
		case <-time.After(waitLimit):
			t.Errorf("the session did not end within %v", waitLimit)
		}
	})
	return h
}

func (h *harness) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(h.in, l+"\n"); err != nil {
			t.Fatalf("sending %q: %v", l, err)
		}
	}
}

// answers sends lines then isready and returns what they wrote before
// readyok. After it, the session is idle and its state may be read.
func (h *harness) answers(t *testing.T, lines ...string) []string {
	t.Helper()
	h.send(t, append(lines, "isready")...)
	got := h.sink.until(t, "readyok")
	return got[:len(got)-1]
}

func TestHandshake(t *testing.T) {
	h := newHarness(t)
	h.send(t, "endodoi")
	got := h.sink.until(t, "endodoiok")
	want := []string{
		"id name endodoi dev",
		"id author the endodoi developers",
		"option name Variant type combo default standard var standard var cross",
		"option name MaxLaps type spin default 1000 min 1 max 1000000",
		"option name Threads type spin default 1 min 1 max 64",
		"option name Hash type spin default 64 min 1 max 16384",
		"option name Level type spin default 10 min 1 max 10",
		"endodoiok",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("handshake:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSessionCommands(t *testing.T) {
	tests := []struct {
		name  string
		setup []string
		line  string
		want  []string // the lines written, each a prefix
	}{
		{"empty line", nil, "", nil},
		{"unknown command", nil, "frobnicate now", []string{`info string error: unknown command "frobnicate"`}},
		{"stop while idle", nil, "stop", nil},
		{"newgame", nil, "newgame", nil},
		{"setoption", nil, "setoption name Threads value 2", nil},
		{"setoption any case", nil, "setoption name level value 3", nil},
		{"setoption variant", nil, "setoption name Variant value cross", nil},
		{"setoption unknown name", nil, "setoption name Ponder value true", []string{`info string error: setoption: no option "Ponder"`}},
		{"setoption not a number", nil, "setoption name Hash value lots", []string{`info string error: setoption Hash: value "lots" is not a whole number`}},
		{"setoption too small", nil, "setoption name Threads value 0", []string{"info string error: setoption Threads: value 0 out of range (1 to 64)"}},
		{"setoption too large", nil, "setoption name Level value 11", []string{"info string error: setoption Level: value 11 out of range (1 to 10)"}},
		{"setoption max laps", nil, "setoption name MaxLaps value 1000001", []string{"info string error: setoption MaxLaps: value 1000001 out of range"}},
		{"setoption bad variant", nil, "setoption name Variant value diagonal", []string{"info string error: setoption Variant:"}},
		{"position startpos sized", nil, "position startpos 6 4 moves c D", nil},
		{"position bare", nil, "position", []string{"info string error: position: want"}},
		{"position wrong side move", nil, "position startpos 6 4 moves c d", []string{"info string error: move 2 (d): wrong side: hole d is South's, but North is to move"}},
		{"position no such hole", nil, "position startpos 6 4 moves h", []string{"info string error: move 1 (h): no such hole"}},
		{"position empty hole", nil, "position 0,1,1/1,1,1 s 0 0 moves a", []string{"info string error: move 1 (a): empty hole"}},
		{"position move after the end", nil, "position 0,0,1/1,1,1 s 0 0 moves c A", []string{"info string error: move 2 (A): the game is already over (no legal move)"}},
		{"go bad word", nil, "go wtime 1000", []string{`info string error: go: unknown word "wtime"`}},
		{"go when there is no legal move", []string{"position 0,0,0/1,1,1 s 0 0"}, "go depth 3", []string{"bestmove none"}},
		{"go after the last move", []string{"position 0,0,1/1,1,1 s 0 0 moves c"}, "go infinite", []string{"bestmove none"}},
		{"go under a lap cap with no legal move", []string{"setoption name MaxLaps value 1", "position startpos 6 4"}, "go", []string{"bestmove none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			if out := h.answers(t, append([]string{"setoption name Hash value 1"}, tc.setup...)...); len(out) > 0 {
				t.Fatalf("setup: %q", out)
			}
			var got []string
			if n := len(tc.want); n > 0 && strings.HasPrefix(tc.want[n-1], "bestmove") {
				// A search's lines, which isready would not wait for.
				h.send(t, tc.line)
				got = h.sink.until(t, "bestmove")
			} else {
				got = h.answers(t, tc.line)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("%q: got %q, want %d lines starting %q", tc.line, got, len(tc.want), tc.want)
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tc.want[i]) {
					t.Errorf("%q: line %d is %q, want it to start %q", tc.line, i+1, got[i], tc.want[i])
				}
			}
		})
	}
}

func TestSessionPosition(t *testing.T) {
	h := newHarness(t)
	h.answers(t)
	if h.sess.game.Position() != defaultStart() {
		t.Fatalf("initial position %v, want the default start", h.sess.game.Position())
	}
	h.answers(t, "position startpos 6 4 moves c D")
	if got := h.sess.game.Moves(); len(got) != 2 || got[0].String() != "c" || got[1].String() != "D" {
		t.Fatalf("moves %v, want [c D]", got)
	}
	before := h.sess.game.Position()
	// An illegal move anywhere leaves the position as it was.
	for _, bad := range []string{
		"position startpos 6 4 moves c D c c c c c c c c c c c c c c c",
		"position startpos 6 4 moves a b",
		"position startpos 99 4",
		"position 1,2/3 s 0 0",
	} {
		if out := h.answers(t, bad); len(out) != 1 || !strings.HasPrefix(out[0], "info string error: ") {
			t.Errorf("%q: got %q, want one error line", bad, out)
		}
		if h.sess.game.Position() != before || h.sess.game.Ply() != 2 {
			t.Errorf("%q changed the position to %v (ply %d)", bad, h.sess.game.Position(), h.sess.game.Ply())
		}
	}
	h.answers(t, "position 3,0,1/2,2,2 n 5 7")
	if got := h.sess.game.Position().String(); got != "3,0,1/2,2,2 n 5 7" {
		t.Errorf("position %q, want the one given", got)
	}
	h.answers(t, "newgame")
	if h.sess.game.Position() != defaultStart() || h.sess.game.Ply() != 0 {
		t.Errorf("after newgame: %v, want the default start", h.sess.game.Position())
	}
}

func TestSessionOptions(t *testing.T) {
	h := newHarness(t)
	h.answers(t)
	first := h.sess.eng
	if first == nil {
		t.Fatal("isready did not make the engine")
	}
	cfg := first.Config()
	if cfg.Rules.Variant != rules.Standard || cfg.Rules.Laps() != rules.DefaultMaxLaps || cfg.Threads != 1 || cfg.HashMiB != engine.DefaultHashMiB {
		t.Errorf("default config %+v", cfg)
	}
	h.answers(t, "setoption name Level value 4")
	if h.sess.eng != first || h.sess.opts.level != 4 {
		t.Errorf("Level: engine remade %v, level %d", h.sess.eng != first, h.sess.opts.level)
	}
	if out := h.answers(t, "setoption name Variant value Cross", "setoption name MaxLaps value 500",
		"setoption name Threads value 2", "setoption name Hash value 1"); len(out) > 0 {
		t.Fatalf("setoptions: %q", out)
	}
	if h.sess.eng == first {
		t.Fatal("the engine was not remade")
	}
	cfg = h.sess.eng.Config()
	if cfg.Rules.Variant != rules.Cross || cfg.Rules.MaxLaps != 500 || cfg.Threads != 2 || cfg.HashMiB != 1 {
		t.Errorf("config %+v, want cross, 500 laps, 2 threads, 1 MiB", cfg)
	}
	if r := h.sess.game.Rules(); r.Variant != rules.Cross || r.MaxLaps != 500 {
		t.Errorf("the game plays %v, want the new rules", r)
	}
	// A rules change replays the game; a move no longer legal sends the
	// game back to its start. With a one-lap cap no opening move of the
	// 6-hole start ends, so South has no legal move at all.
	h.answers(t, "setoption name MaxLaps value 1000", "position startpos 6 4 moves c")
	out := h.answers(t, "setoption name MaxLaps value 1")
	if len(out) != 1 || !strings.HasPrefix(out[0], "info string error: move 1 (c) is illegal under the new rules: the game is already over (no legal move)") {
		t.Errorf("lap cap change: %q", out)
	}
	if h.sess.game.Ply() != 0 || h.sess.game.Rules().MaxLaps != 1 {
		t.Errorf("after the lap cap change: ply %d, rules %v", h.sess.game.Ply(), h.sess.game.Rules())
	}
}

// checkSearch checks a search's lines: info lines of increasing depth with
// legal principal variations, then a legal bestmove. It returns the last
// depth.
func checkSearch(t *testing.T, p rules.Position, r rules.Rules, lines []string) int {
	t.Helper()
	last := 0
	for _, l := range lines[:len(lines)-1] {
		reply, err := ParseReply(l)
		info, ok := reply.(Info)
		if err != nil || !ok {
			t.Fatalf("%q: not an info line (%v)", l, err)
		}
		if info.Depth <= last || len(info.PV) == 0 {
			t.Errorf("%q after depth %d", l, last)
		}
		last = info.Depth
		q := p
		for _, m := range info.PV {
			if q, err = q.Play(m, r); err != nil {
				t.Fatalf("%q: pv move %s: %v", l, m, err)
			}
		}
	}
	reply, err := ParseReply(lines[len(lines)-1])
	best, ok := reply.(BestMove)
	if err != nil || !ok || !p.IsLegal(best.Move, r) {
		t.Fatalf("%q is not a legal bestmove in %v", lines[len(lines)-1], p)
	}
	return last
}

func TestSessionGoDepth(t *testing.T) {
	h := newHarness(t)
	// 2×6×5, whose value is not proven: the opening book does not answer.
	h.send(t, "position startpos 6 5", "go depth 3")
	lines := h.sink.until(t, "bestmove")
	p, _ := rules.NewPosition(6, 5)
	if d := checkSearch(t, p, rules.DefaultRules(), lines); d != 3 || len(lines) != 4 {
		t.Errorf("want info at depths 1, 2, 3 and bestmove; got %q", lines)
	}
	h.send(t, "go depth 1 nodes 100000")
	checkSearch(t, p, rules.DefaultRules(), h.sink.until(t, "bestmove"))
}

func TestSessionGoLevel(t *testing.T) {
	h := newHarness(t)
	h.send(t, "setoption name Level value 2", "position startpos 6 4 moves c", "go")
	lines := h.sink.until(t, "bestmove")
	p, _ := rules.NewPosition(6, 4)
	p, _ = p.Play(rules.NewMove(rules.South, 2), rules.DefaultRules())
	setting, _ := engine.Level(2)
	if d := checkSearch(t, p, rules.DefaultRules(), lines); d != setting.Depth {
		t.Errorf("level 2 searched to depth %d, want %d: %q", d, setting.Depth, lines)
	}
}

// TestSessionDuringSearch checks the UCI behaviour: during a search,
// isready is answered at once, stop ends it, and other commands wait for
// its end and are then carried out in order.
func TestSessionDuringSearch(t *testing.T) {
	h := newHarness(t)
	h.send(t, "position startpos", "go infinite")
	if first := h.sink.until(t, "info depth"); len(first) != 1 {
		t.Fatalf("before the first info line: %q", first)
	}
	start := time.Now()
	h.send(t, "isready")
	h.sink.until(t, "readyok")
	if e := time.Since(start); e > 5*time.Second {
		t.Errorf("isready during a search took %v", e)
	}
	// 2×6×5: its value is not proven, so the opening book does not answer.
	h.send(t, "go depth 2", "position startpos 6 5 moves c", "setoption name Hash value 2", "bogus", "go depth 3")
	time.Sleep(50 * time.Millisecond)
	for _, l := range h.sink.drain() {
		if !strings.HasPrefix(l, "info depth") {
			t.Errorf("during the search: %q", l)
		}
	}
	h.send(t, "stop")
	first := h.sink.until(t, "bestmove")
	start8 := defaultStart()
	checkSearch(t, start8, rules.DefaultRules(), first[len(first)-1:])
	// The waiting go depth 2 searches the position of its time.
	if d := checkSearch(t, start8, rules.DefaultRules(), h.sink.until(t, "bestmove")); d != 2 {
		t.Errorf("the waiting go depth 2 reached depth %d", d)
	}
	lines := h.sink.until(t, "bestmove")
	if lines[0] != `info string error: unknown command "bogus"` {
		t.Errorf("after the second search: %q, want the error first", lines[0])
	}
	p, _ := rules.NewPosition(6, 5)
	p, _ = p.Play(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if d := checkSearch(t, p, rules.DefaultRules(), lines[1:]); d != 3 {
		t.Errorf("the waiting go depth 3 reached depth %d", d)
	}
	h.answers(t)
	if h.sess.eng.Config().HashMiB != 2 {
		t.Errorf("hash %d MiB, want 2", h.sess.eng.Config().HashMiB)
	}
	if out := h.answers(t, "stop"); len(out) > 0 {
		t.Errorf("stop while idle: %q", out)
	}
}

func TestSessionQuitStopsSearch(t *testing.T) {
	h := newHarness(t)
	h.send(t, "go infinite")
	h.sink.until(t, "info depth")
	h.send(t, "quit")
	h.sink.until(t, "bestmove")
	select {
	case err := <-h.errc:
		h.errc <- err // for the cleanup
		if err != nil {
			t.Errorf("quit: %v", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("quit did not end the session")
	}
}

// runServe runs a session on input and returns its output.
func runServe(t *testing.T, ctx context.Context, input io.Reader) ([]string, error) {
	t.Helper()
	sink := newLineSink()
	errc := make(chan error, 1)
	go func() { errc <- Serve(ctx, input, sink, NewSession("dev")) }()
	select {
	case err := <-errc:
		return sink.drain(), err
	case <-time.After(waitLimit):
		t.Fatalf("the session did not end within %v", waitLimit)
		return nil, nil
	}
}

// TestEndOfInput checks that the end of the input stops a bounded search
// as well as an infinite one, that commands piped behind a search are
// still carried out, and that nothing after quit is.
func TestEndOfInput(t *testing.T) {
	for _, limit := range []string{"infinite", "depth 200"} {
		start := time.Now()
		out, err := runServe(t, context.Background(), strings.NewReader("position startpos 6 4\ngo "+limit+"\n"))
		if err != nil || len(out) == 0 || !strings.HasPrefix(out[len(out)-1], "bestmove ") {
			t.Errorf("go %s: output %q, error %v; want bestmove last", limit, out, err)
		}
		if e := time.Since(start); e > 5*time.Second {
			t.Errorf("go %s: the end of the input took %v to stop the search", limit, e)
		}
	}

	out, err := runServe(t, context.Background(), strings.NewReader("go depth 200\nposition startpos 6 4 moves c\ngo depth 3\n"))
	if err != nil {
		t.Fatal(err)
	}
	var best []string
	for _, l := range out {
		if strings.HasPrefix(l, "bestmove") {
			best = append(best, l)
		}
	}
	p, _ := rules.NewPosition(6, 4)
	p, _ = p.Play(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if len(best) != 2 {
		t.Fatalf("piped pair: %q, want two bestmoves", out)
	}
	checkSearch(t, p, rules.DefaultRules(), best[1:])

	out, err = runServe(t, context.Background(), strings.NewReader("isready\nquit\nisready\n"))
	if err != nil || strings.Join(out, "\n") != "readyok" {
		t.Errorf("quit: output %q, error %v; want only the first readyok", out, err)
	}
}

func TestServeContextCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.WriteString(pw, "go infinite\n")
		cancel()
	}()
	out, err := runServe(t, ctx, pr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	text := strings.Join(out, "\n")
	if strings.Contains(text, "info depth") && !strings.Contains(text, "bestmove") {
		t.Errorf("a search started but wrote no bestmove: %q", out)
	}
}

func TestServeLongLine(t *testing.T) {
	input := "isready\nposition startpos moves " + strings.Repeat("a ", MaxLine) + "\nisready\n"
	out, err := runServe(t, context.Background(), strings.NewReader(input))
	if err == nil {
		t.Error("no error for an over-long line")
	}
	if len(out) != 2 || out[0] != "readyok" || !strings.HasPrefix(out[1], "info string error: input line longer than "+strconv.Itoa(MaxLine)) {
		t.Errorf("output %q", out)
	}
}

// failingWriter fails every write.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestServeWriteError(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "go infinite\nisready\n")
	errc := make(chan error, 1)
	go func() { errc <- Serve(context.Background(), pr, failingWriter{}, NewSession("dev")) }()
	select {
	case err := <-errc:
		if err == nil || !strings.Contains(err.Error(), "broken pipe") {
			t.Errorf("error %v, want the write error", err)
		}
	case <-time.After(waitLimit):
		t.Fatal("a session that cannot write did not end")
	}
}
