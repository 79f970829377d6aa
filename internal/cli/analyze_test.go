package cli

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/oracle"
	"github.com/endodoi/endodoi/rules"
)

// bruteMoves returns each legal move's value in p, a game's start, with
// repetitions scored at their repeatAt-th occurrence.
func bruteMoves(t *testing.T, p rules.Position, r rules.Rules, repeatAt int) (map[rules.Move]int, bool) {
	t.Helper()
	s := &oracle.Solver{Rules: r, RepeatAt: repeatAt, Budget: 200_000}
	return s.MoveValues(p, nil)
}

var analyzeLine = regexp.MustCompile(`^(\d+)\. ([a-pA-P])  (\S+)( exact)?  \(([^)]*)\)  ([a-pA-P ]*)$`)

type analyzedMove struct {
	rank  int
	move  rules.Move
	score engine.Score
	exact bool
	final string
	pv    []string
}

// analyzeOut runs analyze and returns its move lines.
func analyzeOut(t *testing.T, args ...string) []analyzedMove {
	t.Helper()
	code, out, errOut := run(t, "", append([]string{"analyze"}, args...)...)
	if code != 0 {
		t.Fatalf("analyze %q: exit %d: %s", args, code, errOut)
	}
	var got []analyzedMove
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if line == "" || !('0' <= line[0] && line[0] <= '9') {
			continue
		}
		f := analyzeLine.FindStringSubmatch(line)
		if f == nil {
			t.Fatalf("analyze %q: bad line %q in\n%s", args, line, out)
		}
		rank, _ := strconv.Atoi(f[1])
		m, err := rules.ParseMove(f[2])
		if err != nil {
			t.Fatal(err)
		}
		seeds, err := strconv.ParseFloat(f[3], 64)
		if err != nil {
			t.Fatalf("score %q: %v", f[3], err)
		}
		got = append(got, analyzedMove{rank: rank, move: m, score: engine.Score(seeds * 100), exact: f[4] != "",
			final: f[5], pv: strings.Fields(f[6])})
	}
	return got
}

// solvedText is what analyze says of a solved final margin for South.
func solvedText(margin int) string {
	switch {
	case margin > 0:
		return fmt.Sprintf("solved: South wins by %d", margin)
	case margin < 0:
		return fmt.Sprintf("solved: North wins by %d", -margin)
	}
	return "solved: draw"
}

// TestAnalyzeExact compares analyze's solved scores on tiny positions with
// a brute-force search of the whole game tree.
//
// The best move's score is the game's value under rule 9 (a third
// occurrence ends the game). The other moves' scores follow the engine's
// shortcut of scoring a repetition 0 at once, which can undervalue a move
// after which the opponent may return to the position analysed: in
// 0,1/1,1 n 0 1, B is worth +3 under rule 9 (if South plays b back, North
// plays A the second time) but scores 0, "exact", since b repeats.
func TestAnalyzeExact(t *testing.T) {
	var positions []string
	for a := 0; a <= 3; a++ {
		for b := 0; b <= 3; b++ {
			for c := 0; c <= 3; c++ {
				for d := 0; d <= 3; d++ {
					if (a+b+c+d)%3 == 0 && a+b > 0 {
						side := "s"
						if (a+c)%2 == 1 {
							side = "n"
						}
						positions = append(positions, fmt.Sprintf("%d,%d/%d,%d %s %d %d", a, b, c, d, side, a, d))
					}
				}
			}
		}
	}
	positions = append(positions, "2,0,1/1,1,0 n 3 1", "4,4/4,4 s 0 0", "3,3/3,3 s 0 0", "1,2/2,0 s 2 2")
	r := rules.DefaultRules()
	checked := 0
	for _, ps := range positions {
		p := rules.MustParsePosition(ps)
		// Every move's score must be its value under rule 9 (the third
		// occurrence ends the game); the shortcut of scoring the first
		// repetition 0 must give the same best value.
		shortcut, ok := bruteMoves(t, p, r, 2)
		if !ok || len(shortcut) == 0 {
			continue
		}
		want, ok := bruteMoves(t, p, r, 3)
		if !ok {
			continue
		}
		checked++
		all := analyzeOut(t, "--multipv", "all", "--depth", "100", ps)
		if len(all) != len(want) {
			t.Errorf("%s: %d moves analysed, want %d", ps, len(all), len(want))
			continue
		}
		best, best9 := -1<<30, -1<<30
		for m, v := range want {
			best, best9 = max(best, shortcut[m]), max(best9, v)
		}
		if best != best9 {
			t.Errorf("%s: the value %+d with repetitions scored 0 at once differs from the rule-9 value %+d", ps, best, best9)
		}
		for i, l := range all {
			if l.rank != i+1 {
				t.Errorf("%s: line %d has rank %d", ps, i+1, l.rank)
			}
			if i > 0 && l.score > all[i-1].score {
				t.Errorf("%s: line %d (%s %v) scores above line %d (%v)", ps, i+1, l.move, l.score, i, all[i-1].score)
			}
			v, ok := want[l.move]
			if !ok {
				t.Errorf("%s: analysed move %s is not legal", ps, l.move)
				continue
			}
			if !l.exact || l.score != engine.Score(v)*engine.Seed {
				t.Errorf("%s: move %s scored %v (exact %v), brute force %+d", ps, l.move, l.score, l.exact, v)
			}
			margin := rules.FinalMargin(p, v, 1)
			if l.final != solvedText(margin) {
				t.Errorf("%s: move %s: %q, want %q", ps, l.move, l.final, solvedText(margin))
			}
			if len(l.pv) == 0 || l.pv[0] != l.move.String() {
				t.Errorf("%s: move %s: line %q", ps, l.move, l.pv)
			}
		}
		one := analyzeOut(t, "--depth", "100", ps)
		if len(one) != 1 || !one[0].exact || one[0].score != engine.Score(best9)*engine.Seed || want[one[0].move] != best9 {
			t.Errorf("%s: single best %+v, want a move worth %+d", ps, one, best9)
		}
	}
	if checked < 20 {
		t.Errorf("only %d positions checked", checked)
	}
}

func TestAnalyzeMultiPV(t *testing.T) {
	start := "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"
	for _, tc := range []struct {
		k    string
		want int
	}{{"1", 1}, {"3", 3}, {"6", 6}, {"10", 6}, {"all", 6}, {"ALL", 6}} {
		got := analyzeOut(t, "--depth", "3", "--multipv", tc.k, start)
		if len(got) != tc.want {
			t.Errorf("--multipv %s: %d lines, want %d", tc.k, len(got), tc.want)
			continue
		}
		seen := map[rules.Move]bool{}
		for i, l := range got {
			if seen[l.move] {
				t.Errorf("--multipv %s: %s twice", tc.k, l.move)
			}
			seen[l.move] = true
			if i > 0 && l.score > got[i-1].score {
				t.Errorf("--multipv %s: not best first: %+v", tc.k, got)
			}
			if l.exact || !strings.HasPrefix(l.final, "expected final: ") {
				t.Errorf("--multipv %s: a 3-ply score of the 6-hole start is not exact: %+v", tc.k, l)
			}
		}
	}
	// --multipv 3 gives the first three of --multipv all.
	all := analyzeOut(t, "--depth", "4", "--multipv", "all", start)
	three := analyzeOut(t, "--depth", "4", "--multipv", "3", start)
	for i := range three {
		if three[i].move != all[i].move || three[i].score != all[i].score {
			t.Errorf("--multipv 3 line %d %+v, --multipv all %+v", i+1, three[i], all[i])
		}
	}
}

func TestAnalyzeOutput(t *testing.T) {
	// The expected final result adds the captures so far: North to move
	// with 5 and 7 captured.
	p := rules.MustParsePosition("2,0,1/1,1,0 n 3 1")
	code, out, errOut := run(t, "", "analyze", "--time", "1s", "--verbose", p.String())
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"position: 2,0,1/1,1,0 n 3 1", "North to move; captured so far: South 3, North 1", "1. "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if !strings.Contains(errOut, "depth 1: ") {
		t.Errorf("--verbose wrote no progress: %q", errOut)
	}
	code, _, errOut = run(t, "", "analyze", "--time", "1s", p.String())
	if code != 0 || errOut != "" {
		t.Errorf("without --verbose: exit %d, stderr %q", code, errOut)
	}

	// A finished game: the sweep decides.
	code, out, _ = run(t, "", "analyze", "0,0/2,1 s 4 1")
	if code != 0 || !strings.Contains(out, "South has no legal move (its row is empty)") ||
		!strings.Contains(out, "The 3 seeds left on the board go to North.") ||
		!strings.Contains(out, "Final score: South 4, North 4: a draw.") {
		t.Errorf("finished game: exit %d\n%s", code, out)
	}
	code, out, _ = run(t, "", "analyze", "2,0/2,1 s 0 0")
	if code != 0 || !strings.Contains(out, "every sowing it could start is endless") || !strings.Contains(out, "North wins by 5") {
		t.Errorf("endless moves only: exit %d\n%s", code, out)
	}
}

func TestFinalText(t *testing.T) {
	for _, tc := range []struct {
		pos   string
		score engine.Score
		exact bool
		want  string
	}{
		{"1,1/1,1 s 3 1", 4 * engine.Seed, true, "solved: South wins by 6"},
		{"1,1/1,1 n 3 1", 4 * engine.Seed, true, "solved: North wins by 2"},
		{"1,1/1,1 n 3 1", 2 * engine.Seed, true, "solved: draw"},
		{"1,1/1,1 s 0 0", 450, false, "expected final: South +4.5"},
		{"1,1/1,1 s 0 2", -50, false, "expected final: North +2.5"},
		{"1,1/1,1 n 2 0", 200, false, "expected final: even"},
	} {
		if got := engine.FinalText(rules.MustParsePosition(tc.pos), tc.score, tc.exact); got != tc.want {
			t.Errorf("engine.FinalText(%s, %v, %v) = %q, want %q", tc.pos, tc.score, tc.exact, got, tc.want)
		}
	}
}

func TestAnalyzeBadInput(t *testing.T) {
	start := "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"
	for _, args := range [][]string{
		{},
		{"4,4/4 s 0 0"},
		{"nonsense"},
		{"--depth", "0", start},
		{"--depth", "201", start},
		{"--depth", "3", "--time", "1s", start},
		{"--time", "0s", start},
		{"--time", "soon", start},
		{"--multipv", "0", start},
		{"--multipv", "some", start},
		{"--threads", "0", start},
		{"--threads", "65", start},
		{"--variant", "diagonal", start},
		{"--max-laps", "0", start},
		{"--bogus", start},
	} {
		code, out, errOut := run(t, "", append([]string{"analyze"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "usage: endodoi analyze") {
			t.Errorf("analyze %q: exit %d, stdout %q, stderr %q", args, code, out, errOut)
		}
	}
}

// TestAnalyzeThreads: two search threads give the same exact analysis as
// one.
func TestAnalyzeThreads(t *testing.T) {
	for _, ps := range []string{"2,0,1/1,1,0 n 3 1", "3,3/3,3 s 0 0", "1,0,2,0,0,1/0,1,0,2,0,0 s 20 19"} {
		one := analyzeOut(t, "--multipv", "all", "--depth", "100", ps)
		two := analyzeOut(t, "--multipv", "all", "--depth", "100", "--threads", "2", ps)
		if len(one) == 0 || len(one) != len(two) {
			t.Fatalf("%s: %d moves with one thread, %d with two", ps, len(one), len(two))
		}
		// By move: moves of equal value may come in either order.
		byMove := map[rules.Move]analyzedMove{}
		for _, a := range one {
			byMove[a.move] = a
		}
		for _, b := range two {
			a, ok := byMove[b.move]
			if !ok || !a.exact || a.score != b.score || a.exact != b.exact || a.final != b.final {
				t.Errorf("%s, move %s: one thread %+v, two %+v", ps, b.move, a, b)
			}
		}
	}
}
