package server

import (
	"context"
	"net/http"
	"runtime"
	"sync"
)

// setupGate bounds the requests that set a game's players up (creating a
// game, joining it, opening a live connection and saying hello on it) at
// work at once. After a restart every client reconnects in the same
// second: unbounded, those thousands of reads and views would take the
// cores and the readers' pool from the moves of the games being played,
// which wait behind them. Bounded, they queue here, and a move waits
// behind a few of them at most. The moves themselves never pass the gate.
//
// A caller enters before it takes a game's lock, never while holding one.
// The zero value is ready to use.
type setupGate struct {
	once  sync.Once
	slots chan struct{}
}

// setupsPerCore is the setups at work at once for each core: enough to
// keep the store's writer batching a burst's joins, few enough that a
// move is never far back in the queues of the cores and the readers.
const setupsPerCore = 2

// enter waits for a free slot; it returns the function that frees it, or
// ctx's error if ctx ends first.
func (g *setupGate) enter(ctx context.Context) (leave func(), err error) {
	g.once.Do(func() { g.slots = make(chan struct{}, setupsPerCore*runtime.GOMAXPROCS(0)) })
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	default:
	}
	select {
	case g.slots <- struct{}{}:
		return func() { <-g.slots }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// setupLimited passes h's requests through the server's setup gate.
func (s *Server) setupLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		leave, err := s.setups.enter(r.Context())
		if err != nil {
			return // the client has gone
		}
		defer leave()
		h(w, r)
	}
}
