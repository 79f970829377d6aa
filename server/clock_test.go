package server

import (
	"fmt"
	"net/http"
	"testing"
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
