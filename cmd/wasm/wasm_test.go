//go:build !js

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/rules"
)

// workerScript is the page's worker, which the test runs under Node with
// the module, as the browser will.
const workerScript = "../../web/static/js/engine-worker.js"

// nodeOrSkip returns node's path; without node the test is skipped, or
// fails where CI is "true".
func nodeOrSkip(t *testing.T) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("node is needed to run the WebAssembly build: %v", err)
		}
		t.Skip("node is not installed: the WebAssembly build is not checked; with CI=true this fails")
	}
	return node
}

// buildWasm builds this program for the browser into dir.
func buildWasm(t testing.TB, dir string) string {
	t.Helper()
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(goTool); err != nil {
		if goTool, err = exec.LookPath("go"); err != nil {
			t.Fatalf("the go command: %v", err)
		}
	}
	out := filepath.Join(dir, "endodoi.wasm")
	cmd := exec.Command(goTool, "build", "-trimpath", "-ldflags=-s -w", "-o", out, ".")
	cmd.Env = append(os.Environ(), "GOOS=js", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=js GOARCH=wasm go build: %v\n%s", err, msg)
	}
	return out
}

// worker is the page's worker running the module under Node.
type worker struct {
	cmd  *exec.Cmd
	in   *json.Encoder
	out  *bufio.Scanner
	next int
}

func startWorker(t testing.TB, node, wasm string) *worker {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, node, filepath.Join("testdata", "worker.mjs"), workerScript, wasm)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting node: %v", err)
	}
	t.Cleanup(func() {
		stdin.Close()
		if err := cmd.Wait(); err != nil && ctx.Err() == nil {
			t.Errorf("node: %v", err)
		}
	})
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	return &worker{cmd: cmd, in: json.NewEncoder(stdin), out: sc}
}

// call sends the requests and returns their answers, in the same order.
// The requests are written while the answers are read, so that neither
// pipe fills.
func (w *worker) call(t testing.TB, reqs []request) []json.RawMessage {
	t.Helper()
	type envelope struct {
		ID int `json:"id"`
		request
	}
	first := w.next
	w.next += len(reqs)
	errc := make(chan error, 1)
	go func() {
		for i, r := range reqs {
			if err := w.in.Encode(envelope{ID: first + i, request: r}); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	answers := make([]json.RawMessage, len(reqs))
	for range reqs {
		if !w.out.Scan() {
			t.Fatalf("the worker stopped answering: %v", w.out.Err())
		}
		var id struct {
			ID *int `json:"id"`
		}
		line := slices.Clone(w.out.Bytes())
		if err := json.Unmarshal(line, &id); err != nil || id.ID == nil || *id.ID < first || *id.ID >= first+len(reqs) {
			t.Fatalf("an answer without a known id: %s", line)
		}
		answers[*id.ID-first] = line
	}
	if err := <-errc; err != nil {
		t.Fatalf("writing to the worker: %v", err)
	}
	return answers
}

// sample is a random game: its start, its moves and its rules.
type sample struct {
	start rules.Position
	moves []rules.Move
	rules rules.Rules
}

func (s sample) request(op string) request {
	req := request{Op: op, Position: s.start.String(), Variant: s.rules.Variant.String(), MaxLaps: s.rules.MaxLaps}
	for _, m := range s.moves {
		req.Moves = append(req.Moves, m.String())
	}
	return req
}

func (s sample) game(t *testing.T) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(s.start, s.rules)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.moves {
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// samples returns n random games on 6 to 10 holes a row, under both
// variants, from starts of 2 to 6 seeds a hole, of 0 to 60 moves: a fixed
// seed makes them the same every run.
func samples(t *testing.T, n int) []sample {
	t.Helper()
	rng := rand.New(rand.NewPCG(25, 2025))
	out := make([]sample, 0, n)
	for i := range n {
		r := rules.DefaultRules()
		if i%2 == 1 {
			r.Variant = rules.Cross
		}
		if i%7 == 3 {
			r.MaxLaps = 5 + rng.IntN(20) // short caps: endless sowings are illegal moves
		}
		start, err := rules.NewPosition(6+rng.IntN(5), 2+rng.IntN(5))
		if err != nil {
			t.Fatal(err)
		}
		g, err := rules.NewGame(start, r)
		if err != nil {
			t.Fatal(err)
		}
		for range rng.IntN(61) {
			legal := g.LegalMoves()
			if g.Over() || len(legal) == 0 {
				break
			}
			if err := g.Play(legal[rng.IntN(len(legal))]); err != nil {
				t.Fatal(err)
			}
		}
		out = append(out, sample{start: start, moves: g.Moves(), rules: r})
	}
	return out
}

// nativeView is the game as the native packages play it, in the API's
// terms.
func nativeView(t *testing.T, s sample) gameview.Board {
	t.Helper()
	g, err := rules.NewGame(s.start, s.rules)
	if err != nil {
		t.Fatal(err)
	}
	v := gameview.Board{
		Holes: s.start.Holes(), Variant: s.rules.Variant.String(), MaxLaps: s.rules.Laps(),
		Start: s.start.String(), Positions: []string{s.start.String()}, Moves: []string{}, LegalMoves: []string{},
	}
	for _, m := range s.moves {
		_, sw, err := g.Position().Trace(m, s.rules)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
		v.Moves = append(v.Moves, m.String())
		v.Positions = append(v.Positions, g.Position().String())
		laps := []gameview.Lap{}
		for _, l := range sw.Laps {
			laps = append(laps, gameview.Lap{From: l.From, Seeds: l.Seeds, To: l.To})
		}
		v.Sowings = append(v.Sowings, gameview.Sowing{Move: m.String(), Laps: laps, CaptureFrom: sw.CaptureFrom, Captured: sw.Captured})
	}
	if v.Sowings == nil {
		v.Sowings = []gameview.Sowing{}
	}
	p := g.Position()
	v.Position, v.ToMove = p.String(), string(p.ToMove().Letter())
	if !g.Over() {
		for _, m := range p.LegalMoves(s.rules) {
			v.LegalMoves = append(v.LegalMoves, m.String())
		}
	}
	v.Status, v.Result = gameview.StatusName(g.Status()), g.Result().Token()
	v.Score.South, v.Score.North = g.Score()
	return v
}

func decode[T any](t testing.TB, what string, raw json.RawMessage) T {
	t.Helper()
	var v T
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(raw, &e); err == nil && e.Error != "" {
		t.Fatalf("%s: the worker answered an error: %s", what, e.Error)
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v in %s", what, err, raw)
	}
	return v
}

// TestSameAnswersAsNative builds the program for the browser, runs it in
// the page's worker under Node, and checks that it answers as the native
// packages do: on random games of every board from 6 to 10 holes, under
// both variants, the positions, legal moves, statuses, results, scores
// and sowings; every legal move's outcome; perft; fixed-depth searches
// (best move, score, line and node count, one thread); and the levels
// with their random choice seeded.
func TestSameAnswersAsNative(t *testing.T) {
	node := nodeOrSkip(t)
	wasm := buildWasm(t, t.TempDir())
	w := startWorker(t, node, wasm)
	games := samples(t, 600)

	// Games: every position of every game, and where each game stands.
	var reqs []request
	for _, s := range games {
		reqs = append(reqs, s.request("game"))
	}
	positions := 0
	for i, raw := range w.call(t, reqs) {
		got := decode[gameview.Board](t, "game", raw)
		want := nativeView(t, games[i])
		positions += len(want.Positions)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("game %d (%s %v): WebAssembly\n%+v\nnative\n%+v", i, games[i].start, games[i].moves, got, want)
		}
	}

	// Every legal move of the last position of each game: the same game
	// after it. Then moves of the wrong side or off the board: refused.
	reqs = reqs[:0]
	var wantPlays []sample
	for _, s := range games {
		g := s.game(t)
		for _, m := range g.LegalMoves() {
			req := s.request("play")
			req.Move = m.String()
			reqs = append(reqs, req)
			wantPlays = append(wantPlays, sample{start: s.start, moves: append(slices.Clone(s.moves), m), rules: s.rules})
		}
	}
	for i, raw := range w.call(t, reqs) {
		got := decode[playView](t, "play", raw)
		want := nativeView(t, wantPlays[i])
		if !reflect.DeepEqual(got.Game, want) || !reflect.DeepEqual(got.Sowing, want.Sowings[len(want.Sowings)-1]) {
			t.Errorf("play %s after %s %v: WebAssembly\n%+v\nnative\n%+v", reqs[i].Move, reqs[i].Position, reqs[i].Moves, got.Game, want)
		}
	}
	moves := len(reqs)
	reqs = reqs[:0]
	for _, s := range games[:100] {
		g := s.game(t)
		for col := range s.start.Holes() + 1 {
			m := rules.NewMove(g.Position().ToMove().Opponent(), col%s.start.Holes())
			if col == s.start.Holes() {
				m = rules.NewMove(g.Position().ToMove(), col) // no such hole
			}
			req := s.request("play")
			req.Move = m.String()
			reqs = append(reqs, req)
		}
	}
	illegal := len(reqs)
	for i, raw := range w.call(t, reqs) {
		var e errorView
		if err := json.Unmarshal(raw, &e); err != nil || e.Error == "" {
			t.Errorf("illegal move %s after %s %v: answered %s", reqs[i].Move, reqs[i].Position, reqs[i].Moves, raw)
		}
	}

	// Perft to depth 3 from the last position of each game.
	reqs = reqs[:0]
	for _, s := range games {
		req := s.request("perft")
		req.Depth = 3
		reqs = append(reqs, req)
	}
	for i, raw := range w.call(t, reqs) {
		got := decode[perftView](t, "perft", raw)
		g := games[i].game(t)
		want := make([]uint64, 4)
		rules.PerftCounts(g.Position(), g.Rules(), want)
		if !slices.Equal(got.Counts, want[1:]) {
			t.Errorf("perft of %s: WebAssembly %v, native %v", g.Position(), got.Counts, want[1:])
		}
	}

	// Fixed-depth searches, and the levels whose choice is not timed.
	var searched []sample
	reqs = reqs[:0]
	for i, s := range games {
		if s.game(t).Over() {
			continue
		}
		req := s.request("search")
		if i%3 == 0 {
			req.Level, req.Seed = 1+i%7, uint64(i)+1 // levels 1 to 7: depth or noise, no clock
		} else {
			req.Depth = 1 + i%6
		}
		reqs = append(reqs, req)
		searched = append(searched, s)
	}
	engines := map[engineKey]*engine.Engine{}
	for i, raw := range w.call(t, reqs) {
		got := decode[searchView](t, "search", raw)
		s, req := searched[i], reqs[i]
		g := s.game(t)
		k := engineKey{rules: s.rules.Canonical()}
		e := engines[k]
		if e == nil {
			var err error
			if e, err = engine.New(engine.Config{Rules: k.rules, HashMiB: api.SearchHashMiB}); err != nil {
				t.Fatal(err)
			}
			engines[k] = e
		}
		e.NewGame()
		var res engine.Result
		var err error
		if req.Level != 0 {
			res, err = e.PlayLevel(context.Background(), g.Position(), g.History(), req.Level, rand.New(rand.NewPCG(req.Seed, req.Seed)))
		} else {
			res, err = e.Search(context.Background(), g.Position(), g.History(), engine.Limits{Depth: req.Depth}, nil)
		}
		if err != nil {
			t.Fatal(err)
		}
		want := searchView{Move: res.Move.String(), Score: res.Score.Seeds(), Exact: res.Exact, Final: rules.FinalMargin(g.Position(), res.Score.Seeds(), 1), Depth: res.Depth, Nodes: res.Nodes, PV: []string{}}
		for _, m := range res.PV {
			want.PV = append(want.PV, m.String())
		}
		got.ElapsedMs = 0
		if !reflect.DeepEqual(got, want) {
			t.Errorf("search of %s %v (level %d, depth %d): WebAssembly %+v, native %+v", req.Position, req.Moves, req.Level, req.Depth, got, want)
		}
	}
	t.Logf("%d games, %d positions, %d moves, %d illegal moves, %d perfts, %d searches: the same answers",
		len(games), positions, moves, illegal, len(games), len(reqs))
}

// TestRequestErrors checks that bad requests are answered with an error,
// not a panic: they come from the page.
func TestRequestErrors(t *testing.T) {
	h := newHandler(clock.Real)
	start := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0").String()
	for _, in := range []string{
		`not json`, `{}`, `{"op":"nope"}`,
		`{"op":"game","position":"4,4/4 s 0 0"}`,
		`{"op":"game","position":"` + start + `","variant":"chess"}`,
		`{"op":"game","position":"` + start + `","maxLaps":-1}`,
		`{"op":"game","position":"` + start + `","moves":["A"]}`,
		`{"op":"play","position":"` + start + `","move":"z"}`,
		`{"op":"play","position":"` + start + `","move":""}`,
		`{"op":"search","position":"` + start + `"}`,
		`{"op":"search","position":"` + start + `","level":11}`,
		`{"op":"search","position":"` + start + `","level":3,"depth":2}`,
		`{"op":"search","position":"` + start + `","depth":-1}`,
		`{"op":"search","position":"0,0,0,0,0,0/0,0,0,0,0,1 s 23 24"}`,
		`{"op":"perft","position":"` + start + `","depth":17}`,
	} {
		var e errorView
		out := h.handle(context.Background(), []byte(in))
		if err := json.Unmarshal(out, &e); err != nil || e.Error == "" {
			t.Errorf("%s: answered %s, want an error", in, out)
		}
	}
	var v helloView
	if err := json.Unmarshal(h.handle(context.Background(), []byte(`{"op":"hello"}`)), &v); err != nil || v.MaxLevel != engine.MaxLevel {
		t.Errorf("hello: %+v, %v", v, err)
	}
}

// BenchmarkSpeed compares the engine's speed in WebAssembly (under Node,
// in the page's worker) with native, one thread each: the positions of
// engine.Bench searched to engine.DefaultBenchDepth from an empty table,
// the same searches, nodes and lines in both. Run it once:
//
//	go test -run '^$' -bench Speed -benchtime 1x ./cmd/wasm
func BenchmarkSpeed(b *testing.B) {
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skip("node is not installed")
	}
	w := startWorker(b, node, buildWasm(b, b.TempDir()))
	var reqs []request
	for _, p := range engine.BenchPositions {
		reqs = append(reqs, request{Op: "search", Position: p, Depth: engine.DefaultBenchDepth})
	}
	w.call(b, reqs[:1]) // compiles the module's code before it is timed
	b.ResetTimer()
	for range b.N {
		h := newHandler(clock.Real)
		var native, wasm searchView
		for i, raw := range w.call(b, reqs) {
			in, err := json.Marshal(reqs[i])
			if err != nil {
				b.Fatal(err)
			}
			n := decode[searchView](b, "native search", h.handle(context.Background(), in))
			v := decode[searchView](b, "search", raw)
			if n.Nodes != v.Nodes || n.Move != v.Move {
				b.Fatalf("%s: native %+v, WebAssembly %+v", reqs[i].Position, n, v)
			}
			native.Nodes += n.Nodes
			native.ElapsedMs += n.ElapsedMs
			wasm.Nodes += v.Nodes
			wasm.ElapsedMs += v.ElapsedMs
		}
		b.ReportMetric(float64(native.Nodes)/native.ElapsedMs*1000, "native-nps")
		b.ReportMetric(float64(wasm.Nodes)/wasm.ElapsedMs*1000, "wasm-nps")
		b.ReportMetric(float64(native.Nodes), "nodes")
	}
}
