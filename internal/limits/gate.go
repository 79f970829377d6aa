package limits

import (
	"context"
	"runtime"
	"sync"
)

// Gate bounds the requests that set a game's players up (creating a
// game, joining it, opening a live connection and saying hello on it) at
// work at once. After a restart every client reconnects in the same
// second: unbounded, those thousands of reads and views would take the
// cores and the readers' pool from the moves of the games being played,
// which wait behind them. Bounded, they queue here, and a move waits
// behind a few of them at most. The moves themselves never pass the gate.
//
// A caller enters before it takes a game's lock, never while holding one.
// The zero value is ready to use.
type Gate struct {
	once  sync.Once
	slots chan struct{}
}

// SetupsPerCore is the setups at work at once for each core: enough to
// keep the store's writer batching a burst's joins, few enough that a
// move is never far back in the queues of the cores and the readers.
const SetupsPerCore = 2

// Enter waits for a free slot; it returns the function that frees it, or
// ctx's error if ctx ends first.
func (g *Gate) Enter(ctx context.Context) (leave func(), err error) {
	g.once.Do(func() { g.slots = make(chan struct{}, SetupsPerCore*runtime.GOMAXPROCS(0)) })
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
