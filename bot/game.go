package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/rules"
)

// gameBackoff paces the reconnections of a game's socket and the retries
// of a move: a game on the clock cannot wait a minute.
var gameBackoff = Backoff{Min: 250 * time.Millisecond, Max: 5 * time.Second}

// game is one game being played: the state of its loop, which alone
// touches it. The socket, the engine's search and the requests run in
// goroutines of their own and report to the loop by events.
type game struct {
	b    *Bot
	id   string
	side rules.Side
	log  *slog.Logger
	eng  *Engine

	events chan any

	view   *gameView // the latest state of the game, nil before the first
	viewAt time.Time // when it was read, for its clocks

	connected  bool // a socket is open, or being opened
	drops      int  // reconnections since the last steady connection
	reconnect  <-chan time.Time
	thinking   int                // the ply being searched, or -1
	stopThink  context.CancelFunc // ends the search
	posting    bool               // a move is on its way
	pending    *pendingMove       // a move sent whose fate is not known
	failures   int                // failed sends of a move in a row
	retry      <-chan time.Time   // when to act again after a failure
	refreshing bool               // a read of the game is under way
	answering  bool               // an answer to an offer is on its way
	answered   int64              // the revision whose offer was last answered
	abandon    bool               // the server does not let the bot play the game
	tasks      sync.WaitGroup     // the goroutines of the game: search, requests, socket
}

// pendingMove is a move sent at ply whose answer did not come: it is sent
// again, not searched again, while the game still stands at ply.
type pendingMove struct {
	ply  int
	move rules.Move
}

// Events of the game's loop.
type (
	// viewEvent is a state of the game read from the socket or an answer.
	viewEvent struct {
		view *gameView
		at   time.Time
	}
	// dropEvent says the socket has closed, for err.
	dropEvent struct {
		err    error
		steady bool // the server had spoken on it
	}
	// moveEvent is the engine's choice at ply.
	moveEvent struct {
		ply  int
		move rules.Move
		err  error
	}
	// postedEvent is the server's answer to a move.
	postedEvent struct {
		ply  int
		move rules.Move
		view *gameView
		err  error
	}
	// refreshedEvent is the answer to a read of the game.
	refreshedEvent struct{ err error }
	// answeredEvent is the server's answer to the bot's answer to an offer.
	answeredEvent struct {
		action string
		view   *gameView
		err    error
	}
)

// play plays game id as side until it ends or ctx does.
func (b *Bot) play(ctx context.Context, id string, side rules.Side) {
	log := b.log.With("game", id, "side", string(side.Letter()))
	g := &game{b: b, id: id, side: side, log: log, eng: NewEngine(b.cfg.Engine, log),
		events: make(chan any, 16), thinking: -1}
	ctx, cancel := context.WithCancel(ctx)
	defer func() {
		cancel()
		g.tasks.Wait() // the engine is the search's until it ends, and nothing logs after the game
		g.eng.Close()
	}()
	log.Info("game started")
	g.run(ctx)
}

// emit hands an event to the loop, unless the game has ended.
func (g *game) emit(ctx context.Context, ev any) {
	select {
	case g.events <- ev:
	case <-ctx.Done():
	}
}

// run is the game's loop.
func (g *game) run(ctx context.Context) {
	g.refresh(ctx)
	g.connect(ctx)
	for {
		select {
		case <-ctx.Done():
			g.cancelThink()
			return
		case <-g.reconnect:
			g.reconnect = nil
			g.connect(ctx)
		case <-g.retry:
			g.retry = nil
		case ev := <-g.events:
			g.handle(ctx, ev)
		}
		if g.abandon {
			g.cancelThink()
			return
		}
		if g.view != nil && g.view.over() {
			g.cancelThink()
			g.log.Info("game over", "result", g.view.Result, "status", g.view.Status)
			return
		}
		g.act(ctx)
	}
}

func (g *game) handle(ctx context.Context, ev any) {
	switch ev := ev.(type) {
	case viewEvent:
		g.take(ev.view, ev.at)
	case dropEvent:
		g.connected = false
		if ev.steady {
			g.drops = 0
		}
		wait := gameBackoff.Delay(g.drops)
		g.drops++
		g.log.Warn("game connection lost; reconnecting", "err", ev.err, "in", wait.Round(time.Millisecond))
		g.reconnect = time.After(wait)
	case moveEvent:
		g.thinking, g.stopThink = -1, nil
		if !g.ourTurnAt(ev.ply) {
			return // the game moved on meanwhile
		}
		m := ev.move
		if ev.err != nil {
			if errors.Is(ev.err, context.Canceled) || errors.Is(ev.err, context.DeadlineExceeded) {
				return // a search called off: the next act searches again
			}
			// Never resign, nor lose on time for want of a move: play
			// a legal one, and say loudly that the engine failed.
			m = g.fallback()
			g.log.Error("the engine gave no move; playing a fallback move", "err", ev.err, "move", m.String())
			if m == rules.NoMove {
				return
			}
		}
		g.send(ctx, ev.ply, m)
	case postedEvent:
		g.posting = false
		g.handlePosted(ctx, ev)
	case answeredEvent:
		g.answering = false
		if ev.err != nil {
			// 409: the offer lapsed meanwhile (a move was played).
			if statusOf(ev.err) != http.StatusConflict && ctx.Err() == nil {
				g.log.Warn("answering an offer", "action", ev.action, "err", ev.err)
			}
			g.refresh(ctx)
			return
		}
		g.take(ev.view, time.Now())
	case refreshedEvent:
		g.refreshing = false
		if ev.err != nil && ctx.Err() == nil {
			g.log.Warn("reading the game", "err", ev.err)
		}
	}
}

func (g *game) handlePosted(ctx context.Context, ev postedEvent) {
	if ev.err == nil {
		g.pending, g.failures = nil, 0
		g.take(ev.view, time.Now())
		return
	}
	status := statusOf(ev.err)
	g.failures++
	wait := gameBackoff.Delay(g.failures - 1)
	var ae *APIError
	if errors.As(ev.err, &ae) && ae.RetryAfter > wait {
		wait = ae.RetryAfter
	}
	switch {
	case status == 0 || status >= 500 || status == http.StatusTooManyRequests:
		// The move may have been made: send it again with the same ply,
		// which the server refuses if it was.
		g.log.Warn("sending a move; trying again", "move", ev.move.String(), "ply", ev.ply, "err", ev.err, "in", wait.Round(time.Millisecond))
	case status == http.StatusConflict:
		// The game moved on (or the move was made after all): read it.
		g.pending = nil
		g.log.Info("a move the game no longer takes", "move", ev.move.String(), "ply", ev.ply, "err", ev.err)
		g.refresh(ctx)
	case status == http.StatusUnauthorized || status == http.StatusForbidden || status == http.StatusNotFound:
		// Not the bot's seat, or no game: nothing it can do here.
		g.pending, g.abandon = nil, true
		g.log.Error("the server does not let the bot play this game; leaving it", "err", ev.err)
	default:
		g.pending = nil
		g.log.Error("the server refused the engine's move", "move", ev.move.String(), "ply", ev.ply, "err", ev.err)
		g.refresh(ctx)
	}
	g.retry = time.After(wait)
}

// take keeps view if it is not older than the one the loop has.
func (g *game) take(v *gameView, at time.Time) {
	if v == nil || v.ID != g.id && v.ID != "" {
		return
	}
	if g.view != nil && revOf(v) < revOf(g.view) {
		return
	}
	g.view, g.viewAt = v, at
	if g.thinking >= 0 && !g.ourTurnAt(g.thinking) {
		g.cancelThink()
	}
	if g.pending != nil && len(v.Moves) != g.pending.ply {
		g.pending = nil // the move was made, or the game went on without it
	}
}

// revOf orders the states of a game.
func revOf(v *gameView) int64 {
	if v.Online != nil {
		return v.Online.Rev
	}
	return int64(len(v.Moves))
}

// ourTurnAt reports whether the game, as last seen, waits for the bot's
// move at ply.
func (g *game) ourTurnAt(ply int) bool {
	v := g.view
	return v != nil && !v.over() && len(v.Moves) == ply && v.ToMove == string(g.side.Letter()) &&
		(v.Online == nil || v.Online.Seats.South && v.Online.Seats.North)
}

// act starts what the game's state calls for: an answer to an offer, a
// search or a move sent.
func (g *game) act(ctx context.Context) {
	if g.view == nil {
		return
	}
	g.answerOffer(ctx)
	if g.posting || g.thinking >= 0 || g.retry != nil {
		return
	}
	ply := len(g.view.Moves)
	if !g.ourTurnAt(ply) {
		return
	}
	if g.pending != nil && g.pending.ply == ply {
		g.send(ctx, ply, g.pending.move)
		return
	}
	g.think(ctx, ply)
}

// answerOffer declines the opponent's open draw offer or takeback request,
// once a revision of the game: a program does not bargain, and a person is
// better served by a prompt no than by an offer left hanging.
func (g *game) answerOffer(ctx context.Context) {
	v := g.view
	o := v.Online
	if o == nil || g.answering || o.Rev <= g.answered || v.over() {
		return
	}
	opponent := string(g.side.Opponent().Letter())
	var action string
	switch {
	case o.TakebackOffer == opponent:
		action = "takeback-decline"
	case o.DrawOffer == opponent:
		action = "draw-decline"
	default:
		return
	}
	g.answering, g.answered = true, o.Rev
	ply := len(v.Moves)
	g.tasks.Go(func() {
		var got gameView
		err := g.b.api.do(ctx, http.MethodPost, "/api/games/"+g.id+"/actions", map[string]any{"action": action, "ply": ply}, &got)
		ev := answeredEvent{action: action, err: err}
		if err == nil {
			ev.view = &got
			g.log.Info("offer declined", "action", action, "ply", ply)
		}
		g.emit(ctx, ev)
	})
}

// think starts the engine's search of the position at ply.
func (g *game) think(ctx context.Context, ply int) {
	v := g.view
	s, err := searchOf(v)
	if err != nil {
		g.log.Error("the game as the server gave it", "err", err)
		g.retry = time.After(gameBackoff.Max)
		return
	}
	s.Think = g.allot(v)
	tctx, cancel := context.WithCancel(ctx)
	g.thinking, g.stopThink = ply, cancel
	eng := g.eng
	g.tasks.Go(func() {
		m, err := eng.BestMove(tctx, s)
		g.emit(ctx, moveEvent{ply: ply, move: m, err: err})
	})
}

func (g *game) cancelThink() {
	if g.stopThink != nil {
		g.stopThink()
	}
}

// allot is the time to think about the move of view v.
func (g *game) allot(v *gameView) time.Duration {
	o := v.Online
	if o == nil || o.Clock == nil || *o.Clock == (Clock{}) {
		return g.b.cfg.Timing.Allot(0, 0, false, true)
	}
	left := time.Duration(o.Clocks.South) * time.Millisecond
	if g.side == rules.North {
		left = time.Duration(o.Clocks.North) * time.Millisecond
	}
	if o.Running == string(g.side.Letter()) {
		left -= time.Since(g.viewAt)
	}
	inc := time.Duration(o.Clock.Increment) * time.Second
	return g.b.cfg.Timing.Allot(left, inc, o.Clock.Days > 0, false)
}

// searchOf reads the game of view v for the engine.
func searchOf(v *gameView) (Search, error) {
	start, err := rules.ParsePosition(v.Start)
	if err != nil {
		return Search{}, fmt.Errorf("start %q: %w", clip(v.Start, 100), err)
	}
	variant := rules.Standard
	if v.Variant != "" {
		if variant, err = rules.ParseVariant(v.Variant); err != nil {
			return Search{}, fmt.Errorf("variant: %w", err)
		}
	}
	laps := v.MaxLaps
	if laps == 0 {
		laps = rules.DefaultMaxLaps
	}
	r, err := rules.NewRules(variant, laps)
	if err != nil {
		return Search{}, fmt.Errorf("rules: %w", err)
	}
	moves := make([]rules.Move, 0, len(v.Moves))
	for _, s := range v.Moves {
		m, err := rules.ParseMove(s)
		if err != nil {
			return Search{}, fmt.Errorf("move %q: %w", clip(s, 10), err)
		}
		moves = append(moves, m)
	}
	return Search{Start: start, Moves: moves, Rules: r}, nil
}

// fallback is a legal move of the game as last seen, for when the engine
// gives none.
func (g *game) fallback() rules.Move {
	for _, s := range g.view.LegalMoves {
		if m, err := rules.ParseMove(s); err == nil {
			return m
		}
	}
	return rules.NoMove
}

// send sends move m at ply, guarded by ply.
func (g *game) send(ctx context.Context, ply int, m rules.Move) {
	if !slices.Contains(g.view.LegalMoves, m.String()) {
		g.log.Error("the engine's move is not legal here", "move", m.String(), "ply", ply)
		m = g.fallback()
		if m == rules.NoMove {
			return
		}
	}
	g.posting = true
	g.pending = &pendingMove{ply: ply, move: m}
	path := "/api/games/" + g.id + "/moves"
	g.tasks.Go(func() {
		var got struct {
			Game gameView `json:"game"`
		}
		err := g.b.api.do(ctx, http.MethodPost, path, map[string]any{"move": m.String(), "ply": ply}, &got)
		ev := postedEvent{ply: ply, move: m, err: err}
		if err == nil {
			ev.view = &got.Game
			g.log.Info("move played", "move", m.String(), "ply", ply+1)
		}
		g.emit(ctx, ev)
	})
}

// refresh reads the game over HTTP, unless a read is under way.
func (g *game) refresh(ctx context.Context) {
	if g.refreshing {
		return
	}
	g.refreshing = true
	g.tasks.Go(func() {
		var v gameView
		err := g.b.api.do(ctx, http.MethodGet, "/api/games/"+g.id, nil, &v)
		if err == nil {
			g.emit(ctx, viewEvent{view: &v, at: time.Now()})
		}
		g.emit(ctx, refreshedEvent{err: err})
	})
}

// connect opens the game's live socket, which reports the game's every
// change to the loop until it drops.
func (g *game) connect(ctx context.Context) {
	if g.connected {
		return
	}
	g.connected = true
	g.tasks.Go(func() {
		heard, err := g.listen(ctx)
		if ctx.Err() == nil {
			g.emit(ctx, dropEvent{err: err, steady: heard})
		}
	})
}

// listen holds one connection to the game's live socket; it reports
// whether the server said anything on it (then the next drop is met
// with the shortest wait again: a game on the clock cannot wait long).
func (g *game) listen(ctx context.Context) (heard bool, err error) {
	path := "/api/games/" + g.id + "/live"
	ws, resp, err := websocket.Dial(ctx, g.b.api.liveURL(path)+"?v="+strconv.Itoa(liveProtocol),
		&websocket.DialOptions{HTTPClient: g.b.api.http, HTTPHeader: g.b.api.header()})
	if err != nil {
		if resp != nil {
			return false, &APIError{Method: http.MethodGet, Path: path, Status: resp.StatusCode, Message: http.StatusText(resp.StatusCode)}
		}
		return false, fmt.Errorf("connecting to the game: %w", err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(MaxAnswer)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go keepAlive(ctx, ws)
	// The seat is the account's: a hello without a seat token says so,
	// and the bot counts as connected.
	if hello, err := json.Marshal(map[string]string{"type": "hello"}); err == nil {
		if err := ws.Write(ctx, websocket.MessageText, hello); err != nil {
			return false, fmt.Errorf("greeting the game: %w", err)
		}
	}
	// last is the game as last told, which a move message follows; after
	// a gap the game is asked for again (a sync) and the moves told
	// meanwhile wait for it.
	var last *gameView
	syncing := false
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return heard, err
		}
		heard = true
		var m liveMessage
		if err := json.Unmarshal(data, &m); err != nil && m.Type != "move" {
			g.log.Warn("a game message the bot cannot read", "err", err)
			continue
		}
		switch m.Type {
		case "game":
			if m.Game != nil {
				last, syncing = m.Game, false
				g.emit(ctx, viewEvent{view: m.Game, at: time.Now()})
			}
		case "move":
			var mv moveMessage
			if err := json.Unmarshal(data, &mv); err != nil {
				g.log.Warn("a move message the bot cannot read", "err", err)
				continue
			}
			if syncing || last != nil && last.Online != nil && mv.Rev <= last.Online.Rev {
				continue // told already, or to be told with the game asked for
			}
			next, ok := follow(last, &mv)
			if !ok {
				syncing = true
				if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"sync"}`)); err != nil {
					return heard, fmt.Errorf("asking for the game: %w", err)
				}
				continue
			}
			last = next
			g.emit(ctx, viewEvent{view: next, at: time.Now()})
		case "error":
			g.log.Warn("the game's socket reports an error", "status", m.Status, "error", clip(m.Error, 300))
		}
	}
}
