package store

// What a site's monitoring reads from a store: its commits as they happen
// (Observer) and its connection pool when asked (PoolStats). The store
// knows nothing of the monitoring system; the server translates.

import (
	"sync/atomic"
	"time"
)

// Observer is told of every transaction a store commits. Its method is
// called on the store's write path, so it must be quick and safe for
// concurrent use.
type Observer interface {
	// Committed says that a transaction carrying writes changes was
	// committed, took after its start: on SQLite the writer's batch (see
	// writer.go), on PostgreSQL the games' changes gathered (pggather.go)
	// or one other change.
	Committed(writes int, took time.Duration)
}

// Observable is a store that tells an Observer of its commits; both
// engines are.
type Observable interface {
	// SetObserver makes o the store's observer, replacing any; nil for
	// none.
	SetObserver(o Observer)
}

// observed keeps a store's Observer; the engines embed it (through core).
type observed struct {
	obs atomic.Pointer[Observer]
}

// SetObserver implements Observable.
func (o *observed) SetObserver(obs Observer) {
	if obs == nil {
		o.obs.Store(nil)
		return
	}
	o.obs.Store(&obs)
}

// committed tells the observer, if any, of a commit of writes changes
// begun at start.
func (o *observed) committed(writes int, start time.Time) {
	if p := o.obs.Load(); p != nil {
		(*p).Committed(writes, time.Since(start))
	}
}

// PoolStats describe a store's pool of database connections at one
// moment: on PostgreSQL the pool of every query, on SQLite the readers'
// pool (its one writer has a connection of its own).
type PoolStats struct {
	Max, Open, InUse, Idle int
	// Waits counts the connections asked for when none was free, and
	// WaitTime the time spent waiting for them, since the store opened.
	Waits    int64
	WaitTime time.Duration
}

// Pooled is a store that reports on its connection pool; both engines
// are.
type Pooled interface {
	PoolStats() PoolStats
}

// PoolStats implements Pooled.
func (p *Postgres) PoolStats() PoolStats {
	st := p.pool.Stat()
	return PoolStats{Max: int(st.MaxConns()), Open: int(st.TotalConns()), InUse: int(st.AcquiredConns()),
		Idle: int(st.IdleConns()), Waits: st.EmptyAcquireCount(), WaitTime: st.EmptyAcquireWaitTime()}
}

// PoolStats implements Pooled.
func (s *SQLite) PoolStats() PoolStats {
	st := s.r.Stats()
	return PoolStats{Max: st.MaxOpenConnections, Open: st.OpenConnections, InUse: st.InUse, Idle: st.Idle,
		Waits: st.WaitCount, WaitTime: st.WaitDuration}
}

var (
	_ Observable = (*SQLite)(nil)
	_ Observable = (*Postgres)(nil)
	_ Pooled     = (*SQLite)(nil)
	_ Pooled     = (*Postgres)(nil)
)
