package engine

import (
	"context"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// The opening book makes the value of the traditional 2×6×4 start known at
// once, with a move that keeps it, and without the book the same search
// only estimates it.
func TestBookKnowsTheSixHoleStart(t *testing.T) {
	start, err := rules.NewPosition(6, 4)
	if err != nil {
		t.Fatal(err)
	}
	e, err := New(Config{Rules: rules.DefaultRules(), Book: true, HashMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Search(context.Background(), start, nil, Limits{MoveTime: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Exact || res.Score != 8*Seed {
		t.Fatalf("with the book: score %v exact %v, want +8 exact", res.Score, res.Exact)
	}
	after, err := start.Play(res.Move, rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	lines, ok := e.tablebaseMoves(&start)
	if !ok {
		t.Fatal("the book does not hold every move of the start")
	}
	for _, l := range lines {
		if l.Move == res.Move && l.Score != 8*Seed {
			t.Errorf("move %v leads to %v worth %v, not +8", res.Move, after, l.Score)
		}
	}

	plain, err := New(Config{Rules: rules.DefaultRules(), HashMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err = plain.Search(context.Background(), start, nil, Limits{Depth: 6}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Exact {
		t.Fatalf("without the book a depth-6 search proved %v", res.Score)
	}
}
