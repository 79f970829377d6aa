package grade

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// The labels and the accuracy follow the documented thresholds.
func TestLabels(t *testing.T) {
	for _, c := range []struct {
		loss  float64
		label string
	}{{0, "best"}, {0.01, "good"}, {0.99, "good"}, {1, "inaccuracy"}, {2.99, "inaccuracy"}, {3, "mistake"}, {5.99, "mistake"}, {6, "blunder"}, {40, "blunder"}} {
		if got := Label(c.loss); got != c.label {
			t.Errorf("a loss of %v is %s, want %s", c.loss, got, c.label)
		}
	}
	for _, c := range []struct{ loss, acc float64 }{{0, 100}, {4, 50}, {8, 25}} {
		if got := Accuracy(c.loss); math.Abs(got-c.acc) > 1e-9 {
			t.Errorf("accuracy of a loss of %v: %v, want %v", c.loss, got, c.acc)
		}
	}
	pl := Players([]Ply{
		{Side: "s", Loss: 0, Label: "best"}, {Side: "s", Loss: 4, Label: "mistake"}, {Side: "s", Forced: true, Label: "best"},
		{Side: "n", Forced: true, Label: "best"},
	})
	if s := pl["s"]; s.Moves != 3 || s.Accuracy == nil || *s.Accuracy != 75 || s.MeanLoss != 2 || s.Counts["best"] != 2 || s.Counts["mistake"] != 1 {
		t.Errorf("South: %+v", s)
	}
	if n := pl["n"]; n.Moves != 1 || n.Accuracy != nil {
		t.Errorf("North, whose only move was forced: %+v", n)
	}
}

// blunderGame is a 4-hole game in which South's first move, b, throws away
// the win that a keeps: proven values +9 and -5 for South.
func blunderGame(t testing.TB) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rules.MustParsePosition("1,2,0,3/2,0,0,1 s 0 0"), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"b", "A", "c", "B", "d", "A"} {
		m, err := rules.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// A game is graded with the review's own engine: the blunder with its
// proven loss, every ply, and the progress of each.
func TestGame(t *testing.T) {
	g := blunderGame(t)
	var seen []int
	rv, err := Game(context.Background(), g, Options{Nodes: 20_000, Progress: func(done int) { seen = append(seen, done) }})
	if err != nil {
		t.Fatal(err)
	}
	if rv.Version != Version || rv.Nodes != 20_000 || len(rv.Plies) != g.Ply() || len(rv.Evaluation) != g.Ply()+1 {
		t.Fatalf("review %+v", rv)
	}
	if b := rv.Plies[0]; b.Move != "b" || b.Best != "a" || b.BestScore != 9 || b.Score != -5 || b.Loss != 14 || b.Label != "blunder" || !b.Exact || !b.BestExact {
		t.Errorf("the blunder is graded %+v", b)
	}
	if len(seen) != g.Ply() || seen[0] != 1 || seen[len(seen)-1] != g.Ply() {
		t.Errorf("progress %v", seen)
	}
	if acc := rv.Players["s"].Accuracy; acc == nil || *acc >= 100 {
		t.Errorf("South, who blundered: %+v", rv.Players["s"])
	}
	empty, err := rules.NewGame(g.Start(), g.Rules())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Game(context.Background(), empty, Options{}); !errors.Is(err, ErrNoMoves) {
		t.Errorf("a game without moves: %v", err)
	}
}

// A review depends on the game and the budget alone: a new engine for
// every search, as a server lends them, grades as the review's own engine
// cleared between searches.
func TestGameWithLentEngines(t *testing.T) {
	g := blunderGame(t)
	own, err := Game(context.Background(), g, Options{Nodes: 5_000})
	if err != nil {
		t.Fatal(err)
	}
	lent := 0
	other, err := Game(context.Background(), g, Options{Nodes: 5_000, Engine: func(context.Context) (*engine.Engine, func(), error) {
		lent++
		e, err := NewEngine(g.Rules(), nil)
		return e, func() {}, err
	}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(own)
	b, _ := json.Marshal(other)
	if string(a) != string(b) || lent == 0 {
		t.Errorf("%d lent engines graded\n%s\nthe review's own engine\n%s", lent, b, a)
	}
}

// A cancelled review ends with the context's error.
func TestGameCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Game(ctx, blunderGame(t), Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled review: %v", err)
	}
}
