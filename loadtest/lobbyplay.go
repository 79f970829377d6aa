package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// play plays the game id on side over the game's WebSocket, with the
// client's session, until it ends or ctx is done. A dropped connection is
// opened again, on the next server if its own no longer answers.
func (p *lobbyPlayer) play(ctx context.Context, id, side string) {
	r := p.r
	g := r.game(id)
	path := "/api/games/" + url.PathEscape(id) + "/live" + liveQuery
	for first := true; ctx.Err() == nil; first = false {
		if !first {
			r.add(func(s *lstats) { s.reconnects++ })
		}
		conn, ok := p.dial(ctx, path)
		if !ok {
			return
		}
		over, err := p.playOn(ctx, conn, g, side)
		if over {
			conn.Close(websocket.StatusNormalClosure, "")
			return
		}
		conn.CloseNow()
		if ctx.Err() == nil {
			r.disconnect(errorKind(err), fmt.Sprintf("game connection of %s: %v", p.name, err))
		}
	}
}

// playOn plays over one connection: it says hello, then moves on each of
// its turns. It returns whether the game is over, or else why the
// connection is no use any more.
func (p *lobbyPlayer) playOn(ctx context.Context, conn *websocket.Conn, g *sharedGame, side string) (bool, error) {
	r := p.r
	wctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	err := wsjson.Write(wctx, conn, map[string]string{"type": "hello"})
	cancel()
	if err != nil {
		return false, fmt.Errorf("hello: %w", err)
	}
	msgs := make(chan gameMsg, 16)
	readErr := make(chan error, 1)
	rctx, stopReading := context.WithCancel(ctx)
	defer stopReading()
	go func() {
		// last is the game as last told, which a move message follows;
		// after a gap the game is asked for again, and the moves told
		// meanwhile wait for it.
		var last *lobbyGame
		syncing := false
		for {
			_, data, err := conn.Read(rctx)
			if err != nil {
				readErr <- err
				return
			}
			var msg gameMsg
			if err := json.Unmarshal(data, &msg); err != nil {
				r.error("bad game message", fmt.Sprintf("%.200s", data))
				continue
			}
			switch msg.Type {
			case "game":
				if msg.Game != nil {
					last, syncing = msg.Game, false
				}
			case "move":
				switch {
				case syncing || last == nil || msg.Rev <= last.Rev():
					continue // told already, or to be told with the game asked for
				case !msg.follows(last.ID, last.Rev(), len(last.Moves)):
					syncing = true
					r.add(func(s *lstats) { s.syncs++ })
					if err := conn.Write(rctx, websocket.MessageText, syncMessage); err != nil {
						readErr <- err
						return
					}
					continue
				}
				g := *last
				g.Moves, g.LegalMoves, g.ToMove, g.Status = appendMove(last.Moves, msg.Move), msg.LegalMoves, msg.ToMove, msg.Status.Text
				g.Online = msg.Online
				last = &g
				msg.Type, msg.Game, msg.Event = "game", &g, "move"
			}
			select {
			case msgs <- msg:
			case <-rctx.Done():
				return
			}
		}
	}()
	interval := time.Duration(float64(time.Second) / r.cfg.Rate)
	var (
		state    *lobbyGame
		synced   bool // the first game message of this connection came
		moveAt   = time.NewTimer(time.Hour)
		silence  = time.NewTimer(silenceLimit)
		due      = -1 // the ply of the move the timer is set for
		sentPly  = -1 // the ply of the last move sent on this connection
		refusals int
	)
	moveAt.Stop()
	defer moveAt.Stop()
	defer silence.Stop()
	send := func(v any) error {
		wctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		defer cancel()
		return wsjson.Write(wctx, conn, v)
	}
	for {
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case err := <-readErr:
			return false, err
		case <-silence.C:
			return false, fmt.Errorf("nothing for %v", silenceLimit)
		case ply := <-g.race[sideIndex(side)]:
			// The opponent moves at ply now: resign at the same ply, at once.
			if state == nil || state.Status != "playing" {
				continue
			}
			r.add(func(s *lstats) { s.raced++ })
			if err := send(map[string]any{"type": "action", "action": "resign", "ply": ply}); err != nil {
				return false, fmt.Errorf("resigning: %w", err)
			}
		case <-moveAt.C:
			if state == nil || state.Status != "playing" || state.ToMove != side || len(state.Moves) != due || len(state.LegalMoves) == 0 {
				continue
			}
			ply := due
			m := state.LegalMoves[p.rng.IntN(len(state.LegalMoves))]
			at := time.Now()
			g.mu.Lock()
			g.sent[ply] = append(g.sent[ply], sentMove{side, m, at})
			race := g.raceAt >= 0 && ply >= g.raceAt
			if race {
				g.raceAt = -1 // once
			}
			g.mu.Unlock()
			if race {
				g.race[1-sideIndex(side)] <- ply
			}
			sentPly = ply
			if err := send(map[string]any{"type": "move", "move": m, "ply": ply}); err != nil {
				return false, fmt.Errorf("sending a move: %w", err)
			}
			r.add(func(s *lstats) { s.moves++ })
		case msg := <-msgs:
			silence.Reset(silenceLimit)
			switch msg.Type {
			case "game":
				if msg.Game == nil || msg.Game.Status == "" {
					r.error("bad game message", "a game message without its game")
					continue
				}
				gv := *msg.Game
				now := time.Now()
				g.observe(gv.Moves)
				if synced && msg.Event == "move" && len(gv.Moves) > 0 {
					// The move's time to reach this client, sent by the other.
					ply := len(gv.Moves) - 1
					g.mu.Lock()
					var sm sentMove
					for _, m := range g.sent[ply] {
						if m.move == gv.Moves[ply] {
							sm = m
							break
						}
					}
					g.mu.Unlock()
					if sm.side != "" && sm.side != side {
						r.add(func(s *lstats) { s.moveLat = append(s.moveLat, now.Sub(sm.at)) })
					}
				}
				synced = true
				state = &gv
				if gv.Status != "playing" {
					p.finish(g.id, gv.Status)
					return true, nil
				}
				if gv.ToMove == side && len(gv.Moves) != sentPly && len(gv.Moves) != due {
					due = len(gv.Moves)
					d := interval/2 + time.Duration(p.rng.Int64N(int64(interval)))
					moveAt.Reset(d)
				}
			case "error":
				r.add(func(s *lstats) { s.refused++ })
				if msg.Status.Code != 409 {
					r.error(fmt.Sprintf("game error %d", msg.Status.Code), msg.Error)
				}
				// A refused move (a stale ply, a race lost): move again on
				// the state as it stands, or resync after a few.
				if refusals++; refusals > maxRefusals {
					return false, fmt.Errorf("%d refusals in a row, the last %q", refusals, msg.Error)
				}
				if state != nil && state.ToMove == side && sentPly == len(state.Moves) {
					sentPly, due = -1, len(state.Moves)
					moveAt.Reset(interval)
				}
				continue
			}
			refusals = 0
		}
	}
}

// finish records how the client saw its game end.
func (p *lobbyPlayer) finish(game, status string) {
	p.mu.Lock()
	_, seen := p.results[game]
	if !seen {
		p.results[game] = status
	}
	p.mu.Unlock()
	if seen {
		return
	}
	g := p.r.game(game)
	g.mu.Lock()
	g.ended++
	both := g.ended == 2
	g.mu.Unlock()
	p.r.add(func(s *lstats) {
		s.finished++
		if both {
			s.gamesEnded++
		}
	})
}
