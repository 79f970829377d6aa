package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/store"
)

// IdleExpiry is how long an online game without a running clock may stay
// untouched before it expires.
const IdleExpiry = play.IdleExpiry

// Heartbeat is how often the server records that it is alive, so that
// after a restart it gives the running clocks back the time it was away.
const Heartbeat = time.Second

// outage is how long without a heartbeat of any instance counts as the
// server having been down.
const outage = Heartbeat + Heartbeat/2

// flagGrace is how long after a clock falls an instance flags it when
// another instance made the game's last change: that one flags it on
// time, and this one only if it is gone. So a clock is flagged once,
// not by a timer on every instance racing the others.
const flagGrace = 2 * time.Second

// clockWatch keeps a timer for each online game whose clock runs, so that
// a flag falls on time whether or not anyone is connected.
type clockWatch struct {
	mu     sync.Mutex
	timers map[string]flagTimer
}

// flagTimer is the timer of a game's clock, when it is due, and the
// game's revision it was armed for.
type flagTimer struct {
	clock.Timer
	due time.Time
	rev int64
}

// watch (re)schedules the timer of game g and notes its position
// (livepositions.go); the caller holds the game's lock. This instance
// made the game's last change when grace is 0; otherwise it arms only the
// fallback, grace after the clock falls.
func (cw *clockWatch) watch(s *Server, g *play.Game, grace time.Duration) {
	s.positions.note(g)
	at := g.Deadline()
	if !at.IsZero() {
		at = at.Add(grace)
	}
	var rev int64
	if o := g.Online(); o != nil {
		rev = o.Rev
	}
	cw.at(s, g.ID(), at, rev)
}

// at (re)schedules the timer of game id, at revision rev, to flag it at
// at, or stops it for a zero at. A timer armed for a later revision stays:
// the notice of an older change arrived out of order.
func (cw *clockWatch) at(s *Server, id string, at time.Time, rev int64) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if t, ok := cw.timers[id]; ok {
		if rev < t.rev {
			return
		}
		t.Stop()
		delete(cw.timers, id)
	}
	if at.IsZero() {
		return
	}
	// A little after, so that the flag has surely fallen.
	due := at.Add(10 * time.Millisecond)
	cw.timers[id] = flagTimer{s.clock.AfterFunc(due.Sub(s.clock.Now()), func() { s.flag(id) }), due, rev}
}

// due returns when the timer of game id is due, if one is armed.
func (cw *clockWatch) due(id string) (time.Time, bool) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	t, ok := cw.timers[id]
	return t.due, ok
}

func (cw *clockWatch) stopAll() {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	for id, t := range cw.timers {
		t.Stop()
		delete(cw.timers, id)
	}
}

// flag ends game id on time if its side to move has run out, or
// reschedules its timer.
func (s *Server) flag(id string) {
	if s.ctx.Err() != nil {
		return
	}
	ctx, cancel := context.WithTimeout(s.ctx, backgroundTimeout)
	defer cancel()
	err := s.table.With(ctx, id, func(g *play.Game) error {
		up, err := s.table.TimeIsUp(ctx, g, s.clock.Now())
		if err == nil && !up {
			// Changed since, perhaps on another instance, which flags it.
			s.clocks.watch(s, g, flagGrace)
		}
		return err
	})
	if errors.Is(err, store.ErrConflict) {
		// Another instance changed the game first (perhaps ending it on
		// time itself): watch it as it is now.
		err = s.table.With(ctx, id, func(g *play.Game) error {
			s.clocks.watch(s, g, flagGrace)
			return nil
		})
	}
	if err != nil {
		s.log.Warn("ending a game on time", "game", id, "err", err)
	}
}

// checkClocks flags the open games whose clock has fallen and that no
// timer of this instance watches: their last change was made by an
// instance that is gone.
func (s *Server) checkClocks(ctx context.Context) {
	lctx, cancel := context.WithTimeout(ctx, backgroundTimeout)
	ids, err := s.store.OpenOnlineGames(lctx, time.Time{})
	cancel()
	if err != nil {
		s.log.Warn("listing open games", "err", err)
		return
	}
	for _, id := range ids {
		s.clocks.mu.Lock()
		_, watched := s.clocks.timers[id]
		s.clocks.mu.Unlock()
		if !watched && ctx.Err() == nil {
			s.flag(id)
		}
	}
}

// expireIdle ends the online games nobody touched for IdleExpiry.
func (s *Server) expireIdle(ctx context.Context) {
	now := s.clock.Now()
	lctx, cancel := context.WithTimeout(ctx, backgroundTimeout)
	ids, err := s.store.OpenOnlineGames(lctx, now.Add(-IdleExpiry))
	cancel()
	if err != nil {
		s.log.Warn("listing idle games", "err", err)
		return
	}
	for _, id := range ids {
		gctx, cancel := context.WithTimeout(ctx, backgroundTimeout)
		err := s.table.With(gctx, id, func(g *play.Game) error { return s.table.Expire(gctx, g, now) })
		cancel()
		if err != nil {
			s.log.Warn("expiring an idle game", "game", id, "err", err)
		}
	}
}
