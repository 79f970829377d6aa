package server

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Several instances of the server may share one PostgreSQL database
// behind a load balancer, the two players of a game connected to
// different ones. Each instance announces every change it commits (a
// notice through the database: store.Notifier); the others load the game
// and tell their own live clients, and keep a timer for its clock, so
// that a flag falls even if the instance that started the clock is gone.
// No instance holds state that matters: the database is the judge, and
// its guards (the move count and the revision) settle races between
// instances.

// notice is what an instance tells the others of a change of a game
// (bus.Notice).
type notice = bus.Notice

// remotePresence is another instance's presence in a game, as it told.
type remotePresence struct {
	seats    [2]int
	watchers int
	at       time.Time
}

// remoteStale is how long another instance's presence counts without
// being told again; instances tell theirs every presenceRefresh.
const (
	presenceRefresh = 20 * time.Second
	remoteStale     = 3 * presenceRefresh
)

// noticeOf returns the notice that a change of a game sends to the other
// instances (play.Table's notice).
func (s *Server) noticeOf(c play.Notice) string {
	n := notice{Instance: s.instance, Game: c.Game, Event: c.Event, Rev: c.Rev, Sent: noticeSent(), Move: c.Move, Ply: c.Ply}
	if !c.Deadline.IsZero() {
		n.Deadline = c.Deadline.UnixMilli()
	}
	if !c.At.IsZero() {
		n.At = c.At.UnixMilli()
	}
	if n.Position = liveKey(c.Board); n.Position != "" && c.Board.Rules().Laps() != rules.DefaultMaxLaps {
		n.Laps = c.Board.Rules().Laps()
	}
	data, _ := json.Marshal(n) // plain data: it always marshals
	return string(data)
}

// notify tells the other instances of n, a notice of no change (presence).
func (s *Server) notify(n notice) {
	n.Instance, n.Sent = s.instance, noticeSent()
	data, _ := json.Marshal(n) // plain data: it always marshals
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	if err := s.bus.Notify(ctx, string(data)); err != nil {
		s.log.Warn("telling the other instances of a change", "game", n.Game, "err", err)
	}
}

// noticeWorkers handle the notices of different games at once; the
// notices of one game go to one worker, in order.
const noticeWorkers = 8

// startNoticeWorkers returns the function that hands a notice to its
// game's worker; the workers end with ctx.
func (s *Server) startNoticeWorkers(ctx context.Context) func(string) {
	workers := bus.StartWorkers(ctx, noticeWorkers, 1024, s.handleNotice)
	return func(payload string) {
		if payload == "" {
			// Notices may have been missed: forget the games kept, and
			// send every client here its game as it is now.
			s.table.ForgetAll()
			for _, id := range s.live.watched() {
				s.relay(id, "", false)
			}
			// Read the database: not on the listener's goroutine.
			go s.lobbyResync()
			go s.recheckAll(ctx)
			return
		}
		if strings.HasPrefix(payload, lobbyNoticePrefix) {
			s.handleLobbyNotice(payload[len(lobbyNoticePrefix):])
			return
		}
		if strings.HasPrefix(payload, heardPrefix) {
			s.heard(payload)
			return
		}
		if rv, ok := account.ParseRevocation(payload); ok {
			go s.revokedElsewhere(rv)
			return
		}
		var n notice
		if err := json.Unmarshal([]byte(payload), &n); err != nil || n.Instance == s.instance || !store.ValidID(n.Game) {
			return
		}
		workers.Hand(n)
	}
}

// handleNotice acts on another instance's notice: its clock, its
// presence, and the news for this instance's clients of the game.
func (s *Server) handleNotice(n notice) {
	now := time.Now()
	s.metrics.noticeHeard(n.Sent, now)
	if n.Event == "presence" {
		if !s.live.setRemote(n.Game, n.Instance, n.Seats, n.Watchers, now) {
			return // a reminder: nothing the clients see has changed
		}
	} else {
		// The game as kept here catches up: a move is played on it, any
		// other change makes the next use read it.
		heard := play.Notice{Game: n.Game, Event: n.Event, Rev: n.Rev, Move: n.Move, Ply: n.Ply}
		if n.At > 0 {
			heard.At = time.UnixMilli(n.At).UTC()
		}
		s.table.Heard(heard)
		// The instance that made the change flags its clock when it
		// falls; this one only if that one has not within flagGrace.
		var at time.Time
		if n.Deadline > 0 {
			at = time.UnixMilli(n.Deadline).Add(flagGrace)
		}
		s.clocks.at(s, n.Game, at, n.Rev)
		s.positions.set(n.Game, n.Position, n.Laps, n.Rev)
	}
	if s.live.has(n.Game) {
		// A notice past the next revision means some were missed; the
		// game as loaded now has them all.
		s.relay(n.Game, n.Event, n.Event == "move")
	}
}

// relay sends this instance's clients of game id the game as it is now,
// with how its last move sowed when the event is a move. A change they
// have had already is not sent again; with no event (a resync), the game's
// clock is watched again too.
func (s *Server) relay(id, event string, withSowing bool) {
	ctx, cancel := context.WithTimeout(s.ctx, backgroundTimeout)
	defer cancel()
	err := s.table.With(ctx, id, func(g *play.Game) error {
		if event == "" {
			s.clocks.watch(s, g, flagGrace) // another instance made its last change
		}
		rev, moves := s.live.sent(id)
		o := g.Online()
		if o != nil && event != "presence" && o.Rev <= rev {
			return nil
		}
		// A resync or a presence change that catches up on one change, a
		// move, tells it as the move it is, with its sowing: the clients
		// animate it as they would have from its notice, which came late
		// or not at all (the presence, read after the move was stored,
		// carries the move, and its notice then finds it sent).
		if (event == "" || event == "presence") && o != nil && rev > 0 && o.Rev == rev+1 && g.Board().Ply() == moves+1 {
			event, withSowing = "move", true
		}
		if event == "presence" && o != nil && o.Rev == rev && s.live.allDeltas(id) {
			// Nothing has changed but who is connected.
			s.tellWhoIsHere(id, rev)
			return nil
		}
		st, err := s.table.State(ctx, g)
		if err != nil {
			return nil
		}
		var sw *rules.Sowing
		if withSowing {
			sw = g.LastSowing()
		}
		s.tellChange(&st, event, sw)
		return nil
	})
	if err != nil {
		s.log.Warn("relaying a change", "game", id, "err", err)
	}
}

// syncEvery is how often an instance with other instances checks that its
// live clients have every change of their games, whatever became of the
// notices: a listening connection that went silent, one lost and found
// again, a change made without a notice.
const syncEvery = time.Second

// syncLoop checks every syncEvery until ctx ends.
func (s *Server) syncLoop(ctx context.Context) {
	t := time.NewTicker(syncEvery)
	defer t.Stop()
	behind := map[string]int64{}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.syncRevisions(ctx, behind)
		}
	}
}

// syncRevisions reads the revisions of the games this instance serves, in
// one query, and resyncs those whose clients are still behind the
// revision the check before found: a change's notice, on its way, has one
// check's time to arrive and be relayed with the move's sowing. behind
// keeps, from one check to the next, the revisions the clients lacked.
func (s *Server) syncRevisions(ctx context.Context, behind map[string]int64) {
	ids := s.live.watched()
	if len(ids) == 0 {
		clear(behind)
		return
	}
	qctx, cancel := context.WithTimeout(ctx, syncEvery)
	revs, err := s.notifier.Revisions(qctx, ids)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("checking the revisions of the games served", "games", len(ids), "err", err)
		}
		return
	}
	was := maps.Clone(behind)
	clear(behind)
	for id, rev := range revs {
		have := s.live.rev(id)
		if rev <= have {
			continue
		}
		if lacked, ok := was[id]; ok && have < lacked && ctx.Err() == nil {
			s.table.Forget(id) // changed elsewhere, its notice missed
			s.relay(id, "", false)
			continue
		}
		behind[id] = rev
	}
}

// tellPresence tells the other instances this one's presence in every
// game it serves, and forgets what they stopped telling.
func (s *Server) tellPresence() {
	for _, id := range s.live.watched() {
		seats, watchers := s.live.localPresence(id)
		s.notify(notice{Game: id, Event: "presence", Seats: seats, Watchers: watchers})
	}
	s.live.forgetStale(time.Now())
}
