package egtb

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/endodoi/endodoi/rules"
)

// Mismatch is a position whose stored value is not what its moves lead to.
type Mismatch struct {
	Position rules.Position
	Stored   int
	Expected int // the best of its moves' values, or minus the seeds on the board with no legal move
}

func (m Mismatch) String() string {
	return fmt.Sprintf("%s: stored %d, its moves give %d", m.Position, m.Stored, m.Expected)
}

// Verify re-checks count n against the values its moves lead to: every
// stored value must lie in [-n, n] and equal the best, over the position's
// legal moves, of the seeds the move captures minus the value of the
// position it leads to (or minus the seeds on the board when there is no
// legal move). The file's checksum is checked when it is read. The result
// lists up to limit mismatches; progress, if not nil, is called with the
// positions done so far, from any goroutine.
//
// The check is local: it catches any single wrong value, but a set of
// values that agree with one another round a cycle would pass it; building
// again and comparing the files is the full check.
func (tb *Tablebase) Verify(ctx context.Context, n, limit, workers int, progress func(uint64)) (VerifyResult, error) {
	if n < 0 || n > tb.max {
		return VerifyResult{}, fmt.Errorf("egtb: %w: %d seeds asked for, at most %d held", ErrBeyond, n, tb.max)
	}
	lower := make([][]int8, n)
	for j := 0; j < n; j++ {
		v, err := tb.Values(j)
		if err != nil {
			return VerifyResult{}, err
		}
		lower[j] = v
	}
	values, err := tb.Values(n)
	if err != nil {
		return VerifyResult{}, err
	}
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if progress == nil {
		progress = func(uint64) {}
	}
	s := &layerSolver{holes: tb.holes, n: n, r: tb.rules, lower: lower, size: Size(tb.holes, n), workers: workers, progress: progress}
	var mu sync.Mutex
	var found []Mismatch
	var count atomic.Int64
	err = s.parallel(ctx, func(e *expander, lo, hi uint64) {
		for i := lo; i < hi; i++ {
			moves := e.expand(true)
			want := -n
			if moves > 0 {
				want = noExit
			}
			for k := 0; k < moves; k++ {
				m := &e.moves[k]
				if m.exit {
					want = max(want, m.payoff)
				} else {
					want = max(want, -int(values[m.child]))
				}
			}
			got := int(values[i])
			if got != want || got < -n || got > n {
				if count.Add(1) <= int64(limit) {
					p := e.position()
					mu.Lock()
					found = append(found, Mismatch{Position: p, Stored: got, Expected: want})
					mu.Unlock()
				}
			}
			if i+1 < hi {
				e.cur.next()
			}
		}
	})
	if err != nil {
		return VerifyResult{}, err
	}
	return VerifyResult{Checked: s.size, Mismatches: uint64(count.Load()), Examples: found}, nil
}

// VerifyResult is the outcome of a Verify.
type VerifyResult struct {
	Checked    uint64     // positions checked
	Mismatches uint64     // positions whose value is wrong
	Examples   []Mismatch // the first few of them
}
