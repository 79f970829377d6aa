package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

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

// BenchmarkOnlineMoves makes moves of many online games at once as the
// server stores them (game.Change.ClocksOnly: the move, the guarded games
// and online rows, the clocks and the turn's start moved on), and reports
// what a move writes: on SQLite, the bytes this process wrote to files
// (the log's pages, and the checkpoints' copies of them); on PostgreSQL,
// the bytes of write-ahead log the server made.
func BenchmarkOnlineMoves(b *testing.B) {
	ctx := context.Background()
	b.Run("sqlite", func(b *testing.B) {
		s, err := Open(ctx, filepath.Join(b.TempDir(), "games.db"))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		benchmarkOnlineMoves(b, s, "file-bytes/move", writtenBytes)
	})
	b.Run("postgres", func(b *testing.B) {
		url := newPostgresDB(b)
		s, err := OpenPostgres(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		// The log's position, in bytes: the log is the whole server's, so
		// other work on it meanwhile counts too.
		lsn := func(b *testing.B) int64 {
			var n int64
			if err := conn.QueryRow(ctx, `SELECT pg_current_wal_lsn() - '0/0'::pg_lsn`).Scan(&n); err != nil {
				b.Fatal(err)
			}
			return n
		}
		benchmarkOnlineMoves(b, s, "wal-bytes/move", lsn)
	})
}

// writtenBytes is what this process has written to files and sockets
// (wchar in /proc/self/io).
func writtenBytes(b *testing.B) int64 {
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		b.Skip("no /proc/self/io:", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "wchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return n
		}
	}
	b.Fatal("no wchar in /proc/self/io")
	return 0
}

func benchmarkOnlineMoves(b *testing.B, s Store, unit string, written func(*testing.B) int64) {
	ctx := context.Background()
	start, _ := rules.NewPosition(8, 4)
	m, _ := rules.ParseMove("a")
	clock := game.Clock{Time: 5 * time.Minute}
	// Many games, as a busy server holds, so that a transaction's moves
	// are of games whose rows lie apart; each goroutine plays its own
	// games in turn.
	const perCPU, perGoroutine = 64, 32
	players := perCPU * runtime.GOMAXPROCS(0)
	games := make([]*game.Game, players*perGoroutine)
	var made sync.WaitGroup
	for p := range players {
		made.Go(func() {
			for i := p; i < len(games); i += players {
				games[i] = &game.Game{Start: start, Online: &game.Online{Invite: fmt.Sprintf("bench%d", i),
					Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}}
				if err := s.CreateGame(ctx, games[i]); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	made.Wait()
	if b.Failed() {
		return
	}
	var next atomic.Int64
	b.SetParallelism(perCPU)
	before := written(b)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		first := int(next.Add(1) - 1)
		var mine [perGoroutine]struct {
			g     *game.Game
			o     game.Online
			moves int
		}
		for i := range mine {
			mine[i].g = games[first+i*players]
			mine[i].o = *mine[i].g.Online
		}
		for i := 0; pb.Next(); i = (i + 1) % perGoroutine {
			p := &mine[i]
			p.o.TurnStart = time.Now().UTC().Truncate(time.Millisecond)
			p.o.Left[p.moves%2] -= time.Millisecond
			c := game.Change{Ply: p.moves, From: p.moves, Rev: p.o.Rev, Moves: []rules.Move{m}, Result: "*",
				Online: &p.o, ClocksOnly: true}
			if err := s.Update(ctx, p.g.ID, c); err != nil {
				b.Error(err)
				return
			}
			p.moves++
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
	b.ReportMetric(float64(written(b)-before)/float64(b.N), unit)
}
