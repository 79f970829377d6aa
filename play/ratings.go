package play

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// The players of an online game as the ratings see them (who holds each
// seat, their ratings, the game's change of them), read with the game's
// state. They change only when a seat is taken or the game ends, so each
// game's are kept a short while and read again when its seats or its
// result change: a move costs no read.

// ratingsTTL is how long a game's players are kept: a player's rating
// may change meanwhile by the end of another game, which the game's view
// shows this long after at most (its own end reads them again).
const ratingsTTL = 2 * time.Minute

// maxRatingsKept bounds the games whose players are kept: more than the
// games a table keeps in memory.
const maxRatingsKept = 2 * DefaultKeepMost

type ratingsCache struct {
	mu sync.Mutex
	m  map[string]ratingsEntry
}

type ratingsEntry struct {
	key string // what the players were read for: the seats and the result
	at  time.Time
	gr  *game.GameRatings
}

// readRatings adds the players of the online game of st, from the cache
// when they were read for the same seats and result a moment ago.
func (t *Table) readRatings(ctx context.Context, st *State) error {
	o := st.Info.Online
	if o == nil {
		return nil
	}
	key := o.Seats[0] + " " + o.Seats[1] + " " + st.Result + " " + o.End
	now := t.now()
	c := &t.ratings
	c.mu.Lock()
	e, ok := c.m[st.Info.ID]
	c.mu.Unlock()
	if ok && e.key == key && now.Sub(e.at) < ratingsTTL {
		st.Ratings = e.gr
		return nil
	}
	gr, err := t.store.GameRatings(ctx, st.Info.ID)
	if err != nil {
		return fmt.Errorf("game %s: %w", st.Info.ID, err)
	}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxRatingsKept {
		c.m = map[string]ratingsEntry{}
	}
	c.m[st.Info.ID] = ratingsEntry{key: key, at: now, gr: gr}
	c.mu.Unlock()
	st.Ratings = gr
	return nil
}
