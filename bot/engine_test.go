package bot

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/endodoi/endodoi/protocol"
	"github.com/endodoi/endodoi/rules"
)

// The test binary doubles as the engines the tests drive: run with
// testEngineEnv set, it speaks the engine protocol in the way the variable
// names instead of running the tests.
const (
	testEngineEnv = "ENDODOI_BOT_TEST_ENGINE"
	// crashFileEnv names a file: the "crash" engine exits at its first go
	// while the file does not exist, and makes it, so that the engine
	// started after it plays.
	crashFileEnv = "ENDODOI_BOT_TEST_CRASHFILE"
)

func TestMain(m *testing.M) {
	mode := os.Getenv(testEngineEnv)
	if mode == "" {
		os.Exit(m.Run())
	}
	if mode == "exit" {
		os.Exit(3) // not an engine at all
	}
	h := &testEngine{Session: protocol.NewSession("test"), mode: mode}
	if err := protocol.Serve(context.Background(), os.Stdin, os.Stdout, h); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

// testEngine is endodoi's own engine, spoilt in the way mode says:
// "engine" plays well, "crash" dies at its first search, "illegal" names
// a hole of the side not to move, "silent" never answers a search.
type testEngine struct {
	*protocol.Session
	mode string
	game *rules.Game
}

func (h *testEngine) Position(c protocol.Position) error {
	if err := h.Session.Position(c); err != nil {
		return err
	}
	g, err := rules.NewGame(c.Start, rules.DefaultRules())
	if err == nil {
		for _, m := range c.Moves {
			if g.Play(m) != nil {
				break
			}
		}
		h.game = g
	}
	return nil
}

func (h *testEngine) Search(ctx context.Context, g protocol.Go, report func(protocol.Info)) (rules.Move, error) {
	switch h.mode {
	case "crash":
		path := os.Getenv(crashFileEnv)
		if _, err := os.Stat(path); err != nil {
			os.WriteFile(path, nil, 0o600)
			os.Exit(2)
		}
	case "illegal":
		if h.game != nil {
			return rules.NewMove(1-h.game.Position().ToMove(), 0), nil
		}
	case "silent":
		time.Sleep(time.Hour)
	}
	return h.Session.Search(ctx, g, report)
}

// testEngineConfig runs the test binary as the engine of mode.
func testEngineConfig(t *testing.T, mode string) EngineConfig {
	t.Helper()
	t.Setenv(testEngineEnv, mode) // inherited by the engine's process only: TestMain has run
	return EngineConfig{Command: []string{os.Args[0], "-test.run=^$"}}
}

func testLog(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// testWriter sends a logger's lines to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(b []byte) (int, error) {
	w.t.Helper()
	w.t.Log(string(b[:len(b)-1]))
	return len(b), nil
}

func startOf(t *testing.T, holes, seeds int) rules.Position {
	t.Helper()
	p, err := rules.NewPosition(holes, seeds)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// legalAfter reports whether m is legal after moves from start under r.
func legalAfter(t *testing.T, start rules.Position, moves []rules.Move, r rules.Rules, m rules.Move) bool {
	t.Helper()
	g, err := rules.NewGame(start, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, mv := range moves {
		if err := g.Play(mv); err != nil {
			t.Fatal(err)
		}
	}
	return slices.Contains(g.LegalMoves(), m)
}

func TestEngineBestMove(t *testing.T) {
	cross, err := rules.NewRules(rules.Cross, 500)
	if err != nil {
		t.Fatal(err)
	}
	e := NewEngine(testEngineConfig(t, "engine"), testLog(t))
	defer e.Close()
	start := startOf(t, 6, 4)
	c, D := rules.NewMove(rules.South, 2), rules.NewMove(rules.North, 3)
	for _, tc := range []struct {
		name  string
		moves []rules.Move
		r     rules.Rules
	}{
		{"start", nil, rules.DefaultRules()},
		{"after two moves", []rules.Move{c, D}, rules.DefaultRules()},
		{"cross rules", []rules.Move{c}, cross},
		{"standard again", []rules.Move{c, D}, rules.DefaultRules()},
	} {
		m, err := e.BestMove(t.Context(), Search{Start: start, Moves: tc.moves, Rules: tc.r, Think: 50 * time.Millisecond})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !legalAfter(t, start, tc.moves, tc.r, m) {
			t.Errorf("%s: bestmove %s is not legal", tc.name, m)
		}
	}
	if e.starts != 1 {
		t.Errorf("the engine was started %d times, want once for the whole game", e.starts)
	}
	if e.Name() != "endodoi test" {
		t.Errorf("engine name %q", e.Name())
	}
}

func TestEngineAtALevel(t *testing.T) {
	cfg := testEngineConfig(t, "engine")
	cfg.Level = 1
	cfg.Options = []EngineOption{{"Hash", "8"}}
	e := NewEngine(cfg, testLog(t))
	defer e.Close()
	start := startOf(t, 8, 4)
	m, err := e.BestMove(t.Context(), Search{Start: start, Rules: rules.DefaultRules(), Think: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !legalAfter(t, start, nil, rules.DefaultRules(), m) {
		t.Errorf("bestmove %s is not legal", m)
	}
}

func TestEngineRestartsAfterACrash(t *testing.T) {
	cfg := testEngineConfig(t, "crash")
	t.Setenv(crashFileEnv, filepath.Join(t.TempDir(), "crashed"))
	e := NewEngine(cfg, testLog(t))
	defer e.Close()
	// The 6-hole start is in the opening book: the search ends at once,
	// however long it may take, which leaves a loaded machine time to
	// start the engine twice.
	start := startOf(t, 6, 4)
	var moves []rules.Move
	m, err := e.BestMove(t.Context(), Search{Start: start, Moves: moves, Rules: rules.DefaultRules(), Think: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if !legalAfter(t, start, moves, rules.DefaultRules(), m) {
		t.Errorf("bestmove %s is not legal", m)
	}
	if e.starts != 2 {
		t.Errorf("the engine was started %d times, want 2: once, and again after its crash", e.starts)
	}
}

func TestEngineFailures(t *testing.T) {
	for _, tc := range []struct {
		mode   string
		think  time.Duration
		starts int // how many times the engine is tried
	}{
		{"illegal", time.Minute, 1 + maxRestarts},
		{"silent", 100 * time.Millisecond, 1}, // its time is gone: no restart
		{"exit", time.Minute, 1 + maxRestarts},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			e := NewEngine(testEngineConfig(t, tc.mode), testLog(t))
			defer e.Close()
			_, err := e.BestMove(t.Context(), Search{Start: startOf(t, 6, 4), Rules: rules.DefaultRules(), Think: tc.think})
			if !errors.Is(err, errEngine) {
				t.Fatalf("error %v, want an engine failure", err)
			}
			t.Log(err)
			if e.starts != tc.starts {
				t.Errorf("the engine was started %d times, want %d", e.starts, tc.starts)
			}
			if e.proc != nil {
				t.Error("a failed engine is left running")
			}
		})
	}
}

func TestEngineStopsWhenTheGameMovesOn(t *testing.T) {
	e := NewEngine(testEngineConfig(t, "engine"), testLog(t))
	defer e.Close()
	start := startOf(t, 10, 6)
	if _, err := e.Declares(t.Context(), "Variant"); err != nil { // started before the search
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	if _, err := e.BestMove(ctx, Search{Start: start, Rules: rules.DefaultRules(), Think: time.Hour}); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want the context's", err)
	}
	// The same process searches on.
	m, err := e.BestMove(t.Context(), Search{Start: start, Rules: rules.DefaultRules(), Think: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if !legalAfter(t, start, nil, rules.DefaultRules(), m) {
		t.Errorf("bestmove %s is not legal", m)
	}
	if e.starts != 1 {
		t.Errorf("the engine was started %d times, want once", e.starts)
	}
}

func TestEngineLevelNeedsTheOption(t *testing.T) {
	cfg := EngineConfig{Command: []string{"/bin/sh", "-c", "read x; echo 'id name plain'; echo endodoiok; sleep 60"}, Level: 3}
	e := NewEngine(cfg, testLog(t))
	defer e.Close()
	_, err := e.BestMove(t.Context(), Search{Start: startOf(t, 6, 4), Rules: rules.DefaultRules(), Think: 50 * time.Millisecond})
	if !errors.Is(err, errEngine) {
		t.Fatalf("error %v, want the engine's failure to declare Level", err)
	}
	t.Log(err)
}

func TestEngineCloseEndsTheProcess(t *testing.T) {
	e := NewEngine(testEngineConfig(t, "engine"), testLog(t))
	if _, err := e.Declares(t.Context(), "Variant"); err != nil {
		t.Fatal(err)
	}
	pr := e.proc
	e.Close()
	select {
	case <-pr.Exited():
	case <-time.After(liveWait):
		t.Fatal("the engine still runs after Close")
	}
}

func TestEngineInProcess(t *testing.T) {
	cfg := EngineConfig{Level: 2, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
		return protocol.Serve(ctx, in, out, protocol.NewSession("in process"))
	}}
	e := NewEngine(cfg, testLog(t))
	start := startOf(t, 8, 4)
	for range 2 {
		m, err := e.BestMove(t.Context(), Search{Start: start, Rules: rules.DefaultRules(), Think: time.Second})
		if err != nil {
			t.Fatal(err)
		}
		if !legalAfter(t, start, nil, rules.DefaultRules(), m) {
			t.Errorf("bestmove %s is not legal", m)
		}
	}
	if e.Name() != "endodoi in process" || e.starts != 1 {
		t.Errorf("engine %q started %d times, want endodoi in process once", e.Name(), e.starts)
	}
	pr := e.proc
	e.Close()
	select {
	case <-pr.Exited():
	case <-time.After(liveWait):
		t.Fatal("the engine still runs after Close")
	}
}
