package store

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// commits records what an Observer is told.
type commits struct {
	mu     sync.Mutex
	writes []int
	took   []time.Duration
}

func (c *commits) Committed(writes int, took time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, writes)
	c.took = append(c.took, took)
}

func (c *commits) seen() ([]int, []time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.writes), slices.Clone(c.took)
}

// Each committed change is told once, with its time; a change refused on
// account of its data is not a commit of its own.
func TestObserverSeesCommits(t *testing.T) { forEachStore(t, testObserverSeesCommits) }

func testObserverSeesCommits(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	obs := &commits{}
	s.(Observable).SetObserver(obs)
	start, _ := rules.NewPosition(6, 4)
	g := &game.Game{Start: start}
	if err := s.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, g.ID, 0, moves(t, "a")[0], "*"); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMove(ctx, g.ID, 0, moves(t, "b")[0], "*"); err == nil {
		t.Fatal("a move at a ply taken already was stored")
	}
	writes, took := obs.seen()
	total := 0
	for i, n := range writes {
		total += n
		if took[i] <= 0 || took[i] > time.Minute {
			t.Errorf("commit %d took %v", i, took[i])
		}
	}
	// SQLite commits the refused move's batch (its savepoint undone), so
	// it may count it; PostgreSQL rolls it back.
	if total < 2 || total > 3 {
		t.Errorf("commits told %v, want the game and its move", writes)
	}
	s.(Observable).SetObserver(nil)
	if err := s.AppendMove(ctx, g.ID, 1, moves(t, "A")[0], "*"); err != nil {
		t.Fatal(err)
	}
	if again, _ := obs.seen(); len(again) != len(writes) {
		t.Errorf("a commit was told after the observer was removed")
	}
	ps := s.(Pooled).PoolStats()
	if ps.Max <= 0 || ps.Open < 0 || ps.InUse < 0 || ps.Idle < 0 || ps.InUse+ps.Idle > ps.Open {
		t.Errorf("pool stats %+v", ps)
	}
}

// SQLite's writer tells the batch it committed as one commit of that
// many writes.
func TestObserverSeesBatch(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	defer s.Close()
	obs := &commits{}
	s.SetObserver(obs)
	release := hold(t, s)
	const n = 5
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start, _ := rules.NewPosition(6, 4)
			if err := s.CreateGame(ctx, &game.Game{Start: start}); err != nil {
				t.Error(err)
			}
		}()
	}
	waitQueued(t, s.queue, n)
	release()
	wg.Wait()
	if writes, _ := obs.seen(); !slices.Equal(writes, []int{1, n}) {
		t.Errorf("commits told %v, want [1 %d]: the held write, then the batch queued behind it", writes, n)
	}
}
