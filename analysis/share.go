package analysis

// Search time shared fairly between clients. Each client runs at most its
// share of the search slots at once, the others it asks for waiting their
// turn among its own (a quarter of the instance's queue at most); its
// analyses and hints take at most Options.AnalysisTime of engine time a
// minute; and an analysis that has run for analysisSlice gives way, cut
// short with what it has found, when another client's search waits. The
// computer's moves of games being played have slots of their own besides
// (Options.MoveSearches), and cut an analysis at once when those are taken
// too: one client's analyses cannot make anyone's game wait. A client is
// what the server says a request comes from (ForClient); one on this
// machine is not held to its share (limits.Limited).

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/endodoi/endodoi/internal/limits"
)

// Kind says which searches a request's are.
type Kind int

const (
	Analyses Kind = iota // analyses and hints
	Moves                // the computer's moves
)

// searchTicket is who asks for a search, and for what.
type searchTicket struct {
	client netip.Prefix
	kind   Kind
}

type ticketKey struct{}

// analysisSlice is how long an analysis runs before it gives way to
// another client's waiting search.
const analysisSlice = time.Second

// ForClient marks the searches made for ctx as searches of kind for
// client.
func ForClient(ctx context.Context, client netip.Prefix, kind Kind) context.Context {
	return context.WithValue(ctx, ticketKey{}, searchTicket{client: client, kind: kind})
}

// ticketOf is the ticket of a search made for ctx; without one, an
// analysis of no known client.
func ticketOf(ctx context.Context) searchTicket {
	t, _ := ctx.Value(ticketKey{}).(searchTicket)
	return t
}

// share keeps each client's searches.
type share struct {
	share  int
	queue  int     // searches a client may have waiting for its share
	perSec float64 // analysis seconds a client gains each second
	budget float64 // the most analysis seconds a client keeps
	moves  chan struct{}

	mu      sync.Mutex
	clients map[netip.Prefix]*clientSearches
	running map[*runningAnalysis]struct{}
}

// clientSearches are one client's searches: gate holds one token for each
// running; waiting counts those waiting for the gate; tokens are the
// seconds of analysis it has left (refilled since last).
type clientSearches struct {
	gate    chan struct{}
	waiting int
	held    int // running or waiting
	tokens  float64
	last    time.Time
}

// runningAnalysis is an analysis holding a slot, which cut ends early.
type runningAnalysis struct {
	client netip.Prefix
	start  time.Time
	cut    context.CancelFunc
	cutAt  *time.Timer // set once it has been asked to give way
}

func newShare(o Options) *share {
	budget := o.AnalysisTime.Seconds()
	return &share{share: o.SearchShare, queue: max(o.SearchShare, o.SearchQueue/4), perSec: budget / 60, budget: budget,
		moves: make(chan struct{}, o.MoveSearches), clients: map[netip.Prefix]*clientSearches{},
		running: map[*runningAnalysis]struct{}{}}
}

// client returns the searches of client, with its analysis time
// refilled; the caller holds sh.mu.
func (sh *share) client(client netip.Prefix, now time.Time) *clientSearches {
	c := sh.clients[client]
	if c == nil {
		if len(sh.clients) >= limits.MaxClients {
			for k, old := range sh.clients {
				if old.held == 0 && old.tokens+now.Sub(old.last).Seconds()*sh.perSec >= sh.budget {
					delete(sh.clients, k)
				}
			}
		}
		if len(sh.clients) >= limits.MaxClients {
			client = netip.Prefix{} // the rest share one record
			if c = sh.clients[client]; c != nil {
				return sh.refill(c, now)
			}
		}
		c = &clientSearches{gate: make(chan struct{}, sh.share), tokens: sh.budget, last: now}
		sh.clients[client] = c
	}
	return sh.refill(c, now)
}

func (sh *share) refill(c *clientSearches, now time.Time) *clientSearches {
	c.tokens = min(sh.budget, c.tokens+now.Sub(c.last).Seconds()*sh.perSec)
	c.last = now
	return c
}

// acquire takes a search slot of sl for the search ctx's ticket names,
// within its client's share. It returns the context to search with (an
// analysis's ends when it must give way) and the function that frees the
// slot and charges the time taken.
func (sh *share) acquire(ctx context.Context, sl *slots) (context.Context, func(), error) {
	t := ticketOf(ctx)
	if !limits.Limited(t.client) {
		return sh.slot(ctx, sl, t, func() {}, func(time.Duration) {})
	}
	now := time.Now()
	sh.mu.Lock()
	c := sh.client(t.client, now)
	if t.kind == Analyses && c.tokens <= 0 {
		wait := time.Duration(-c.tokens/sh.perSec*float64(time.Second)) + time.Second
		sh.mu.Unlock()
		return nil, nil, limits.TooMany(wait, "your analyses have had their share of the engine's time (%v a minute); try again in %s",
			time.Duration(sh.budget*float64(time.Second)), limits.WaitText(wait))
	}
	if waiting := c.waiting; waiting >= sh.queue {
		sh.mu.Unlock()
		return nil, nil, limits.TooMany(2*time.Second, "your address has as many searches under way as it may (%d running and %d waiting); wait for their answers", sh.share, waiting)
	}
	c.waiting++
	c.held++
	sh.mu.Unlock()
	leave := func() {
		sh.mu.Lock()
		c.held--
		sh.mu.Unlock()
	}
	err := sh.enter(ctx, c, sl.wait)
	sh.mu.Lock()
	c.waiting--
	sh.mu.Unlock()
	if err != nil {
		leave()
		return nil, nil, err
	}
	out := func() { <-c.gate; leave() }
	charge := func(took time.Duration) {
		if t.kind == Analyses {
			sh.mu.Lock()
			c.tokens -= took.Seconds()
			sh.mu.Unlock()
		}
	}
	return sh.slot(ctx, sl, t, out, charge)
}

// slot takes a search slot of sl for ticket t once the client's share
// allows it; out gives the client's place back and charge charges it the
// time the search took, when the slot is freed.
func (sh *share) slot(ctx context.Context, sl *slots, t searchTicket, out func(), charge func(time.Duration)) (context.Context, func(), error) {
	if t.kind == Moves {
		release, err := sh.moveSlot(ctx, sl)
		if err != nil {
			out()
			return nil, nil, err
		}
		return ctx, func() { release(); out() }, nil
	}
	if len(sl.run) == cap(sl.run) {
		sh.giveWay(t.client, analysisSlice)
	}
	release, err := sl.acquire(ctx)
	if err != nil {
		out()
		return nil, nil, err
	}
	actx, cut := context.WithCancel(ctx)
	ra := &runningAnalysis{client: t.client, start: time.Now(), cut: cut}
	sh.mu.Lock()
	sh.running[ra] = struct{}{}
	sh.mu.Unlock()
	return actx, func() {
		cut()
		sh.mu.Lock()
		delete(sh.running, ra)
		if ra.cutAt != nil {
			ra.cutAt.Stop()
		}
		sh.mu.Unlock()
		charge(time.Since(ra.start))
		release()
		out()
	}, nil
}

// enter waits for a place among the searches c may run at once.
func (sh *share) enter(ctx context.Context, c *clientSearches, wait time.Duration) error {
	select {
	case c.gate <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case c.gate <- struct{}{}:
		return nil
	case <-t.C:
		return busyError()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// moveSlot takes a slot for a computer's move: a shared one, else one of
// the moves' own, else the first freed, an analysis giving way at once.
func (sh *share) moveSlot(ctx context.Context, sl *slots) (func(), error) {
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	case sh.moves <- struct{}{}:
		return func() { <-sh.moves }, nil
	default:
	}
	select {
	case sl.waiting <- struct{}{}:
	default:
		return nil, busyError()
	}
	defer func() { <-sl.waiting }()
	sh.giveWay(netip.Prefix{}, 0)
	t := time.NewTimer(sl.wait)
	defer t.Stop()
	select {
	case sl.run <- struct{}{}:
		return func() { <-sl.run }, nil
	case sh.moves <- struct{}{}:
		return func() { <-sh.moves }, nil
	case <-t.C:
		return nil, busyError()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// giveWay asks the oldest running analysis of another client than
// waiter (of any, for the zero prefix) to end once it has run for slice.
func (sh *share) giveWay(waiter netip.Prefix, slice time.Duration) {
	sh.mu.Lock()
	defer sh.mu.Unlock()
	var oldest *runningAnalysis
	for ra := range sh.running {
		if ra.cutAt != nil || (waiter.IsValid() && ra.client == waiter) {
			continue
		}
		if oldest == nil || ra.start.Before(oldest.start) {
			oldest = ra
		}
	}
	if oldest != nil {
		oldest.cutAt = time.AfterFunc(time.Until(oldest.start.Add(slice)), oldest.cut)
	}
}
