package server

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Limits of a live connection.
const (
	MaxLiveMessage = 4 << 10 // bytes of a message from a client
	liveRate       = 20      // messages a second a client may send,
	liveBurst      = 40      // in bursts of this many
	liveQueue      = 32      // messages waiting to be sent to a slow client before it is dropped
	livePing       = 30 * time.Second
	liveWrite      = 10 * time.Second
)

// liveHub keeps the live connections of every game watched now, to send
// them each change of their game.
type liveHub struct {
	mu    sync.Mutex
	rooms map[string]*room
	// remote is the presence other instances told, by game and instance.
	remote map[string]map[string]remotePresence
	// presence announcements waiting, by game: arrivals and departures
	// within presenceDelay are told in one message.
	pending map[string]bool
}

// presenceDelay gathers the arrivals and departures of a moment into one
// message to the game's clients.
const presenceDelay = 250 * time.Millisecond

type room struct {
	conns map[*liveConn]struct{}
	seats [2]int // connections identified as each seat
	fresh int    // connections not yet counted: they may still say which seat they hold
	// rev is the revision of the online game last sent to all the
	// connections: a change past it has not reached them; moves is the
	// number of its moves then.
	rev   int64
	moves int
}

type liveConn struct {
	send   chan []byte
	seat   int // 0 South, 1 North, -1 a spectator
	closed chan struct{}
	once   sync.Once
	// fresh: just opened, counted neither as a seat nor as watching until
	// it says which seat it holds or presenceDelay passes: a player's
	// page reconnecting is not shown as a spectator meanwhile.
	fresh bool
	// end says why it was dropped (goAway, a revocation).
	end endCause
	// account is the account the connection's request came from, whose
	// seats it may act on without a token (identity.go); "" for none.
	// signed is what proved it, nil for none (revoke.go).
	account string
	signed  *signedConn
	// deltas: the client speaks the live protocol's version 2 or later
	// (api.LiveProtocol), told of a move by a move message; one that does
	// not say so, a page of before, is sent the whole game each time.
	deltas bool
}

// drop closes the connection's queue: its writer ends the connection, and
// the client reconnects and resyncs.
func (c *liveConn) drop() { c.once.Do(func() { close(c.closed) }) }

func (h *liveHub) join(id string, c *liveConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil {
		r = &room{conns: map[*liveConn]struct{}{}}
		h.rooms[id] = r
	}
	r.conns[c] = struct{}{}
	c.fresh = true
	r.fresh++
}

// started notes the revision of game v that a room's first connection was
// sent, and the number of its moves; later ones do not vouch for those
// before them.
func (h *liveHub) started(id string, v *gameView) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[id]; r != nil && r.rev == 0 && v.Online != nil {
		r.rev, r.moves = v.Online.Rev, len(v.Moves)
	}
}

// settle counts c as watching if it has not said which seat it holds; it
// reports whether that changed what the game's clients see.
func (h *liveHub) settle(id string, c *liveConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil || !c.fresh {
		return false
	}
	c.fresh = false
	r.fresh--
	return true
}

func (h *liveHub) leave(id string, c *liveConn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil {
		return
	}
	delete(r.conns, c)
	if c.seat >= 0 {
		r.seats[c.seat]--
	}
	if c.fresh {
		c.fresh = false
		r.fresh--
	}
	if len(r.conns) == 0 {
		delete(h.rooms, id)
	}
}

// identify marks c as a connection of seat side; it reports whether the
// seat was not connected before.
func (h *liveHub) identify(id string, c *liveConn, side rules.Side) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil || c.seat == int(side) {
		return false
	}
	if c.fresh {
		c.fresh = false
		r.fresh--
	}
	if c.seat >= 0 {
		r.seats[c.seat]--
	}
	c.seat = int(side)
	r.seats[side]++
	return r.seats[side] == 1
}

// forget counts c as a spectator's connection from now on; it reports
// whether that changed what the game's clients see.
func (h *liveHub) forget(id string, c *liveConn) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	r := h.rooms[id]
	if r == nil || c.seat < 0 && !c.fresh {
		return false
	}
	if c.fresh {
		c.fresh = false
		r.fresh--
	}
	if c.seat >= 0 {
		r.seats[c.seat]--
		c.seat = -1
	}
	return true
}

// presence says which seats are connected and how many others watch, on
// this instance and, as they last told, on the others.
func (h *liveHub) presence(id string) (api.SideFlags, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	seats, watchers := h.local(id)
	for _, rp := range h.remote[id] {
		seats[0] += rp.seats[0]
		seats[1] += rp.seats[1]
		watchers += rp.watchers
	}
	return api.SideFlags{South: seats[0] > 0, North: seats[1] > 0}, watchers
}

// local counts this instance's connections to game id, by seat and
// watching; the caller holds h.mu.
func (h *liveHub) local(id string) (seats [2]int, watchers int) {
	r := h.rooms[id]
	if r == nil {
		return seats, 0
	}
	return r.seats, len(r.conns) - r.seats[0] - r.seats[1] - r.fresh
}

// localPresence counts this instance's connections to game id.
func (h *liveHub) localPresence(id string) ([2]int, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.local(id)
}

// setRemote records another instance's presence in game id; it reports
// whether that changed what the game's clients see.
func (h *liveHub) setRemote(id, instance string, seats [2]int, watchers int, now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.remote[id]
	old, had := m[instance]
	if seats == [2]int{} && watchers == 0 {
		delete(m, instance)
		if len(m) == 0 {
			delete(h.remote, id)
		}
		return had
	}
	if m == nil {
		m = map[string]remotePresence{}
		h.remote[id] = m
	}
	m[instance] = remotePresence{seats, watchers, now}
	return !had || old.seats != seats || old.watchers != watchers
}

// forgetStale drops the presence of instances that stopped telling it.
func (h *liveHub) forgetStale(now time.Time) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, m := range h.remote {
		for instance, rp := range m {
			if now.Sub(rp.at) > remoteStale {
				delete(m, instance)
			}
		}
		if len(m) == 0 {
			delete(h.remote, id)
		}
	}
}

// watched returns the games this instance has live connections to.
func (h *liveHub) watched() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, 0, len(h.rooms))
	for id := range h.rooms {
		ids = append(ids, id)
	}
	return ids
}

// has reports whether game id has live connections here.
func (h *liveHub) has(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.rooms[id] != nil
}

// speaksDeltas reports whether live request r says, by its v parameter,
// that its client speaks version 2 of the live protocol or a later one.
func speaksDeltas(r *http.Request) bool {
	v, err := strconv.Atoi(r.URL.Query().Get("v"))
	return err == nil && v >= 2
}

// liveMessage is a message of the server to a live client: the game, or
// an error. A move, or who is connected, is told in a message of its own
// (api.MoveMessage, api.PresenceMessage).
type liveMessage struct {
	Type string `json:"type"`
	// V is the protocol's version (api.LiveProtocol), with a game.
	V      int              `json:"v,omitempty"`
	Game   *gameView        `json:"game,omitempty"`
	Event  string           `json:"event,omitempty"`
	Sowing *gameview.Sowing `json:"sowing,omitempty"`
	Status int              `json:"status,omitempty"`
	Error  string           `json:"error,omitempty"`
	Ref    any              `json:"ref,omitempty"`
	// wire is the message as it came, for a test's record of it.
	wire []byte
}

func marshal(m liveMessage) []byte {
	b, _ := json.Marshal(m) // plain data: it always marshals
	return b
}

// rev returns the revision of online game id last sent to all its
// connections here.
func (h *liveHub) rev(id string) int64 {
	rev, _ := h.sent(id)
	return rev
}

// sent returns the revision of online game id last sent to all its
// connections here, and the number of its moves then.
func (h *liveHub) sent(id string) (rev int64, moves int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if r := h.rooms[id]; r != nil {
		return r.rev, r.moves
	}
	return 0, 0
}

// presenceChanged announces, shortly, who is connected to game id now.
func (s *Server) presenceChanged(id string) {
	h := &s.live
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pending[id] {
		return
	}
	h.pending[id] = true
	time.AfterFunc(presenceDelay, func() {
		h.mu.Lock()
		delete(h.pending, id)
		h.mu.Unlock()
		s.publishPresence(s.ctx, id)
	})
}

// publishPresence sends the game's state after a connection came or went,
// and tells the other instances this one's connections to it. The state is
// sent as relay sends another instance's presence: read after a change
// another instance made and before that change's notice was handled, it
// carries the change, which the notice then finds sent, so a move caught
// up on is told as the move, with its sowing.
func (s *Server) publishPresence(ctx context.Context, id string) {
	if ctx.Err() != nil {
		return
	}
	if s.notifier != nil {
		seats, watchers := s.live.localPresence(id)
		s.notify(notice{Game: id, Event: "presence", Seats: seats, Watchers: watchers})
	}
	if !s.live.has(id) {
		return // nobody here to tell
	}
	s.relay(id, "presence", false)
}

// clientMessage is a message of a live client.
type clientMessage struct {
	Type   string `json:"type"`
	Token  string `json:"token"`
	Move   string `json:"move"`
	Action string `json:"action"`
	Ply    *int   `json:"ply"`
}

// liveGame answers GET /api/games/{id}/live: a WebSocket that sends every
// change of the game and takes the moves and actions of its seats. Once
// upgraded, it returns the connection's life (serveLiveGame), which runs
// after the request is let go (liveHandler).
func (s *Server) liveGame(w http.ResponseWriter, r *http.Request) (serve func()) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		s.fail(w, r, errorf(http.StatusNotFound, "no game %q", clip(id)))
		return nil
	}
	c := &liveConn{send: make(chan []byte, liveQueue), seat: -1, closed: make(chan struct{}), deltas: speaksDeltas(r)}
	gen := s.signed.generation()
	if sc, err := s.liveSigner(r); err == nil && sc != nil {
		// Anything else watches as anyone does.
		c.account, c.signed = sc.account, sc
		sc.drop = func(e ending) { c.end.set(e); c.drop() }
	}
	// Every change is told under its game's lock: holding it, the
	// connection joins and gets the game as it is, so its first message
	// is that state and no change falls between it and the next. The game
	// is read once, before the upgrade, so that an unknown one is a 404.
	// The request's own time limit does not bound a WebSocket's: this
	// does, till the upgrade.
	sctx, setupDone := context.WithTimeout(r.Context(), backgroundTimeout)
	defer setupDone()
	leave, err := s.setups.enter(sctx)
	if err != nil {
		s.fail(w, r, err)
		return nil
	}
	err = s.table.With(sctx, id, func(g *play.Game) error {
		v, err := s.view(sctx, g)
		if err != nil {
			return err
		}
		s.live.join(id, c)
		c.send <- marshal(liveMessage{Type: "game", V: api.LiveProtocol, Game: &v})
		s.live.started(id, &v)
		return nil
	})
	leave()
	if err != nil {
		s.fail(w, r, err)
		return nil
	}
	ws, ctx, cancel, err := s.acceptLive(w, r)
	if err != nil {
		s.live.leave(id, c)
		return nil // Accept has answered
	}
	return func() { s.serveLiveGame(ctx, cancel, ws, c, id, gen) }
}

// serveLiveGame is the life of game id's live connection c, once
// upgraded: it reads the client's messages, while writeLive sends c's
// queue, until the connection ends. gen is the sign-in generation read
// before c's sign-in was (watchSignIn).
func (s *Server) serveLiveGame(ctx context.Context, cancel context.CancelFunc, ws *websocket.Conn, c *liveConn, id string, gen uint64) {
	defer cancel()
	defer s.watchSignIn(ctx, c.signed, gen)()
	// A fresh connection changes no presence yet (liveConn.fresh): it is
	// announced once it says its seat, or is counted as watching.
	counted := time.AfterFunc(presenceDelay, func() {
		if s.live.settle(id, c) {
			s.presenceChanged(id)
		}
	})
	defer func() {
		counted.Stop()
		s.live.leave(id, c)
		s.presenceChanged(id)
	}()
	go writeLive(ctx, cancel, ws, c.send, c.closed, &c.end)
	s.liveReader(ctx, ws, c, id)
	cancel()
	ws.CloseNow()
}

// liveReader reads the client's messages until the connection ends.
func (s *Server) liveReader(ctx context.Context, ws *websocket.Conn, c *liveConn, id string) {
	var token string
	readLive(ws, func(data []byte) {
		var m clientMessage
		if err := api.Decode(data, &m, false); err != nil {
			c.reply(liveMessage{Type: "error", Status: http.StatusBadRequest, Error: err.Error()})
			return
		}
		if m.Type == "hello" {
			token = m.Token
		}
		if err := s.liveAction(ctx, c, id, token, &m); err != nil {
			// A connection is a seat's only while its latest hello holds:
			// after a failed one it may not act, so it no longer counts
			// as connected for that seat.
			if m.Type == "hello" && s.live.forget(id, c) {
				s.presenceChanged(id)
			}
			p := s.problemOf(err, "game", id, "type", m.Type)
			ref := map[string]any{"type": m.Type}
			if m.Move != "" {
				ref["move"] = clip(m.Move)
			}
			if m.Action != "" {
				ref["action"] = clip(m.Action)
			}
			if m.Ply != nil {
				ref["ply"] = *m.Ply
			}
			c.reply(liveMessage{Type: "error", Status: p.status, Error: p.msg, Ref: ref})
		}
	})
}

// reply queues a message for this connection alone.
func (c *liveConn) reply(m liveMessage) {
	select {
	case c.send <- marshal(m):
	default:
		c.drop()
	}
}

// liveAction carries out a client's message as the seat its token holds.
func (s *Server) liveAction(ctx context.Context, c *liveConn, id, token string, m *clientMessage) error {
	switch m.Type {
	case "hello", "move", "action":
	case "ping":
		return nil
	case "sync":
	default:
		return errorf(http.StatusBadRequest, "message type %q: want hello, move, action or sync", clip(m.Type))
	}
	if c.signed != nil && c.signed.revoked.Load() {
		return errorf(http.StatusUnauthorized, "signed out: this connection acts no more")
	}
	ctx, cancel := context.WithTimeout(ctx, backgroundTimeout)
	defer cancel()
	if m.Type == "sync" {
		// The client missed a change: the game again, to it alone.
		return s.table.With(ctx, id, func(g *play.Game) error {
			v, err := s.view(ctx, g)
			if err == nil {
				c.reply(liveMessage{Type: "game", V: api.LiveProtocol, Game: &v})
			}
			return err
		})
	}
	if m.Type == "hello" {
		leave, err := s.setups.enter(ctx)
		if err != nil {
			return err
		}
		defer leave()
	}
	return s.table.With(ctx, id, func(g *play.Game) error {
		if g.Online() == nil {
			return errorf(http.StatusConflict, "this game is played on one device: watch it only")
		}
		seat, err := s.liveSeat(ctx, g, token, c)
		if err != nil {
			return err
		}
		switch m.Type {
		case "hello":
			if s.live.identify(id, c, seat.Side) {
				s.presenceChanged(id)
			}
		case "move":
			_, err = s.table.Move(ctx, g, seat, m.Move, m.Ply)
		default:
			_, err = s.table.Act(ctx, g, seat, m.Action, m.Ply)
		}
		return err
	})
}
