package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// The pool, as a lobby client sees it: its lobby connection, which
// brings its pairings; joining, waiting, and leaving once the duration is
// over and no one is left to pair it with; and its games listed, to find
// a pairing whose message was lost with a connection.

// waitPairing joins the pool and waits for the client's pairing, opening
// the lobby connection again when it drops. Once the duration is over, a
// client waiting alone leaves the pool: no one will join it. It returns
// false when the client is not paired: it left, the run's cap came, or
// the server refused it.
func (p *lobbyPlayer) waitPairing(ctx context.Context) (pairMsg, bool) {
	r := p.r
	p.mu.Lock()
	if !p.waiting {
		p.waiting, p.joinedAt = true, time.Time{}
		r.waiting.Add(1)
	}
	p.mu.Unlock()
	over := r.over
	var alone <-chan time.Time
	for {
		reopened, ok := p.ensureLobby(ctx)
		if !ok {
			return pairMsg{}, false
		}
		if reopened {
			// A pairing told while no lobby connection was open is
			// found among the account's games.
			p.listGames(ctx)
		}
		p.mu.Lock()
		dropped, waiting := p.dropped, p.waiting
		p.mu.Unlock()
		if waiting {
			switch p.join(ctx) {
			case joinRefused:
				p.stopWaiting()
				return pairMsg{}, false
			case joinStopped:
				return pairMsg{}, false
			}
		}
	wait:
		for {
			select {
			case <-ctx.Done():
				return pairMsg{}, false
			case pm := <-p.paired:
				return pm, true
			case <-dropped:
				break wait
			case <-over:
				over = nil
				t := time.NewTicker(aloneCheck)
				defer t.Stop()
				alone = t.C
			case <-alone:
				if r.waiting.Load() > 1 {
					continue
				}
				// Alone in the pool once the duration is over: leave, and
				// play the game if a pairing came meanwhile.
				p.leave(ctx)
				p.listGames(ctx)
				if p.stopWaiting() {
					r.add(func(s *lstats) { s.left++ })
				}
				select {
				case pm := <-p.paired:
					return pm, true
				default:
					return pairMsg{}, false
				}
			}
		}
	}
}

// stopWaiting ends the client's wait for a pairing, if it still waits,
// and says so.
func (p *lobbyPlayer) stopWaiting() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.waiting {
		return false
	}
	p.waiting = false
	p.r.waiting.Add(-1)
	return true
}

// acceptLocked takes pm as the pairing the client waits for, if it waits
// and pm's game is not one it knows; p.mu is held. It says whether pm
// was taken; one not taken is counted as a pairing the client did not
// wait for, unless it is the message of a game found by listing.
func (p *lobbyPlayer) acceptLocked(pm pairMsg) bool {
	r := p.r
	for _, g := range p.games {
		if g.id != pm.game {
			continue
		}
		if !pm.listed && p.listed[pm.game] {
			delete(p.listed, pm.game) // its message, after the listing
		} else if !pm.listed {
			r.add(func(s *lstats) { s.pairedTwice++ })
		}
		return false
	}
	p.games = append(p.games, playerGame{pm.game, pm.side})
	g := r.game(pm.game)
	g.mu.Lock()
	g.players = append(g.players, pairing{p.idx, pm.side})
	g.mu.Unlock()
	if !p.waiting {
		r.add(func(s *lstats) { s.pairedTwice++ })
		return false
	}
	p.waiting = false
	r.waiting.Add(-1)
	if pm.listed {
		p.listed[pm.game] = true
	}
	joined := p.joinedAt
	r.add(func(s *lstats) {
		s.paired++
		if pm.listed {
			s.listed++
		} else if !joined.IsZero() {
			s.pairDelay = append(s.pairDelay, pm.at.Sub(joined))
		}
	})
	p.paired <- pm
	return true
}

// ensureLobby opens the client's lobby connection if it has none or its
// last dropped; reopened says it had one that dropped.
func (p *lobbyPlayer) ensureLobby(ctx context.Context) (reopened, ok bool) {
	p.mu.Lock()
	conn, dropped := p.lobby, p.dropped
	p.mu.Unlock()
	if conn != nil {
		select {
		case <-dropped:
			reopened = true
		default:
			return false, true
		}
	}
	return reopened, p.openLobby(ctx)
}

// openLobby opens the client's lobby connection and reads it until it
// drops or the run ends: the pairings are taken by acceptLocked.
func (p *lobbyPlayer) openLobby(ctx context.Context) bool {
	conn, ok := p.dial(ctx, "/api/lobby/live")
	if !ok {
		return false
	}
	dropped, first := make(chan struct{}), make(chan struct{})
	p.mu.Lock()
	p.lobby, p.dropped = conn, dropped
	p.mu.Unlock()
	go func() {
		defer close(dropped)
		err := p.readLobby(conn, first)
		p.mu.Lock()
		closing := p.lobby != conn
		p.mu.Unlock()
		if !closing && ctx.Err() == nil {
			p.r.disconnect(errorKind(err), fmt.Sprintf("lobby connection of %s: %v", p.name, err))
		}
	}()
	// The lobby first, as a page shows it, then the join: the server
	// tells the pairings to the connections it has then.
	select {
	case <-first:
	case <-dropped: // seen by the caller's wait
	case <-ctx.Done():
		return false
	}
	return true
}

// readLobby reads the lobby connection's messages until it fails; first
// is closed at the first.
func (p *lobbyPlayer) readLobby(conn *websocket.Conn, first chan struct{}) error {
	r := p.r
	for n := 0; ; n++ {
		// The run's end closes the connection: no deadline of its own.
		var msg lobbyMsg
		if err := wsjson.Read(context.Background(), conn, &msg); err != nil {
			return err
		}
		at := time.Now()
		if n == 0 {
			close(first)
		}
		switch msg.Type {
		case "paired":
			var game string
			if err := json.Unmarshal(msg.Game, &game); err != nil || game == "" {
				r.error("bad paired message", fmt.Sprintf("%s: %.200s", p.name, msg.Game))
				continue
			}
			p.mu.Lock()
			p.acceptLocked(pairMsg{game: game, side: msg.Side, at: at})
			p.mu.Unlock()
		case "error":
			r.error(fmt.Sprintf("lobby error %d", msg.Status), msg.Error)
		}
	}
}

// closeLobby closes the client's lobby connection at the end of the run.
func (p *lobbyPlayer) closeLobby() {
	p.mu.Lock()
	conn := p.lobby
	p.lobby = nil
	p.mu.Unlock()
	if conn != nil {
		conn.Close(websocket.StatusNormalClosure, "")
	}
}

// Outcomes of a join.
const (
	joinAccepted = iota // the client is in the pool
	joinStopped         // the run's cap came first
	joinRefused         // the server refused it: an error, counted
)

// join joins the pool; already being in it is fine.
func (p *lobbyPlayer) join(ctx context.Context) int {
	r := p.r
	body, _ := json.Marshal(map[string]bool{"rated": r.cfg.Rated})
	p.mu.Lock()
	if p.joinedAt.IsZero() {
		p.joinedAt = time.Now()
	}
	p.mu.Unlock()
	a, ok := p.request(ctx, http.MethodPost, "/api/lobby/pools/"+url.PathEscape(r.cfg.Pool)+"/join", body)
	switch {
	case !ok:
		return joinStopped
	case a.status == http.StatusOK:
		r.add(func(s *lstats) { s.joined++ })
		return joinAccepted
	case a.status == http.StatusConflict:
		return joinAccepted // in it already: the join before went through
	}
	r.error(fmt.Sprintf("join HTTP %d", a.status), fmt.Sprintf("%s: %.200s", p.name, a.body))
	return joinRefused
}

// leave leaves the pool.
func (p *lobbyPlayer) leave(ctx context.Context) {
	a, ok := p.request(ctx, http.MethodPost, "/api/lobby/pools/"+url.PathEscape(p.r.cfg.Pool)+"/leave", []byte("{}"))
	if ok && a.status != http.StatusOK {
		p.r.error(fmt.Sprintf("leave HTTP %d", a.status), fmt.Sprintf("%s: %.200s", p.name, a.body))
	}
}

// listGames looks among the account's latest games for one being played
// that the client was not told of, and takes it as its pairing: its
// message went to a lobby connection that dropped, or is yet to come.
func (p *lobbyPlayer) listGames(ctx context.Context) {
	list, ok := p.myGames(ctx, 5)
	if !ok {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, g := range list {
		if g.Status == "playing" && p.waiting && !p.before[g.ID] {
			p.acceptLocked(pairMsg{game: g.ID, side: g.Side, at: time.Now(), listed: true})
		}
	}
}

// myGame is a game of GET /api/me/games.
type myGame struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Side   string `json:"side"`
}

// myGames lists the account's latest games, at most limit; ok is false
// if they could not be listed (counted).
func (p *lobbyPlayer) myGames(ctx context.Context, limit int) ([]myGame, bool) {
	r := p.r
	a, ok := p.request(ctx, http.MethodGet, fmt.Sprintf("/api/me/games?limit=%d", limit), nil)
	if !ok {
		return nil, false
	}
	if a.status != http.StatusOK {
		r.error(fmt.Sprintf("games list HTTP %d", a.status), fmt.Sprintf("%s: %.200s", p.name, a.body))
		return nil, false
	}
	var list struct {
		Games []myGame `json:"games"`
	}
	if err := json.Unmarshal(a.body, &list); err != nil {
		r.error("bad games list", fmt.Sprintf("%s: %v", p.name, err))
		return nil, false
	}
	return list.Games, true
}

// request sends a request as the client, to its server, until it is
// answered otherwise than 429 or 503 (busy: tried again after the wait
// the server asks for) or ctx ends (ok false). A request that reaches no
// server is counted as a disconnection, and tried again.
func (p *lobbyPlayer) request(ctx context.Context, method, path string, body []byte) (a answer, ok bool) {
	r := p.r
	for attempt := 0; ctx.Err() == nil; attempt++ {
		p.mu.Lock()
		i := p.server
		p.mu.Unlock()
		var err error
		a, err = r.clients[i].doAs(ctx, method, path, body, p.cookie)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return a, false
			}
			r.disconnect(errorKind(err), fmt.Sprintf("%s %s as %s: %v", method, path, p.name, err))
		case a.status != http.StatusTooManyRequests && a.status != http.StatusServiceUnavailable:
			return a, true
		}
		if !sleepCtx(ctx, retryDelay(a, attempt)) {
			return a, false
		}
	}
	return a, false
}

// retryDelay is how long to wait before trying a request again after a
// (or no) answer: as the server says, else growing with the attempts.
func retryDelay(a answer, attempt int) time.Duration {
	if a.retryAfter > 0 {
		return a.retryAfter
	}
	return min(100*time.Millisecond<<min(attempt, 5), 3*time.Second)
}

// sleepCtx waits for d, and says false if ctx ended first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
