package bus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"hash/fnv"
)

// Notice is what an instance tells the others of a change of a game, as
// JSON (short names: there is one for every change). On PostgreSQL's
// NOTIFY the notice of a change is sent by the change's own transaction
// (game.Change.Notice), on a bus once it has committed: the others hear
// of every committed change, and of no other.
type Notice struct {
	Instance string `json:"i"`
	Game     string `json:"g"`
	Event    string `json:"e,omitempty"`
	// Rev is the online game's revision after the change.
	Rev int64 `json:"r,omitempty"`
	// Deadline is when the running clock falls, in Unix milliseconds; 0
	// when no clock runs.
	Deadline int64 `json:"d,omitempty"`
	// Position is the key of the position of an online game in play
	// after the change (the analysis' refusal near live games); "" otherwise. Laps is its rules'
	// lap cap, 0 for the default.
	Position string `json:"p,omitempty"`
	Laps     int    `json:"l,omitempty"`
	// For a move: the move, the moves played after it and when it was
	// played (Unix milliseconds), for the others to play it on the game
	// they keep (play.Table.Heard).
	Move string `json:"m,omitempty"`
	Ply  int    `json:"n,omitempty"`
	At   int64  `json:"a,omitempty"`
	// For presence: this instance's connections to the game, by seat,
	// and those watching.
	Seats    [2]int `json:"s,omitzero"`
	Watchers int    `json:"w,omitempty"`
	// Sent is when the notice was made, in Unix microseconds, for the
	// metrics of the notices' lag.
	Sent int64 `json:"t,omitempty"`
}

// Workers handle notices of games: each game's in order, on one of their
// goroutines, those of different games at once.
type Workers struct {
	ctx    context.Context
	queues []chan Notice
}

// StartWorkers starts n workers, each with a queue of queue notices, that
// pass each notice to handle until ctx ends.
func StartWorkers(ctx context.Context, n, queue int, handle func(Notice)) *Workers {
	w := &Workers{ctx: ctx, queues: make([]chan Notice, n)}
	for i := range w.queues {
		q := make(chan Notice, queue)
		w.queues[i] = q
		go func() {
			for {
				select {
				case <-ctx.Done():
					return
				case n := <-q:
					handle(n)
				}
			}
		}()
	}
	return w
}

// Hand queues notice n for its game's worker, waiting while the queue is
// full, unless the workers have ended.
func (w *Workers) Hand(n Notice) {
	h := fnv.New32a()
	h.Write([]byte(n.Game))
	select {
	case w.queues[h.Sum32()%uint32(len(w.queues))] <- n:
	case <-w.ctx.Done():
	}
}

// NewInstance is a new random name for an instance, which its notices
// carry (Notice.Instance): it ignores its own.
func NewInstance() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
