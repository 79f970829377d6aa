package engine

import (
	"context"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// BenchPositions are the positions Bench searches: the starts of the
// traditional board sizes, middle games and a few small endgames.
var BenchPositions = []string{
	"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0",
	"4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0",
	"4,4,4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4,4,4 s 0 0",
	"6,6,2,7,0,6/1,0,6,6,0,1 n 7 0",
	"0,6,4,0,3,2,1,0,2,0/1,7,2,6,4,1,1,5,2,4 s 27 2",
	"2,0,6,1,2,2,2,4,4,2/5,3,3,1,5,2,6,5,4,2 s 1 4",
	"4,2,3,0,3,6,2,7,9/6,7,3,6,8,6,7,3,2 n 9 10",
	"0,0,2,0,1,1,1,1/0,1,1,1,1,0,0,0 s 17 21",
	"3,1,0,2,0,1/0,2,1,0,3,1 n 12 18",
	"1,0,2,0,0,1/0,1,0,2,0,0 s 20 19",
}

// DefaultBenchDepth is the depth Bench is run to unless told otherwise.
const DefaultBenchDepth = 12

// Bench searches each of BenchPositions to depth, each from an empty
// transposition table, and returns the nodes and time of all the
// searches. On one thread the node count is a signature of the search: a
// change that alters what the search does almost always changes it.
// report, if not nil, receives each search's position and result as it
// ends.
func (e *Engine) Bench(ctx context.Context, depth int, report func(p string, res Result)) (nodes uint64, elapsed time.Duration, err error) {
	for _, s := range BenchPositions {
		p := rules.MustParsePosition(s)
		e.NewGame()
		res, err := e.Search(ctx, p, nil, Limits{Depth: depth}, nil)
		if err != nil {
			return nodes, elapsed, err
		}
		if ctx.Err() != nil {
			return nodes, elapsed, ctx.Err()
		}
		nodes += res.Nodes
		elapsed += res.Elapsed
		if report != nil {
			report(s, res)
		}
	}
	return nodes, elapsed, nil
}
