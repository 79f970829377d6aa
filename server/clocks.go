package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/endodoi/endodoi/store"
)

// Heartbeat is how often the server records that it is alive, so that
// after a restart it gives the running clocks back the time it was away.
const Heartbeat = time.Second

// outage is how long without a heartbeat of any instance counts as the
// server having been down.
const outage = Heartbeat + Heartbeat/2

// clockWatch keeps a timer for each online game whose clock runs, so that
// a flag falls on time whether or not anyone is connected.
type clockWatch struct {
	mu     sync.Mutex
	timers map[string]*time.Timer
}

// watch (re)schedules the timer of game l after a change; the caller
// holds the game's lock.
func (cw *clockWatch) watch(s *Server, l *loaded) { cw.at(s, l.stored.ID, deadline(l)) }

// at (re)schedules the timer of game id for its clock falling at at, or
// stops it for a zero at.
func (cw *clockWatch) at(s *Server, id string, at time.Time) {
	cw.mu.Lock()
	defer cw.mu.Unlock()
	if t := cw.timers[id]; t != nil {
		t.Stop()
		delete(cw.timers, id)
	}
	if at.IsZero() {
		return
	}
	// A little after the deadline, so that the flag has surely fallen.
	cw.timers[id] = time.AfterFunc(time.Until(at)+10*time.Millisecond, func() { s.flag(id) })
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
	defer s.games.lock(id)()
	ctx := s.ctx
	if ctx.Err() != nil {
		return
	}
	l, err := s.load(ctx, id)
	if err != nil {
		s.log.Warn("checking a clock", "game", id, "err", err)
		return
	}
	up, err := s.timeIsUp(ctx, l, time.Now())
	if errors.Is(err, store.ErrConflict) {
		// Another instance changed the game first (perhaps ending it on
		// time itself): watch it as it is now.
		if l, err = s.load(ctx, id); err == nil {
			s.clocks.watch(s, l)
		}
		return
	}
	if err != nil {
		s.log.Warn("ending a game on time", "game", id, "err", err)
	}
	if !up {
		s.clocks.watch(s, l)
	}
}

// Start runs the server's own work until ctx ends: it gives the running
// clocks back the time the server was down, watches every running clock,
// records a heartbeat, and expires idle online games. Close waits for it
// to finish.
func (s *Server) Start(ctx context.Context) error {
	s.ctx = ctx
	now := time.Now()
	alive, ok, err := s.store.Alive(ctx)
	if err != nil {
		return err
	}
	if ok && now.Sub(alive) > outage {
		n, err := s.store.ResumeClocks(ctx, alive, now)
		if err != nil {
			return err
		}
		if n > 0 {
			s.log.Info("clocks given back the time the server was down", "games", n, "outage", now.Sub(alive).Round(time.Second))
		}
	}
	if err := s.store.SetAlive(ctx, now); err != nil {
		return err
	}
	ids, err := s.store.OpenOnlineGames(ctx, time.Time{})
	if err != nil {
		return err
	}
	for _, id := range ids {
		s.flag(id)
	}
	s.expireIdle(ctx)
	s.done = make(chan struct{})
	if s.notifier != nil {
		go func() {
			if err := s.notifier.Listen(ctx, s.startNoticeWorkers(ctx)); err != nil {
				s.log.Error("listening to the other instances", "err", err)
			}
		}()
	}
	go s.background(ctx)
	return nil
}

func (s *Server) background(ctx context.Context) {
	defer close(s.done)
	if s.notifier != nil {
		synced := make(chan struct{})
		go func() {
			defer close(synced)
			s.syncLoop(ctx)
		}()
		defer func() { <-synced }()
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	sweep := time.NewTicker(time.Hour)
	defer sweep.Stop()
	// With other instances: tell them who is connected here, and check
	// the clocks of every open game, whichever instance started them.
	shared := time.NewTicker(presenceRefresh)
	defer shared.Stop()
	if s.notifier == nil {
		shared.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			s.clocks.stopAll()
			// The last heartbeat: the outage is counted from here.
			if err := s.store.SetAlive(context.WithoutCancel(ctx), time.Now()); err != nil {
				s.log.Warn("recording the last heartbeat", "err", err)
			}
			return
		case <-beat.C:
			if err := s.store.SetAlive(ctx, time.Now()); err != nil && ctx.Err() == nil {
				s.log.Warn("recording the heartbeat", "err", err)
			}
		case <-sweep.C:
			s.expireIdle(ctx)
		case <-shared.C:
			s.tellPresence()
			s.checkClocks(ctx)
		}
	}
}

// checkClocks flags the open games whose clock has fallen and that no
// timer of this instance watches: their last change was made by an
// instance that is gone.
func (s *Server) checkClocks(ctx context.Context) {
	ids, err := s.store.OpenOnlineGames(ctx, time.Time{})
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
	now := time.Now()
	ids, err := s.store.OpenOnlineGames(ctx, now.Add(-IdleExpiry))
	if err != nil {
		s.log.Warn("listing idle games", "err", err)
		return
	}
	for _, id := range ids {
		func() {
			defer s.games.lock(id)()
			l, err := s.load(ctx, id)
			if err == nil {
				err = s.expire(ctx, l, now)
			}
			if err != nil {
				s.log.Warn("expiring an idle game", "game", id, "err", err)
			}
		}()
	}
}

// Close waits for the work Start began to finish once its context has
// ended, after stopping the reviews under way (review.go): a review is
// made again on request. Started or not, no review starts afterwards.
func (s *Server) Close() {
	s.reviews.wait()
	if s.done != nil {
		<-s.done
	}
}
