package egtb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

func TestBuildWithReport(t *testing.T) {
	r := rules.DefaultRules()
	dir := t.TempDir()
	calls := 0
	var last Progress
	_, rep, err := BuildWithReport(context.Background(), Options{Holes: 3, MaxSeeds: 6, Rules: r, Dir: dir,
		Progress: func(p Progress) {
			calls++
			if p.Done > p.Total || p.Done < last.Done {
				t.Errorf("progress %+v after %+v", p, last)
			}
			last = p
		}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 {
		t.Error("the caller's Progress was not called")
	}
	if want := 2 * CumulativeSize(3, 6); last.Done != want || last.Total != want {
		t.Errorf("the last progress %+v, want %d of %d done", last, want, want)
	}
	var files uint64
	for n := 0; n <= 6; n++ {
		files += Size(3, n) + headerSize
	}
	if rep.Finished != 7 || rep.Loaded != 0 || len(rep.Stats) != 7 || rep.Positions() != CumulativeSize(3, 6) ||
		rep.Solved() != rep.Positions() || rep.Bytes() != files {
		t.Errorf("first build: %+v, positions %d, solved %d, bytes %d (want %d)", rep, rep.Positions(), rep.Solved(), rep.Bytes(), files)
	}
	var b strings.Builder
	rep.Write(&b)
	out := b.String()
	for _, want := range []string{
		"seeds      positions",
		fmt.Sprintf("built 3 holes a row, 0 to 6 seeds, %s: %d positions (South to move; North's are their mirror images), %d bytes in %s\n",
			r, rep.Positions(), files, dir),
		"time ",
		" M positions/s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "already built") {
		t.Errorf("a first build reports counts read:\n%s", out)
	}

	// Again, one count more: the seven are read, one is solved.
	_, rep, err = BuildWithReport(context.Background(), Options{Holes: 3, MaxSeeds: 7, Rules: r, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Loaded != 7 || len(rep.Stats) != 1 || rep.Solved() != Size(3, 7) {
		t.Errorf("second build: loaded %d, solved %d counts (%d positions)", rep.Loaded, len(rep.Stats), rep.Solved())
	}
	b.Reset()
	rep.Write(&b)
	if !strings.Contains(b.String(), "7 counts were already built and were read from their files\n") {
		t.Errorf("second report:\n%s", b.String())
	}
}

func TestBuildWithReportInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer func() { testHook = nil }()
	testHook = func(n int) {
		if n == 5 {
			cancel()
		}
	}
	tb, rep, err := BuildWithReport(ctx, Options{Holes: 3, MaxSeeds: 8, Rules: rules.DefaultRules(), Dir: t.TempDir(), Workers: 1})
	testHook = nil
	if !errors.Is(err, context.Canceled) || tb != nil || rep.Finished != 5 {
		t.Errorf("interrupted in count 5: %v, finished %d, want context.Canceled and 5", err, rep.Finished)
	}
	if want := "interrupted while solving 5 seeds; counts 0 to 4 are finished in " + rep.Dir + ": run the same command again to resume"; err == nil || err.Error() != want {
		t.Errorf("interrupted in count 5: %v, want %q", err, want)
	}
	cancel()
	_, rep, err = BuildWithReport(ctx, Options{Holes: 3, MaxSeeds: 8, Rules: rules.DefaultRules()})
	if !errors.Is(err, context.Canceled) || rep.Finished != 0 || err.Error() != "interrupted before any count was finished" {
		t.Errorf("cancelled before the start: %v, finished %d", err, rep.Finished)
	}
}

func TestProgressText(t *testing.T) {
	p := Progress{Seeds: 7, MaxSeeds: 12, Done: 4e6, Total: 6e6, Elapsed: time.Second}
	if got := p.String(); got != "7 of 12 seeds" {
		t.Errorf("String: %q", got)
	}
	if got := p.Rate(); got != "2.0 M pos/s" {
		t.Errorf("Rate: %q", got)
	}
	if got := (Progress{}).Rate(); got != "" {
		t.Errorf("Rate at the start: %q", got)
	}
}

func TestVerifyCounts(t *testing.T) {
	r := rules.DefaultRules()
	dir := buildDir(t, 3, 6, r)
	tb, err := Open(dir, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	var checked []int
	rep, err := tb.VerifyCounts(context.Background(), VerifyOptions{Seeds: -1, Workers: 2,
		Progress: func(p Progress) {
			if p.Total != CumulativeSize(3, 6) || p.Done > p.Total {
				t.Errorf("progress %+v", p)
			}
		},
		Checked: func(c CountCheck) { checked = append(checked, c.Seeds) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Counts) != 7 || rep.Wrong() != 0 || rep.Err() != nil || fmt.Sprint(checked) != "[0 1 2 3 4 5 6]" {
		t.Errorf("sound databases: %+v, checked %v, %v", rep, checked, rep.Err())
	}
	if got := rep.Counts[2].String(); got != fmt.Sprintf("  2 seeds: %d positions, ok", Size(3, 2)) {
		t.Errorf("a sound count's line: %q", got)
	}
	if got := rep.String(); !strings.HasPrefix(got, "all 7 counts verified in ") {
		t.Errorf("summary %q", got)
	}

	// Wrong values in count 5, checked alone.
	path := filepath.Join(dir, FileName(3, 5, r))
	rewrite(t, path, 10, func(v int8) int8 { return v + 2 })
	rewrite(t, path, 20, func(v int8) int8 { return v - 2 })
	tb, _ = Open(dir, 3, r)
	rep, err = tb.VerifyCounts(context.Background(), VerifyOptions{Seeds: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Counts) != 1 || rep.Wrong() != 1 || rep.Err() == nil || rep.Err().Error() != "1 of 1 counts have wrong values" {
		t.Fatalf("one wrong count: %+v, %v", rep, rep.Err())
	}
	// A wrong value makes its predecessors' look wrong too.
	c := rep.Counts[0]
	lines := strings.Split(c.String(), "\n")
	if c.Mismatches < 2 || len(lines) != 1+min(int(c.Mismatches), 5) ||
		lines[0] != fmt.Sprintf("  5 seeds: %d positions, %d WRONG", Size(3, 5), c.Mismatches) ||
		!strings.HasPrefix(lines[1], "    ") || !strings.Contains(lines[1], ": stored ") {
		t.Errorf("a wrong count's lines: %q", lines)
	}
	called := false
	_, err = tb.VerifyCounts(context.Background(), VerifyOptions{Seeds: 7, Progress: func(Progress) { called = true }})
	if want := "--seeds 7: the databases in " + dir + " for 3 holes a row hold at most 6 seeds"; !errors.Is(err, ErrBeyond) || err.Error() != want || called {
		t.Errorf("a count beyond the databases: %v (progress called: %v), want ErrBeyond saying %q", err, called, want)
	}
}

func TestWriteProbe(t *testing.T) {
	r := rules.DefaultRules()
	dir := buildDir(t, 3, 6, r)
	tb, err := Open(dir, 3, r)
	if err != nil {
		t.Fatal(err)
	}
	p := rules.MustParsePosition("2,0,1/0,1,1 s 3 4")
	var b strings.Builder
	if err := tb.WriteProbe(&b, p); err != nil {
		t.Fatal(err)
	}
	v, _ := tb.Value(p)
	out := b.String()
	for _, want := range []string{
		"position: " + p.String() + "\n",
		fmt.Sprintf("value: %s for South to move (%s)\n", Signed(v), Describe(p, v)),
		"* a  +1  (captures 3)\n",
		"  c  -3\n",
		"\nline: a ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the probe lacks %q:\n%s", want, out)
		}
	}

	b.Reset()
	p = rules.MustParsePosition("2,0,1/0,1,3 s 3 4")
	err = tb.WriteProbe(&b, p)
	want := fmt.Sprintf("%s has 7 seeds on the board, but the databases in %s for 3 holes a row hold positions with at most 6; build more with: endodoi egtb build --holes 3 --max-seeds 7 --dir %s",
		p, dir, dir)
	if !errors.Is(err, ErrBeyond) || err.Error() != want || b.Len() > 0 {
		t.Errorf("a probe beyond the databases: %v, wrote %q; want ErrBeyond saying %q", err, b.String(), want)
	}
}

func TestSolveReport(t *testing.T) {
	r := rules.DefaultRules()
	p, _ := rules.NewPosition(3, 2)
	var b strings.Builder
	opt := SolveOptions{Rules: r, Memory: 1 << 30}
	WriteSolvePlan(&b, p, opt)
	if want := fmt.Sprintf("position: %s\nboard: 3 holes a row, 12 seeds on the board, %s\nmethod: retrograde analysis of every position with up to 12 seeds on the board: %d positions with South to move (as many with North, their mirror images)\n",
		p, r, CumulativeSize(3, 12)); b.String() != want {
		t.Errorf("plan of a complete solution:\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteSolvePlan(&b, p, SolveOptions{Rules: r, Memory: 1})
	if !strings.Contains(b.String(), "method: search with the endgame databases (a complete solution would take about ") {
		t.Errorf("plan of a search:\n%s", b.String())
	}

	sol, err := Solve(context.Background(), p, opt)
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	sol.Write(&b, p, opt)
	out := b.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if last := lines[len(lines)-1]; last != "value "+Signed(SouthValue(p, sol.Value)) {
		t.Errorf("last line %q", last)
	}
	for _, want := range []string{"time ", "principal variation (", "it ", "result: " + Describe(p, sol.Value)} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}

	// Not solved: the bounds and the engine's estimate.
	unsolved := Solution{Method: Searched, Engine: &EngineResult{Depth: 9, Nodes: 1234, Score: 150, ScoreText: "+1.5"},
		Bounds: Bound{Depth: 4, Lo: -2, Hi: 6}}
	b.Reset()
	unsolved.Write(&b, p, SolveOptions{Rules: r, SearchTime: time.Minute})
	for _, want := range []string{
		"engine search: depth 9, 1234 nodes, 0s, score +1.5 (estimate)\n",
		"not solved: searched 1m0s; the bounds of depth 4 hold, the engine's estimate is +1.5\n",
		"value unknown, between -2 and +6\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("unsolved report lacks %q:\n%s", want, b.String())
		}
	}
	if got := (Bound{Depth: 3, Lo: 0, Hi: 4, Nodes: 77, Elapsed: 1500 * time.Microsecond}).String(); got != "bounds at depth 3: 0 to +4 (77 nodes, 2ms)" {
		t.Errorf("bound line %q", got)
	}
}

func TestWriteLine(t *testing.T) {
	r := rules.DefaultRules()
	var b strings.Builder
	p := rules.MustParsePosition("1,0/0,0 s 3 3")
	writeLine(&b, p, nil, r)
	if want := "principal variation: none\nit reaches 1,0/0,0 s 3 3, where"; !strings.HasPrefix(b.String(), want) {
		t.Errorf("empty line:\n%s\nwant the prefix %q", b.String(), want)
	}
	// After a, North's row is empty: the seed left goes to South.
	b.Reset()
	writeLine(&b, p, []rules.Move{rules.NewMove(rules.South, 0)}, r)
	if want := "principal variation (1 moves): a\nit ends: North has no legal move; Final score: South 4, North 3: South wins by 1.\n"; b.String() != want {
		t.Errorf("one-move line:\n%s\nwant\n%s", b.String(), want)
	}
}
