package engine

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// BenchmarkSearch searches the 8-hole start to depth 10 on one thread,
// from an empty table each time.
func BenchmarkSearch(b *testing.B) {
	p, _ := rules.NewPosition(8, 4)
	e, _ := New(Config{HashMiB: 16})
	var nodes uint64
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e.NewGame()
		b.StartTimer()
		res, _ := e.Search(context.Background(), p, nil, Limits{Depth: 10}, nil)
		nodes += res.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkBench searches BenchPositions to depth 12 on one thread, as
// `endodoi bench` does: the profile of docs/benchmarks.md is taken from
// it.
func BenchmarkBench(b *testing.B) {
	e, _ := New(Config{HashMiB: 16})
	var nodes uint64
	b.ReportAllocs()
	for b.Loop() {
		n, _, err := e.Bench(context.Background(), 12, nil)
		if err != nil {
			b.Fatal(err)
		}
		nodes += n
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// TestBench: every position is searched and reported, the totals are the
// reports' sums, the node count repeats, and a cancelled context stops it.
func TestBench(t *testing.T) {
	e, err := New(Config{HashMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	run := func() uint64 {
		var seen []string
		var sum uint64
		var took time.Duration
		nodes, elapsed, err := e.Bench(context.Background(), 3, func(p string, res Result) {
			seen = append(seen, p)
			sum += res.Nodes
			took += res.Elapsed
			if res.Depth != 3 && !res.Exact {
				t.Errorf("%s: depth %d", p, res.Depth)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(seen, BenchPositions) {
			t.Errorf("reported %v", seen)
		}
		if nodes != sum || elapsed != took || nodes == 0 {
			t.Errorf("totals %d nodes, %v; reports %d, %v", nodes, elapsed, sum, took)
		}
		return nodes
	}
	if a, b := run(), run(); a != b {
		t.Errorf("node counts %d, then %d", a, b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := e.Bench(ctx, 3, nil); err == nil {
		t.Error("cancelled: no error")
	}
}
