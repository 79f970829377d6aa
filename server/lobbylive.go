package server

// The lobby's live connection (GET /api/lobby/live): the connections of
// this instance, and the carrying of the lobby's events (package lobby) to
// them and, as notices, to the other instances' connections.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/store"
)

// lobbyNoticePrefix begins a notice of the lobby, told apart from the
// notices of games (fanout.go).
const lobbyNoticePrefix = "L"

// poolsDelay gathers the pool changes of a moment into one message.
const poolsDelay = 200 * time.Millisecond

// lobbyHub keeps this instance's lobby connections.
type lobbyHub struct {
	mu      sync.Mutex
	conns   map[*lobbyConn]struct{}
	pending bool            // a pools message is due
	players []lobby.Present // the players listed, as last told
	wg      sync.WaitGroup  // the lobby's work (lobby.Lobby.Run)
}

type lobbyConn struct {
	account string      // "" for a visitor not signed in
	signed  *signedConn // what proved account (revoke.go)
	// view is what the connection hears of the lobby's events; used
	// under the hub's lock.
	view   lobby.Listener
	send   chan []byte
	closed chan struct{}
	once   sync.Once
	end    endCause
}

// hears reports whether c hears account id's own messages: c is id's,
// and its sign-in was not revoked.
func (c *lobbyConn) hears(id string) bool {
	return c.account != "" && c.account == id && (c.signed == nil || !c.signed.revoked.Load())
}

func (c *lobbyConn) drop() { c.once.Do(func() { close(c.closed) }) }

func (c *lobbyConn) queue(msg []byte) {
	select {
	case c.send <- msg:
	default:
		c.drop() // too slow: it reconnects and gets the lobby anew
	}
}

// lobbyAccounts returns the accounts with lobby connections here.
func (s *Server) lobbyAccounts() []string {
	h := &s.lobbyHub
	h.mu.Lock()
	defer h.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for c := range h.conns {
		if c.hears(c.account) && !seen[c.account] {
			seen[c.account] = true
			out = append(out, c.account)
		}
	}
	return out
}

// newLobby makes the server's lobby over its store, its events carried
// to the connections here and, through notices, to the other instances.
func (s *Server) newLobby() *lobby.Lobby {
	s.lobbyHub.conns = map[*lobbyConn]struct{}{}
	return lobby.New(lobby.Config{Store: s.store, Notice: s.lobbyNoticeText, Deliver: s.lobbyDeliver, Notify: s.lobbyNotify,
		Here: s.lobbyAccounts, Log: s.log})
}

// lobbyNotice is what an instance tells the others of a change of the
// lobby.
type lobbyNotice struct {
	Instance string        `json:"i"`
	Events   []lobby.Event `json:"e"`
}

// lobbyNoticeText is the notice of events for the other instances, sent
// by the change's own transaction; "" without other instances.
func (s *Server) lobbyNoticeText(events []lobby.Event) string {
	if s.notifier == nil {
		return ""
	}
	text := lobbyNoticePrefix + string(lobby.Message(lobbyNotice{Instance: s.instance, Events: events}))
	if len(text) > store.MaxNotice {
		// Too long to carry (a seek's view is far shorter): the other
		// instances catch up at their clients' next connection.
		s.log.Warn("a lobby notice too long to send", "bytes", len(text))
		return ""
	}
	return text
}

// lobbyNotify tells the other instances of events, for a change whose
// transaction did not.
func (s *Server) lobbyNotify(events []lobby.Event) {
	text := s.lobbyNoticeText(events)
	if text == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	if err := s.bus.Notify(ctx, text); err != nil {
		s.log.Warn("telling the other instances of the lobby", "err", err)
	}
}

// handleLobbyNotice delivers another instance's lobby notice here.
func (s *Server) handleLobbyNotice(payload string) {
	var n lobbyNotice
	if err := json.Unmarshal([]byte(payload), &n); err != nil || n.Instance == s.instance {
		return
	}
	s.lobbyDeliver(n.Events)
}

// lobbyDeliver sends events to this instance's lobby connections, each
// as its connection hears it (lobby.Listener).
func (s *Server) lobbyDeliver(events []lobby.Event) {
	h := &s.lobbyHub
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, e := range events {
		if e.Kind == "pools" {
			s.poolsChangedLocked()
			continue
		}
		for c := range h.conns {
			if msg := c.view.Hear(e, h.players); msg != nil {
				c.queue(msg)
			}
		}
		if e.Kind == "players" {
			h.players = e.Players
		}
	}
}

// poolsChangedLocked sends, shortly, every connection here the pools as
// its account sees them; the caller holds the hub's lock.
func (s *Server) poolsChangedLocked() {
	h := &s.lobbyHub
	if h.pending || len(h.conns) == 0 {
		return
	}
	h.pending = true
	time.AfterFunc(poolsDelay, func() {
		h.mu.Lock()
		h.pending = false
		h.mu.Unlock()
		s.sendPools(s.ctx)
	})
}

// sendPools sends every lobby connection here the pools as its account
// sees them.
func (s *Server) sendPools(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	pools, err := s.lobby.PoolsFor(ctx)
	if err != nil {
		s.log.Warn("reading the pools", "err", err)
		return
	}
	h := &s.lobbyHub
	h.mu.Lock()
	defer h.mu.Unlock()
	byAccount := map[string][]byte{}
	for c := range h.conns {
		msg, ok := byAccount[c.account]
		if !ok {
			msg = lobby.Message(map[string]any{"type": "pools", "pools": pools(c.account)})
			byAccount[c.account] = msg
		}
		c.queue(msg)
	}
}

// lobbyResync sends every lobby connection here the whole lobby again,
// after notices may have been missed.
func (s *Server) lobbyResync() {
	h := &s.lobbyHub
	h.mu.Lock()
	conns := make([]*lobbyConn, 0, len(h.conns))
	for c := range h.conns {
		conns = append(conns, c)
	}
	h.mu.Unlock()
	for _, c := range conns {
		msg, hidden, err := s.lobby.Welcome(s.ctx, c.account)
		if err != nil {
			c.drop() // it reconnects and gets the lobby then
			continue
		}
		h.mu.Lock()
		c.view.Hide(hidden)
		h.mu.Unlock()
		c.queue(msg)
	}
}

// lobbyLive answers GET /api/lobby/live: the lobby, then each change of
// it, as a WebSocket. Anyone may watch; a signed-in browser or a bot also
// hears of its challenges and pairings, and keeps its real-time seeks and
// pool places while connected.
func (s *Server) lobbyLive(w http.ResponseWriter, r *http.Request) (serve func()) {
	me := ""
	gen := s.signed.generation()
	signed, err := s.liveSigner(r)
	switch {
	case err == nil && signed != nil:
		me = signed.account
	case err == nil, errors.Is(err, account.ErrNoSession) && !account.IsBotToken(bearer(r)):
		// A stale session's browser watches as anyone does.
	default:
		s.fail(w, r, err)
		return nil
	}
	c := &lobbyConn{account: me, signed: signed, send: make(chan []byte, liveQueue), closed: make(chan struct{})}
	c.view = lobby.Listener{Account: me, Hears: c.hears}
	if signed != nil {
		signed.drop = func(e ending) { c.end.set(e); c.drop() }
	}
	// The connection joins before the lobby is read: a change meanwhile
	// may come twice, never not at all.
	h := &s.lobbyHub
	h.mu.Lock()
	h.conns[c] = struct{}{}
	h.mu.Unlock()
	left := func() {
		h.mu.Lock()
		delete(h.conns, c)
		h.mu.Unlock()
	}
	if me != "" {
		// Its seeks are seen now, not at the next tick: a page that
		// reloads near the grace's end keeps them.
		if err := s.lobby.Touch(r.Context(), []string{me}); err != nil {
			s.log.Warn("recording a lobby connection", "err", err)
		}
	}
	first, hidden, err := s.lobby.Welcome(r.Context(), me)
	if err != nil {
		left()
		s.fail(w, r, err)
		return nil
	}
	h.mu.Lock()
	c.view.Hide(hidden)
	h.mu.Unlock()
	ws, ctx, cancel, err := s.acceptLive(w, r)
	if err != nil {
		left()
		return nil // Accept has answered
	}
	return func() {
		defer left()
		s.serveLobbyLive(ctx, cancel, ws, c, first, gen)
	}
}

// serveLobbyLive is the life of lobby connection c, once upgraded: it sends
// first, then c's queue (writeLive), and reads the client's pings, until
// the connection ends. gen is the sign-in generation read before c's
// sign-in was (watchSignIn).
func (s *Server) serveLobbyLive(ctx context.Context, cancel context.CancelFunc, ws *websocket.Conn, c *lobbyConn, first []byte, gen uint64) {
	defer cancel()
	defer s.watchSignIn(ctx, c.signed, gen)()
	// The first message goes before any queued change.
	wctx, done := context.WithTimeout(ctx, liveWrite)
	err := ws.Write(wctx, websocket.MessageText, first)
	done()
	if err != nil {
		ws.CloseNow()
		return
	}
	go writeLive(ctx, cancel, ws, c.send, c.closed, &c.end)
	s.lobbyReader(ws, c)
	cancel()
	ws.CloseNow()
}

// lobbyReader reads the client's messages, which only keep the connection
// alive ({"type":"ping"}), until the connection ends.
func (s *Server) lobbyReader(ws *websocket.Conn, c *lobbyConn) {
	readLive(ws, func(data []byte) {
		var m struct {
			Type string `json:"type"`
		}
		if err := api.Decode(data, &m, false); err != nil {
			c.queue(marshal(liveMessage{Type: "error", Status: http.StatusBadRequest, Error: err.Error()}))
			return
		}
		if m.Type != "ping" {
			c.queue(marshal(liveMessage{Type: "error", Status: http.StatusBadRequest,
				Error: "the lobby's connection takes only {\"type\": \"ping\"}; act through the HTTP API"}))
		}
	})
}

// startLobby runs the lobby's work until ctx ends (lobby.Lobby.Run).
func (s *Server) startLobby(ctx context.Context) {
	s.lobbyHub.wg.Go(func() { s.lobby.Run(ctx) })
}
