package bus

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/internal/bustest"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// noticePad makes a benchmark's notice as long as a move's (about 190
// bytes of JSON: the game, the event, the revision, the clock's deadline,
// the position, the move).
var noticePad = strings.Repeat("x", 160)

// latencies gathers durations from many goroutines.
type latencies struct {
	mu sync.Mutex
	d  []time.Duration
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.d = append(l.d, d)
	l.mu.Unlock()
}

// report reports the median and the 99th percentile, in milliseconds.
func (l *latencies) report(b *testing.B, what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.d) == 0 {
		return
	}
	slices.Sort(l.d)
	q := func(p float64) float64 { return float64(l.d[int(p*float64(len(l.d)-1))]) / float64(time.Millisecond) }
	b.ReportMetric(q(0.5), what+"-p50-ms")
	b.ReportMetric(q(0.99), what+"-p99-ms")
}

// BenchmarkNotices measures how many notices a second a bus carries
// between two instances: many games at once (-cpu × 64 goroutines), each
// publishing a notice through one instance and waiting until the other
// hears it before the next, as the moves of a game follow each other.
// Half the games publish through each instance.
func BenchmarkNotices(b *testing.B) {
	for _, kind := range bustest.Kinds {
		b.Run(kind, func(b *testing.B) { benchmarkNotices(b, kind) })
	}
}

func benchmarkNotices(b *testing.B, kind string) {
	var x, y Bus
	if kind == bustest.Postgres {
		dbURL := pgtest.NewDatabase(b)
		for _, p := range []*Bus{&x, &y} {
			st, err := store.OpenPostgres(context.Background(), dbURL)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			*p = NewPostgres(st)
		}
	} else {
		u := bustest.URL(b, kind)
		for _, p := range []*Bus{&x, &y} {
			bs, err := Open(u, quiet)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { bs.Close() })
			*p = bs
		}
	}
	// Each game's waiter, by its number in the notice.
	var mu sync.Mutex
	waiters := map[int]chan struct{}{}
	hear := func(n string) {
		id, _, ok := strings.Cut(n, " ")
		if !ok {
			return
		}
		i, _ := strconv.Atoi(id)
		mu.Lock()
		c := waiters[i]
		mu.Unlock()
		if c != nil {
			select {
			case c <- struct{}{}:
			default:
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, bs := range []Bus{x, y} {
		wg.Go(func() { bs.Listen(ctx, hear) })
	}
	defer func() {
		cancel()
		wg.Wait()
	}()
	for x.Listening() != nil || y.Listening() != nil {
		time.Sleep(10 * time.Millisecond)
	}
	var games atomic.Int64
	var lat latencies
	var lost atomic.Int64
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(games.Add(1))
		c := make(chan struct{}, 1)
		mu.Lock()
		waiters[i] = c
		mu.Unlock()
		via := []Bus{x, y}[i%2]
		prefix := strconv.Itoa(i) + " "
		for n := 0; pb.Next(); n++ {
			start := time.Now()
			if err := via.Notify(ctx, prefix+strconv.Itoa(n)+noticePad); err != nil {
				b.Error(err)
				return
			}
			// Both instances hear it; this one waits for either, the
			// other instance's being as quick.
			select {
			case <-c:
				lat.add(time.Since(start))
			case <-time.After(5 * time.Second):
				lost.Add(1)
			}
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notices/s")
	lat.report(b, "heard")
	b.ReportMetric(float64(lost.Load()), "lost")
	b.ReportMetric(float64(games.Load()), "games")
}

// BenchmarkMoveWrites measures what the notices cost the writes: moves of
// many online games at once (-cpu × 64 goroutines, a game each), each
// stored as the server stores it (the moves, the guarded online row, its
// revision; the store gathers the changes made at the same moment into
// one transaction), with no notice, with its notice
// sent by pg_notify in the transaction (all such commits take one lock),
// or handed to NATS or Redis after the commit.
func BenchmarkMoveWrites(b *testing.B) {
	for _, mode := range []string{"none", bustest.Postgres, bustest.NATS, bustest.Redis} {
		b.Run(mode, func(b *testing.B) { benchmarkMoveWrites(b, mode) })
	}
}

func benchmarkMoveWrites(b *testing.B, mode string) {
	ctx := context.Background()
	st, err := store.OpenPostgres(ctx, pgtest.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if mode == bustest.NATS || mode == bustest.Redis {
		bs, err := Open(bustest.URL(b, mode), quiet)
		if err != nil {
			b.Fatal(err)
		}
		defer bs.Close()
		st.SendNotices(func(n string) { bs.Notify(ctx, n) })
	}
	start, _ := rules.NewPosition(8, 4)
	m, _ := rules.ParseMove("a")
	clock := game.Clock{Time: 5 * time.Minute}
	var games atomic.Int64
	var lat latencies
	b.SetParallelism(64)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		o := game.Online{Invite: fmt.Sprintf("bench%d", games.Add(1)), Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
		g := &game.Game{Start: start, Online: &o}
		if err := st.CreateGame(ctx, g); err != nil {
			b.Error(err)
			return
		}
		o = *g.Online
		for ply := 0; pb.Next(); ply++ {
			c := game.Change{Ply: ply, From: ply, Rev: o.Rev, Moves: []rules.Move{m}, Result: "*", Online: &o, ClocksOnly: true}
			if mode != "none" {
				c.Notice = g.ID + " " + strconv.Itoa(ply) + noticePad
			}
			t := time.Now()
			if err := st.Update(ctx, g.ID, c); err != nil {
				b.Error(err)
				return
			}
			lat.add(time.Since(t))
		}
	})
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "moves/s")
	lat.report(b, "write")
	b.ReportMetric(float64(games.Load()), "games")
}
