package play

import (
	"context"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/play/memory"
	"github.com/endodoi/endodoi/rules"
)

// BenchmarkKeptGameBytes measures the memory a game kept in play costs:
// b.N online games of 8 holes and 4 seeds on a 5+3 clock, both seats
// taken, each 36 or 72 moves in (or to its end), kept by the table; bytes/game is
// the live heap they hold, what leaves with them when all are forgotten
// (the store's own copies stay). docs/benchmarks.md has the figures.
func BenchmarkKeptGameBytes(b *testing.B) {
	for _, moves := range []int{36, 72} {
		b.Run(strconv.Itoa(moves)+"-moves", func(b *testing.B) { keptGameBytes(b, moves) })
	}
}

func keptGameBytes(b *testing.B, moves int) {
	ctx := context.Background()
	st := memory.New()
	tb := NewTable(st, nil)
	tb.KeepMost = b.N + 1 // keep them all
	start, _ := rules.NewPosition(8, 4)
	ids := make([]string, 0, b.N)
	for range b.N {
		g, _, err := tb.CreateOnline(ctx, &game.Game{Start: start, Result: "*"}, rules.South, game.Clock{Time: 5 * time.Minute, Increment: 3 * time.Second}, 0)
		if err != nil {
			b.Fatal(err)
		}
		id := g.ID()
		err = tb.With(ctx, id, func(g *Game) error {
			_, _, err := tb.Join(ctx, g, "Sironka")
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		for ply := 0; ply < moves; ply++ {
			done := false
			err := tb.With(ctx, id, func(g *Game) error {
				moves := g.Board().LegalMoves()
				if g.Over() || len(moves) == 0 {
					done = true
					return nil
				}
				p := g.Board().Ply()
				_, err := tb.Move(ctx, g, Seat{Side: g.Board().Position().ToMove()}, moves[ply%len(moves)].String(), &p)
				return err
			})
			if err != nil {
				b.Fatal(err)
			}
			if done {
				break
			}
		}
		ids = append(ids, id)
	}
	if tb.Kept() != b.N {
		b.Fatalf("%d games kept of %d", tb.Kept(), b.N)
	}
	kept := heap()
	tb.ForgetAll()
	gone := heap()
	b.ReportMetric(float64(kept-gone)/float64(b.N), "bytes/game")
	runtime.KeepAlive(ids)
}

// heap is the live heap, after a collection.
func heap() int64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.HeapAlloc)
}
