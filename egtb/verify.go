package egtb

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

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
	s := &countJob{holes: tb.holes, n: n, r: tb.rules, lower: lower, size: Size(tb.holes, n), workers: workers, progress: progress}
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

// CountCheck is the verification of one seed count.
type CountCheck struct {
	Seeds int
	VerifyResult
}

// String is the count's line of a verification's report, "  7 seeds:
// 3432 positions, ok", followed by a line for each example of a wrong
// value.
func (c CountCheck) String() string {
	if c.Mismatches == 0 {
		return fmt.Sprintf("%3d seeds: %d positions, ok", c.Seeds, c.Checked)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%3d seeds: %d positions, %d WRONG", c.Seeds, c.Checked, c.Mismatches)
	for _, m := range c.Examples {
		fmt.Fprintf(&b, "\n    %s", m)
	}
	return b.String()
}

// VerifyOptions configure VerifyCounts.
type VerifyOptions struct {
	Seeds   int // the count to check; below 0, every count held
	Workers int // goroutines; 0 means GOMAXPROCS
	// Progress, if not nil, is called at most five times a second, one
	// call at a time, with the count being checked and the positions
	// checked of all (Done of Total; MaxSeeds and Loaded unused).
	Progress func(Progress)
	// Checked, if not nil, is called as each count is done, in order.
	Checked func(CountCheck)
}

// VerifyReport is the outcome of VerifyCounts.
type VerifyReport struct {
	Counts  []CountCheck
	Elapsed time.Duration
}

// Wrong returns the number of counts with wrong values.
func (r VerifyReport) Wrong() int {
	n := 0
	for _, c := range r.Counts {
		if c.Mismatches > 0 {
			n++
		}
	}
	return n
}

// Err says how many counts have wrong values; nil when none has.
func (r VerifyReport) Err() error {
	if bad := r.Wrong(); bad > 0 {
		return fmt.Errorf("%d of %d counts have wrong values", bad, len(r.Counts))
	}
	return nil
}

// String is the last line of a verification that found nothing wrong.
func (r VerifyReport) String() string {
	return fmt.Sprintf("all %d counts verified in %v", len(r.Counts), r.Elapsed.Round(time.Millisecond))
}

// examplesPerCount is how many wrong values VerifyCounts lists a count.
const examplesPerCount = 5

// VerifyCounts verifies (Verify) one count or every count held, smallest
// first, listing up to five wrong values of each. A count beyond those
// held is refused, before any work, with an error wrapping ErrBeyond that
// names it as endodoi egtb verify's --seeds.
func (tb *Tablebase) VerifyCounts(ctx context.Context, opt VerifyOptions) (VerifyReport, error) {
	lo, hi := 0, tb.max
	if opt.Seeds >= 0 {
		if opt.Seeds > tb.max {
			return VerifyReport{}, &beyondError{fmt.Sprintf("--seeds %d: the databases in %s for %d holes a row hold at most %d seeds",
				opt.Seeds, tb.dir, tb.holes, tb.max)}
		}
		lo, hi = opt.Seeds, opt.Seeds
	}
	var total uint64
	for n := lo; n <= hi; n++ {
		total += Size(tb.holes, n)
	}
	var rep VerifyReport
	var done atomic.Uint64
	var drawing sync.Mutex
	var drawn time.Duration
	start := time.Now()
	for n := lo; n <= hi; n++ {
		res, err := tb.Verify(ctx, n, examplesPerCount, opt.Workers, func(d uint64) {
			all := done.Add(d)
			if opt.Progress == nil || !drawing.TryLock() {
				return
			}
			defer drawing.Unlock()
			if now := time.Since(start); now-drawn >= 200*time.Millisecond {
				drawn = now
				opt.Progress(Progress{Seeds: n, Done: all, Total: total, Elapsed: now})
			}
		})
		if err != nil {
			return rep, err
		}
		c := CountCheck{Seeds: n, VerifyResult: res}
		rep.Counts = append(rep.Counts, c)
		if opt.Checked != nil {
			opt.Checked(c)
		}
	}
	rep.Elapsed = time.Since(start)
	return rep, nil
}
