package server

// The limits no single client can exhaust (package limits), as the
// requests meet them: its live connections, the games and invitations it
// creates. A client is what clientOf says: an IP address, or an IPv6 /64.

import (
	"context"
	"errors"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// ClientLimits bound what one client may hold or make at once
// (limits.ClientLimits).
type ClientLimits = limits.ClientLimits

// liveHandler answers a live connection's request. Once it has upgraded
// the connection, it returns the connection's life, serve, which
// liveLimited runs on a goroutine of its own after the handler has
// returned: the HTTP server's goroutine for the request, the request with
// its headers, and the buffers and contexts of its answer are let go,
// instead of being kept as long as the connection. serve must not use the
// request, whose context has ended by then (the log of a panic names its
// path alone). nil: the handler has answered.
type liveHandler func(w http.ResponseWriter, r *http.Request) (serve func())

// liveLimited wraps the live connection's handler with the limits on
// live connections: a refusal is an HTTP answer, before the upgrade, and
// the count lasts as long as the connection.
func (s *Server) liveLimited(h liveHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.cutOff(); err != nil {
			s.fail(w, r, err)
			return
		}
		done, err := s.clients.OpenLive(clientOf(r, s.trustProxy))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		serve := h(w, r)
		if serve == nil {
			done()
			return
		}
		path := logPath(r) // r is let go: not kept by what follows
		go func() {
			defer done()
			// As the HTTP server does for a handler: a panic ends this
			// connection alone, not the process.
			defer func() {
				if v := recover(); v != nil {
					s.log.Error("a live connection failed", "path", path, "panic", v, "stack", string(debug.Stack()))
				}
			}()
			serve()
		}()
	}
}

// creationLimited wraps POST /api/games with the client's games an hour:
// a creation refused (a bad request, or one over the client's other
// limits) gives its game back.
func (s *Server) creationLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		client := clientOf(r, s.trustProxy)
		if !limits.Limited(client) {
			h(w, r)
			return
		}
		if err := s.clients.CreateGame(client, time.Now()); err != nil {
			s.fail(w, r, err)
			return
		}
		cw := &statusWriter{ResponseWriter: w}
		h(cw, r)
		if cw.code >= 400 {
			s.clients.RefundGame(client)
		}
	}
}

// lobbyLimited wraps a lobby's write with the client's budget l, whose
// refusal says what "too many" of (and the limit); clients on this
// machine are not limited (limits.Limited).
func (s *Server) lobbyLimited(l *limits.Limiter, what string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if client := clientOf(r, s.trustProxy); limits.Limited(client) {
			if ok, wait := l.Allow(client, time.Now()); !ok {
				s.fail(w, r, limits.TooMany(wait, "too many %s; try again in %s", what, limits.WaitText(wait)))
				return
			}
		}
		h(w, r)
	}
}

// createInvite creates online game sg for the client of r, within its
// invitations an hour and its invitations waiting for an opponent
// (limits.Clients.Invite), and returns it with its creator's seat token
// (play.Table.CreateOnline); a creator signed in holds the seat with their
// account too.
func (s *Server) createInvite(r *http.Request, sg *game.Game, creator rules.Side, clock game.Clock, series int) (g *play.Game, token string, err error) {
	defer func() {
		if err == nil {
			s.claimSeat(r, token)
		}
	}()
	client := clientOf(r, s.trustProxy)
	if !limits.Limited(client) {
		return s.table.CreateOnline(r.Context(), sg, creator, clock, series)
	}
	err = s.clients.Invite(r.Context(), client, s.waitingForOpponent, func() (string, error) {
		if g, token, err = s.table.CreateOnline(r.Context(), sg, creator, clock, series); err != nil {
			return "", err
		}
		return g.ID(), nil
	})
	return g, token, err
}

// waitingForOpponent reports whether online game id still waits for an
// opponent.
func (s *Server) waitingForOpponent(ctx context.Context, id string) (bool, error) {
	sg, err := s.store.Game(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil || sg.Online == nil {
		return false, err
	}
	_, free := play.FreeSeat(sg.Online)
	return free && sg.Online.End == "" && sg.Result == "*", nil
}
