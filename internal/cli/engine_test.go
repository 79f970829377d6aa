package cli

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
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

type testSession struct {
	*engineSession
	sink *lineSink
}

func newTestSession(t *testing.T) *testSession {
	t.Helper()
	sink := newLineSink()
	ts := &testSession{engineSession: newEngineSession(sink), sink: sink}
	t.Cleanup(func() { ts.send(t, "quit") })
	return ts
}

// send hands line to the session and fails if it does not return within
// waitLimit.
func (ts *testSession) send(t *testing.T, line string) (quit bool) {
	t.Helper()
	done := make(chan bool, 1)
	go func() { done <- ts.handle(line) }()
	select {
	case q := <-done:
		return q
	case <-time.After(waitLimit):
		t.Fatalf("%q did not return within %v", line, waitLimit)
		return false
	}
}

// sendAll sends the lines and returns what they wrote; it is for commands
// that answer at once.
func (ts *testSession) sendAll(t *testing.T, lines ...string) []string {
	t.Helper()
	for _, l := range lines {
		ts.send(t, l)
	}
	return ts.sink.drain()
}

func TestEngineHandshake(t *testing.T) {
	ts := newTestSession(t)
	got := ts.sendAll(t, "endodoi")
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

func TestEngineCommands(t *testing.T) {
	tests := []struct {
		name  string
		setup []string
		line  string
		want  []string // the lines written, each a prefix
	}{
		{"empty line", nil, "", nil},
		{"blank line", nil, "  \t ", nil},
		{"isready", nil, "isready", []string{"readyok"}},
		{"isready padded", nil, "  isready  ", []string{"readyok"}},
		{"isready crlf", nil, "isready\r", []string{"readyok"}},
		{"unknown command", nil, "frobnicate now", []string{`info string error: unknown command "frobnicate"`}},
		{"command case matters", nil, "ISREADY", []string{`info string error: unknown command "ISREADY"`}},
		{"stop while idle", nil, "stop", nil},
		{"stop with argument", nil, "stop now", []string{`info string error: stop takes no arguments`}},
		{"newgame", nil, "newgame", nil},
		{"newgame with argument", nil, "newgame 6", []string{`info string error: newgame takes no arguments`}},

		{"setoption", nil, "setoption name Threads value 2", nil},
		{"setoption any case", nil, "setoption name level value 3", nil},
		{"setoption variant", nil, "setoption name Variant value cross", nil},
		{"setoption bare", nil, "setoption", []string{"info string error: setoption: want 'setoption name <Name> value <v>'"}},
		{"setoption no name keyword", nil, "setoption Threads value 2", []string{"info string error: setoption: want"}},
		{"setoption missing name", nil, "setoption name value 2", []string{"info string error: setoption: missing option name"}},
		{"setoption unknown name", nil, "setoption name Ponder value true", []string{`info string error: setoption: no option "Ponder"`}},
		{"setoption missing value", nil, "setoption name Threads", []string{"info string error: setoption Threads: missing value"}},
		{"setoption empty value", nil, "setoption name Threads value", []string{"info string error: setoption Threads: missing value"}},
		{"setoption not a number", nil, "setoption name Hash value lots", []string{`info string error: setoption Hash: value "lots" is not a whole number`}},
		{"setoption too small", nil, "setoption name Threads value 0", []string{"info string error: setoption Threads: value 0 out of range (1 to 64)"}},
		{"setoption too large", nil, "setoption name Level value 11", []string{"info string error: setoption Level: value 11 out of range (1 to 10)"}},
		{"setoption max laps", nil, "setoption name MaxLaps value 1000001", []string{"info string error: setoption MaxLaps: value 1000001 out of range"}},
		{"setoption bad variant", nil, "setoption name Variant value diagonal", []string{"info string error: setoption Variant:"}},

		{"position startpos", nil, "position startpos", nil},
		{"position startpos sized", nil, "position startpos 6 4 moves c D", nil},
		{"position notation", nil, "position 4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 moves a", nil},
		{"position notation loose spaces", nil, "position  4,4,4/4,4,4   n 0 0", nil},
		{"position bare", nil, "position", []string{"info string error: position: want"}},
		{"position only moves", nil, "position moves a", []string{"info string error: position: want"}},
		{"position startpos one number", nil, "position startpos 6", []string{"info string error: position startpos: want no numbers or both"}},
		{"position startpos not numbers", nil, "position startpos six 4", []string{"info string error: position startpos: holes and seeds must be whole numbers"}},
		{"position startpos too many holes", nil, "position startpos 17 4", []string{"info string error: position startpos:"}},
		{"position startpos too many seeds", nil, "position startpos 6 13", []string{"info string error: position startpos:"}},
		{"position bad notation", nil, "position 4,4,4/4,4 s 0 0", []string{"info string error: position:"}},
		{"position bad side", nil, "position 4,4,4/4,4,4 x 0 0", []string{"info string error: position:"}},
		{"position missing fields", nil, "position 4,4,4/4,4,4 s", []string{"info string error: position:"}},
		{"position wrong side move", nil, "position startpos 6 4 moves c d", []string{"info string error: move 2 (d): wrong side: hole d is South's, but North is to move"}},
		{"position no such hole", nil, "position startpos 6 4 moves h", []string{"info string error: move 1 (h): no such hole"}},
		{"position bad move letter", nil, "position startpos 6 4 moves c 7", []string{"info string error: move 2 (7):"}},
		{"position empty hole", nil, "position 0,1,1/1,1,1 s 0 0 moves a", []string{"info string error: move 1 (a): empty hole"}},
		{"position move after the end", nil, "position 0,0,1/1,1,1 s 0 0 moves c A", []string{"info string error: move 2 (A): the game is already over (no legal move)"}},

		{"go bad word", nil, "go wtime 1000", []string{`info string error: go: unknown word "wtime"`}},
		{"go depth missing", nil, "go depth", []string{"info string error: go depth: missing number"}},
		{"go depth not a number", nil, "go depth three", []string{`info string error: go depth: "three" is not a whole number from 1 to 200`}},
		{"go depth zero", nil, "go depth 0", []string{"info string error: go depth: \"0\" is not"}},
		{"go depth negative", nil, "go depth -1", []string{"info string error: go depth: \"-1\" is not"}},
		{"go depth too deep", nil, "go depth 201", []string{"info string error: go depth: \"201\" is not"}},
		{"go movetime fraction", nil, "go movetime 1.5", []string{"info string error: go movetime: \"1.5\" is not"}},
		{"go nodes zero", nil, "go nodes 0", []string{"info string error: go nodes: \"0\" is not"}},
		{"go nodes huge", nil, "go nodes 99999999999999999999", []string{"info string error: go nodes:"}},

		{"go when there is no legal move", []string{"position 0,0,0/1,1,1 s 0 0"}, "go depth 3", []string{"bestmove none"}},
		{"go after the last move", []string{"position 0,0,1/1,1,1 s 0 0 moves c"}, "go infinite", []string{"bestmove none"}},
		{"go under a lap cap with no legal move", []string{"setoption name MaxLaps value 1", "position startpos 6 4"}, "go", []string{"bestmove none"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ts := newTestSession(t)
			for _, l := range tc.setup {
				if out := ts.sendAll(t, l); len(out) > 0 {
					t.Fatalf("setup %q: %q", l, out)
				}
			}
			got := ts.sendAll(t, tc.line)
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

func TestEnginePositionState(t *testing.T) {
	ts := newTestSession(t)
	start, _ := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	if ts.game.Position() != start {
		t.Fatalf("initial position %v, want the default start %v", ts.game.Position(), start)
	}
	ts.sendAll(t, "position startpos 6 4 moves c D")
	if got := ts.game.Moves(); len(got) != 2 || got[0].String() != "c" || got[1].String() != "D" {
		t.Fatalf("moves %v, want [c D]", got)
	}
	before := ts.game.Position()

	// An illegal move anywhere leaves the position as it was.
	for _, bad := range []string{
		"position startpos 6 4 moves c D c c c c c c c c c c c c c c c",
		"position startpos 6 4 moves a b",
		"position startpos 99 4",
		"position 1,2/3 s 0 0",
	} {
		if out := ts.sendAll(t, bad); len(out) != 1 || !strings.HasPrefix(out[0], "info string error: ") {
			t.Errorf("%q: got %q, want one error line", bad, out)
		}
		if ts.game.Position() != before || ts.game.Ply() != 2 {
			t.Errorf("%q changed the position to %v (ply %d)", bad, ts.game.Position(), ts.game.Ply())
		}
	}

	ts.sendAll(t, "position 3,0,1/2,2,2 n 5 7")
	if got := ts.game.Position().String(); got != "3,0,1/2,2,2 n 5 7" {
		t.Errorf("position %q, want the one given", got)
	}
	ts.sendAll(t, "newgame")
	if ts.game.Position() != start || ts.game.Ply() != 0 {
		t.Errorf("after newgame: %v, want the default start", ts.game.Position())
	}
}

func TestEngineOptions(t *testing.T) {
	ts := newTestSession(t)
	if out := ts.sendAll(t, "isready"); len(out) != 1 || out[0] != "readyok" {
		t.Fatalf("isready: %q", out)
	}
	first := ts.eng
	if first == nil {
		t.Fatal("isready did not create the engine")
	}
	cfg := first.Config()
	if cfg.Rules.Variant != rules.Standard || cfg.Rules.Laps() != rules.DefaultMaxLaps || cfg.Threads != 1 || cfg.HashMiB != engine.DefaultHashMiB {
		t.Errorf("default config %+v", cfg)
	}

	// Level changes only the default limits.
	ts.sendAll(t, "setoption name Level value 4")
	if ts.eng != first {
		t.Error("Level recreated the engine")
	}
	if ts.opts.level != 4 {
		t.Errorf("level %d, want 4", ts.opts.level)
	}

	out := ts.sendAll(t,
		"setoption name Variant value Cross",
		"setoption name MaxLaps value 500",
		"setoption name Threads value 2",
		"setoption name Hash value 1",
		"isready")
	if len(out) != 1 || out[0] != "readyok" {
		t.Fatalf("setoptions then isready: %q", out)
	}
	if ts.eng == first {
		t.Fatal("the engine was not recreated")
	}
	cfg = ts.eng.Config()
	if cfg.Rules.Variant != rules.Cross || cfg.Rules.MaxLaps != 500 || cfg.Threads != 2 || cfg.HashMiB != 1 {
		t.Errorf("config %+v, want cross, 500 laps, 2 threads, 1 MiB", cfg)
	}
	if r := ts.game.Rules(); r.Variant != rules.Cross || r.MaxLaps != 500 {
		t.Errorf("the game plays %v, want the new rules", r)
	}

	// A rules change replays the game; a move no longer legal sends the
	// game back to its start. With a one-lap cap no opening move of the
	// 6-hole start ends, so South has no legal move at all.
	ts.sendAll(t, "setoption name MaxLaps value 1000", "position startpos 6 4 moves c")
	out = ts.sendAll(t, "setoption name MaxLaps value 1")
	if len(out) != 1 || !strings.HasPrefix(out[0], "info string error: move 1 (c) is illegal under the new rules: the game is already over (no legal move)") {
		t.Errorf("lap cap change: %q", out)
	}
	if ts.game.Ply() != 0 || ts.game.Rules().MaxLaps != 1 {
		t.Errorf("after the lap cap change: ply %d, rules %v", ts.game.Ply(), ts.game.Rules())
	}
}

func TestLevelLimits(t *testing.T) {
	for level := 1; level <= 10; level++ {
		setting, err := engine.Level(level)
		if err != nil {
			t.Fatal(err)
		}
		if got := levelLimits(level); got != setting.Limits() {
			t.Errorf("level %d: %+v, want %+v", level, got, setting.Limits())
		}
	}
}

// parseInfo reads an info line's depth and pv.
func parseInfo(t *testing.T, line string) (depth int, pv []string) {
	t.Helper()
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "info" || f[1] != "depth" {
		t.Fatalf("not an info depth line: %q", line)
	}
	depth, err := strconv.Atoi(f[2])
	if err != nil {
		t.Fatalf("%q: depth: %v", line, err)
	}
	// info depth D score S [exact] nodes N nps N time MS pv ...
	i := 3
	if f[i] != "score" {
		t.Fatalf("%q: no score", line)
	}
	if _, err := strconv.ParseFloat(f[i+1], 64); err != nil {
		t.Fatalf("%q: score: %v", line, err)
	}
	i += 2
	if f[i] == "exact" {
		i++
	}
	for _, key := range []string{"nodes", "nps", "time"} {
		if f[i] != key {
			t.Fatalf("%q: want %s at field %d", line, key, i+1)
		}
		if _, err := strconv.ParseUint(f[i+1], 10, 64); err != nil {
			t.Fatalf("%q: %s: %v", line, key, err)
		}
		i += 2
	}
	if f[i] != "pv" || len(f) == i+1 {
		t.Fatalf("%q: want a non-empty pv", line)
	}
	return depth, f[i+1:]
}

// checkSearch checks a search's lines: info lines of increasing depth with
// legal principal variations, then a legal bestmove. It returns the last
// depth.
func checkSearch(t *testing.T, p rules.Position, r rules.Rules, lines []string) int {
	t.Helper()
	last := 0
	for _, l := range lines[:len(lines)-1] {
		d, pv := parseInfo(t, l)
		if d <= last {
			t.Errorf("depth %d after depth %d", d, last)
		}
		last = d
		q := p
		for _, ms := range pv {
			m, err := rules.ParseMove(ms)
			if err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			if q, err = q.Play(m, r); err != nil {
				t.Fatalf("%q: pv move %s: %v", l, m, err)
			}
		}
	}
	best := strings.TrimPrefix(lines[len(lines)-1], "bestmove ")
	m, err := rules.ParseMove(best)
	if err != nil || !p.IsLegal(m, r) {
		t.Fatalf("bestmove %q is not legal in %v", best, p)
	}
	return last
}

func TestEngineGoDepth(t *testing.T) {
	ts := newTestSession(t)
	ts.sendAll(t, "position startpos 6 4")
	ts.send(t, "go depth 3")
	lines := ts.sink.until(t, "bestmove")
	p, _ := rules.NewPosition(6, 4)
	if d := checkSearch(t, p, rules.DefaultRules(), lines); d != 3 {
		t.Errorf("last depth %d, want 3 in %q", d, lines)
	}
	if len(lines) != 4 {
		t.Errorf("want info at depths 1, 2, 3 and bestmove; got %q", lines)
	}
	// The search is over: another go is accepted.
	ts.send(t, "go depth 1 nodes 100000")
	checkSearch(t, p, rules.DefaultRules(), ts.sink.until(t, "bestmove"))
}

func TestEngineGoLevel(t *testing.T) {
	ts := newTestSession(t)
	ts.sendAll(t, "setoption name Level value 2", "position startpos 6 4 moves c")
	ts.send(t, "go")
	lines := ts.sink.until(t, "bestmove")
	p := ts.game.Position()
	setting, _ := engine.Level(2)
	if d := checkSearch(t, p, rules.DefaultRules(), lines); d != setting.Depth {
		t.Errorf("level 2 searched to depth %d, want %d: %q", d, setting.Depth, lines)
	}
}

func TestEngineGoInfiniteStop(t *testing.T) {
	ts := newTestSession(t)
	ts.sendAll(t, "position startpos")
	ts.send(t, "go infinite")
	first := ts.sink.until(t, "info depth")
	if len(first) != 1 {
		t.Fatalf("before the first info line: %q", first)
	}
	// While searching: isready answers, go is refused, position and
	// setoption apply to the next search.
	ts.send(t, "isready")
	ts.send(t, "go depth 2")
	ts.send(t, "position startpos 6 4")
	ts.send(t, "setoption name Hash value 2")
	ts.send(t, "bogus")
	var answers []string
	for _, l := range ts.sink.drain() {
		if !strings.HasPrefix(l, "info depth") {
			answers = append(answers, l)
		}
	}
	want := []string{"readyok", "info string error: already searching", `info string error: unknown command "bogus"`}
	if strings.Join(answers, "\n") != strings.Join(want, "\n") {
		t.Errorf("answers during the search: %q, want %q", answers, want)
	}

	start := time.Now()
	ts.send(t, "stop")
	// stop returns once bestmove is written.
	lines := ts.sink.drain()
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "bestmove ") {
		t.Fatalf("after stop: %q, want it to end with bestmove", lines)
	}
	if e := time.Since(start); e > 5*time.Second {
		t.Errorf("stop took %v", e)
	}
	p, _ := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	best, _ := rules.ParseMove(strings.TrimPrefix(lines[len(lines)-1], "bestmove "))
	if !p.IsLegal(best, rules.DefaultRules()) {
		t.Errorf("bestmove %v is not legal at the start", best)
	}
	// A second stop is harmless; the next go searches the new position
	// with the new hash size.
	if out := ts.sendAll(t, "stop"); len(out) > 0 {
		t.Errorf("stop while idle: %q", out)
	}
	ts.send(t, "go depth 2")
	q, _ := rules.NewPosition(6, 4)
	checkSearch(t, q, rules.DefaultRules(), ts.sink.until(t, "bestmove"))
	if ts.eng.Config().HashMiB != 2 {
		t.Errorf("hash %d MiB, want 2", ts.eng.Config().HashMiB)
	}
}

func TestEngineNewGameDuringSearch(t *testing.T) {
	ts := newTestSession(t)
	ts.send(t, "go infinite")
	ts.sink.until(t, "info depth")
	for _, l := range ts.sendAll(t, "newgame") {
		if !strings.HasPrefix(l, "info depth") {
			t.Errorf("newgame during a search wrote %q", l)
		}
	}
	ts.send(t, "stop")
	ts.sink.until(t, "bestmove")
}

func TestEngineQuitStopsSearch(t *testing.T) {
	ts := newTestSession(t)
	ts.send(t, "go infinite")
	ts.sink.until(t, "info depth")
	if !ts.send(t, "quit") {
		t.Fatal("quit did not end the session")
	}
	lines := ts.sink.drain()
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "bestmove ") {
		t.Errorf("after quit: %q, want bestmove last", lines)
	}
}

// runProtocol runs the engine protocol on input and returns its output.
func runProtocol(t *testing.T, ctx context.Context, input io.Reader) (string, error) {
	t.Helper()
	sink := &syncBuffer{}
	errc := make(chan error, 1)
	go func() { errc <- runEngineProtocol(ctx, input, sink) }()
	select {
	case err := <-errc:
		return sink.String(), err
	case <-time.After(waitLimit):
		t.Fatalf("the protocol did not end within %v", waitLimit)
		return "", nil
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

func TestEngineEOFActsLikeQuit(t *testing.T) {
	out, err := runProtocol(t, context.Background(), strings.NewReader("position startpos 6 4\ngo infinite\n"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !strings.HasPrefix(lines[len(lines)-1], "bestmove ") {
		t.Errorf("output %q, want bestmove last", out)
	}

	out, err = runProtocol(t, context.Background(), strings.NewReader("isready\nquit\nisready\n"))
	if err != nil || out != "readyok\n" {
		t.Errorf("quit: output %q, error %v; want only the first readyok", out, err)
	}
}

func TestEngineContextCancel(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.WriteString(pw, "go infinite\n")
		cancel()
	}()
	out, err := runProtocol(t, ctx, pr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if strings.Contains(out, "info depth") && !strings.Contains(out, "bestmove") {
		t.Errorf("a search started but wrote no bestmove: %q", out)
	}
}

func TestEngineLongLine(t *testing.T) {
	input := "isready\nposition startpos moves " + strings.Repeat("a ", maxEngineLine) + "\nisready\n"
	out, err := runProtocol(t, context.Background(), strings.NewReader(input))
	if err == nil {
		t.Error("no error for an over-long line")
	}
	if !strings.HasPrefix(out, "readyok\ninfo string error: input line longer than") {
		t.Errorf("output %q", out)
	}
}

func TestEngineCommandLine(t *testing.T) {
	code, out, errOut := run(t, "isready\n", "engine")
	if code != 0 || out != "readyok\n" {
		t.Errorf("engine: exit %d, output %q, errors %q", code, out, errOut)
	}
	if code, _, _ := run(t, "", "engine", "extra"); code != 2 {
		t.Errorf("engine extra: exit %d, want 2", code)
	}
	if code, out, _ := run(t, "", "help", "engine"); code != 0 || !strings.Contains(out, "engine protocol") {
		t.Errorf("help engine: exit %d, output %q", code, out)
	}
}

// TestEngineSubprocess builds the endodoi binary and talks to it through
// pipes as a GUI would.
func TestEngineSubprocess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	bin := filepath.Join(t.TempDir(), "endodoi")
	build := exec.CommandContext(ctx, goTool, "build", "-o", bin, "./cmd/endodoi")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	cmd := exec.CommandContext(ctx, bin, "engine")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 1<<12)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	send := func(s string) {
		t.Helper()
		if _, err := io.WriteString(stdin, s+"\n"); err != nil {
			t.Fatalf("writing %q: %v", s, err)
		}
	}
	until := func(prefix string) []string {
		t.Helper()
		var got []string
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("output ended before %q; got %q; stderr %q", prefix, got, stderr.String())
				}
				got = append(got, l)
				if strings.HasPrefix(l, prefix) {
					return got
				}
			case <-ctx.Done():
				t.Fatalf("no %q line: %v; got %q", prefix, ctx.Err(), got)
			}
		}
	}

	send("endodoi")
	hs := until("endodoiok")
	if hs[0] != "id name endodoi dev" || len(hs) != 8 {
		t.Errorf("handshake %q", hs)
	}
	send("isready")
	if got := until("readyok"); len(got) != 1 {
		t.Errorf("isready: %q", got)
	}
	send("position startpos 6 4 moves c")
	send("go depth 4")
	p, _ := rules.NewPosition(6, 4)
	p, _ = p.Play(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if d := checkSearch(t, p, rules.DefaultRules(), until("bestmove")); d != 4 {
		t.Errorf("go depth 4 stopped at depth %d", d)
	}
	send("go sideways")
	if got := until("info string error:"); len(got) != 1 {
		t.Errorf("malformed go: %q", got)
	}
	send("go infinite")
	until("info depth")
	send("stop")
	got := until("bestmove")
	checkSearch(t, p, rules.DefaultRules(), got[len(got)-1:])
	send("quit")
	// Read to the end of the output before Wait closes the pipe.
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
			} else {
				t.Errorf("output after quit: %q", l)
			}
		case <-ctx.Done():
			t.Fatalf("the engine did not exit after quit: %v", ctx.Err())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr %q", err, stderr.String())
	}
}
