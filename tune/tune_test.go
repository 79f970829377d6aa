package tune

import (
	"context"
	"testing"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

func TestOpenings(t *testing.T) {
	r := rules.DefaultRules()
	a, err := Openings(r, []int{4, 6}, 10, 2, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Openings(r, []int{4, 6}, 10, 2, 9)
	if len(a) != 10 {
		t.Fatalf("%d openings, want 10", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("opening %d differs between runs with one seed: %s, %s", i, a[i], b[i])
		}
		if want := []int{4, 6}[i%2]; a[i].Holes() != want {
			t.Errorf("opening %d has %d holes, want %d", i, a[i].Holes(), want)
		}
		if !a[i].HasLegalMove(r) || a[i].ToMove() != rules.South {
			t.Errorf("opening %d (%s): want South to move with a legal move after 2 plies", i, a[i])
		}
	}
}

func TestPlayFavoursTheBetterWeights(t *testing.T) {
	r := rules.DefaultRules()
	// Weights that reward giving seeds away lose to the defaults.
	bad := engine.Weights{RowSeeds: -200, Tempo: -200}
	openings, _ := Openings(r, []int{4}, 20, 2, 3)
	score, games, err := Play(context.Background(), r, engine.DefaultWeights, bad, 3, openings, 2)
	if err != nil {
		t.Fatal(err)
	}
	if games != 40 {
		t.Errorf("%d games, want 40", games)
	}
	if score <= 0.6 {
		t.Errorf("default weights scored %.2f against self-harming ones, want more than 0.6", score)
	}
}

func TestRun(t *testing.T) {
	var matches []Match
	cfg := Config{Rules: rules.DefaultRules(), Boards: []int{4}, Pairs: 3, Depth: 2, OpeningPlies: 2, Passes: 1,
		Step: 10, Accept: 0.5, Seed: 1, Workers: 1}
	best, err := Run(context.Background(), cfg, engine.DefaultWeights, func(m Match) { matches = append(matches, m) })
	if err != nil {
		t.Fatal(err)
	}
	if len(matches) < len(weightNames) || len(matches) > 2*len(weightNames) {
		t.Errorf("%d matches for %d weights in one pass", len(matches), len(weightNames))
	}
	kept := engine.DefaultWeights
	for _, m := range matches {
		if m.Games != 6 {
			t.Errorf("match of %d games, want 6", m.Games)
		}
		if m.Kept {
			kept = m.Candidate
		}
	}
	if best != kept {
		t.Errorf("Run returned %+v, but the last kept candidate was %+v", best, kept)
	}
	if _, err := Run(context.Background(), Config{}, engine.DefaultWeights, nil); err == nil {
		t.Error("an empty configuration was accepted")
	}
}
