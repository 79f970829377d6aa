package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestArenaMatch(t *testing.T) {
	code, out, errOut := run(t, "", "arena", "--games", "4", "--holes", "4", "--seed", "3", "depth=2,hash=1", "baseline=2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"Player A:  depth=2,hash=1\n",
		"Player B:  baseline=2\n",
		"Board:     4 holes a row, 4 seeds a hole; rules: standard, max 1000 laps\n",
		"Openings:  2 random plies from the start, seed 3;",
		"Games:     4 of 4\n",
		"Score:     ",
		"Elo:       ",
		"95% interval",
		"Forfeits:  none\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "SPRT") {
		t.Errorf("SPRT line without --sprt:\n%s", out)
	}
	// Not a terminal: a progress line every tenth of the games, here each.
	lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "games 1/4  W-D-L ") || !strings.HasPrefix(lines[3], "games 4/4  W-D-L ") {
		t.Errorf("progress:\n%s", errOut)
	}
	// The same match again gives the same report, timing aside.
	_, again, _ := run(t, "", "arena", "--quiet", "--games", "4", "--holes", "4", "--seed", "3", "depth=2,hash=1", "baseline=2")
	if arenaReportHead(out) != arenaReportHead(again) {
		t.Errorf("reports differ:\n%s\n%s", out, again)
	}
}

// arenaReportHead drops the report's time line.
func arenaReportHead(report string) string {
	i := strings.Index(report, "Time:")
	if i < 0 {
		return report
	}
	return report[:i]
}

func TestArenaSPRTAndOptions(t *testing.T) {
	code, out, errOut := run(t, "", "arena", "--quiet", "--games", "2", "--holes", "5", "--seeds", "3", "--variant", "cross",
		"--max-laps", "100", "--openings-plies", "3", "--concurrency", "2", "--sprt", "0,10,0.1,0.1", "baseline=1", "level=3,hash=1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if errOut != "" {
		t.Errorf("--quiet, yet standard error has %q", errOut)
	}
	for _, want := range []string{
		"Board:     5 holes a row, 3 seeds a hole; rules: cross, max 100 laps\n",
		"Openings:  3 random plies",
		"Games:     2 of 2\n",
		"SPRT:      elo0 0, elo1 10, alpha 0.1, beta 0.1: LLR ",
		"(bounds -2.20, 2.20): continue\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
}

func TestArenaInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	code := Run(ctx, []string{"arena", "--games", "10", "--holes", "4", "depth=1,hash=1", "baseline=1"},
		Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if !strings.Contains(out.String(), "Games:     0 of 10 (interrupted)\n") {
		t.Errorf("report:\n%s", out.String())
	}
	if !strings.Contains(errOut.String(), "endodoi arena: interrupted") {
		t.Errorf("standard error: %q", errOut.String())
	}
}

func TestArenaUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "want two players"},
		{[]string{"depth=1"}, "want two players"},
		{[]string{"depth=1", "depth=2", "depth=3"}, "want two players"},
		{[]string{"depth=0", "baseline"}, `player A "depth=0"`},
		{[]string{"depth=1", "speed=9"}, `player B "speed=9": unknown setting`},
		{[]string{"depth=1", "cmd=/no/such/bot-endodoi;time=50ms"}, `player B "cmd=/no/such/bot-endodoi;time=50ms"`},
		{[]string{"--games", "0", "depth=1", "baseline"}, "--games 0 out of range"},
		{[]string{"--holes", "1", "depth=1", "baseline"}, "--holes 1 out of range"},
		{[]string{"--seeds", "13", "depth=1", "baseline"}, "--seeds 13 out of range"},
		{[]string{"--openings-plies", "-1", "depth=1", "baseline"}, "--openings-plies -1 out of range"},
		{[]string{"--concurrency", "0", "depth=1", "baseline"}, "--concurrency 0 out of range"},
		{[]string{"--max-plies", "2", "depth=1", "baseline"}, "--max-plies 2 must be more"},
		{[]string{"--sprt", "10", "depth=1", "baseline"}, "want elo0,elo1"},
		{[]string{"--sprt", "0,x", "depth=1", "baseline"}, `"x" is not a number`},
		{[]string{"--sprt", "10,0", "depth=1", "baseline"}, "must be below elo1"},
		{[]string{"--sprt", "0,10,0,0.05", "depth=1", "baseline"}, "must be above 0"},
		{[]string{"--sprt", "0,10,0.6,0.05", "depth=1", "baseline"}, "alpha 0.6 out of range"},
		{[]string{"--variant", "square", "depth=1", "baseline"}, "--variant"},
		{[]string{"--max-laps", "0", "depth=1", "baseline"}, "--max-laps 0 out of range"},
		{[]string{"--games", "many", "depth=1", "baseline"}, "invalid value"},
	} {
		code, out, errOut := run(t, "", append([]string{"arena"}, tc.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, tc.want) || !strings.Contains(errOut, "usage: endodoi arena") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q; want exit 2 and %q", tc.args, code, out, errOut, tc.want)
		}
	}
}

func TestArenaHelp(t *testing.T) {
	code, out, _ := run(t, "", "help", "arena")
	if code != 0 || !strings.Contains(out, "--sprt") && !strings.Contains(out, "-sprt") {
		t.Errorf("help arena: exit %d:\n%s", code, out)
	}
	_, list, _ := run(t, "", "help")
	if !strings.Contains(list, "arena") {
		t.Errorf("command list lacks arena:\n%s", list)
	}
}
