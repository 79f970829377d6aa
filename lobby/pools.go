package lobby

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// Pool is a quick-pairing pool: 8 holes, 4 seeds, one time control.
type Pool struct {
	ID    string
	Clock game.Clock
}

// Pools are the lobby's pools.
var Pools = func() []Pool {
	var out []Pool
	for _, c := range []struct{ minutes, inc, days int }{{1, 0, 0}, {3, 2, 0}, {5, 3, 0}, {10, 5, 0}, {0, 0, 3}} {
		clock, _ := play.Clock(c.minutes, c.inc, c.days) // fixed values: they are valid
		id := fmt.Sprintf("8-%d+%d", c.minutes, c.inc)
		if c.days > 0 {
			id = fmt.Sprintf("8-%dd", c.days)
		}
		out = append(out, Pool{ID: id, Clock: clock})
	}
	return out
}()

const (
	poolHoles = 8
	poolSeeds = 4
)

func poolByID(id string) (Pool, error) {
	for _, p := range Pools {
		if p.ID == id {
			return p, nil
		}
	}
	return Pool{}, errorf(ErrNotFound, "no pool %q", clip(id))
}

// poolViews are the pools as account me sees them, from the places in
// them (the seeks with a pool).
func poolViews(places []seek.Seek, me string) []PoolView {
	waiting, mine := map[string]int{}, map[string]bool{}
	for _, sk := range places {
		if sk.Pool == "" {
			continue
		}
		waiting[sk.Pool]++
		if me != "" && sk.Owner.ID == me {
			mine[sk.Pool] = true
		}
	}
	out := make([]PoolView, 0, len(Pools))
	for _, p := range Pools {
		out = append(out, PoolView{ID: p.ID, Holes: poolHoles, Seeds: poolSeeds, Clock: clockOf(p.Clock),
			Category: ratings.Category(poolHoles, p.Clock), Waiting: waiting[p.ID], Mine: mine[p.ID]})
	}
	return out
}

// PoolsFor reads the pools' places once, and returns the pools as each
// account sees them ("" for nobody).
func (l *Lobby) PoolsFor(ctx context.Context) (func(me string) []PoolView, error) {
	all, err := l.st.Seeks(ctx)
	if err != nil {
		return nil, err
	}
	return func(me string) []PoolView { return poolViews(all, me) }, nil
}

// JoinPool gives player me a place in pool id, rated or casual, and asks
// for a wave of pairing. Bots do not enter the pools.
func (l *Lobby) JoinPool(ctx context.Context, me seek.Player, id string, rated bool) error {
	p, err := poolByID(id)
	if err != nil {
		return err
	}
	if me.Bot {
		return errorf(ErrForbidden, "bots do not enter the pools: post a seek instead")
	}
	sk := &seek.Seek{ID: newID(), Owner: me, Pool: p.ID, Holes: poolHoles, Seeds: poolSeeds, Clock: p.Clock, Rated: rated,
		Created: l.now().UTC().Truncate(time.Millisecond)}
	events := []Event{poolsChanged}
	if err := l.st.AddSeek(ctx, sk, MaxOpenSeeks, l.noticeOf(events)); err != nil {
		if errors.Is(err, game.ErrExists) {
			return errorf(ErrConflict, "you are in this pool already")
		}
		return err
	}
	l.tell(events)
	l.Kick()
	return nil
}

// LeavePool takes player me's place in pool id away, if there is one.
func (l *Lobby) LeavePool(ctx context.Context, me seek.Player, id string) error {
	p, err := poolByID(id)
	if err != nil {
		return err
	}
	all, err := l.st.Seeks(ctx)
	if err != nil {
		return err
	}
	events := []Event{poolsChanged}
	for _, sk := range all {
		if sk.Pool == p.ID && sk.Owner.ID == me.ID {
			err := l.st.DeleteSeek(ctx, sk.ID, me.ID, l.noticeOf(events))
			if err != nil && !errors.Is(err, game.ErrNotFound) {
				return err
			}
			l.tell(events)
		}
	}
	return nil
}

// Kick asks Run for a wave of pairing now.
func (l *Lobby) Kick() {
	select {
	case l.kick <- struct{}{}:
	default:
	}
}

// Pool pairing: the gap in rating two waiting players accept grows with
// the time each has waited.
const (
	poolGapStart  = 100 // rating points at once
	poolGapGrowth = 50  // more points each second waited
)

func poolGap(waited time.Duration) float64 {
	return poolGapStart + poolGapGrowth*max(0, waited.Seconds())
}

// poolPairs chooses the pairs to make among the places waiting in one
// pool at now, each place at most once: the longest waiting first, each
// with the nearest in rating among those it and they accept (poolGap),
// rated with rated, never an account with itself or two players of whom
// one blocks the other.
func poolPairs(places []seek.Seek, rs map[string]rated, now time.Time, blocked func(a, b string) bool) [][2]int {
	order := make([]int, len(places))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return places[order[i]].Created.Before(places[order[j]].Created) })
	used := make([]bool, len(places))
	var pairs [][2]int
	for k, i := range order {
		if used[i] {
			continue
		}
		a := places[i]
		ra := rs[a.Owner.ID].rating
		best, bestGap := -1, 0.0
		for _, j := range order[k+1:] {
			b := places[j]
			if used[j] || b.Rated != a.Rated || b.Owner.ID == a.Owner.ID {
				continue
			}
			gap := abs(ra - rs[b.Owner.ID].rating)
			if gap > poolGap(now.Sub(a.Created)) || gap > poolGap(now.Sub(b.Created)) || best >= 0 && gap >= bestGap {
				continue
			}
			if blocked(a.Owner.ID, b.Owner.ID) {
				continue
			}
			best, bestGap = j, gap
		}
		if best >= 0 {
			used[i], used[best] = true, true
			pairs = append(pairs, [2]int{i, best})
		}
	}
	return pairs
}

// poolPairsAtOnce is how many of a wave's pairings are made at once: each
// is a transaction, mostly waiting on the database.
const poolPairsAtOnce = 8

// Match is a wave of pairing: it pairs the players waiting in the pools
// who accept each other (poolPairs). Every instance does this; the store
// settles races between them: a pair one of whose places another
// instance took is refused, and its other player waits for the next wave.
func (l *Lobby) Match(ctx context.Context) {
	all, err := l.st.Seeks(ctx)
	if err != nil {
		if ctx.Err() == nil {
			l.log.Warn("reading the pools", "err", err)
		}
		return
	}
	byPool := map[string][]seek.Seek{}
	for _, sk := range all {
		if sk.Pool != "" {
			byPool[sk.Pool] = append(byPool[sk.Pool], sk)
		}
	}
	now := l.now()
	blocked := func(a, b string) bool {
		bl, err := l.st.Blocked(ctx, a, b)
		return err != nil || bl // unknown counts as blocked: try again next wave
	}
	for _, p := range Pools {
		places := byPool[p.ID]
		if len(places) < 2 {
			continue
		}
		ids := make([]string, len(places))
		for i, sk := range places {
			ids[i] = sk.Owner.ID
		}
		pairs := poolPairs(places, l.ratingsIn(ctx, ratings.Category(poolHoles, p.Clock), ids), now, blocked)
		// The pairs are disjoint: they are made several at once. Every
		// instance chooses the same pairs from the same places, so each
		// starts at a place of its own in the list, and they meet (and
		// conflict) only where their shares overlap.
		from := 0
		if len(pairs) > 0 {
			from = rand.IntN(len(pairs))
		}
		var wg sync.WaitGroup
		gate := make(chan struct{}, poolPairsAtOnce)
		for i := range pairs {
			pr := pairs[(from+i)%len(pairs)]
			a, b := places[pr[0]], places[pr[1]]
			first := rules.Side(rand.IntN(2))
			var players [2]seek.Player
			players[first], players[first.Opponent()] = a.Owner, b.Owner
			pm := pairing{holes: poolHoles, seeds: poolSeeds, clock: p.Clock, rated: a.Rated, players: players,
				seeks: []string{a.ID, b.ID}, events: []Event{poolsChanged}}
			gate <- struct{}{}
			wg.Go(func() {
				defer func() { <-gate }()
				if _, err := l.pair(ctx, &pm); err != nil && !errors.Is(err, game.ErrConflict) &&
					!errors.Is(err, game.ErrNotFound) && ctx.Err() == nil {
					l.log.Warn("pairing in a pool", "pool", p.ID, "err", err)
				}
			})
		}
		wg.Wait()
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
