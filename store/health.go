package store

import (
	"context"
	"errors"
	"fmt"
)

// Pinger is a store that can tell cheaply whether its database answers,
// for a load balancer's readiness check. Both engines are.
type Pinger interface {
	// Ping makes one round trip to the database.
	Ping(ctx context.Context) error
}

var (
	_ Pinger = (*SQLite)(nil)
	_ Pinger = (*Postgres)(nil)
)

// Ping implements Pinger: it reads the schema version from the database
// file's header, which proves the file still there and readable.
func (s *SQLite) Ping(ctx context.Context) error {
	var v int
	if err := s.r.QueryRowContext(ctx, `PRAGMA schema_version`).Scan(&v); err != nil {
		return fmt.Errorf("reading %s: %w", s.path, err)
	}
	return nil
}

// Ping implements Pinger with an empty query on a pooled connection.
func (p *Postgres) Ping(ctx context.Context) error {
	ctx, cancel := p.bounded(ctx)
	defer cancel()
	if err := p.pool.Ping(ctx); err != nil {
		return fmt.Errorf("reaching %s: %w", p.where, err)
	}
	return nil
}

// ErrNotListening is Listening's answer while no Listen connection is
// open: notices from the other instances are not heard.
var ErrNotListening = errors.New("not listening to the other instances")

// Listening returns nil while a Listen of this store has its connection
// open and listening, ErrNotListening otherwise (before Listen's first
// connection, and while it connects again after losing one).
func (p *Postgres) Listening() error {
	if !p.listening.Load() {
		return ErrNotListening
	}
	return nil
}
