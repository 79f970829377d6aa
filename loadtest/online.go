package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// Online play (docs/api.md, "Online play"): each simulated game is a table
// of two clients, each with its own seat token and its own WebSocket, as
// two players on two devices. A driver goroutine per table sets up the
// games and, at the table's schedule, makes the side to move send a
// random legal move over its own connection; each client reads its own
// connection, and every game message it adopts is compared with what the
// table sent and what both clients saw before: so the run knows when each
// move reached its mover (the echo) and its opponent, and whether the
// server lost, repeated or invented one.

// Reconnection backoff: 100 ms doubling to 2 s, each wait drawn at random
// between half and all of it.
const (
	reconnectMin = 100 * time.Millisecond
	reconnectMax = 2 * time.Second
)

// restartWait is how much longer the moves in flight at the end of a run
// that expects a restart are awaited: the time for a server to come back
// on a busy machine and for its clients to reconnect. A run whose moves
// have all arrived does not wait.
const restartWait = 30 * time.Second

// checkPeriod is how often a table waiting for something looks for
// moves that go unanswered or undelivered.
const checkPeriod = 250 * time.Millisecond

// liveGame is the part of an online game that a client reads.
type liveGame struct {
	ID         string   `json:"id"`
	Moves      []string `json:"moves"`
	LegalMoves []string `json:"legalMoves"`
	ToMove     string   `json:"toMove"`
	Status     string   `json:"status"`
	Online     *struct {
		Rev int64 `json:"rev"`
	} `json:"online"`
}

func (g *liveGame) rev() int64 {
	if g.Online == nil {
		return 0
	}
	return g.Online.Rev
}

// liveMsg is a message the server sends on the live connection.
type liveMsg struct {
	Type   string     `json:"type"`
	Game   *liveGame  `json:"game"`
	Event  string     `json:"event"`
	Status wireStatus `json:"status"`
	Error  string     `json:"error"`
	moveFields
	Ref *struct {
		Type string `json:"type"`
		Move string `json:"move"`
		Ply  *int   `json:"ply"`
	} `json:"ref"`
}

// seatView is a seat as the server gives it.
type seatView struct {
	Side  string `json:"side"`
	Token string `json:"token"`
}

// onlineRunner is the state the tables of an online run share.
type onlineRunner struct {
	cfg      Config
	c        *client
	base     string
	pc       *client // the second players' server's client: c unless there is a peer
	peer     string
	ctx      context.Context // of the requests and connections: cancelled only with the run's context
	stop     <-chan struct{} // closed at the end of the load phase
	start    time.Time
	requests atomic.Int64
	limitHit atomic.Bool
	st       ostats
}

// ostats are the counts and samples of an online run.
type ostats struct {
	mu                          sync.Mutex
	creates, created, finished  int64
	sent, resent, acked         int64
	delivered, deliveredResync  int64
	reconnects, resyncs, syncs  int64
	backwards, stale, late      int64
	lost, duplicated            int64
	unanswered, resendRefused   int64
	oppLat, echoLat             []time.Duration
	createLat, joinLat, connLat []time.Duration
	gaps                        []time.Duration // reconnection gaps
	errors, disconnects         map[string]int
	firstErr, firstDisc         map[string]string
	progressAt                  int
}

func (s *ostats) add(f func(*ostats)) {
	s.mu.Lock()
	f(s)
	s.mu.Unlock()
}

// errorLocked counts an error of kind; s.mu is held.
func (s *ostats) errorLocked(kind, msg string) {
	s.errors[kind]++
	if _, ok := s.firstErr[kind]; !ok {
		s.firstErr[kind] = fmt.Sprintf("%.300s", msg)
	}
}

func (s *ostats) error(kind, msg string) { s.add(func(s *ostats) { s.errorLocked(kind, msg) }) }

// disconnect counts a dropped connection or a failed attempt to connect,
// which a deliberate restart of the server explains.
func (s *ostats) disconnect(kind, msg string) {
	s.add(func(s *ostats) {
		s.disconnects[kind]++
		if _, ok := s.firstDisc[kind]; !ok {
			s.firstDisc[kind] = fmt.Sprintf("%.300s", msg)
		}
	})
}

// table is one simulated online game between two clients, and the games
// that follow it.
type table struct {
	r        *onlineRunner
	idx      int
	rng      *rand.Rand // of the driver goroutine only
	wake     chan struct{}
	interval time.Duration
	next     time.Time // when the next action is due
	failures int       // setups failed in a row, for the backoff

	mu   sync.Mutex // guards g's state, its seats' and its moves'
	g    *ogame     // the game being played; nil before the first
	logs []GameLog  // the games done with
}

// ogame is a game of a table.
type ogame struct {
	id      string
	seats   [2]*seat
	history []*omove // the moves seen by either seat, by ply
	started bool     // both seats have seen the game: moves may be sent
	done    bool     // finished: counted and logged
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// omove is a move of a game.
type omove struct {
	move     string
	ply      int
	by       int       // the seat that sent it, -1 for a move no seat sent at that ply
	sentAt   time.Time // first sent
	liveAt   time.Time // last sent over a working connection
	ackedAt  time.Time // when its mover saw it
	resent   int
	seen     [2]bool
	reported bool // an undelivered move already counted by the watchdog
}

// seat is one of a game's two clients: a player with its own token and
// its own connection.
type seat struct {
	t     *table
	g     *ogame
	i     int
	side  string
	token string

	// Under t.mu:
	conn       *websocket.Conn // the connection open now, nil when none
	synced     bool            // conn has brought its first game message
	everSynced bool            // some connection has
	closing    bool            // the table closes the connection: not a drop
	forced     bool            // the table dropped the connection to resync
	rev        int64
	plies      int
	legal      []string
	toMove     string
	playing    bool
	pending    *omove // the seat's move sent and not yet seen in a game message
	resent     *omove // the seat's move last sent again after a reconnect

	// lostAt is when the seat's connection dropped, until a new one
	// brings the game; its live goroutine's alone.
	lostAt time.Time
}

func (s *seat) other() *seat { return s.g.seats[1-s.i] }

// runOnline is Run for cfg.Online.
func runOnline(ctx context.Context, cfg Config, base, peer string) (*Report, error) {
	c := newClient(base, 2*cfg.Games+checkWorkers, cfg.Timeout)
	defer c.close()
	pc := c
	if peer != base {
		pc = newClient(peer, cfg.Games, cfg.Timeout)
		defer pc.close()
	}
	stopCtx, stop := cfg.loadPhase(ctx)
	defer stop()
	r := &onlineRunner{cfg: cfg, c: c, base: base, pc: pc, peer: peer, ctx: ctx, stop: stopCtx.Done(), start: time.Now()}
	r.st.errors, r.st.disconnects = map[string]int{}, map[string]int{}
	r.st.firstErr, r.st.firstDisc = map[string]string{}, map[string]string{}

	tables := make([]*table, cfg.Games)
	var wg sync.WaitGroup
	for i := range tables {
		t := &table{r: r, idx: i, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), wake: make(chan struct{}, 1)}
		if cfg.Rate > 0 {
			t.interval = time.Duration(float64(time.Second) / cfg.Rate)
		}
		// The setups are spread evenly over the ramp, each at a random
		// point of its slot; without a ramp, over the first interval.
		switch {
		case cfg.Ramp > 0:
			t.next = r.start.Add(time.Duration((float64(i) + t.rng.Float64()) * float64(cfg.Ramp) / float64(cfg.Games)))
		case t.interval > 0:
			t.next = r.start.Add(time.Duration(t.rng.Int64N(int64(t.interval))))
		default:
			t.next = r.start
		}
		tables[i] = t
		wg.Go(t.run)
	}
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if cfg.Progress != nil {
		pwg.Go(func() { r.progress(done) })
	}
	wg.Wait()
	elapsed := time.Since(r.start)
	close(done)
	pwg.Wait()

	// The moves in flight are given the time of a request to arrive, or,
	// when the server is restarted, that of a restart too: a client cut
	// off at the end of the load phase reconnects, as a page does, and
	// catches up before its opponent's moves are counted lost.
	if ctx.Err() == nil {
		wait := cfg.Timeout
		if cfg.ExpectRestart {
			wait += restartWait
		}
		drain(ctx, tables, wait)
	}
	for _, t := range tables {
		wg.Go(t.finish)
	}
	wg.Wait()

	rep := r.report(elapsed)
	rep.Target = base
	for _, t := range tables {
		rep.Games = append(rep.Games, t.logs...)
	}
	rep.Interrupted = ctx.Err() != nil
	if cfg.Check && !rep.Interrupted {
		res, err := check(ctx, c, rep.Games)
		if err != nil {
			rep.Interrupted = true
		} else {
			rep.Check = res
		}
	}
	return rep, nil
}

// drain waits until no table has a move unanswered or undelivered, or for
// at most timeout.
func drain(ctx context.Context, tables []*table, timeout time.Duration) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		busy := false
		for _, t := range tables {
			if t.busy() {
				busy = true
				break
			}
		}
		if !busy {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// busy reports whether t has a move sent and not yet seen by both seats.
func (t *table) busy() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.g
	if g == nil || g.done {
		return false
	}
	for _, s := range g.seats {
		if s.pending != nil {
			return true
		}
	}
	for _, m := range g.history {
		if m.by >= 0 && m.seen[m.by] && !m.seen[1-m.by] {
			return true
		}
	}
	return false
}

// run drives the table until the end of the load phase.
func (t *table) run() {
	timer := time.NewTimer(time.Until(t.next))
	defer timer.Stop()
	due := false
	for {
		select {
		case <-t.r.stop:
			return
		case <-timer.C:
		case <-t.wake:
		}
		now := time.Now()
		t.watch(now)
		if !due && !now.Before(t.next) {
			due = true
		}
		if due {
			acted, ok := t.act(now)
			if !ok {
				return
			}
			if acted {
				due = false
				// A late action restarts the schedule from itself, so that
				// a slow answer never turns into a burst of catching up.
				at := t.next
				if now.Sub(at) > time.Millisecond {
					at = now
				}
				t.next = at.Add(t.interval)
			}
		}
		wait := checkPeriod
		if !due {
			wait = min(wait, time.Until(t.next))
		}
		timer.Reset(max(wait, 0))
	}
}

// take counts one request against MaxRequests and reports whether it may
// be sent.
func (r *onlineRunner) take() bool {
	if r.requests.Add(1) > MaxRequests {
		r.limitHit.Store(true)
		return false
	}
	return true
}

// act does the table's next action, if one can be done now: set up a game
// if there is none or the last is over, else send the move of the side to
// move. acted says whether it did; ok false ends the table (the run's
// request limit).
func (t *table) act(now time.Time) (acted, ok bool) {
	t.mu.Lock()
	g := t.g
	if g == nil || g.over() {
		both := g == nil || (!g.seats[0].playing && !g.seats[1].playing)
		t.mu.Unlock()
		if !both {
			return false, true // the other seat has yet to see the end
		}
		if !t.r.take() {
			return false, false
		}
		if g != nil {
			t.finish()
		}
		t.setup()
		return true, true
	}
	if !g.started {
		if !g.seats[0].synced || !g.seats[1].synced {
			t.mu.Unlock()
			return false, true
		}
		g.started = true
	}
	var mover *seat
	for _, s := range g.seats {
		if s.conn != nil && s.synced && s.playing && s.toMove == s.side && s.pending == nil &&
			s.other().pending == nil && s.plies == len(g.history) && len(s.legal) > 0 {
			mover = s
		}
	}
	if mover == nil {
		t.mu.Unlock()
		return false, true
	}
	if !t.r.take() {
		t.mu.Unlock()
		return false, false
	}
	m := &omove{move: mover.legal[t.rng.IntN(len(mover.legal))], ply: mover.plies, by: mover.i}
	mover.pending = m
	conn := mover.conn
	m.sentAt = time.Now()
	m.liveAt = m.sentAt
	t.mu.Unlock()
	t.r.st.add(func(s *ostats) { s.sent++ })
	mover.send(conn, m)
	return true, true
}

// over reports whether either seat has seen the game end.
func (g *ogame) over() bool {
	return g.started && (!g.seats[0].playing || !g.seats[1].playing)
}

// send writes m on conn. A failed write drops the connection: the seat
// reconnects, and resends m if the server does not have it.
func (s *seat) send(conn *websocket.Conn, m *omove) {
	ctx, cancel := context.WithTimeout(s.t.r.ctx, s.t.r.cfg.Timeout)
	defer cancel()
	// Written by hand: the load generator shares the server's cores, and a
	// move is all it sends.
	var buf [64]byte
	msg := append(buf[:0], `{"type":"move","move":`...)
	msg = strconv.AppendQuote(msg, m.move)
	msg = append(msg, `,"ply":`...)
	msg = append(strconv.AppendInt(msg, int64(m.ply), 10), '}')
	if err := conn.Write(ctx, websocket.MessageText, msg); err != nil {
		conn.CloseNow()
	}
}

// setup creates a game with one seat and joins it with the other, and
// starts both seats' connections.
func (t *table) setup() {
	r := t.r
	body, _ := json.Marshal(map[string]any{
		"online": true, "holes": r.cfg.Holes, "seeds": r.cfg.Seeds, "name": fmt.Sprintf("load %d A", t.idx),
	})
	r.st.add(func(s *ostats) { s.creates++ })
	t0 := time.Now()
	a, err := r.c.do(r.ctx, http.MethodPost, "/api/games", body)
	createLat := time.Since(t0)
	var created struct {
		Game   *liveGame `json:"game"`
		Seat   *seatView `json:"seat"`
		Invite string    `json:"invite"`
	}
	if err == nil && a.status == http.StatusCreated {
		if json.Unmarshal(a.body, &created) != nil || created.Game == nil || created.Game.ID == "" ||
			created.Seat == nil || created.Seat.Token == "" || created.Invite == "" {
			err = &badAnswer{fmt.Sprintf("POST /api/games: answer %.200q has no online game, seat and invite", a.body)}
		}
	}
	if err != nil || a.status != http.StatusCreated {
		t.fail("POST /api/games", a, err)
		return
	}
	code := path.Base(strings.TrimRight(created.Invite, "/"))
	joinPath := "/api/join/" + url.PathEscape(code)
	body, _ = json.Marshal(map[string]any{"name": fmt.Sprintf("load %d B", t.idx)})
	t0 = time.Now()
	a, err = r.pc.do(r.ctx, http.MethodPost, joinPath, body)
	joinLat := time.Since(t0)
	var joined struct {
		Game *liveGame `json:"game"`
		Seat *seatView `json:"seat"`
	}
	if err == nil && a.status == http.StatusOK {
		if json.Unmarshal(a.body, &joined) != nil || joined.Seat == nil || joined.Seat.Token == "" ||
			joined.Seat.Side == created.Seat.Side || (joined.Game != nil && joined.Game.ID != created.Game.ID) {
			err = &badAnswer{fmt.Sprintf("POST %s: answer %.200q has no seat of the game", joinPath, a.body)}
		}
	}
	if err != nil || a.status != http.StatusOK {
		t.fail("POST "+joinPath, a, err)
		// The game is logged all the same: it exists, with no move.
		t.mu.Lock()
		t.logs = append(t.logs, GameLog{ID: created.Game.ID, Strict: true})
		t.mu.Unlock()
		return
	}
	t.failures = 0
	r.st.add(func(s *ostats) {
		s.created++
		s.createLat = append(s.createLat, createLat)
		s.joinLat = append(s.joinLat, joinLat)
	})
	ctx, cancel := context.WithCancel(r.ctx)
	g := &ogame{id: created.Game.ID, cancel: cancel}
	g.seats[0] = &seat{t: t, g: g, i: 0, side: created.Seat.Side, token: created.Seat.Token}
	g.seats[1] = &seat{t: t, g: g, i: 1, side: joined.Seat.Side, token: joined.Seat.Token}
	for _, s := range g.seats {
		s.playing = true // until the seat has seen the game
	}
	t.mu.Lock()
	t.g = g
	t.mu.Unlock()
	for _, s := range g.seats {
		g.wg.Go(func() { s.live(ctx) })
	}
}

// fail counts a failed setup request and delays the table's next action
// by a backoff that grows with the failures in a row.
func (t *table) fail(what string, a answer, err error) {
	if t.r.ctx.Err() != nil {
		return
	}
	switch {
	case err == nil:
		t.r.st.error(fmt.Sprintf("HTTP %d", a.status), fmt.Sprintf("%s: %.200s", what, strings.TrimSpace(string(a.body))))
	case isDisconnect(err):
		t.r.st.disconnect(errorKind(err), err.Error())
	default:
		t.r.st.error(errorKind(err), err.Error())
	}
	t.failures++
	delay := a.retryAfter
	if delay == 0 {
		delay = min(reconnectMin<<min(t.failures-1, 5), reconnectMax)
	}
	if until := time.Now().Add(min(delay, 5*time.Second)); until.After(t.next) {
		t.next = until
	}
}

// isDisconnect reports whether err is a connection that failed or broke,
// as a restart of the server causes, rather than a wrong answer.
func isDisconnect(err error) bool {
	switch errorKind(err) {
	case "connection refused", "connection reset", "broken pipe", "connection closed":
		return true
	}
	return false
}

// finish closes the connections of the table's game, counts its moves and
// logs it.
func (t *table) finish() {
	t.mu.Lock()
	g := t.g
	if g == nil || g.done {
		t.mu.Unlock()
		return
	}
	g.done = true
	var conns []*websocket.Conn
	for _, s := range g.seats {
		s.closing = true
		if s.conn != nil {
			conns = append(conns, s.conn)
		}
	}
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(func() { c.Close(websocket.StatusNormalClosure, "") })
	}
	wg.Wait()
	g.cancel()
	g.wg.Wait()

	t.mu.Lock()
	defer t.mu.Unlock()
	log := GameLog{ID: g.id, Moves: make([]string, len(g.history)), Strict: true}
	var lost, unanswered int64
	var firstLost string
	for i, m := range g.history {
		log.Moves[i] = m.move
		if m.by >= 0 && m.seen[m.by] && !m.seen[1-m.by] {
			lost++
			if firstLost == "" {
				firstLost = fmt.Sprintf("game %s: move %s at ply %d acknowledged but never received by the opponent", g.id, m.move, m.ply)
			}
		}
	}
	var firstUnanswered string
	for _, s := range g.seats {
		if m := s.pending; m != nil {
			unanswered++
			if m.ply == len(g.history) {
				log.Pending = m.move
			}
			firstUnanswered = fmt.Sprintf("game %s: move %s at ply %d sent %v before the end, never seen in a game message",
				g.id, m.move, m.ply, time.Since(m.sentAt).Round(time.Millisecond))
		}
	}
	over := !g.seats[0].playing && !g.seats[1].playing && g.started
	t.logs = append(t.logs, log)
	t.r.st.add(func(s *ostats) {
		s.lost += lost
		if lost > 0 {
			s.errorLocked("lost", firstLost)
			s.errors["lost"] += int(lost) - 1
		}
		if unanswered > 0 {
			s.unanswered += unanswered
			s.errorLocked("no answer", firstUnanswered)
			s.errors["no answer"] += int(unanswered) - 1
		}
		if over {
			s.finished++
		}
	})
}

// watch looks for moves that go unanswered, or that reached their mover
// but not the opponent, for longer than a request may take, and makes the
// seat concerned reconnect: its resync brings what it missed.
func (t *table) watch(now time.Time) {
	limit := t.r.cfg.Timeout
	t.mu.Lock()
	g := t.g
	if g == nil || g.done {
		t.mu.Unlock()
		return
	}
	var drop []*seat
	for _, s := range g.seats {
		if m := s.pending; m != nil && s.conn != nil && s.synced && now.Sub(m.liveAt) > limit {
			m.liveAt = now
			t.r.st.error("no answer", fmt.Sprintf("game %s: move %s at ply %d: no game message with it in %v", g.id, m.move, m.ply, limit))
			drop = append(drop, s)
		}
	}
	if n := len(g.history); n > 0 {
		m := g.history[n-1]
		if m.by >= 0 && m.seen[m.by] && !m.seen[1-m.by] && !m.reported && now.Sub(m.ackedAt) > limit {
			if o := g.seats[1-m.by]; o.conn != nil && o.synced {
				m.reported = true
				t.r.st.error("not delivered", fmt.Sprintf("game %s: move %s at ply %d: the opponent has not received it %v after its mover did", g.id, m.move, m.ply, limit))
				drop = append(drop, o)
			}
		}
	}
	var conns []*websocket.Conn
	for _, s := range drop {
		if s.conn != nil && !s.forced {
			s.forced = true
			conns = append(conns, s.conn)
		}
	}
	t.mu.Unlock()
	for _, c := range conns {
		c.CloseNow()
	}
}

// live keeps the seat connected until ctx is done: it connects, says
// hello, reads every message, and reconnects with a backoff when the
// connection drops.
func (s *seat) live(ctx context.Context) {
	r := s.t.r
	base, hc := r.base, r.c
	if s.i == 1 { // the player who joined plays through the peer
		base, hc = r.peer, r.pc
	}
	u := "ws" + strings.TrimPrefix(base, "http") + "/api/games/" + url.PathEscape(s.g.id) + "/live" + liveQuery
	backoff := reconnectMin
	wait, connected := false, false
	for ctx.Err() == nil {
		if wait {
			d := backoff/2 + time.Duration(rand.Int64N(int64(backoff/2)+1))
			backoff = min(2*backoff, reconnectMax)
			select {
			case <-ctx.Done():
				return
			case <-time.After(d):
			}
		}
		wait = true
		t0 := time.Now()
		dctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		conn, resp, err := websocket.Dial(dctx, u, &websocket.DialOptions{
			HTTPClient: hc.http,
			HTTPHeader: http.Header{"Origin": {base}},
		})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
				r.st.error(fmt.Sprintf("HTTP %d", resp.StatusCode), fmt.Sprintf("GET %s: %v", u, err))
			} else {
				s.lostConn("dialling "+u, err)
			}
			continue
		}
		conn.SetReadLimit(maxAnswer)
		s.t.mu.Lock()
		if s.closing {
			s.t.mu.Unlock()
			conn.CloseNow()
			return
		}
		s.conn, s.synced, s.forced = conn, false, false
		s.t.mu.Unlock()
		if connected {
			r.st.add(func(st *ostats) { st.reconnects++ })
		}
		connected = true
		hctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		err = wsjson.Write(hctx, conn, map[string]string{"type": "hello", "token": s.token})
		cancel()
		if err == nil {
			err = s.read(ctx, conn, t0, &backoff)
		}
		s.t.mu.Lock()
		s.conn, s.synced = nil, false
		closing, forced := s.closing, s.forced
		s.t.mu.Unlock()
		conn.CloseNow()
		switch {
		case closing || ctx.Err() != nil:
			return
		case forced:
			wait = false // dropped by the table to resync: at once
		default:
			if s.lostAt.IsZero() {
				s.lostAt = time.Now()
			}
			s.lostConn("live connection of game "+s.g.id, err)
		}
	}
}

// lostConn counts a connection that dropped or could not be opened.
func (s *seat) lostConn(what string, err error) {
	kind := errorKind(err)
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		kind = fmt.Sprintf("WS close %d", int(ce.Code))
		switch ce.Code {
		case websocket.StatusGoingAway, websocket.StatusServiceRestart, websocket.StatusAbnormalClosure:
		default:
			// The server closed the connection on purpose: not a restart.
			s.t.r.st.error(kind, fmt.Sprintf("%s: %v", what, err))
			return
		}
	} else if kind == "other" && strings.Contains(err.Error(), "EOF") {
		kind = "connection closed"
	}
	s.t.r.st.disconnect(kind, fmt.Sprintf("%s: %v", what, err))
}

// read reads the messages of conn until it fails.
func (s *seat) read(ctx context.Context, conn *websocket.Conn, t0 time.Time, backoff *time.Duration) error {
	first := true
	// last is the game as last told on this connection, which a move
	// message follows; after a gap the game is asked for again, and the
	// moves told meanwhile wait for it.
	var last *liveGame
	syncing := false
	// The reads wait on the connection alone, closed when ctx ends: a
	// context that can end costs the library a context.AfterFunc a read.
	// Each message is read into one buffer, kept for the next.
	stop := context.AfterFunc(ctx, func() { conn.CloseNow() })
	defer stop()
	var buf bytes.Buffer
	for {
		typ, rd, err := conn.Reader(context.Background())
		if err == nil {
			buf.Reset()
			_, err = buf.ReadFrom(rd)
		}
		data := buf.Bytes()
		at := time.Now()
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			s.t.r.st.error("bad message", fmt.Sprintf("game %s: a binary message", s.g.id))
			continue
		}
		var msg liveMsg
		if err := json.Unmarshal(data, &msg); err != nil {
			s.t.r.st.error("bad message", fmt.Sprintf("game %s: %.200q: %v", s.g.id, data, err))
			continue
		}
		if msg.Type == "move" {
			if last != nil && msg.Rev <= last.rev() {
				s.t.r.st.add(func(st *ostats) { st.stale++ }) // told already
				continue
			}
			if syncing || last == nil {
				continue // to be told with the game asked for
			}
			if !msg.follows(s.g.id, last.rev(), len(last.Moves)) {
				syncing = true
				s.t.r.st.add(func(st *ostats) { st.syncs++ })
				if err := conn.Write(ctx, websocket.MessageText, syncMessage); err != nil {
					return err
				}
				continue
			}
			g := *last
			g.Moves, g.LegalMoves, g.ToMove, g.Status = appendMove(last.Moves, msg.Move), msg.LegalMoves, msg.ToMove, msg.Status.Text
			g.Online = msg.Online
			msg.Type, msg.Game, msg.Event = "game", &g, "move"
		}
		switch msg.Type {
		case "game":
			if msg.Game != nil {
				last, syncing = msg.Game, false
			}
			if msg.Game == nil || msg.Game.ID != s.g.id {
				s.t.r.st.error("bad message", fmt.Sprintf("game %s: %.200q is not the game", s.g.id, data))
				continue
			}
			if first {
				gap := time.Duration(0)
				if !s.lostAt.IsZero() {
					gap, s.lostAt = at.Sub(s.lostAt), time.Time{}
				}
				s.t.r.st.add(func(st *ostats) {
					st.connLat = append(st.connLat, at.Sub(t0))
					if gap > 0 {
						st.gaps = append(st.gaps, gap)
					}
				})
				*backoff = reconnectMin
			}
			resend, rconn := s.t.onGame(s, &msg, at, first)
			first = false
			if resend != nil {
				s.t.r.st.add(func(st *ostats) { st.resent++ })
				s.send(rconn, resend)
			}
			select {
			case s.t.wake <- struct{}{}:
			default:
			}
		case "error":
			s.t.onError(s, &msg, data)
		}
	}
}

// onGame adopts a game message that seat s received at time at; first
// says whether it is its connection's first. It returns the seat's
// pending move if it must be sent again, with the connection to send it on.
func (t *table) onGame(s *seat, msg *liveMsg, at time.Time, first bool) (*omove, *websocket.Conn) {
	gm := msg.Game
	t.mu.Lock()
	defer t.mu.Unlock()
	g := s.g
	st := &t.r.st
	rev := gm.rev()
	var c struct {
		stale, resync, backwards, late, lost, dup, acked, delivered, deliveredResync int64
		oppLat, echoLat                                                              []time.Duration
		firstLost, firstDup                                                          string
	}
	defer func() {
		st.add(func(st *ostats) {
			st.stale += c.stale
			st.resyncs += c.resync
			st.backwards += c.backwards
			st.late += c.late
			st.lost += c.lost
			st.duplicated += c.dup
			st.acked += c.acked
			st.delivered += c.delivered
			st.deliveredResync += c.deliveredResync
			st.oppLat = append(st.oppLat, c.oppLat...)
			st.echoLat = append(st.echoLat, c.echoLat...)
			if c.lost > 0 {
				st.errorLocked("lost", c.firstLost)
				st.errors["lost"] += int(c.lost) - 1
			}
			if c.dup > 0 {
				st.errorLocked("duplicated", c.firstDup)
				st.errors["duplicated"] += int(c.dup) - 1
			}
		})
	}()
	if !first && rev <= s.rev {
		// Older than what the seat has, or a move's message seen twice:
		// ignored. (A message that changes no move, such as presence, may
		// keep the rev.)
		if rev < s.rev || msg.Event == "move" {
			c.stale++
		}
		return nil, nil
	}
	if first && s.everSynced {
		c.resync++
	}
	if s.everSynced && (rev < s.rev || len(gm.Moves) < s.plies) {
		c.backwards++
	}
	// Moves first seen in a connection's first message came by a resync
	// (no move is sent before both seats have seen the game).
	live := !first
	if !first && len(gm.Moves) > s.plies+1 {
		// Each move is its own message: a seat that sees two new moves at
		// once missed the message of one, or got them out of order.
		c.late += int64(len(gm.Moves) - s.plies - 1)
	}
	for i, mv := range gm.Moves {
		if i < len(g.history) && g.history[i].move != mv {
			// The server now has another move where one was seen: those
			// seen from there on are lost, and the game goes on from the
			// server's.
			for _, h := range g.history[i:] {
				if h.by < 0 || h.seen[h.by] {
					c.lost++
					if c.firstLost == "" {
						c.firstLost = fmt.Sprintf("game %s: move %s at ply %d was seen, now the server has %s there", g.id, h.move, h.ply, mv)
					}
				}
			}
			g.history = g.history[:i]
		}
		if i == len(g.history) {
			var m *omove
			for _, p := range g.seats {
				if p.pending != nil && p.pending.ply == i && p.pending.move == mv {
					m, p.pending = p.pending, nil
				}
			}
			if m == nil {
				m = &omove{move: mv, ply: i, by: -1}
				c.dup++
				if c.firstDup == "" {
					what := "no seat sent it"
					if i > 0 && gm.Moves[i-1] == mv {
						what = "the same as the move before: applied twice?"
					}
					c.firstDup = fmt.Sprintf("game %s: move %s at ply %d: %s", g.id, mv, i, what)
				}
			}
			g.history = append(g.history, m)
		}
		m := g.history[i]
		if m.seen[s.i] {
			continue
		}
		m.seen[s.i] = true
		switch {
		case m.by == s.i:
			m.ackedAt = at
			c.acked++
			if live {
				c.echoLat = append(c.echoLat, at.Sub(m.sentAt))
			}
		case m.by >= 0:
			c.delivered++
			if live {
				c.oppLat = append(c.oppLat, at.Sub(m.sentAt))
			} else {
				c.deliveredResync++
			}
		}
	}
	s.rev, s.plies = rev, len(gm.Moves)
	s.legal, s.toMove, s.playing = gm.LegalMoves, gm.ToMove, gm.Status == "playing"
	s.synced, s.everSynced = true, true
	// A pending move the server does not have: sent again after a resync,
	// at the same ply, if it is still the seat's move there; dropped if the
	// game has gone past that ply without it.
	if p := s.pending; p != nil {
		switch {
		case p.ply < len(g.history) || p.ply > len(gm.Moves):
			s.pending = nil
		case first && p.ply == len(gm.Moves) && s.playing && s.toMove == s.side && s.conn != nil:
			p.resent++
			s.resent = p
			p.liveAt = time.Now()
			return p, s.conn
		}
	}
	return nil, nil
}

// onError counts an error message from the server.
func (t *table) onError(s *seat, msg *liveMsg, data []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	ref := msg.Ref
	same := func(p *omove) bool {
		return p != nil && ref != nil && ref.Type == "move" && ref.Move == p.move && ref.Ply != nil && *ref.Ply == p.ply
	}
	if msg.Status.Code == http.StatusConflict && (same(s.pending) && s.pending.resent > 0 || same(s.resent) && s.resent != s.pending) {
		// A resent move the server had taken after all: its message
		// follows, or came already (the game then went on past it), or
		// the watchdog asks again.
		t.r.st.add(func(st *ostats) { st.resendRefused++ })
		return
	}
	if same(s.pending) {
		s.pending = nil
	}
	what := "?"
	if ref != nil {
		what = ref.Type
	}
	t.r.st.error(fmt.Sprintf("WS error %d (%s)", msg.Status.Code, what), fmt.Sprintf("game %s: %.300s", s.g.id, data))
}

// progress writes a line of figures at every interval until done.
func (r *onlineRunner) progress(done <-chan struct{}) {
	t := time.NewTicker(r.cfg.ProgressInterval)
	defer t.Stop()
	last := r.start
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			s := &r.st
			s.mu.Lock()
			recent := slices.Clone(s.oppLat[s.progressAt:])
			s.progressAt = len(s.oppLat)
			delivered, reconnects := s.delivered, s.reconnects
			errs, drops := 0, 0
			for _, n := range s.errors {
				errs += n
			}
			for _, n := range s.disconnects {
				drops += n
			}
			s.mu.Unlock()
			rate, p99 := interval(recent, now.Sub(last))
			last = now
			fmt.Fprintf(r.cfg.Progress, "%v: %s moves delivered, %s/s, p99 %s, %s errors, %s disconnects, %s reconnects\n",
				now.Sub(r.start).Round(time.Second), group(delivered), group(int64(rate+0.5)), p99, group(int64(errs)), group(int64(drops)), group(reconnects))
		}
	}
}

// report sums up the load phase.
func (r *onlineRunner) report(elapsed time.Duration) *Report {
	s := &r.st
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := &Report{
		Online: true, Ramp: r.cfg.Ramp, ExpectRestart: r.cfg.ExpectRestart,
		Rate: r.cfg.Rate, Concurrency: r.cfg.Games, Duration: r.cfg.Duration,
		Holes: r.cfg.Holes, Seeds: r.cfg.Seeds, Elapsed: elapsed,
		CreatesSent: s.creates, GamesCreated: s.created, GamesFinished: s.finished,
		Offered: s.sent, Acked: s.acked, Resent: s.resent, ResendRefused: s.resendRefused,
		Delivered: s.delivered, DeliveredOnResync: s.deliveredResync,
		Reconnects: s.reconnects, Resyncs: s.resyncs, Backwards: s.backwards, Stale: s.stale, Late: s.late, Syncs: s.syncs,
		Lost: s.lost, Duplicated: s.duplicated, Unanswered: s.unanswered,
		Errors: s.errors, FirstErrors: s.firstErr, Disconnects: s.disconnects, FirstDisconnects: s.firstDisc,
		MoveLatency: summarize(s.oppLat), EchoLatency: summarize(s.echoLat),
		CreateLatency: summarize(s.createLat), JoinLatency: summarize(s.joinLat), ConnectLatency: summarize(s.connLat),
		ReconnectGap: summarize(s.gaps),
		RequestLimit: r.limitHit.Load(),
	}
	if elapsed > 0 {
		rep.Throughput = float64(s.delivered) / elapsed.Seconds()
	}
	return rep
}
