package lobby

import (
	"context"
	"slices"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
)

// The lobby's upkeep: who is in it, what expires, and what an account
// leaves behind; Run does it all the time.

// Touch records that the accounts given hold lobby connections now: their
// real-time seeks and places live on, and they are listed.
func (l *Lobby) Touch(ctx context.Context, accounts []string) error {
	return l.st.TouchLobby(ctx, accounts, l.now())
}

// Withdraw removes everything account id has open in the lobby (its seeks
// and pool places, correspondence ones too, and the challenges it sent and
// was sent) and tells every instance's connections: for an account signed
// out everywhere, disabled or deleted. Its challenges go as "withdrawn".
func (l *Lobby) Withdraw(ctx context.Context, id string) error {
	return l.withdraw(ctx, id, false)
}

// Forget is Withdraw for an account deleted: its blocks, both ways, go
// too.
func (l *Lobby) Forget(ctx context.Context, id string) error {
	return l.withdraw(ctx, id, true)
}

func (l *Lobby) withdraw(ctx context.Context, id string, blocks bool) error {
	var events []Event
	_, err := l.st.Withdraw(ctx, id, blocks, func(w seek.Withdrawn) string {
		events = withdrawnEvents(w)
		return l.noticeOf(events)
	})
	if err != nil {
		return err
	}
	l.tell(events)
	return nil
}

// withdrawnEvents tell what a withdrawal removed.
func withdrawnEvents(w seek.Withdrawn) []Event {
	var events []Event
	pools := false
	for _, sk := range w.Seeks {
		if sk.Pool != "" {
			pools = true
			continue
		}
		events = append(events, unseek(sk.ID))
	}
	if pools {
		events = append(events, poolsChanged)
	}
	for _, ch := range w.Challenges {
		events = append(events, challengeGone(ch.From.ID, ch.To.ID, ch.ID, GoneWithdrawn, "")...)
	}
	return events
}

// Sweep removes the real-time seeks and pool places whose owners have held
// no lobby connection for the grace, the expired challenges, and what the
// accounts no longer active (disabled or deleted by another program) have
// open, and tells the lobby.
func (l *Lobby) Sweep(ctx context.Context) {
	now := l.now()
	gone, err := l.st.ExpireSeeks(ctx, now.Add(-l.grace))
	if err != nil && ctx.Err() == nil {
		l.log.Warn("removing the seeks of players gone", "err", err)
	}
	events := withdrawnEvents(seek.Withdrawn{Seeks: gone})
	expired, err := l.st.ExpireChallenges(ctx, now)
	if err != nil && ctx.Err() == nil {
		l.log.Warn("removing expired challenges", "err", err)
	}
	for _, ch := range expired {
		events = append(events, challengeGone(ch.From.ID, ch.To.ID, ch.ID, GoneExpired, "")...)
	}
	if len(events) > 0 {
		l.tell(events)
		// One notice an event, each well within a notice's size.
		for _, e := range events {
			l.notify([]Event{e})
		}
	}
	inactive, err := l.st.InactiveInLobby(ctx)
	if err != nil && ctx.Err() == nil {
		l.log.Warn("finding the accounts gone from the lobby", "err", err)
	}
	for _, id := range inactive {
		if err := l.Withdraw(ctx, id); err != nil && ctx.Err() == nil {
			l.log.Warn("withdrawing an account gone from the lobby", "account", id, "err", err)
		}
	}
}

// notify tells the other instances of events whose change sent no notice.
func (l *Lobby) notify(events []Event) {
	if l.notifyFn != nil && len(events) > 0 {
		l.notifyFn(events)
	}
}

// listPlayers reads the players the lobby lists and, when they have
// changed, tells this instance's connections.
func (l *Lobby) listPlayers(ctx context.Context) {
	list, err := l.Players(ctx)
	if err != nil {
		if ctx.Err() == nil {
			l.log.Warn("listing the lobby's players", "err", err)
		}
		return
	}
	l.mu.Lock()
	same := slices.Equal(list, l.players)
	l.players = list
	l.mu.Unlock()
	if !same {
		l.tell([]Event{{Kind: "players", Players: list}})
	}
}

// Run does the lobby's work until ctx ends: it records who holds lobby
// connections here, pairs the pools in waves (at once when Kick asks),
// lists the players, and sweeps.
func (l *Lobby) Run(ctx context.Context) {
	tick := time.NewTicker(Tick)
	defer tick.Stop()
	var touched, swept, forgot time.Time
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		case <-l.kick:
		}
		now := l.now()
		if now.Sub(touched) >= l.grace/3 && l.here != nil {
			touched = now
			if err := l.Touch(ctx, l.here()); err != nil && ctx.Err() == nil {
				l.log.Warn("recording the lobby's connections", "err", err)
			}
		}
		if now.Sub(swept) >= sweep {
			swept = now
			l.Sweep(ctx)
		}
		if now.Sub(forgot) >= forgetAfter {
			forgot = now
			if err := l.st.ForgetPresence(ctx, now.Add(-forgetAfter)); err != nil && ctx.Err() == nil {
				l.log.Warn("forgetting who was in the lobby", "err", err)
			}
		}
		l.Match(ctx)
		l.listPlayers(ctx)
	}
}
