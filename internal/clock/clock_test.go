package clock

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestFakeFiresInOrderWhenDue(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := NewFake(start)
	var order []int
	var seen atomic.Int64
	c.AfterFunc(2*time.Second, func() { order = append(order, 2); seen.Store(c.Now().Sub(start).Milliseconds()) })
	c.AfterFunc(time.Second, func() { order = append(order, 1) })
	stopped := c.AfterFunc(1500*time.Millisecond, func() { order = append(order, 15) })
	if !stopped.Stop() || stopped.Stop() {
		t.Error("Stop: want true once, then false")
	}
	c.Advance(999 * time.Millisecond)
	if len(order) != 0 {
		t.Fatalf("fired early: %v", order)
	}
	c.Advance(5 * time.Second)
	if len(order) != 2 || order[0] != 1 || order[1] != 2 {
		t.Errorf("fired %v, want [1 2]", order)
	}
	if seen.Load() != 2000 {
		t.Errorf("a timer saw the time at %d ms, want 2000", seen.Load())
	}
	if got := c.Now().Sub(start); got != 5999*time.Millisecond {
		t.Errorf("now is %v on, want 5.999s", got)
	}
	if c.Timers() != 0 {
		t.Errorf("%d timers left", c.Timers())
	}
}

func TestFakeTimerArmedByATimer(t *testing.T) {
	c := NewFake(time.Unix(0, 0))
	fired := 0
	var again func()
	again = func() {
		fired++
		if fired < 3 {
			c.AfterFunc(time.Second, again)
		}
	}
	c.AfterFunc(time.Second, again)
	c.Advance(10 * time.Second)
	if fired != 3 {
		t.Errorf("fired %d times, want 3", fired)
	}
}
