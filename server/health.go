package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/store"
)

// Health checks of a load balancer (docs/deploy.md).
const (
	// readyTimeout bounds the database round trip of a readiness check.
	readyTimeout = time.Second
	// readyFresh is how long a readiness answer is reused: however often
	// the probes come, the database sees at most a few pings a second.
	readyFresh = 250 * time.Millisecond
	// listenWait is how long a server sharing its database waits for its
	// notice listener before it serves anyway (and says it is not ready).
	listenWait = 10 * time.Second
)

// Ready returns nil when the server can serve: its database answers a
// ping within a second and, on a database that several instances share,
// it hears the others' notices; and its vigil has not found it cut off
// from either (vigil.go). The schema is up to date once the store is open
// (it migrates when it opens), so that needs no check.
func (s *Server) Ready(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	if p, ok := s.store.(store.Pinger); ok {
		if err := p.Ping(ctx); err != nil {
			return fmt.Errorf("database unreachable: %w", err)
		}
	}
	// PostgreSQL's NOTIFY is the database: an instance that does not hear
	// it is cut off. A message bus (NATS, Redis) down is caught up on
	// through the database: the instance still serves.
	if s.bus != nil && s.bus.Transactional() {
		if err := s.bus.Listening(); err != nil {
			return err
		}
	}
	switch err := s.vigil.err(); {
	case errors.Is(err, errDeaf):
		return store.ErrNotListening
	case err != nil:
		return fmt.Errorf("%w (%w)", errDatabase, err)
	}
	return nil
}

// waitListening waits, up to listenWait or ctx's end, for a server that
// shares its database to hear the other instances: a client served
// before that would miss the moves made through them.
func (s *Server) waitListening(ctx context.Context) error {
	if s.bus == nil {
		return nil
	}
	deadline := time.Now().Add(listenWait)
	for {
		err := s.bus.Listening()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// health answers the probes of load balancers and process supervisors:
// /healthz (alive: 200 as long as the process serves) and /readyz (200
// when the server can serve, 503 when it cannot or is stopping). Both
// pass before the Host check: they show nothing of the games and change
// nothing, and a load balancer probes an instance by its address, which
// may not be a name the site answers to.
type health struct {
	api      *Server
	stopping atomic.Bool // set once the server is stopping: not ready
	probed   atomic.Bool // someone asked /readyz: a load balancer watches

	mu      sync.Mutex
	checked time.Time // of the last readiness check
	last    error     // its answer
}

// wrap answers the probes and passes every other request to next.
func (h *health) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var err error
		switch r.URL.Path {
		case "/healthz":
		case "/readyz":
			h.probed.Store(true)
			err = h.ready(r.Context())
		default:
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		switch {
		case r.Method != http.MethodGet && r.Method != http.MethodHead:
			w.Header().Set("Allow", "GET, HEAD")
			w.WriteHeader(http.StatusMethodNotAllowed)
			fmt.Fprintf(w, "%s is not allowed on %s; use GET\n", r.Method, r.URL.Path)
		case err != nil:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintf(w, "not ready: %v\n", err)
		default:
			fmt.Fprintln(w, "ok")
		}
	})
}

var (
	errStopping = errors.New("stopping")
	errDatabase = errors.New("database unreachable")
)

// ready is the readiness answer, checked again when the last is older
// than readyFresh. The reasons it gives are the kind of trouble, without
// the database's address.
func (h *health) ready(ctx context.Context) error {
	if h.stopping.Load() {
		return errStopping
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if time.Since(h.checked) >= readyFresh {
		err := h.api.Ready(ctx)
		if err != nil && !errors.Is(err, store.ErrNotListening) {
			// The full error names the database; the probe's answer
			// says only what kind of trouble it is.
			if h.last == nil {
				h.api.log.Warn("not ready", "err", err)
			}
			err = errDatabase
		} else if err != nil && h.last == nil {
			h.api.log.Warn("not ready", "err", err)
		}
		if err == nil && h.last != nil && !h.checked.IsZero() {
			h.api.log.Info("ready again")
		}
		h.last, h.checked = err, time.Now()
	}
	return h.last
}
