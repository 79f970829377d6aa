package puzzles

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

var update = flag.Bool("update", false, "write the puzzle file from the generator")

// file is the puzzle file the page loads, relative to this package.
var file = filepath.Join("..", "..", "web", "static", "learn", "puzzles.json")

// The databases, built once for the package's tests.
var tablesOnce = sync.OnceValues(func() (map[int]*egtb.Tablebase, error) {
	return Tables(context.Background())
})

func tables(t *testing.T) map[int]*egtb.Tablebase {
	t.Helper()
	tb, err := tablesOnce()
	if err != nil {
		t.Fatal(err)
	}
	return tb
}

// TestFileIsGenerated checks that the puzzle file is exactly what the
// generator makes; with -update (go generate) it writes it.
func TestFileIsGenerated(t *testing.T) {
	ps, err := Generate(context.Background(), tables(t))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Marshal(ps)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, want, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: %d puzzles, %d bytes", file, len(ps), len(want))
		return
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (write it with: go generate ./internal/puzzles)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is not what the generator makes; write it again with: go generate ./internal/puzzles", file)
	}
}

// TestGenerateIsDeterministic: two runs, the second on databases built
// with one goroutine, choose the same puzzles.
func TestGenerateIsDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the databases again")
	}
	a, err := Generate(context.Background(), tables(t))
	if err != nil {
		t.Fatal(err)
	}
	single := map[int]*egtb.Tablebase{}
	for h, tb := range tables(t) {
		one, err := egtb.Build(context.Background(), egtb.Options{Holes: h, MaxSeeds: tb.MaxSeeds(), Rules: tb.Rules(), Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		single[h] = one
	}
	b, err := Generate(context.Background(), single)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := Marshal(a)
	y, _ := Marshal(b)
	if !bytes.Equal(x, y) {
		t.Error("two runs of the generator chose different puzzles")
	}
}

// TestPuzzlesAreRight re-derives every puzzle of the file from the
// databases, and checks the set: its size, levels, kinds and names.
func TestPuzzlesAreRight(t *testing.T) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 20 || len(ps) > 40 {
		t.Errorf("%d puzzles, want 20 to 40", len(ps))
	}
	tb := tables(t)
	ids := map[string]bool{}
	groups := map[[2]string]int{}
	for _, p := range ps {
		if err := Check(p, tb); err != nil {
			t.Error(err)
		}
		if ids[p.ID] {
			t.Errorf("two puzzles are named %s", p.ID)
		}
		ids[p.ID] = true
		groups[[2]string{string(rune('0' + p.Level)), p.Kind}]++
	}
	for level := 1; level <= MaxLevel; level++ {
		for _, kind := range []string{Most, Save} {
			if groups[[2]string{string(rune('0' + level)), kind}] == 0 {
				t.Errorf("no puzzle of kind %s at level %d", kind, level)
			}
		}
	}
}

// TestCheckCatchesWrongPuzzles: a wrong answer, a wrong value, a second
// right answer and a puzzle for North are all refused.
func TestCheckCatchesWrongPuzzles(t *testing.T) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	tb := tables(t)
	for _, p := range ps[:4] {
		wrong := p
		wrong.Values = map[string]int{}
		for m, v := range p.Values {
			wrong.Values[m] = v
			if m != p.Answer && wrong.Answer == p.Answer {
				wrong.Answer = m
			}
		}
		if Check(wrong, tb) == nil {
			t.Errorf("puzzle %s with the answer %s instead of %s passes", p.ID, wrong.Answer, p.Answer)
		}
		off := p
		off.Values = map[string]int{}
		for m, v := range p.Values {
			off.Values[m] = v
		}
		off.Values[p.Answer]++
		if Check(off, tb) == nil {
			t.Errorf("puzzle %s with a wrong value passes", p.ID)
		}
		pos := rules.MustParsePosition(p.Position)
		if Check(Puzzle{ID: p.ID, Level: p.Level, Kind: p.Kind, Position: pos.WithToMove(rules.North).String(), Answer: p.Answer, Values: p.Values}, tb) == nil {
			t.Errorf("puzzle %s set for North passes", p.ID)
		}
		if p.Kind == Save {
			// A lead of one more seed for South makes a second move safe
			// or leaves the answer winning: either way, not this puzzle.
			easier := p
			easier.Position = rules.MustParsePosition(p.Position).String()
			q, _ := rules.NewPositionFromRows(pos.Row(rules.South), pos.Row(rules.North), rules.South,
				pos.Captured(rules.South)+20, pos.Captured(rules.North))
			easier.Position = q.String()
			if Check(easier, tb) == nil {
				t.Errorf("puzzle %s with South far ahead passes", p.ID)
			}
		}
	}
}
