package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"
)

// holdGather keeps p's gathering writers busy, each with a change of its
// own. Each call of release frees one of them and waits for its change's
// answer; those still busy when the test ends are freed then.
func holdGather(t *testing.T, p *Postgres) (release func()) {
	t.Helper()
	var holds []chan struct{}
	done := make(chan error, pgGatherers)
	for range pgGatherers {
		hold, held := make(chan struct{}), make(chan struct{})
		holds = append(holds, hold)
		go func() {
			done <- p.writeGame(context.Background(), "holding a writer", "", false, func(*tx) error {
				close(held)
				<-hold
				return nil
			})
		}()
		<-held // taken by a writer not yet busy
	}
	release = func() {
		if len(holds) == 0 {
			return
		}
		close(holds[0])
		holds = holds[1:]
		if err := <-done; err != nil {
			t.Errorf("a holding change: %v", err)
		}
	}
	t.Cleanup(func() {
		for len(holds) > 0 {
			release()
		}
	})
	return release
}

// The games' changes queued together are committed in one transaction,
// in the order of their games, each on its own account: a change refused
// or failed is undone alone, one that met a serialization failure is
// tried again alone, and only the notices of the changes made are sent.
func TestPostgresGathersChanges(t *testing.T) {
	ctx := context.Background()
	p := openPostgres(t, newPostgresDB(t))
	var ids []string
	for range 4 {
		ids = append(ids, newGame(t, p, nil).ID)
	}
	obs := &commits{}
	p.SetObserver(obs)
	var mu sync.Mutex
	var notices []string
	p.SendNotices(func(n string) {
		mu.Lock()
		notices = append(notices, n)
		mu.Unlock()
	})
	m := moves(t, "a")[0]
	var ran []string // the games of the changes run, in order (the writer's goroutine alone appends)
	move := func(id string, ply int) func(*tx) error {
		return func(t *tx) error {
			ran = append(ran, id)
			return t.appendMove(id, ply, m, "*", time.Now(), "moved "+id)
		}
	}
	tries := 0
	changes := []struct {
		id   string
		do   func(*tx) error
		want error
	}{
		{ids[2], move(ids[2], 0), nil},
		{ids[0], move(ids[0], 0), nil},
		{ids[1], move(ids[1], 5), ErrConflict},
		{ids[1], func(t *tx) error { // a read first: its savepoint goes alone
			ran = append(ran, ids[1])
			var n int
			if err := t.q.queryRow(t.ctx, `SELECT moves FROM games WHERE id = ?`, ids[1]).Scan(&n); err != nil {
				return err
			}
			if _, err := t.exec(`UPDATE games SET moves = 7 WHERE id = ?`, ids[1]); err != nil {
				return err
			}
			return fmt.Errorf("game %s refused after all: %w", ids[1], ErrConflict)
		}, ErrConflict},
		{"nosuchgame", move("nosuchgame", 0), ErrNotFound},
		{ids[3], func(t *tx) error {
			ran = append(ran, ids[3])
			_, err := t.exec(`UPDATE games SET moves = 1 / (moves - moves) WHERE id = ?`, ids[3])
			return err
		}, ErrUnsaved},
		{ids[3], func(t *tx) error {
			if tries++; tries == 1 {
				ran = append(ran, ids[3])
				_, err := t.exec(`DO $$ BEGIN RAISE EXCEPTION 'a test''s failure' USING ERRCODE = '40001'; END $$`)
				return err
			}
			return t.appendMove(ids[3], 0, m, "*", time.Now(), "moved "+ids[3])
		}, nil},
	}
	release := holdGather(t, p)
	errs := make([]error, len(changes))
	var wg sync.WaitGroup
	for i, c := range changes {
		wg.Go(func() { errs[i] = p.writeGame(ctx, "a test's change", c.id, false, c.do) })
		waitQueued(t, p.g.queue, i+1) // queued in this order
	}
	// A change whose caller gives up while it is queued is not made.
	cctx, cancel := context.WithCancel(ctx)
	abandoned := make(chan error, 1)
	go func() {
		abandoned <- p.writeGame(cctx, "a change given up", ids[0], false, func(*tx) error {
			t.Error("a change given up before it was taken was made")
			return nil
		})
	}()
	waitQueued(t, p.g.queue, len(changes)+1)
	cancel()
	if err := <-abandoned; !errors.Is(err, context.Canceled) {
		t.Errorf("a change given up: %v, want context.Canceled", err)
	}
	release()
	wg.Wait()

	for i, c := range changes {
		if c.want == nil && errs[i] != nil || c.want != nil && !errors.Is(errs[i], c.want) {
			t.Errorf("change %d (game %s): %v, want %v", i, c.id, errs[i], c.want)
		}
	}
	if !slices.IsSorted(ran) || len(ran) != len(changes) {
		t.Errorf("the changes ran for the games %q, want each once in the order of the games", ran)
	}
	writes, _ := obs.seen()
	// A holding change, the seven together, the one tried again alone.
	if !slices.Equal(writes, []int{1, 7, 1}) {
		t.Errorf("commits of %v changes, want 1, 7 and 1", writes)
	}
	for i, want := range []int{1, 0, 1, 1} {
		g, err := p.Game(ctx, ids[i])
		if err != nil {
			t.Fatal(err)
		}
		if len(g.Moves) != want {
			t.Errorf("game %d has %d moves, want %d", i, len(g.Moves), want)
		}
	}
	var count int
	if err := p.pool.QueryRow(ctx, `SELECT moves FROM games WHERE id = $1`, ids[1]).Scan(&count); err != nil || count != 0 {
		t.Errorf("game 1's count of moves: %d (%v), want 0: the changes refused not undone", count, err)
	}
	mu.Lock()
	defer mu.Unlock()
	first := []string{"moved " + ids[0], "moved " + ids[2]}
	slices.Sort(first)
	if want := append(first, "moved "+ids[3]); !slices.Equal(notices, want) {
		t.Errorf("notices %q, want %q", notices, want)
	}
}

// A change that fails its whole transaction before the commit (its
// connection cut, a statement that cannot be prepared) fails alone: the
// other changes of its transaction are tried again, each on its own.
func TestPostgresGatheredFailsAlone(t *testing.T) {
	for _, c := range []struct{ name, sql string }{
		{"connection cut", `SELECT pg_terminate_backend(pg_backend_pid())`},
		{"statement not prepared", `UPDATE games SET no_such_column = 1`},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			p := openPostgres(t, newPostgresDB(t))
			a, b := newGame(t, p, nil).ID, newGame(t, p, nil).ID
			obs := &commits{}
			p.SetObserver(obs)
			m := moves(t, "a")[0]
			release := holdGather(t, p)
			changes := []struct {
				id string
				do func(*tx) error
			}{
				{a, func(t *tx) error { return t.appendMove(a, 0, m, "*", time.Now(), "") }},
				{b, func(t *tx) error { return t.appendMove(b, 3, m, "*", time.Now(), "") }},
				{a + "z", func(t *tx) error { _, err := t.exec(c.sql); return err }},
				{b + "z", func(t *tx) error { return t.appendMove(b, 0, m, "*", time.Now(), "") }},
			}
			errs := make([]error, len(changes))
			var wg sync.WaitGroup
			for i, c := range changes {
				wg.Go(func() { errs[i] = p.writeGame(ctx, "a test's change", c.id, false, c.do) })
				waitQueued(t, p.g.queue, i+1)
			}
			release()
			wg.Wait()
			if errs[0] != nil || errs[3] != nil {
				t.Errorf("the moves beside a change that failed their transaction: %v and %v", errs[0], errs[3])
			}
			if !errors.Is(errs[1], ErrConflict) {
				t.Errorf("the move refused: %v, want ErrConflict", errs[1])
			}
			if !errors.Is(errs[2], ErrUnsaved) {
				t.Errorf("the change that failed: %v, want ErrUnsaved", errs[2])
			}
			for _, id := range []string{a, b} {
				if g, err := p.Game(ctx, id); err != nil || len(g.Moves) != 1 {
					t.Errorf("game %s: %v, want its move stored once", id, err)
				}
			}
			// A holding change, then the two moves alone.
			if writes, _ := obs.seen(); !slices.Equal(writes, []int{1, 1, 1}) {
				t.Errorf("commits of %v changes, want each alone", writes)
			}
		})
	}
}
