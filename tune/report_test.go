package tune

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

func TestWeightsText(t *testing.T) {
	w := engine.Weights{RowSeeds: 25, Occupied: 15, Singletons: 10, Targets: 0, Tempo: -50}
	const text = "Weights{RowSeeds: 25, Occupied: 15, Singletons: 10, Targets: 0, Tempo: -50}"
	if got := FormatWeights(w); got != text {
		t.Errorf("FormatWeights: %q, want %q", got, text)
	}
	got, err := ParseWeights(" 25, 15,10 ,0,-50")
	if err != nil || got != w {
		t.Errorf("ParseWeights: %+v, %v", got, err)
	}
	for _, bad := range []struct{ in, err string }{
		{"1,2,3", "want 5 comma-separated numbers, got 3"},
		{"1,2,3,4,5,6", "want 5 comma-separated numbers, got 6"},
		{"1,2,3,4,x", `"x" is not a whole number`},
		{"", "want 5 comma-separated numbers, got 1"},
	} {
		if _, err := ParseWeights(bad.in); err == nil || err.Error() != bad.err {
			t.Errorf("ParseWeights(%q): %v, want %q", bad.in, err, bad.err)
		}
	}
}

func TestParseBoards(t *testing.T) {
	got, err := ParseBoards(" 6, 8,2,16")
	if err != nil || fmt.Sprint(got) != "[6 8 2 16]" {
		t.Errorf("ParseBoards: %v, %v", got, err)
	}
	for _, bad := range []struct{ in, err string }{
		{"6,1", `"1" is not a number of holes from 2 to 16`},
		{"17", `"17" is not a number of holes from 2 to 16`},
		{"6,,8", `"" is not a number of holes from 2 to 16`},
		{"six", `"six" is not a number of holes from 2 to 16`},
		{"", `"" is not a number of holes from 2 to 16`},
	} {
		if _, err := ParseBoards(bad.in); err == nil || err.Error() != bad.err {
			t.Errorf("ParseBoards(%q): %v, want %q", bad.in, err, bad.err)
		}
	}
}

func TestMatchLine(t *testing.T) {
	m := Match{Pass: 2, Weight: "Tempo", Candidate: engine.Weights{RowSeeds: 1, Tempo: 60}, Score: 0.5625, Games: 16, Kept: true,
		Elapsed: 83400 * time.Millisecond}
	const want = "pass 2  Tempo      -> Weights{RowSeeds: 1, Occupied: 0, Singletons: 0, Targets: 0, Tempo: 60}  score 56.2% of 16 games  kept  (1m23s)"
	if got := m.String(); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	m.Kept = false
	if got := m.String(); got[len(got)-len("rejected  (1m23s)"):] != "rejected  (1m23s)" {
		t.Errorf("rejected: %q", got)
	}
}

func TestVerify(t *testing.T) {
	cfg := Config{Rules: rules.DefaultRules(), Boards: []int{4}, Depth: 2, OpeningPlies: 2, Seed: 1, Workers: 2}
	bad := engine.Weights{RowSeeds: -200, Tempo: -200}
	score, games, err := Verify(context.Background(), cfg, engine.DefaultWeights, bad, 10)
	if err != nil {
		t.Fatal(err)
	}
	if games != 20 || score <= 0.5 {
		t.Errorf("the default weights against self-harming ones: %.2f of %d games", score, games)
	}
}
