package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/store"
)

const (
	// readyTimeout bounds the database round trip of a readiness check.
	readyTimeout = time.Second
	// listenWait is how long a server sharing its database waits for its
	// notice listener before it serves anyway (and says it is not ready).
	listenWait = 10 * time.Second
)

// errDatabase is the kind of trouble of a server cut off from its
// database.
var errDatabase = errors.New("database unreachable")

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

// WaitListening waits, up to listenWait or ctx's end, for a server that
// shares its database to hear the other instances: a client served
// before that would miss the moves made through them.
func (s *Server) WaitListening(ctx context.Context) error {
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
