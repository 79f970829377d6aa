package server

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// The shortest time controls players ask for, 1+0 and 2+1, are accepted
// and shown back as given; less than a minute is not.
func TestShortTimeControls(t *testing.T) {
	ts := newTestServer(t)
	for _, c := range []struct{ minutes, increment, want int }{
		{1, 0, http.StatusCreated},
		{2, 1, http.StatusCreated},
		{0, 1, http.StatusBadRequest},
		{1, -1, http.StatusBadRequest},
	} {
		body := fmt.Sprintf(`{"online": true, "name": "Naserian", "clock": {"minutes": %d, "increment": %d}}`, c.minutes, c.increment)
		var made created
		code, raw := ts.do("POST", "/api/games", body, &made)
		if code != c.want {
			t.Errorf("%d+%d: status %d, want %d: %s", c.minutes, c.increment, code, c.want, raw)
			continue
		}
		if code != http.StatusCreated {
			continue
		}
		got := made.Game.Online.Clock
		if got == nil || got.Minutes != c.minutes || got.Increment != c.increment || got.Days != 0 {
			t.Errorf("%d+%d: the game's clock is %+v", c.minutes, c.increment, got)
		}
		if cl := made.Game.Online.Clocks; cl.South != int64(c.minutes)*60000 || cl.North != cl.South {
			t.Errorf("%d+%d: the clocks start at %+v", c.minutes, c.increment, cl)
		}
	}
}

// A notice of an older change that arrives after a newer one (out of
// order, as a message bus may deliver it) leaves the clock's timer as the
// newer change set it; a newer one resets it.
func TestClockTimerKeepsTheNewestRevision(t *testing.T) {
	ts := newTestServer(t)
	s, id := ts.srv, "0123456789abcdef"
	defer s.clocks.stopAll()
	soon := time.Now().Add(time.Hour)
	s.clocks.at(s, id, soon, 5)
	s.clocks.at(s, id, time.Time{}, 4) // the notice of revision 4, late
	if due, ok := s.clocks.due(id); !ok || !due.After(soon) {
		t.Fatalf("after an older notice: due %v (%t), want the timer of revision 5", due, ok)
	}
	later := soon.Add(time.Minute)
	s.clocks.at(s, id, later, 3)
	if due, _ := s.clocks.due(id); due.After(later) {
		t.Errorf("an older notice moved the timer to %v", due)
	}
	s.clocks.at(s, id, time.Time{}, 6)
	if due, ok := s.clocks.due(id); ok {
		t.Errorf("after revision 6 stopped the clock: due %v", due)
	}
}
