package play

import (
	"context"
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// The games in memory: each instance keeps the games it serves as they
// stood after their last change, so that a change neither reads nor
// replays the game. A game is read from the store when it is not kept (a
// restart, a game idle for a while, another instance's), and forgotten
// when another instance changes it (Forget): the next change reads it
// once. Games idle for KeepIdle, or beyond KeepMost, leave.

// Bounds of the games kept, unless the table's own are set.
const (
	DefaultKeepMost = 20_000
	DefaultKeepIdle = 10 * time.Minute
)

// gameMemory is the games a table keeps, by ID.
type gameMemory struct {
	mu sync.Mutex
	m  map[string]*keptGame
}

type keptGame struct {
	g    *Game
	used time.Time
	// over is whether the game was over after its last use: a finished
	// game leaves after overIdle.
	over bool
}

// overIdle is how long a finished game stays kept after its last use.
const overIdle = time.Minute

// kept returns game id as kept, or reads it from the store and keeps it.
// The caller holds the game's lock.
func (t *Table) kept(ctx context.Context, id string) (*Game, error) {
	now := t.now()
	mem := &t.memory
	mem.mu.Lock()
	if k := mem.m[id]; k != nil {
		k.used = now
		mem.mu.Unlock()
		return k.g, nil
	}
	mem.mu.Unlock()
	g, err := t.Load(ctx, id)
	if err != nil {
		return nil, err
	}
	mem.mu.Lock()
	defer mem.mu.Unlock()
	if mem.m == nil {
		mem.m = map[string]*keptGame{}
	}
	most := t.KeepMost
	if most == 0 {
		most = DefaultKeepMost
	}
	if len(mem.m) >= most {
		t.sweepLocked(now, most)
	}
	if most > 0 {
		mem.m[id] = &keptGame{g: g, used: now}
	}
	return g, nil
}

// Forget drops game id from memory: another instance changed it, or a
// change of it failed. The next change reads it again.
func (t *Table) Forget(id string) {
	t.memory.mu.Lock()
	delete(t.memory.m, id)
	t.memory.mu.Unlock()
}

// ForgetAll drops every game from memory: notices of other instances'
// changes may have been missed.
func (t *Table) ForgetAll() {
	t.memory.mu.Lock()
	clear(t.memory.m)
	t.memory.mu.Unlock()
}

// Kept returns how many games are kept in memory.
func (t *Table) Kept() int {
	t.memory.mu.Lock()
	defer t.memory.mu.Unlock()
	return len(t.memory.m)
}

// done notes that game g, kept, was used: whether it is over.
func (t *Table) done(g *Game) {
	t.memory.mu.Lock()
	if k := t.memory.m[g.ID()]; k != nil && k.g == g {
		k.over = g.Over()
	}
	t.memory.mu.Unlock()
}

// Sweep drops the games idle for KeepIdle, and those over for a minute.
func (t *Table) Sweep() {
	t.memory.mu.Lock()
	defer t.memory.mu.Unlock()
	t.sweepLocked(t.now(), 0)
}

// sweepLocked drops the idle and finished games; when more than half of
// most (> 0) are left, it drops the least recently used half too, to make
// room.
func (t *Table) sweepLocked(now time.Time, most int) {
	idle := t.KeepIdle
	if idle == 0 {
		idle = DefaultKeepIdle
	}
	for id, k := range t.memory.m {
		if now.Sub(k.used) >= idle || k.over && now.Sub(k.used) >= overIdle {
			delete(t.memory.m, id)
		}
	}
	if most <= 0 || len(t.memory.m) < most/2 {
		return
	}
	var cut time.Time
	uses := make([]time.Time, 0, len(t.memory.m))
	for _, k := range t.memory.m {
		uses = append(uses, k.used)
	}
	cut = median(uses)
	for id, k := range t.memory.m {
		if !k.used.After(cut) {
			delete(t.memory.m, id)
		}
	}
}

// median returns the middle of ts.
func median(ts []time.Time) time.Time {
	slices.SortFunc(ts, time.Time.Compare)
	return ts[len(ts)/2]
}

// refusal reports whether err is play's refusal of a request, which leaves
// the game as it was.
func refusal(err error) bool {
	var pe *Error
	var ask *AskOpponent
	return errors.As(err, &pe) || errors.As(err, &ask)
}

// checkPly refuses a request made on a stale view of game g, ply being the
// moves the player saw (nil: not said). A player who saw more moves than
// the game kept here has is ahead of this instance's copy, which missed
// another instance's change: the game is read again, in place, first.
func (t *Table) checkPly(ctx context.Context, g *Game, ply *int) error {
	if ply != nil && *ply > g.board.Ply() {
		fresh, err := t.Load(ctx, g.info.ID)
		if err != nil {
			return err
		}
		*g = *fresh
	}
	return g.checkPly(ply)
}

// Heard brings game id, as kept here, up to date with a change another
// instance made and told (its Notice): a move that follows the game kept
// (the next revision and ply) is played on it as that instance played it,
// at the time it was played, with no read; any other change, or one that
// does not follow, forgets the game, which its next use reads once. It
// reports whether the game kept is up to date.
func (t *Table) Heard(n Notice) bool {
	defer t.locks.lock(n.Game)()
	t.memory.mu.Lock()
	k := t.memory.m[n.Game]
	t.memory.mu.Unlock()
	if k == nil {
		return false
	}
	g := k.g
	o := g.info.Online
	if n.Move == "" || o == nil || n.Rev != o.Rev+1 || n.Ply != g.board.Ply()+1 || n.At.IsZero() {
		t.Forget(n.Game)
		return false
	}
	m, err := rules.ParseMove(n.Move)
	if err == nil {
		var e edit
		var refused error
		e, refused, err = g.moveEdit(Seat{Side: g.board.Position().ToMove()}, m, n.At)
		if err == nil && refused == nil {
			e.at = n.At
			e.online.Rev = n.Rev
			g.stored(e)
			return true
		}
	}
	// A move this copy cannot play as the other did: it was not the game
	// the other instance changed.
	t.Forget(n.Game)
	return false
}
