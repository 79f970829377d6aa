package server

// The lobby's live connection (GET /api/lobby/live), what the lobby tells
// it, across instances, and the lobby's sweeps: the real-time seeks and
// pool places of players gone, expired challenges, and the pools'
// pairing.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/store"
)

// lobbyNoticePrefix begins a notice of the lobby, told apart from the
// notices of games (fanout.go).
const lobbyNoticePrefix = "L"

// Times of the lobby.
const (
	// LobbyGrace is how long a real-time seek or pool place outlives its
	// owner's last lobby connection (on any instance): a page reloading
	// keeps its seeks.
	LobbyGrace = 6 * time.Second
	// lobbyTick is how often an instance pairs the pools, and records
	// who holds lobby connections here.
	lobbyTick = time.Second
	// lobbySweep is how often an instance removes what has expired.
	lobbySweep = 2 * time.Second
	// poolsDelay gathers the pool changes of a moment into one message.
	poolsDelay = 200 * time.Millisecond
	// Challenges expire unanswered after challengeLife, correspondence
	// ones after correspondenceChallengeLife.
	challengeLife               = 10 * time.Minute
	correspondenceChallengeLife = 3 * 24 * time.Hour
)

// lobby keeps this instance's lobby connections.
type lobby struct {
	creations *rateLimiter // seeks, challenges and reports per client
	grace     time.Duration

	mu      sync.Mutex
	conns   map[*lobbyConn]struct{}
	pending bool // a pools message is due

	kick chan struct{} // wakes the matcher
	wg   sync.WaitGroup
}

func newLobby() *lobby {
	return &lobby{creations: newRateLimiter(Rate{PerSecond: LobbyCreationsPerHour / 3600.0, Burst: LobbyCreationsPerHour}),
		grace: LobbyGrace, conns: map[*lobbyConn]struct{}{}, kick: make(chan struct{}, 1)}
}

// kickMatcher asks for a pairing of the pools now.
func (l *lobby) kickMatcher() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

type lobbyConn struct {
	account string      // "" for a visitor not signed in
	signed  *signedConn // what proved account (revoke.go)
	send    chan []byte
	closed  chan struct{}
	once    sync.Once
	end     endCause
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

// accounts returns the accounts with lobby connections here.
func (l *lobby) accounts() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	seen := map[string]bool{}
	var out []string
	for c := range l.conns {
		if c.hears(c.account) && !seen[c.account] {
			seen[c.account] = true
			out = append(out, c.account)
		}
	}
	return out
}

// lobbyOut is one message of the lobby to its connections: Msg to those
// of account To, or to all when To is ""; a seek (Seek), shown as its
// own to the connections of its owner; or, with Pools, the pools as each
// connection's account sees them.
type lobbyOut struct {
	To    string          `json:"to,omitempty"`
	Msg   json.RawMessage `json:"m,omitempty"`
	Seek  *seekView       `json:"s,omitempty"`
	Owner string          `json:"w,omitempty"`
	Pools bool            `json:"p,omitempty"`
}

// lobbyNotice is what an instance tells the others of a change of the
// lobby.
type lobbyNotice struct {
	Instance string     `json:"i"`
	Outs     []lobbyOut `json:"o"`
}

func mustMarshal(v any) json.RawMessage {
	b, _ := json.Marshal(v) // plain data: it always marshals
	return b
}

// lobbyNoticeText is the notice of outs for the other instances, sent by
// the change's own transaction; "" without other instances.
func (s *Server) lobbyNoticeText(outs []lobbyOut) string {
	if s.notifier == nil {
		return ""
	}
	text := lobbyNoticePrefix + string(mustMarshal(lobbyNotice{Instance: s.instance, Outs: outs}))
	if len(text) > store.MaxNotice {
		// Too long to carry (a seek's view is far shorter): the other
		// instances catch up at their clients' next connection.
		s.log.Warn("a lobby notice too long to send", "bytes", len(text))
		return ""
	}
	return text
}

// lobbyNotify tells the other instances of outs, for a change whose
// transaction did not.
func (s *Server) lobbyNotify(outs []lobbyOut) {
	text := s.lobbyNoticeText(outs)
	if text == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(s.ctx), 5*time.Second)
	defer cancel()
	if err := s.notifier.Notify(ctx, text); err != nil {
		s.log.Warn("telling the other instances of the lobby", "err", err)
	}
}

// handleLobbyNotice delivers another instance's lobby notice here.
func (s *Server) handleLobbyNotice(payload string) {
	var n lobbyNotice
	if err := json.Unmarshal([]byte(payload), &n); err != nil || n.Instance == s.instance {
		return
	}
	s.lobbyDeliver(n.Outs)
}

// lobbyDeliver sends outs to this instance's lobby connections.
func (s *Server) lobbyDeliver(outs []lobbyOut) {
	l := s.lobby
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, o := range outs {
		switch {
		case o.Pools:
			s.poolsChangedLocked()
		case o.Seek != nil:
			others := mustMarshal(map[string]any{"type": "seek", "seek": o.Seek})
			mine := *o.Seek
			mine.Mine = true
			own := mustMarshal(map[string]any{"type": "seek", "seek": mine})
			for c := range l.conns {
				if c.hears(o.Owner) {
					c.queue(own)
				} else {
					c.queue(others)
				}
			}
		default:
			for c := range l.conns {
				if o.To == "" || c.hears(o.To) {
					c.queue(o.Msg)
				}
			}
		}
	}
}

// poolsChangedLocked sends, shortly, every connection here the pools as
// its account sees them; the caller holds l.mu.
func (s *Server) poolsChangedLocked() {
	l := s.lobby
	if l.pending || len(l.conns) == 0 {
		return
	}
	l.pending = true
	time.AfterFunc(poolsDelay, func() {
		l.mu.Lock()
		l.pending = false
		l.mu.Unlock()
		s.sendPools(s.ctx)
	})
}

// sendPools sends every lobby connection here the pools as its account
// sees them.
func (s *Server) sendPools(ctx context.Context) {
	if ctx.Err() != nil {
		return
	}
	all, err := s.store.Seeks(ctx)
	if err != nil {
		s.log.Warn("reading the pools", "err", err)
		return
	}
	l := s.lobby
	l.mu.Lock()
	defer l.mu.Unlock()
	byAccount := map[string][]byte{}
	for c := range l.conns {
		msg, ok := byAccount[c.account]
		if !ok {
			msg = mustMarshal(map[string]any{"type": "pools", "pools": poolViews(all, c.account)})
			byAccount[c.account] = msg
		}
		c.queue(msg)
	}
}

// lobbyResync sends every lobby connection here the whole lobby again,
// after notices may have been missed.
func (s *Server) lobbyResync() {
	l := s.lobby
	l.mu.Lock()
	conns := make([]*lobbyConn, 0, len(l.conns))
	for c := range l.conns {
		conns = append(conns, c)
	}
	l.mu.Unlock()
	ctx := s.ctx
	for _, c := range conns {
		state, err := s.lobbyState(ctx, c.account)
		if err != nil {
			c.drop() // it reconnects and gets the lobby then
			continue
		}
		state["type"] = "lobby"
		c.queue(mustMarshal(state))
	}
}

// lobbyLive answers GET /api/lobby/live: the lobby, then each change of
// it, as a WebSocket. Anyone may watch; a signed-in browser or a bot also
// hears of its challenges and pairings, and keeps its real-time seeks and
// pool places while connected.
func (s *Server) lobbyLive(w http.ResponseWriter, r *http.Request) {
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
		return
	}
	c := &lobbyConn{account: me, signed: signed, send: make(chan []byte, liveQueue), closed: make(chan struct{})}
	if signed != nil {
		signed.drop = func(e ending) { c.end.set(e); c.drop() }
	}
	// The connection joins before the lobby is read: a change meanwhile
	// may come twice, never not at all.
	l := s.lobby
	l.mu.Lock()
	l.conns[c] = struct{}{}
	l.mu.Unlock()
	defer func() {
		l.mu.Lock()
		delete(l.conns, c)
		l.mu.Unlock()
	}()
	state, err := s.lobbyState(r.Context(), me)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if me != "" {
		// Its seeks are seen now, not at the next tick: a page that
		// reloads near the grace's end keeps them.
		if err := s.store.TouchSeeks(r.Context(), []string{me}, time.Now()); err != nil {
			s.log.Warn("recording a lobby connection", "err", err)
		}
	}
	state["type"] = "lobby"
	first := mustMarshal(state)
	ws, ctx, cancel, err := s.acceptLive(w, r)
	if err != nil {
		return // Accept has answered
	}
	defer cancel()
	defer s.watchSignIn(ctx, signed, gen)()
	// The first message goes before any queued change.
	wctx, done := context.WithTimeout(ctx, liveWrite)
	err = ws.Write(wctx, websocket.MessageText, first)
	done()
	if err != nil {
		ws.CloseNow()
		return
	}
	go writeLive(ctx, cancel, ws, c.send, c.closed, &c.end)
	s.lobbyReader(ctx, ws, c)
	cancel()
	ws.CloseNow()
}

// lobbyReader reads the client's messages, which only keep the connection
// alive ({"type":"ping"}), until the connection ends.
func (s *Server) lobbyReader(ctx context.Context, ws *websocket.Conn, c *lobbyConn) {
	readLive(ctx, ws, func(data []byte) {
		var m struct {
			Type string `json:"type"`
		}
		if err := decodeBytes(data, &m); err != nil {
			c.queue(marshal(liveMessage{Type: "error", Status: http.StatusBadRequest, Error: err.Error()}))
			return
		}
		if m.Type != "ping" {
			c.queue(marshal(liveMessage{Type: "error", Status: http.StatusBadRequest,
				Error: "the lobby's connection takes only {\"type\": \"ping\"}; act through the HTTP API"}))
		}
	})
}

// startLobby runs the lobby's work until ctx ends: recording who holds
// lobby connections here, pairing the pools, and the sweeps.
func (s *Server) startLobby(ctx context.Context) {
	l := s.lobby
	l.wg.Go(func() {
		tick := time.NewTicker(lobbyTick)
		defer tick.Stop()
		var touched, swept time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			case <-l.kick:
			}
			now := time.Now()
			if now.Sub(touched) >= l.grace/3 {
				touched = now
				if err := s.store.TouchSeeks(ctx, l.accounts(), now); err != nil && ctx.Err() == nil {
					s.log.Warn("recording the lobby's connections", "err", err)
				}
			}
			if now.Sub(swept) >= lobbySweep {
				swept = now
				s.sweepLobby(ctx, now)
			}
			s.matchPools(ctx)
		}
	})
}

// sweepLobby removes the real-time seeks and pool places whose owners
// have held no lobby connection for the grace, and the expired
// challenges, and tells the lobby.
func (s *Server) sweepLobby(ctx context.Context, now time.Time) {
	gone, err := s.store.ExpireSeeks(ctx, now.Add(-s.lobby.grace))
	if err != nil && ctx.Err() == nil {
		s.log.Warn("removing the seeks of players gone", "err", err)
	}
	var outs []lobbyOut
	pools := false
	for _, sk := range gone {
		if sk.Pool != "" {
			pools = true
			continue
		}
		outs = append(outs, lobbyOut{Msg: mustMarshal(map[string]any{"type": "unseek", "id": sk.ID})})
	}
	if pools {
		outs = append(outs, lobbyOut{Pools: true})
	}
	expired, err := s.store.ExpireChallenges(ctx, now)
	if err != nil && ctx.Err() == nil {
		s.log.Warn("removing expired challenges", "err", err)
	}
	for _, ch := range expired {
		outs = append(outs, challengeGone(&ch, "expired", "")...)
	}
	if len(outs) == 0 {
		return
	}
	s.lobbyDeliver(outs)
	// One notice a message, each well within a notice's size.
	for _, o := range outs {
		s.lobbyNotify([]lobbyOut{o})
	}
}
