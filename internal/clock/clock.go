// Package clock gives the time to the code that keeps time (online games'
// clocks, expiry, the lobby's waves), so that its tests move time by hand
// instead of waiting: Real reads the system's clock and arms its timers;
// Fake is moved by Advance, firing the timers that fall due on the way.
package clock

import (
	"sort"
	"sync"
	"time"
)

// Clock tells the time and runs functions later.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine once d has passed.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a call of AfterFunc: Stop keeps it from firing, and reports
// whether it did.
type Timer interface {
	Stop() bool
}

// Real is the system's clock.
var Real Clock = real{}

type real struct{}

func (real) Now() time.Time { return time.Now() }

func (real) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// Fake is a clock that moves only by Advance or Set. Its zero value is
// not ready: use NewFake.
type Fake struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	wg     sync.WaitGroup
}

// NewFake returns a fake clock set at now.
func NewFake(now time.Time) *Fake { return &Fake{now: now} }

type fakeTimer struct {
	c       *Fake
	at      time.Time
	f       func()
	stopped bool
}

// Now returns the fake time.
func (c *Fake) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// AfterFunc arms a timer that fires when the fake time reaches d from now.
func (c *Fake) AfterFunc(d time.Duration, f func()) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), f: f}
	c.timers = append(c.timers, t)
	return t
}

// Stop keeps the timer from firing; it reports whether it had not fired
// or been stopped yet.
func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	for i, u := range t.c.timers {
		if u == t {
			t.c.timers = append(t.c.timers[:i], t.c.timers[i+1:]...)
			return !t.stopped
		}
	}
	return false
}

// Advance moves the time on by d, firing in their order the timers that
// fall due, each in its own goroutine as the real clock does, and waits
// for the calls to return.
func (c *Fake) Advance(d time.Duration) {
	c.mu.Lock()
	to := c.now.Add(d)
	c.mu.Unlock()
	c.Set(to)
}

// Set moves the time to t (never back) as Advance does.
func (c *Fake) Set(t time.Time) {
	for {
		c.mu.Lock()
		sort.SliceStable(c.timers, func(i, j int) bool { return c.timers[i].at.Before(c.timers[j].at) })
		if len(c.timers) == 0 || c.timers[0].at.After(t) {
			if t.After(c.now) {
				c.now = t
			}
			c.mu.Unlock()
			break
		}
		next := c.timers[0]
		c.timers = c.timers[1:]
		next.stopped = true
		if next.at.After(c.now) {
			c.now = next.at
		}
		c.wg.Add(1)
		c.mu.Unlock()
		go func() {
			defer c.wg.Done()
			next.f()
		}()
		c.wg.Wait()
	}
}

// Timers returns how many timers are armed.
func (c *Fake) Timers() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}
