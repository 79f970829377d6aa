package server

// The carrying of the notices between instances (package bus): PostgreSQL's
// NOTIFY, sent by each change's own transaction, or a message bus (NATS,
// Redis), to which the store hands each change's notice once it has
// committed. A bus may lose notices; the revisions catch up (fanout.go).

import (
	"context"
	"errors"

	"github.com/endodoi/endodoi/store"
)

// sharedStore is a store that several instances share (store.Postgres):
// it reads the games' revisions, and carries notices unless a bus does.
type sharedStore interface {
	store.Notifier
	Listening() error
}

// noticeSender is a store that can hand the notices of its changes to a
// bus after their commit (store.Postgres).
type noticeSender interface {
	SendNotices(send func(notice string))
}

// publish publishes the notice of a change once the store has committed
// it: the bus does not wait, and counts what it cannot send.
func (s *Server) publish(notice string) {
	if err := s.bus.Notify(context.WithoutCancel(s.ctx), notice); err != nil {
		s.log.Warn("telling the other instances of a change", "err", err)
	}
}

// reachStore makes one round trip to the database, for the vigil of an
// instance whose bus is not the database.
func (s *Server) reachStore(ctx context.Context) error {
	p, ok := s.store.(store.Pinger)
	if !ok {
		return errors.New("a store that cannot be pinged")
	}
	return p.Ping(ctx)
}
