package egtb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Options set up a build.
type Options struct {
	Holes    int         // holes a row
	MaxSeeds int         // solve every count from 0 to this many seeds on the board
	Rules    rules.Rules // the values depend on the variant and the lap cap
	// Dir, if not empty, is where the counts are written, one file each, and
	// where a build finds the counts an earlier, interrupted build finished.
	Dir     string
	Workers int // goroutines; 0 means GOMAXPROCS
	// Memory, if not 0, is the memory in bytes the build may take: a
	// build whose largest count would need more ([BuildMemory]) is refused
	// before it starts, and the garbage collector keeps the build's heap
	// below it.
	Memory uint64
	// Depths keeps, in memory only, each position's plies of best play to
	// the capture that realises its value, so that [Tablebase.PV] makes
	// progress. It costs two bytes a position.
	Depths bool
	// Progress, if not nil, is called about five times a second from one
	// goroutine, and once at the end.
	Progress func(Progress)
}

// testHook, when set by a test, is called as each chunk of count n's work
// is done.
var testHook func(n int)

// CountStats describes one count solved by a build.
type CountStats struct {
	Seeds     int
	Positions uint64        // positions, South to move
	Moves     uint64        // moves that stay within the count
	Won, Lost uint64        // positions worth more than 0, less than 0
	Time      time.Duration // time to solve it
}

// Progress reports how far a build (or a verification, VerifyCounts) has
// got.
type Progress struct {
	Seeds    int    // the count being solved (or loaded, or verified)
	MaxSeeds int    // the last count
	Loaded   int    // counts read from files finished by an earlier build
	Done     uint64 // work done in this run, in position passes (verification: positions)
	Total    uint64 // work of this run in all (two passes a position: the expansion and the propagation; verification: one)
	Elapsed  time.Duration
}

// Remaining estimates the time left from the rate so far.
func (p Progress) Remaining() (time.Duration, bool) {
	if p.Done == 0 || p.Elapsed <= 0 {
		return 0, false
	}
	rate := float64(p.Done) / p.Elapsed.Seconds()
	return time.Duration(float64(p.Total-min(p.Done, p.Total)) / rate * float64(time.Second)), true
}

// BuildMemory estimates the most memory a build of every count up to
// maxSeeds on the given number of holes a row needs, at the largest count.
// Where the compact solver solves it (its states fit a byte:
// [compactFits]), that is the values of every count (a byte a position,
// the smaller counts mapped from their files when the build has a
// directory) and, without depths, a sixteenth of a byte a position of the
// count for the rounds' lists (with less, more of the rounds are found by
// sweeps), with depths two rounds whole (up to about a fifth of the count
// each, at four bytes a position, eight past 2^32 positions). Otherwise it
// is the values of every count, the count's working arrays (two bytes a
// position) and two rounds of the propagation (four bytes a position).
// Depths add two bytes a position of every count.
func BuildMemory(holes, maxSeeds int, depths bool) uint64 {
	all, last := CumulativeSize(holes, maxSeeds), Size(holes, maxSeeds)
	var need uint64
	switch {
	case compactFits(holes, maxSeeds) && !depths:
		need = all + last/16
	case compactFits(holes, maxSeeds):
		need = all + 2*rankBytes(last)*last/5
	default:
		need = all + 2*last + 3*last/2
	}
	if depths {
		need += 2 * all
	}
	return need
}

// rankBytes returns the bytes a rank takes in the compact solver's rounds
// for a count of size positions.
func rankBytes(size uint64) uint64 {
	if size <= narrowRanks {
		return 4
	}
	return 8
}

// listLimit returns how many ranks a worker's part of a round of the
// compact solver of count n may hold: two rounds take at most half a byte
// a position of the count, and no more than what the values of counts 0 to
// n leave of the memory given (0: no limit but that), and at least 64 Ki
// ranks a part.
func listLimit(holes, n, workers int, memory uint64) int {
	const spare = 512 << 20
	size := Size(holes, n)
	budget := size / 2
	if held := CumulativeSize(holes, n) + spare; memory > 0 {
		budget = min(budget, memory-min(memory, held))
	}
	return int(max(budget/2/rankBytes(size)/uint64(workers), 1<<16))
}

// mapFrom is the size of a count from which a build with a directory maps
// the counts it has finished from their files rather than holding them: the
// kernel then keeps them as it keeps the files' pages, and may drop them
// under pressure rather than fail.
var mapFrom = uint64(1) << 24

// Build solves every count from 0 to opt.MaxSeeds seeds on the board,
// smallest first, and returns the databases, held in memory. With opt.Dir
// set, each count is written to its file as soon as it is solved, and a
// count whose file is already there and sound is read instead of solved: an
// interrupted build resumes from the last finished count. A cancelled ctx
// stops the build within a fraction of a second; the counts finished so
// far stay on disk.
func Build(ctx context.Context, opt Options) (*Tablebase, error) {
	if opt.Holes < rules.MinHoles || opt.Holes > rules.MaxHoles {
		return nil, fmt.Errorf("egtb: holes a row %d out of range (%d to %d)", opt.Holes, rules.MinHoles, rules.MaxHoles)
	}
	if opt.MaxSeeds < 0 || opt.MaxSeeds > MaxSeeds {
		return nil, fmt.Errorf("egtb: max seeds %d out of range (0 to %d)", opt.MaxSeeds, MaxSeeds)
	}
	if err := opt.Rules.Validate(); err != nil {
		return nil, fmt.Errorf("egtb: %w", err)
	}
	if need := BuildMemory(opt.Holes, opt.MaxSeeds, opt.Depths); opt.Memory > 0 && need > opt.Memory {
		return nil, fmt.Errorf("egtb: %d holes a row up to %d seeds needs about %.1f GiB at its largest count, more than the %.1f GiB allowed",
			opt.Holes, opt.MaxSeeds, float64(need)/(1<<30), float64(opt.Memory)/(1<<30))
	}
	if opt.Memory > 0 {
		// The garbage of the rounds' growing lists is collected before
		// the heap reaches the memory allowed, not at twice what is live.
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(int64(min(opt.Memory, math.MaxInt64))))
	}
	r := opt.Rules.Canonical()
	workers := opt.Workers
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	if opt.Dir != "" {
		if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
			return nil, fmt.Errorf("egtb: %w", err)
		}
		removeTemps(opt.Dir, opt.Holes, r)
	}
	tb := newTablebase(opt.Holes, opt.MaxSeeds, r, "")
	if opt.Dir != "" {
		tb.dir = opt.Dir
	}

	// The work of this run: two passes over each count not on disk yet.
	onDisk := make([]bool, opt.MaxSeeds+1)
	var total atomic.Uint64
	for n := 0; n <= opt.MaxSeeds; n++ {
		if opt.Dir != "" && !opt.Depths {
			if _, err := ReadHeader(filepath.Join(opt.Dir, FileName(opt.Holes, n, r))); err == nil {
				onDisk[n] = true
				continue
			}
		}
		total.Add(2 * Size(opt.Holes, n))
	}
	var done atomic.Uint64
	var seeds, loaded atomic.Int64
	start := time.Now()
	snapshot := func() Progress {
		return Progress{Seeds: int(seeds.Load()), MaxSeeds: opt.MaxSeeds, Loaded: int(loaded.Load()),
			Done: done.Load(), Total: total.Load(), Elapsed: time.Since(start)}
	}
	if opt.Progress != nil {
		stop := make(chan struct{})
		finished := make(chan struct{})
		go func() {
			defer close(finished)
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				select {
				case <-tick.C:
					opt.Progress(snapshot())
				case <-stop:
					return
				}
			}
		}()
		defer func() {
			close(stop)
			<-finished
			opt.Progress(snapshot())
		}()
	}

	lower := make([][]int8, 0, opt.MaxSeeds+1)
	for n := 0; n <= opt.MaxSeeds; n++ {
		seeds.Store(int64(n))
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		path := filepath.Join(opt.Dir, FileName(opt.Holes, n, r))
		if onDisk[n] {
			values, err := loadCount(path, opt.Holes, n, r)
			if err == nil {
				tb.set(n, &layer{values: values})
				lower = append(lower, values)
				loaded.Add(1)
				continue
			}
			if !errors.Is(err, ErrCorrupt) {
				return nil, err
			}
			// A damaged file is solved again and replaced.
			total.Add(2 * Size(opt.Holes, n))
		}
		began := time.Now()
		progress := func(d uint64) {
			done.Add(d)
			if testHook != nil {
				testHook(n)
			}
		}
		var values []int8
		var depth []uint16
		var edges uint64
		var err error
		if compactFits(opt.Holes, n) {
			limit := 0 // depths need the rounds whole
			if !opt.Depths {
				limit = listLimit(opt.Holes, n, workers, opt.Memory)
			}
			values, depth, edges, err = solveCompact(ctx, opt.Holes, n, r, lower, workers, limit, opt.Depths, progress)
		} else {
			values, depth, edges, err = solveLayer(ctx, opt.Holes, n, r, lower, workers, opt.Depths, progress)
		}
		if err != nil {
			return nil, err
		}
		st := CountStats{Seeds: n, Positions: uint64(len(values)), Moves: edges, Time: time.Since(began)}
		for _, v := range values {
			switch {
			case v > 0:
				st.Won++
			case v < 0:
				st.Lost++
			}
		}
		tb.stats = append(tb.stats, st)
		if opt.Dir != "" {
			if err := writeFile(opt.Dir, Header{Holes: opt.Holes, Seeds: n, Rules: r}, values); err != nil {
				return nil, err
			}
			if depth == nil && uint64(len(values)) >= mapFrom {
				// The values are read from the file's pages from now
				// on, and the count's bytes given back below.
				if values, err = mapCount(path, opt.Holes, n, r, false); err != nil {
					return nil, err
				}
			}
		}
		tb.set(n, &layer{values: values, depth: depth})
		lower = append(lower, values)
		if Size(opt.Holes, n) >= 1<<22 {
			// The count's working arrays are garbage now: give them
			// back before the next, larger count needs its own.
			debug.FreeOSMemory()
		}
	}
	return tb, nil
}
