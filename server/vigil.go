package server

// An instance cut off from the database it shares with others (a link cut
// or gone silent), or that no longer hears the other instances' notices,
// cannot tell its live clients of the moves made elsewhere, nor take
// theirs: it sends them away, to the others. Every vigilEvery it sends a
// notice to itself through the database, which its listener must hear
// back; after outageGrace without an answer, or without hearing itself,
// it closes its live connections with "going away" (1001) and a reason,
// so that the pages reconnect, through the load balancer, to a healthy
// instance; it refuses new live connections with 503, and its readiness
// check says why, until it is well again. Every call to the database is
// bounded besides (store.PostgresTimeout, requestTimeout), so that a
// request meanwhile is answered 503 rather than held.

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/endodoi/endodoi/api"
)

// Times of the vigil.
const (
	// vigilEvery is how often an instance checks that it reaches its
	// database and hears itself.
	vigilEvery = 500 * time.Millisecond
	// vigilTimeout bounds the round trip of one check.
	vigilTimeout = time.Second
	// outageGrace is how long an instance may go without an answer from
	// its database, or without hearing itself, before it sends its live
	// clients away: a listener that reconnects at once sends nobody away.
	outageGrace = 2 * time.Second
	// backgroundTimeout bounds each piece of the server's own work that
	// calls the database (a game relayed, flagged or expired, a listing),
	// and a live connection's setup and each of its messages.
	backgroundTimeout = 10 * time.Second
)

// heardPrefix begins the notice an instance sends itself; the rest is the
// instance's name.
const heardPrefix = "H"

// The reasons an instance sends its live clients away.
var (
	errNoDatabase = errors.New("this server cannot reach its database")
	errDeaf       = errors.New("this server cannot hear the other servers")
)

// vigil keeps what the checks found.
type vigil struct {
	now func() time.Time // the clock, which tests set

	mu       sync.Mutex
	answered time.Time // the last round trip to the database that answered
	heard    time.Time // when the instance last heard its own notice
	down     error     // why it is cut off (errNoDatabase, errDeaf), nil if not
}

// start counts the instance as well from now.
func (v *vigil) start() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.answered, v.heard = v.now(), v.now()
}

// hear records that the instance heard its own notice.
func (v *vigil) hear() {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.heard = v.now()
}

// err returns why the instance is cut off, nil if it is not.
func (v *vigil) err() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.down
}

// watchHealth checks every vigilEvery until ctx ends.
func (s *Server) watchHealth(ctx context.Context) {
	t := time.NewTicker(vigilEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			s.checkHealth(ctx)
		}
	}
}

// checkHealth makes one round trip to the database and sends the live
// clients away while the instance is cut off.
func (s *Server) checkHealth(ctx context.Context) {
	cctx, cancel := context.WithTimeout(ctx, vigilTimeout)
	var err error
	if s.bus.Transactional() {
		err = s.bus.Notify(cctx, heardPrefix+s.instance)
	} else {
		// A message bus may be down while the database is not: the
		// revisions catch up, and the clients stay. Only the database
		// is checked.
		err = s.reachStore(cctx)
		s.vigil.hear()
	}
	cancel()
	if ctx.Err() != nil {
		return
	}
	v := &s.vigil
	v.mu.Lock()
	now := v.now()
	if err == nil {
		v.answered = now
	}
	var down error
	switch {
	case now.Sub(v.answered) > outageGrace:
		down = errNoDatabase
	case now.Sub(v.heard) > outageGrace:
		down = errDeaf
	}
	was := v.down
	v.down = down
	v.mu.Unlock()
	switch {
	case down != nil:
		if was != down {
			s.log.Warn("sending the live clients away", "why", down, "err", err)
		}
		// At every check: a connection that came in meanwhile goes too.
		s.sendAway(down)
	case was != nil:
		s.log.Info("well again: taking live clients", "was", was)
	}
}

// heard acts on a notice an instance sent itself, or another did.
func (s *Server) heard(payload string) {
	if payload == heardPrefix+s.instance {
		s.vigil.hear()
	}
}

// sendAway closes every live connection of this instance, a game's or the
// lobby's, with "going away" and why.
func (s *Server) sendAway(why error) {
	e := endNoDatabase
	if errors.Is(why, errDeaf) {
		e = endDeaf
	}
	s.live.dropAll(e)
	h := &s.lobbyHub
	h.mu.Lock()
	defer h.mu.Unlock()
	for c := range h.conns {
		c.end.set(e)
		c.drop()
	}
}

// cutOff refuses a new live connection while the instance is cut off.
func (s *Server) cutOff() error {
	err := s.vigil.err()
	if err == nil {
		return nil
	}
	return &api.Error{Status: http.StatusServiceUnavailable, RetryAfter: 1,
		Msg: err.Error() + ": connect again, to another server"}
}

// isWebSocket reports whether r asks for a WebSocket.
func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
