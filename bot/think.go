package bot

import "time"

// Timing says how the bot shares out its clock between moves.
type Timing struct {
	// Max is the most one move may take, whatever the clock; a game
	// without a clock takes this for every move.
	Max time.Duration
	// Overhead is kept back from the clock for the move's way to the
	// server and the server's answer.
	Overhead time.Duration
}

// DefaultTiming thinks at most 5 seconds a move and keeps back 300 ms of
// the clock for the way to the server.
func DefaultTiming() Timing { return Timing{Max: 5 * time.Second, Overhead: 300 * time.Millisecond} }

// MinThink is the least time a search is given: when the clock leaves
// less, the engine still needs a moment to name a move.
const MinThink = 20 * time.Millisecond

// movesToGo is how many more moves a real-time clock is shared out over:
// games of En Dodoi on the usual boards last 30 to 60 moves a side, and
// the first ones matter most.
const movesToGo = 25

// Allot returns how long to think about a move with left on the clock and
// increment added after the move; perMove is a correspondence clock, which
// starts afresh at every move; untimed is a game without a clock. The
// answer is never more than Max, never less than MinThink, and leaves at
// least half of what the clock has beyond the overhead on a real-time
// clock, so that a move is never given more time than there is.
func (t Timing) Allot(left, increment time.Duration, perMove, untimed bool) time.Duration {
	if untimed {
		return max(t.Max, MinThink)
	}
	usable := left - t.Overhead
	var share time.Duration
	if perMove {
		share = usable * 3 / 4
	} else {
		share = min(usable/movesToGo+increment*3/4, usable/2)
	}
	return max(min(share, t.Max), MinThink)
}
