package engine

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// A search past its deadline stops at its next check even when nothing
// else tells it to: where goroutines take turns on one thread
// (WebAssembly), the timer that sets the stop flag runs only when the
// search pauses.
func TestSearchReadsItsDeadline(t *testing.T) {
	e, err := New(Config{HashMiB: 1})
	if err != nil {
		t.Fatal(err)
	}
	p, err := rules.NewPosition(8, 4)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	s := e.newSearcher(0, p, nil, &stop, 0)
	s.checkStop()
	if s.aborted {
		t.Fatal("a search with no deadline and no stop was aborted")
	}
	s.deadline = time.Now().Add(-time.Millisecond)
	s.checkStop()
	if !s.aborted || !stop.Load() {
		t.Errorf("a search past its deadline: aborted %v, stop flag %v; want both", s.aborted, stop.Load())
	}
	if s = e.newSearcher(0, p, nil, &stop, 0); !s.deadline.IsZero() {
		t.Errorf("a new search keeps the last one's deadline %v", s.deadline)
	}
}
