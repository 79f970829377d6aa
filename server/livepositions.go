package server

// The site's engine does not analyse the position of an online game being
// played: a player could otherwise consult it in the middle of their own
// game. Each instance keeps, in memory, the position of every online game
// in play past its opening (livePly): from its own changes (every change
// is watched: clockWatch.watch), from the games it loads when it starts,
// and from the other instances' notices, which carry the position after
// each change. A notice lost on the way (the listener reconnecting) leaves
// a game's entry stale until its next change.

import (
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// livePly is the first ply whose position is kept: the positions of the
// first moves are shared by many games, and the opening book knows them.
const livePly = 4

// livePositions maps the games in play to their positions' keys.
type livePositions struct {
	mu     sync.Mutex
	byGame map[string]string
	count  map[string]int // games at each key
}

// positionKey names what the engine would be asked about in p under r:
// the seeds in the holes from the side to move's view and the variant.
// The captured seeds are left out, and the board is seen from the mover,
// so that neither changing them nor mirroring the board makes another key.
func positionKey(p rules.Position, r rules.Rules) string {
	var b strings.Builder
	b.WriteString(r.Variant.String())
	for _, side := range []rules.Side{p.ToMove(), p.ToMove().Opponent()} {
		b.WriteByte('/')
		for i, n := range p.Row(side) {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(n))
		}
	}
	return b.String()
}

// liveKey is the key of board's position if it is to be kept: that of an
// online game in play past its opening; "" otherwise.
func liveKey(board *rules.Game) string {
	if board == nil || board.Over() || board.Ply() < livePly {
		return ""
	}
	return positionKey(board.Position(), board.Rules())
}

// note records game g's position as it is now.
func (lp *livePositions) note(g *play.Game) {
	key := ""
	if o := g.Online(); o != nil && !g.Over() {
		if _, free := play.FreeSeat(o); !free {
			key = liveKey(g.Board())
		}
	}
	lp.set(g.ID(), key)
}

// set records the key of game id's position; "" forgets it.
func (lp *livePositions) set(id, key string) {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	old, had := lp.byGame[id]
	if had && old == key {
		return
	}
	if had {
		if lp.count[old]--; lp.count[old] <= 0 {
			delete(lp.count, old)
		}
		delete(lp.byGame, id)
	}
	if key == "" {
		return
	}
	if lp.byGame == nil {
		lp.byGame, lp.count = map[string]string{}, map[string]int{}
	}
	lp.byGame[id] = key
	lp.count[key]++
}

// check refuses to search p under r while an online game is being played
// from it.
func (lp *livePositions) check(p rules.Position, r rules.Rules) error {
	key := positionKey(p, r)
	lp.mu.Lock()
	n := lp.count[key]
	lp.mu.Unlock()
	if n > 0 {
		return errorf(http.StatusConflict, "an online game is being played from this position right now: the engine does not analyse it until the game has moved on")
	}
	return nil
}
