package server

import (
	"context"
	"encoding/json"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
)

// What the live connections to a game here are told of its changes: a
// move as a move message to those that speak the live protocol's version
// 2, the whole game otherwise; who is connected; each connection's
// revision sent.

// changed tells the live clients of game g of change c, once stored, in
// the state the change left (the one its maker is answered), and watches
// its clock (play.Table.OnChange); the caller holds the game's lock. Other instances sharing the database have been told by the
// change's own transaction, so that a change acknowledged to its sender
// has been announced to all.
func (s *Server) changed(ctx context.Context, g *play.Game, c play.Change) {
	s.clocks.watch(s, g, 0) // this instance flags it
	// A connection joins under the game's lock: with none here now, none
	// is waiting for this change.
	if !s.live.has(g.ID()) {
		return
	}
	s.tellChange(&c.State, c.Event, c.Sowing)
}

// tellChange tells the connections to a game here of a change, which left
// it as st: a move of an online game going on as a move message, the
// same whatever the game's length; anything else, or a move that ends the
// game (its result and ratings change), as the whole game.
func (s *Server) tellChange(st *play.State, event string, sowing *rules.Sowing) {
	id := st.Info.ID
	if event == "move" && sowing != nil && st.Info.Online != nil && st.End == "" && !st.Board.Over() {
		m := api.NewMoveMessage(st, *sowing)
		m.Online.Connected, m.Online.Watchers = s.live.presence(id)
		data := m.Marshal()
		var whole []byte
		if !s.live.allDeltas(id) {
			whole = s.gameMessage(st, event, sowing)
		}
		s.live.sentUpTo(id, m.Rev, m.Ply)
		s.live.broadcastEither(id, data, whole)
		return
	}
	msg := s.gameMessage(st, event, sowing)
	if st.Info.Online != nil {
		s.live.sentUpTo(id, st.Info.Online.Rev, st.Board.Ply())
	}
	s.live.broadcast(id, msg)
}

// gameMessage is the live message of game state st, left by event.
func (s *Server) gameMessage(st *play.State, event string, sowing *rules.Sowing) []byte {
	v := s.stateView(st)
	var sw *gameview.Sowing
	if sowing != nil {
		sv := gameview.NewSowing(*sowing)
		sw = &sv
	}
	return marshal(liveMessage{Type: "game", V: api.LiveProtocol, Game: &v, Event: event, Sowing: sw})
}

// tellWhoIsHere tells the connections to game id here, which have its
// revision rev, who is connected to it now.
func (s *Server) tellWhoIsHere(id string, rev int64) {
	m := api.PresenceMessage{Type: "presence", ID: id, Rev: rev}
	m.Connected, m.Watchers = s.live.presence(id)
	data, _ := json.Marshal(m) // plain data: it always marshals
	s.live.broadcastEither(id, data, nil)
}

// sentUpTo notes that the connections to game id were sent its revision
// rev, with moves moves.
func (h *liveHub) sentUpTo(id string, rev int64, moves int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[id]; r != nil && rev >= r.rev {
		r.rev, r.moves = rev, moves
	}
}

// broadcast queues msg for every connection to game id; a connection too
// slow to take it is dropped rather than waited for.
func (h *liveHub) broadcast(id string, msg []byte) { h.broadcastEither(id, msg, msg) }

// broadcastEither queues delta for every connection to game id that
// takes deltas and whole for the others; one to be sent nothing (whole
// nil: it joined meanwhile), or too slow to take it, is dropped rather
// than waited for, to reconnect and be sent the game.
func (h *liveHub) broadcastEither(id string, delta, whole []byte) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil {
		return
	}
	for c := range r.conns {
		msg := whole
		if c.deltas {
			msg = delta
		}
		if msg == nil {
			c.drop()
			continue
		}
		select {
		case c.send <- msg:
		default:
			c.drop()
		}
	}
}

// allDeltas reports whether every connection to game id takes deltas.
func (h *liveHub) allDeltas(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil {
		return true
	}
	for c := range r.conns {
		if !c.deltas {
			return false
		}
	}
	return true
}
