package egtb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"
	"unsafe"

	"github.com/endodoi/endodoi/rules"
)

// scratch keeps a count's predecessor lists in a file, for a count whose
// lists would not fit in the memory allowed. While the count's moves are
// first played, each move within the count goes, as a (target, source)
// pair, to one of a few dozen edge files by its target (one set of files
// a worker, so that the workers take no lock). Then the edge files are
// taken a group at a time, as many as the memory allows: their pairs are
// put in place in memory and the group's part of the lists is written to
// the scratch file. The lists are then mapped into memory, read only: the
// operating system keeps what fits in its file cache, and the propagation,
// sorted round by round, reads them in order. Playing the moves once
// instead of twice pays for much of the writing.
type scratch struct {
	dir, name string
	buckets   int          // edge files a worker, each for a range of targets
	per       uint64       // targets a bucket
	segment   uint64       // bytes of lists to put in place in memory at once
	edges     [][]*os.File // by worker, then bucket
	pending   [][][]uint64 // by worker, then bucket: pairs not yet written
	failed    []error      // by worker: its first write error
	lists     *os.File
	unmap     func() error
}

// scratchFiles is about how many edge files are open at once (64 a
// worker, fewer with many workers, but at least 4), well below the usual
// limit of 1,024 open files;
// scratchPending is how many pairs a worker holds for a bucket before it
// writes them.
const (
	scratchFiles   = 256
	scratchPending = 8192
)

// newScratch creates the edge files in dir for count n's size positions,
// for the given number of workers, to be put in place segment bytes at a
// time.
func newScratch(dir string, holes, n int, r rules.Rules, size uint64, workers int, segment uint64) (*scratch, error) {
	buckets := min(64, max(4, scratchFiles/workers))
	sc := &scratch{dir: dir, name: FileName(holes, n, r), buckets: buckets, per: (size + uint64(buckets) - 1) / uint64(buckets),
		segment: max(segment, 1<<20), failed: make([]error, workers)}
	sc.edges = make([][]*os.File, workers)
	sc.pending = make([][][]uint64, workers)
	for w := range workers {
		sc.edges[w] = make([]*os.File, buckets)
		sc.pending[w] = make([][]uint64, buckets)
		for b := range buckets {
			f, err := os.CreateTemp(dir, sc.name+".tmp-edges*")
			if err != nil {
				sc.close()
				return nil, fmt.Errorf("egtb: scratch file for %d seeds: %w", n, err)
			}
			sc.edges[w][b] = f
		}
	}
	return sc, nil
}

// add records worker w's move from source to target.
func (sc *scratch) add(w int, target, source uint32) {
	b := uint64(target) / sc.per
	p := append(sc.pending[w][b], uint64(target)<<32|uint64(source))
	if len(p) == scratchPending {
		sc.write(w, int(b), p)
		p = p[:0]
	}
	sc.pending[w][b] = p
}

// write appends pairs to worker w's edge file of bucket b.
func (sc *scratch) write(w, b int, pairs []uint64) {
	if sc.failed[w] != nil || len(pairs) == 0 {
		return
	}
	if _, err := sc.edges[w][b].Write(unsafe.Slice((*byte)(unsafe.Pointer(&pairs[0])), 8*len(pairs))); err != nil {
		sc.failed[w] = fmt.Errorf("egtb: writing a scratch file: %w", err)
	}
}

// fill writes s's predecessor lists to the scratch file from the edge
// files, which it removes, and returns the lists mapped into memory.
func (sc *scratch) fill(ctx context.Context, s *layerSolver) ([]uint32, error) {
	for w := range sc.pending {
		for b, p := range sc.pending[w] {
			sc.write(w, b, p)
			sc.pending[w][b] = nil
		}
	}
	if err := errors.Join(sc.failed...); err != nil {
		return nil, err
	}
	f, err := os.CreateTemp(sc.dir, sc.name+".tmp-lists*")
	if err != nil {
		return nil, fmt.Errorf("egtb: scratch file: %w", err)
	}
	sc.lists = f
	bucketStart := func(b int) uint64 { return s.start(min(uint64(b)*sc.per, s.size)) }
	// The groups of buckets, each as large as the memory allows (at least
	// one bucket).
	var groups []int
	largest := uint64(0)
	for b := 0; b < sc.buckets; {
		lo := b
		for b++; b < sc.buckets && 4*(bucketStart(b+1)-bucketStart(lo)) <= sc.segment; b++ {
		}
		groups = append(groups, b)
		largest = max(largest, bucketStart(b)-bucketStart(lo))
	}
	segment := make([]uint32, largest)
	done, reported := uint64(0), uint64(0)
	lo := 0
	for _, hi := range groups {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		from, to := bucketStart(lo), bucketStart(hi)
		if err := sc.place(s, lo, hi, from, segment[:to-from]); err != nil {
			return nil, err
		}
		if to > from {
			view := segment[:to-from]
			if _, err := f.WriteAt(unsafe.Slice((*byte)(unsafe.Pointer(&view[0])), 4*len(view)), int64(4*from)); err != nil {
				return nil, fmt.Errorf("egtb: writing a scratch file: %w", err)
			}
		}
		for w := range sc.edges {
			for b := lo; b < hi; b++ {
				sc.remove(sc.edges[w][b])
				sc.edges[w][b] = nil
			}
		}
		done += to - from
		if s.edges > 0 {
			now := s.size * done / s.edges
			s.progress(now - reported)
			reported = now
		}
		lo = hi
	}
	s.progress(s.size - reported)
	// The segment is garbage now: give it back, so that the file cache
	// can keep more of the lists.
	segment = nil
	debug.FreeOSMemory()
	data, unmap, err := mapFile(f, 4*s.edges)
	if err != nil {
		return nil, fmt.Errorf("egtb: mapping a scratch file: %w", err)
	}
	sc.unmap = unmap
	if len(data) == 0 {
		return nil, nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&data[0])), len(data)/4), nil
}

// place reads the pairs of buckets lo to hi-1, whose lists start at from,
// into their places in segment: one goroutine a worker's files.
func (sc *scratch) place(s *layerSolver, lo, hi int, from uint64, segment []uint32) error {
	errs := make([]error, len(sc.edges))
	var wg sync.WaitGroup
	for w := range sc.edges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]uint64, 1<<17)
			raw := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*len(buf))
			for b := lo; b < hi; b++ {
				f := sc.edges[w][b]
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					errs[w] = fmt.Errorf("egtb: reading a scratch file: %w", err)
					return
				}
				for {
					k, err := io.ReadFull(f, raw)
					for _, pair := range buf[:k/8] {
						segment[s.claim(pair>>32)-from] = uint32(pair)
					}
					if err == io.EOF || err == io.ErrUnexpectedEOF {
						break
					}
					if err != nil {
						errs[w] = fmt.Errorf("egtb: reading a scratch file: %w", err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// remove closes and deletes a scratch file.
func (sc *scratch) remove(f *os.File) {
	if f != nil {
		f.Close()
		os.Remove(f.Name())
	}
}

// close unmaps the lists and removes every scratch file left.
func (sc *scratch) close() {
	if sc.unmap != nil {
		sc.unmap()
		sc.unmap = nil
	}
	sc.remove(sc.lists)
	sc.lists = nil
	for _, files := range sc.edges {
		for b, f := range files {
			sc.remove(f)
			files[b] = nil
		}
	}
}
