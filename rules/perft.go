package rules

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"
)

// Perft returns the number of legal move sequences of exactly depth moves
// from p under rules r, without the repetition rule (a sequence stops only
// where the side to move has no legal move). Perft(p, 0, r) is 1.
func Perft(p Position, depth int, r Rules) uint64 {
	if depth <= 0 {
		return 1
	}
	counts := make([]uint64, depth+1)
	PerftCounts(p, r, counts)
	return counts[depth]
}

// PerftCounts fills counts[d], for every d from 1 to len(counts)-1, with the
// number of legal move sequences of d moves from p (counts[0] is set to 1),
// in one walk of the move tree.
func PerftCounts(p Position, r Rules, counts []uint64) {
	if len(counts) == 0 {
		return
	}
	clear(counts)
	counts[0] = 1
	if len(counts) == 1 {
		return
	}
	perft(p, counts[1:], r.Laps(), r.captureInOpponentRow())
}

// perft adds to counts[0] the legal moves of p, to counts[1] the legal
// replies to each, and so on. p is passed by value so that the children's
// copies stay on the stack.
func perft(p Position, counts []uint64, laps int, cross bool) {
	n := int(p.n)
	base := int(p.toMove) * n
	for j := 0; j < n; j++ {
		if p.hole(base+j) == 0 {
			continue
		}
		q := p
		if !q.sow(base+j, laps, cross) {
			continue
		}
		counts[0]++
		if len(counts) > 1 {
			perft(q, counts[1:], laps, cross)
		}
	}
}

// MoveCount is the number of move sequences that begin with Move.
type MoveCount struct {
	Move  Move
	Count uint64
}

// PerftParallel is PerftCounts split by first move over workers goroutines
// (0 for one per core). It returns counts[d] for every d from 0 to depth,
// and for each legal first move the number of sequences of depth moves
// that begin with it. A cancelled ctx stops handing out first moves; the
// walks under way finish first.
func PerftParallel(ctx context.Context, p Position, r Rules, depth, workers int) ([]uint64, []MoveCount, error) {
	counts := make([]uint64, max(depth, 0)+1)
	counts[0] = 1
	if depth <= 0 {
		return counts, nil, nil
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	moves := p.LegalMoves(r)
	sub := make([][]uint64, len(moves))
	work := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, len(moves)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				q, _ := p.Play(moves[i], r)
				sub[i] = make([]uint64, depth)
				PerftCounts(q, r, sub[i])
			}
		}()
	}
	var err error
feed:
	for i := range moves {
		if err = ctx.Err(); err != nil {
			break
		}
		select {
		case work <- i:
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	divided := make([]MoveCount, len(moves))
	for i, m := range moves {
		for d, c := range sub[i] {
			counts[d+1] += c
		}
		divided[i] = MoveCount{Move: m, Count: sub[i][depth-1]}
	}
	return counts, divided, nil
}

// WritePerft counts the move sequences of each length from 1 to depth
// from p (PerftParallel, one worker a core) and writes a "depth count"
// line for each; with divide, then a "move count" line for each first
// move, counting the sequences of depth moves it begins. stats, if not
// nil, receives a line with the time taken and the moves a second.
func WritePerft(ctx context.Context, w, stats io.Writer, p Position, r Rules, depth int, divide bool) error {
	start := time.Now()
	counts, divided, err := PerftParallel(ctx, p, r, depth, 0)
	if err != nil {
		return err
	}
	elapsed := time.Since(start)
	for d := 1; d <= depth; d++ {
		fmt.Fprintf(w, "%d %d\n", d, counts[d])
	}
	if divide {
		for _, dm := range divided {
			fmt.Fprintf(w, "%s %d\n", dm.Move, dm.Count)
		}
	}
	if stats != nil {
		var moves uint64
		for _, c := range counts[1:] {
			moves += c
		}
		fmt.Fprintf(stats, "%d sequences of %d moves, %d moves in all, %v, %.1f M moves/s\n",
			counts[depth], depth, moves, elapsed.Round(time.Millisecond), float64(moves)/elapsed.Seconds()/1e6)
	}
	return nil
}
