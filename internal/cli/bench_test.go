package cli

import (
	"strings"
	"testing"
)

func TestBenchSignatureIsStable(t *testing.T) {
	nodesLine := func() string {
		code, out, errOut := run(t, "", "bench", "--depth", "4")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.HasPrefix(line, "nodes ") {
				return line
			}
		}
		t.Fatalf("no nodes line in\n%s", out)
		return ""
	}
	a, b := nodesLine(), nodesLine()
	if a != b {
		t.Errorf("bench node counts differ between runs: %q, %q", a, b)
	}
	if a == "nodes 0" {
		t.Error("bench searched nothing")
	}
	for _, args := range [][]string{{"bench", "--depth", "0"}, {"bench", "x"}, {"bench", "--threads", "0"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestTuneUsage(t *testing.T) {
	for _, args := range [][]string{{"tune", "--boards", "x"}, {"tune", "--pairs", "0"}, {"tune", "extra"}, {"tune", "--start", "1,2,3"}, {"tune", "--start", "1,2,3,4,x"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
	code, out, errOut := run(t, "", "tune", "--start", "25,15,10,0,50", "--boards", "4", "--pairs", "2", "--depth", "1", "--passes", "1", "--verify", "2", "--workers", "1")
	if code != 0 || !strings.Contains(out, "tuned: Weights{") || !strings.Contains(out, "verify: ") ||
		!strings.Contains(out, "start: Weights{RowSeeds: 25, Occupied: 15, Singletons: 10, Targets: 0, Tempo: 50}") {
		t.Errorf("tiny tuning run: exit %d, %s\n%s", code, errOut, out)
	}
}
