package bot

import (
	"testing"
	"time"

	"pgregory.net/rapid"
)

// liveWait bounds the tests' waits for what the bot does: generous, since
// CI runs the tests under -race on two cores; a passing test comes
// nowhere near it.
const liveWait = 20 * time.Second

func TestAllot(t *testing.T) {
	tm := DefaultTiming()
	s, ms := time.Second, time.Millisecond
	for _, tc := range []struct {
		name          string
		left, inc     time.Duration
		perMove, none bool
		want          time.Duration
	}{
		{"no clock", 0, 0, false, true, tm.Max},
		{"5+0 at the start", 300 * s, 0, false, false, tm.Max},
		{"1+0 at the start", 60 * s, 0, false, false, (60*s - 300*ms) / 25},
		{"3+2 at the start", 180 * s, 2 * s, false, false, tm.Max},
		{"3+2 later", 60 * s, 2 * s, false, false, (60*s-300*ms)/25 + 1500*ms},
		{"1 s and a 2 s increment", s, 2 * s, false, false, 350 * ms},
		{"little left", 1300 * ms, 0, false, false, 40 * ms},
		{"less than the overhead", 100 * ms, 0, false, false, MinThink},
		{"flag fallen", -s, 0, false, false, MinThink},
		{"3 days a move", 72 * time.Hour, 0, true, false, tm.Max},
		{"a second of a day left", s, 0, true, false, 525 * ms},
	} {
		if got := tm.Allot(tc.left, tc.inc, tc.perMove, tc.none); got != tc.want {
			t.Errorf("%s: Allot(%v, %v) = %v, want %v", tc.name, tc.left, tc.inc, got, tc.want)
		}
	}
}

// TestAllotNeverOverspends: a move is given at least MinThink and at most
// Max, and on a real-time clock never more than half of what the clock
// has beyond the overhead, when there is more than MinThink of that.
func TestAllotNeverOverspends(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		tm := Timing{
			Max:      time.Duration(rapid.Int64Range(int64(MinThink), int64(time.Minute)).Draw(t, "max")),
			Overhead: time.Duration(rapid.Int64Range(0, int64(5*time.Second)).Draw(t, "overhead")),
		}
		left := time.Duration(rapid.Int64Range(-int64(time.Minute), int64(200*time.Hour)).Draw(t, "left"))
		inc := time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "inc"))
		perMove := rapid.Bool().Draw(t, "perMove")
		got := tm.Allot(left, inc, perMove, false)
		if got < MinThink || got > tm.Max {
			t.Fatalf("Allot = %v, outside %v to %v", got, MinThink, tm.Max)
		}
		usable := left - tm.Overhead
		if usable >= 2*MinThink && got > usable {
			t.Fatalf("Allot = %v, over the %v the clock has", got, usable)
		}
		if !perMove && usable >= 2*MinThink && got > usable/2 {
			t.Fatalf("Allot = %v, over half the %v the clock has", got, usable)
		}
	})
}
