package engine

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

func TestAnalyzeAgreesWithSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	e, _ := New(Config{HashMiB: 1})
	for i := 0; i < 40; i++ {
		p := randomPosition(rng, 3, 2+rng.IntN(8))
		if !p.HasLegalMove(rules.DefaultRules()) {
			continue
		}
		e.NewGame()
		lines, err := e.Analyze(context.Background(), p, nil, Limits{Depth: 6}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != len(p.LegalMoves(rules.DefaultRules())) {
			t.Fatalf("%s: %d lines for %d legal moves", p, len(lines), len(p.LegalMoves(rules.DefaultRules())))
		}
		for j := 1; j < len(lines); j++ {
			if lines[j].Score > lines[j-1].Score {
				t.Errorf("%s: lines not sorted: %v", p, lines)
			}
		}
		e.NewGame()
		res, _ := e.Search(context.Background(), p, nil, Limits{Depth: 6}, nil)
		// Estimates may differ (the table lets either search see deeper in
		// places); exact scores may not.
		if res.Exact && lines[0].Exact && res.Score != lines[0].Score {
			t.Errorf("%s: Search %s (exact %v) but Analyze's best %s (exact %v)", p, res.Score, res.Exact, lines[0].Score, lines[0].Exact)
		}
	}
}

func TestPlayLevel(t *testing.T) {
	p, _ := rules.NewPosition(6, 4)
	e, _ := New(Config{HashMiB: 1})
	rng := rand.New(rand.NewPCG(5, 6))
	for level := MinLevel; level <= 8; level++ {
		res, err := e.PlayLevel(context.Background(), p, nil, level, rng)
		if err != nil {
			t.Fatalf("level %d: %v", level, err)
		}
		if !p.IsLegal(res.Move, rules.DefaultRules()) {
			t.Errorf("level %d: illegal move %s", level, res.Move)
		}
	}
	if _, err := e.PlayLevel(context.Background(), p, nil, 0, rng); err == nil {
		t.Error("level 0 accepted")
	}
	if _, err := e.PlayLevel(context.Background(), p, nil, 1, nil); err == nil {
		t.Error("level 1 without a random source accepted")
	}
	over := rules.MustParsePosition("0,0/1,1 s 0 0")
	if res, err := e.PlayLevel(context.Background(), over, nil, 1, rng); err != nil || res.Move != rules.NoMove {
		t.Errorf("no legal move: got %s, %v", res.Move, err)
	}
}
