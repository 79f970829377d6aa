package cli

import (
	"bufio"
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/rules"
)

// waitLimit bounds every wait in these tests, so that a hang fails.
const waitLimit = 30 * time.Second

// syncBuffer is a strings.Builder safe for concurrent writes.
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
	// The default start, which the opening book does not hold: its
	// searches go through every depth rather than answer at once.
	q, _ := rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	p, _ := q.Play(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if b := book.For(rules.DefaultRules()); b != nil {
		for _, pos := range []rules.Position{q, p} {
			if _, ok := b.Probe(&pos); ok {
				t.Fatalf("the opening book holds %v: choose a board it does not", pos)
			}
		}
	}
	send("position startpos moves c")
	send("go depth 4")
	if d := checkSearch(t, p, rules.DefaultRules(), until("bestmove")); d != 4 {
		t.Errorf("go depth 4 stopped at depth %d", d)
	}
	send("go sideways")
	if got := until("info string error:"); len(got) != 1 {
		t.Errorf("malformed go: %q", got)
	}
	send("go infinite")
	until("info depth")
	// During a search: isready is answered at once; position and go wait
	// for the search's end and are then carried out.
	send("position startpos")
	send("go depth 2")
	send("isready")
	until("readyok")
	send("stop")
	got := until("bestmove")
	checkSearch(t, p, rules.DefaultRules(), got[len(got)-1:])
	if d := checkSearch(t, q, rules.DefaultRules(), until("bestmove")); d != 2 {
		t.Errorf("the go depth 2 sent during a search stopped at depth %d", d)
	}
	// The end of the input stops a bounded search too.
	send("go depth 200")
	until("info depth")
	stdin.Close()
	got = until("bestmove")
	checkSearch(t, q, rules.DefaultRules(), got[len(got)-1:])
	// Read to the end of the output before Wait closes the pipe.
	for done := false; !done; {
		select {
		case l, ok := <-lines:
			if !ok {
				done = true
			} else {
				t.Errorf("output after bestmove: %q", l)
			}
		case <-ctx.Done():
			t.Fatalf("the engine did not exit at the end of its input: %v", ctx.Err())
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit: %v; stderr %q", err, stderr.String())
	}
}
