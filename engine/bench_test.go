package engine

import (
	"context"
	"testing"

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
