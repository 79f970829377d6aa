package egtb

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// BenchmarkBuild solves every count up to 12 seeds on the 6-hole board in
// memory (2,704,156 positions, South to move) and reports positions solved
// per second.
func BenchmarkBuild(b *testing.B) {
	const holes, maxSeeds = 6, 12
	var positions uint64
	for i := 0; i < b.N; i++ {
		if _, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: maxSeeds, Rules: rules.DefaultRules()}); err != nil {
			b.Fatal(err)
		}
		positions += CumulativeSize(holes, maxSeeds)
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkProbe probes random positions of 6 holes a row with up to 12
// seeds on the board, either side to move, from databases in memory.
func BenchmarkProbe(b *testing.B) {
	tb, err := Build(context.Background(), Options{Holes: 6, MaxSeeds: 12, Rules: rules.DefaultRules()})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ps := make([]rules.Position, 4096)
	for i := range ps {
		cells := make([]int, 12)
		for s := rng.IntN(13); s > 0; s-- {
			cells[rng.IntN(12)]++
		}
		ps[i], _ = rules.NewPositionFromRows(cells[:6], cells[6:], rules.Side(rng.IntN(2)), 0, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	sum := 0
	for i := 0; i < b.N; i++ {
		v, ok := tb.Probe(&ps[i&4095])
		if !ok {
			b.Fatal("not held")
		}
		sum += v
	}
	_ = sum
}

// BenchmarkBounds runs the bounding searches of the 2×6×4 start at depths
// 1 to 16 over databases of up to 12 seeds, as Solve does, without memory
// (plain) and with a Bounder's table, and reports positions searched per
// second.
func BenchmarkBounds(b *testing.B) {
	tb, err := Build(context.Background(), Options{Holes: 6, MaxSeeds: 12, Rules: rules.DefaultRules()})
	if err != nil {
		b.Fatal(err)
	}
	p, _ := rules.NewPosition(6, 4)
	const depth = 16
	for _, table := range []bool{false, true} {
		name := "plain"
		if table {
			name = "table"
		}
		b.Run(name, func(b *testing.B) {
			var nodes uint64
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				var bd *Bounder
				if table {
					if bd, err = tb.NewBounder(p, 64); err != nil {
						b.Fatal(err)
					}
				}
				for d := 1; d <= depth; d++ {
					var n uint64
					if table {
						_, _, n, err = bd.Bounds(context.Background(), d)
					} else {
						_, _, n, err = tb.Bounds(context.Background(), p, d)
					}
					if err != nil {
						b.Fatal(err)
					}
					nodes += n
				}
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
		})
	}
}

// BenchmarkBoundsOverDatabases runs the bounding searches of the 2×7×5
// start at depths 1 to 18, with a Bounder's 256 MiB table, over the 2×7
// databases to 20 seeds (1.4 GB, `endodoi egtb build --holes 7 --max-seeds
// 20`) in the directory $ENDODOI_EGTB7: a long solve's search, most of whose
// time waits for the databases' values and the table's slots in memory. It
// needs the databases, so it is skipped without the variable.
func BenchmarkBoundsOverDatabases(b *testing.B) {
	dir := os.Getenv("ENDODOI_EGTB7")
	if dir == "" {
		b.Skip("set ENDODOI_EGTB7 to a directory of the 2×7 databases to 20 seeds")
	}
	tb, err := Open(dir, 7, rules.DefaultRules())
	if err != nil {
		b.Fatal(err)
	}
	if tb.MaxSeeds() < 20 {
		b.Fatalf("%s: the 2×7 databases go to %d seeds, not 20", dir, tb.MaxSeeds())
	}
	for n := 0; n <= 20; n++ {
		if _, err := tb.layer(n); err != nil { // loaded before the clock starts
			b.Fatal(err)
		}
	}
	p, _ := rules.NewPosition(7, 5)
	var nodes uint64
	for b.Loop() {
		bd, err := tb.NewBounder(p, 256)
		if err != nil {
			b.Fatal(err)
		}
		for d := 1; d <= 18; d++ {
			_, _, n, err := bd.Bounds(context.Background(), d)
			if err != nil {
				b.Fatal(err)
			}
			nodes += n
		}
	}
	b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkExpand plays every move of every position of 12 seeds on 2×6
// (1,352,078 positions) and ranks the children, as a build's expansion
// passes do: the builder's move generation without its memory traffic.
func BenchmarkExpand(b *testing.B) {
	const holes, n = 6, 12
	size := Size(holes, n)
	lower := make([][]int8, n)
	for k := range lower {
		lower[k] = make([]int8, Size(holes, k))
	}
	e := newExpander(holes, n, rules.DefaultRules(), lower)
	var moves, sink uint64
	for b.Loop() {
		e.seek(0)
		for i := range size {
			count := e.expand(true)
			moves += uint64(count)
			for k := range count {
				sink += e.moves[k].child
			}
			if i+1 < size {
				e.cur.next()
			}
		}
	}
	if sink == 0 {
		b.Fatal("no children ranked")
	}
	b.ReportMetric(float64(moves)/b.Elapsed().Seconds(), "moves/s")
}

// lowerCounts builds, in memory, the values of every count below n seeds
// on the given number of holes a row.
func lowerCounts(b *testing.B, holes, n int, r rules.Rules) [][]int8 {
	b.Helper()
	tb, err := Build(context.Background(), Options{Holes: holes, MaxSeeds: n - 1, Rules: r})
	if err != nil {
		b.Fatal(err)
	}
	lower := make([][]int8, n)
	for m := range lower {
		lower[m], _ = tb.Values(m)
	}
	return lower
}

// BenchmarkExpandCount runs a build's expansion over the 2×6 count of 16
// seeds (13,037,895 positions) on one goroutine, over the counts below in
// memory: every move played, the moves within the count counted, the
// captures' children ranked and their values read from the smaller
// counts (most of those reads misses to memory).
func BenchmarkExpandCount(b *testing.B) {
	const holes, n = 6, 16
	r := rules.DefaultRules()
	lower := lowerCounts(b, holes, n, r)
	size := Size(holes, n)
	states := make([]uint8, size)
	var edges uint64
	for b.Loop() {
		e := newExpander(holes, n, r, lower)
		e.seek(0)
		edges = expandChunk(e, 0, size, func(i uint64, best, within int) {
			states[i] = uint8(best) ^ uint8(within)
		})
	}
	if edges != 29773477 {
		b.Fatalf("%d moves within the count, want 29773477", edges)
	}
	b.ReportMetric(float64(size)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}

// BenchmarkSolveCount solves the 2×6 count of 16 seeds (13,037,895
// positions) over the counts below, by the three-byte solver (layer) and
// the compact one, and reports positions a second.
func BenchmarkSolveCount(b *testing.B) {
	const holes, n = 6, 16
	r := rules.DefaultRules()
	lower := lowerCounts(b, holes, n, r)
	for _, name := range []string{"layer", "compact"} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				var err error
				if name == "layer" {
					_, _, _, err = solveLayer(context.Background(), holes, n, r, lower, 0, false, nil)
				} else {
					_, _, _, err = solveCompact(context.Background(), holes, n, r, lower, 0, 0, false, nil)
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(Size(holes, n))*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
		})
	}
}

// BenchmarkSetRank sets boards from random ranks, as the builder's rounds
// take their positions (the 2×5 and 2×8 counts of 20 seeds), and reports
// the time a board.
func BenchmarkSetRank(b *testing.B) {
	for _, c := range []struct{ holes, n int }{{5, 20}, {8, 20}} {
		size := Size(c.holes, c.n)
		rng := rand.New(rand.NewPCG(1, 2))
		ranks := make([]uint64, 1<<16)
		for i := range ranks {
			ranks[i] = rng.Uint64N(size)
		}
		b.Run(fmt.Sprintf("2x%d_n%d", c.holes, c.n), func(b *testing.B) {
			var board board
			var sink uint8
			for b.Loop() {
				for _, r := range ranks {
					board.setRank(c.holes, c.n, r)
					sink += board[0]
				}
			}
			if sink == 1 {
				b.Log(sink) // keeps the boards used
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ranks)), "ns/board")
		})
	}
}
