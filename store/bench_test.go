package store

import (
	"context"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// BenchmarkAppendMoveParallel plays many games at once, each goroutine
// its own game, as a busy server does: every move is a committed, synced
// write. On SQLite the writer commits the moves that arrive together at
// once; on PostgreSQL each move is a statement of its own on a pooled
// connection, and the server flushes the commits that arrive together at
// once.
func BenchmarkAppendMoveParallel(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) {
		s, err := Open(context.Background(), filepath.Join(b.TempDir(), "games.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchmarkAppendMoveParallel(b, s)
	})
	b.Run("postgres", func(b *testing.B) {
		s, err := OpenPostgres(context.Background(), newPostgresDB(b))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchmarkAppendMoveParallel(b, s)
	})
}

func benchmarkAppendMoveParallel(b *testing.B, s Store) {
	ctx := context.Background()
	start, _ := rules.NewPosition(6, 4)
	m, _ := rules.ParseMove("a")
	var games atomic.Int64
	b.SetParallelism(100) // goroutines per CPU: many games waiting at once
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		games.Add(1)
		g := &game.Game{Start: start}
		if err := s.CreateGame(ctx, g); err != nil {
			b.Error(err)
			return
		}
		for ply := 0; pb.Next(); ply++ {
			if err := s.AppendMove(ctx, g.ID, ply, m, "*"); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(games.Load()), "games")
}
