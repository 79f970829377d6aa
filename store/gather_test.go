package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// timer is a gathering's wait that fires when its test says.
type timer struct {
	waits chan time.Duration // each wait asked for
	fire  chan time.Time
}

func newTimer() *timer {
	return &timer{waits: make(chan time.Duration, 2*maxBatch), fire: make(chan time.Time)}
}

func (f *timer) after(d time.Duration) <-chan time.Time {
	f.waits <- d
	return f.fire
}

// gathered opens a store whose writer waits on f, as if its last
// transaction had carried last writes. It is set before the first write,
// which the queue orders before the writer's reads.
func gathered(t *testing.T, f *timer, last int) (*SQLite, *commits) {
	t.Helper()
	s := open(t, filepath.Join(t.TempDir(), "games.db"))
	t.Cleanup(func() { s.Close() })
	s.gather = gathering{most: gatherMost, after: f.after, last: last}
	obs := &commits{}
	s.SetObserver(obs)
	return s, obs
}

// queue hands the writer a change that does nothing but count its runs,
// and returns it.
func queue(s *SQLite, ran *int) *write {
	w := &write{what: "a test's change", do: func(*tx) error { *ran++; return nil }, done: make(chan error, 1)}
	s.queue <- w
	return w
}

// answer waits for w's answer; the deadline only keeps a writer that
// never answers from hanging the test.
func answer(t *testing.T, w *write) error {
	t.Helper()
	select {
	case err := <-w.done:
		return err
	case <-time.After(time.Minute):
		t.Fatal("a write was not answered")
		return nil
	}
}

// waited returns the wait the writer asked for, failing if it asks none.
func waited(t *testing.T, f *timer) time.Duration {
	t.Helper()
	select {
	case d := <-f.waits:
		return d
	case <-time.After(time.Minute):
		t.Fatal("the writer did not wait for company")
		return 0
	}
}

// The bound on a gathering's wait is short beside the answer a player
// waits for (move→opponent p99 of 50 ms).
func TestGatherMostBounded(t *testing.T) {
	if gatherMost <= 0 || gatherMost > 2*time.Millisecond {
		t.Errorf("gatherMost %v, want more than 0 and at most 2ms", gatherMost)
	}
	if (&gathering{most: 0, last: maxBatch}).waits() {
		t.Error("a gathering of no time waits")
	}
}

// A writer whose transactions are alone never waits; one whose last
// transaction had company waits once, the bound, and goes back to not
// waiting when the wait gathered nobody.
func TestGatherOnlyAfterCompany(t *testing.T) {
	ctx := context.Background()
	f := newTimer()
	closed := make(chan time.Time)
	close(closed)
	f.fire = closed // a wait asked for ends at once; the test counts them
	s, obs := gathered(t, f, 0)
	start, _ := rules.NewPosition(6, 4)
	create := func() {
		if err := s.CreateGame(ctx, &game.Game{Start: start}); err != nil {
			t.Error(err)
		}
	}
	for range 3 {
		create()
	}
	if len(f.waits) != 0 {
		t.Fatalf("%d waits for writes that came one at a time", len(f.waits))
	}
	// Three writes queued behind a held one: a transaction with company.
	release := hold(t, s)
	done := make(chan struct{})
	for range 3 {
		go func() {
			defer func() { done <- struct{}{} }()
			create()
		}()
	}
	waitQueued(t, s.queue, 3)
	release()
	for range 3 {
		<-done
	}
	if len(f.waits) != 0 {
		t.Fatalf("%d waits before a transaction had company", len(f.waits))
	}
	create() // waits, gathers nobody
	create() // does not wait
	if n := len(f.waits); n != 1 {
		t.Fatalf("%d waits after one transaction with company, want 1", n)
	}
	if d := <-f.waits; d != gatherMost {
		t.Errorf("waited up to %v, want gatherMost (%v)", d, gatherMost)
	}
	if writes, _ := obs.seen(); !slices.Equal(writes, []int{1, 1, 1, 1, 3, 1, 1}) {
		t.Errorf("commits %v, want three alone, the held one, the three behind it, then two alone", writes)
	}
}

// While the writer waits for company, it answers nobody; the writes that
// came meanwhile are committed with the first, in one transaction, once
// the wait ends.
func TestGatherTakesWritesUntilItsWaitEnds(t *testing.T) {
	for _, n := range []int{0, 1, 2, 17} {
		f := newTimer()
		s, obs := gathered(t, f, 2)
		ran := make([]int, n+1)
		ws := []*write{queue(s, &ran[0])}
		waited(t, f)
		for i := range n {
			ws = append(ws, queue(s, &ran[i+1]))
		}
		for i, w := range ws {
			select {
			case err := <-w.done:
				t.Fatalf("%d more: write %d answered (%v) while the writer waits", n, i, err)
			default:
			}
		}
		f.fire <- time.Time{}
		for i, w := range ws {
			if err := answer(t, w); err != nil {
				t.Errorf("%d more: write %d: %v", n, i, err)
			}
		}
		for i, r := range ran {
			if r != 1 {
				t.Errorf("%d more: write %d ran %d times", n, i, r)
			}
		}
		if writes, _ := obs.seen(); !slices.Equal(writes, []int{n + 1}) {
			t.Errorf("%d more: commits %v, want one of %d", n, writes, n+1)
		}
	}
}

// A wait ends when the transaction is full, without its timer.
func TestGatherEndsFull(t *testing.T) {
	f := newTimer()
	s, obs := gathered(t, f, 2)
	ran := make([]int, maxBatch)
	ws := []*write{queue(s, &ran[0])}
	waited(t, f)
	for i := 1; i < maxBatch; i++ {
		ws = append(ws, queue(s, &ran[i]))
	}
	for i, w := range ws {
		if err := answer(t, w); err != nil {
			t.Errorf("write %d: %v", i, err)
		}
	}
	if writes, _ := obs.seen(); !slices.Equal(writes, []int{maxBatch}) {
		t.Errorf("commits %v, want one of %d", writes, maxBatch)
	}
}

// A write whose caller gives up while the writer waits is not made; the
// others are.
func TestGatherLeavesAbandonedWrites(t *testing.T) {
	f := newTimer()
	s, obs := gathered(t, f, 2)
	var ran, gone int
	first := queue(s, &ran)
	waited(t, f)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		errc <- s.write(ctx, "a change given up", false, func(*tx) error { gone++; return nil })
	}()
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("the change given up: %v, want context.Canceled", err)
	}
	f.fire <- time.Time{}
	if err := answer(t, first); err != nil {
		t.Error(err)
	}
	if ran != 1 || gone != 0 {
		t.Errorf("the first change ran %d times, the one given up %d, want 1 and 0", ran, gone)
	}
	if writes, _ := obs.seen(); len(writes) != 1 || writes[0] != 1 {
		t.Errorf("commits %v, want the first change alone", writes)
	}
}

// Close during a wait commits what was gathered and stops the writer.
func TestGatherEndsOnClose(t *testing.T) {
	f := newTimer()
	s, obs := gathered(t, f, 2)
	var ran int
	w := queue(s, &ran)
	waited(t, f)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := answer(t, w); err != nil || ran != 1 {
		t.Errorf("the write gathered before Close: %v, ran %d times", err, ran)
	}
	if writes, _ := obs.seen(); !slices.Equal(writes, []int{1}) {
		t.Errorf("commits %v, want one of 1", writes)
	}
}
