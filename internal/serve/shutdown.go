package serve

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"time"

	"github.com/endodoi/endodoi/server"
)

// stopping stops a server whose context has ended, so that a rolling
// restart loses nothing and the clients barely notice:
//
//  1. /readyz answers 503 at once;
//  2. if a load balancer has probed /readyz, the server keeps serving for
//     the drain time, until the balancer has seen that and sends nothing
//     new (a server never probed has no one to tell, and skips this);
//  3. it stops accepting connections, and the live connections are closed
//     with "going away": their pages reconnect, through the balancer to
//     another instance;
//  4. the requests in flight finish, and the live connections' last
//     actions;
//  5. at the timeout, counted from the context's end, whatever still runs
//     is cut off.
//
// Then ListenAndServe returns, and its caller closes the store, which
// commits the writes still queued.
type stopping struct {
	log     *slog.Logger
	probes  *health
	running []served
	done    <-chan error // the result of each server's Serve
	waited  int          // results taken from done already
	stopAPI func()       // ends the API's work (clocks, notices, reviews)
	cancel  func()       // ends the requests' contexts
	drain   time.Duration
	timeout time.Duration
	api     *server.Server // its live connections are told to go
}

// run stops the servers in the order above.
func (s *stopping) run() error {
	if s.timeout <= 0 {
		s.timeout = DefaultShutdownTimeout
	}
	deadline := time.Now().Add(s.timeout)
	s.probes.stopping.Store(true)
	// A server behind a load balancer tells its log how the stop goes; a
	// server on a desk stops as quietly as it ran.
	watched := s.probes.probed.Load()
	if s.drain > 0 && watched {
		s.log.Info("stopping: not ready any more; draining", "drain", s.drain)
		time.Sleep(min(s.drain, time.Until(deadline)/2))
	}
	if watched {
		s.log.Info("stopping: no new connections; finishing the requests in flight")
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	errs := make(chan error, len(s.running))
	for _, r := range s.running {
		go func() { errs <- r.srv.Shutdown(ctx) }()
	}
	// The live connections are not the HTTP server's any more: they are
	// told to go, and each ends once the action it may be carrying out is
	// done.
	s.api.GoAway()
	var err error
	for range s.running {
		err = errors.Join(err, <-errs)
	}
	for s.api.LiveConnections() > 0 && ctx.Err() == nil {
		s.api.GoAway() // those opened by the last upgrades under way
		time.Sleep(5 * time.Millisecond)
	}
	if err != nil || ctx.Err() != nil {
		s.log.Warn("stopping: the shutdown timeout cut off requests still running", "timeout", s.timeout)
		s.now()
		return nil
	}
	s.stopAPI()
	s.cancel()
	s.wait()
	return nil
}

// now stops the servers at once, cutting off what still runs.
func (s *stopping) now() {
	s.probes.stopping.Store(true)
	s.cancel()
	s.stopAPI()
	for _, r := range s.running {
		r.srv.Close()
	}
	s.wait()
}

// wait waits for every server's Serve to return.
func (s *stopping) wait() {
	for ; s.waited < len(s.running); s.waited++ {
		if err := <-s.done; err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Warn("serving", "err", err)
		}
	}
}
