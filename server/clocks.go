package server

import (
	"context"
	"sync"
	"time"
)

// Heartbeat is how often the server records that it is alive, so that
// after a restart it gives the running clocks back the time it was away.
const Heartbeat = 5 * time.Second

// clockWatch keeps a timer for each online game whose clock runs, so that
// a flag falls on time whether or not anyone is connected.
type clockWatch struct {
	mu     sync.Mutex
	timers map[string]*time.Timer
}

// watch (re)schedules the timer of game l after a change; the caller
// holds the game's lock.
func (cw *clockWatch) watch(s *Server, l *loaded) {
	id, at := l.stored.ID, deadline(l)
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
	if ok && now.Sub(alive) > time.Second {
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
	go s.background(ctx)
	return nil
}

func (s *Server) background(ctx context.Context) {
	defer close(s.done)
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	sweep := time.NewTicker(time.Hour)
	defer sweep.Stop()
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
// ended. It does nothing for a server that was not started.
func (s *Server) Close() {
	if s.done != nil {
		<-s.done
	}
}
