package engine

import (
	"sync/atomic"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
	"github.com/endodoi/endodoi/internal/prefetch"
	"github.com/endodoi/endodoi/rules"
)

// bound tells how a stored score relates to the true value.
type bound uint8

const (
	boundNone  bound = iota // an empty entry
	boundLower              // the value is at least the score
	boundUpper              // the value is at most the score
	boundExact              // the score is the value (at the stored depth)
)

// entry is a decoded transposition-table entry.
type entry struct {
	score  Score
	depth  int
	bound  bound
	proven bool // the score rests on game ends only, not on the evaluation
	move   rules.Move
}

// table is a transposition table shared by the search threads. An entry
// is one 64-bit word, the key's top bits and the data together, written
// and read atomically, so that no thread ever sees half of another's
// write. Entries come in buckets of four, 32 bytes, which a probe reads
// from one cache line; a new entry replaces the bucket's shallowest or
// oldest.
type table struct {
	buckets []bucket
	mask    uint64
	gen     uint64 // the current search's generation, as stored (0 to genMask)
}

type bucket [bucketSize]atomic.Uint64

const bucketSize = 4

// Entry word layout, from the low bits: move+1 (6 bits, 0 for none),
// bound (2), proven (1), depth (8), generation (2), score+scoreBias (17),
// and the key's top 28 bits. The bucket index takes the key's low bits, so
// with any table of a MiB or more an entry is checked against 43 or more
// of the key's 64 bits.
const (
	moveBits  = 6
	boundAt   = moveBits
	provenAt  = boundAt + 2
	depthAt   = provenAt + 1
	genAt     = depthAt + 8
	scoreAt   = genAt + 2
	checkAt   = scoreAt + 17
	genMask   = 3
	scoreBias = 1 << 16 // stored scores lie within ±scoreBias (655 seeds)
)

// newTable returns a table of about mib MiB (at least 1), rounded down to a
// power of two buckets, on huge pages where the system allows: a probe
// anywhere in it then rarely misses the TLB.
func newTable(mib int) *table {
	if mib < 1 {
		mib = 1
	}
	n := uint64(mib) << 20 / (8 * bucketSize)
	size := uint64(1)
	for size*2 <= n {
		size *= 2
	}
	return &table{buckets: hugepages.Make[bucket](int(size)), mask: size - 1}
}

// clear empties the table. No search may run meanwhile.
func (t *table) clear() {
	clear(t.buckets)
	t.gen = 0
}

// newSearch starts a generation: entries from earlier searches stay
// usable but give way first when a bucket is full. No search may run
// meanwhile.
func (t *table) newSearch() {
	t.gen = (t.gen + 1) & genMask
}

// pack encodes e for key k; ok is false if e's score is out of the
// stored range (an entry the table then does without).
func (t *table) pack(k uint64, e entry) (w uint64, ok bool) {
	if e.score <= -scoreBias || e.score >= scoreBias || e.depth < 0 || e.depth > 255 {
		return 0, false
	}
	if e.move != rules.NoMove {
		w = uint64(e.move) + 1
	}
	w |= uint64(e.bound) << boundAt
	if e.proven {
		w |= 1 << provenAt
	}
	w |= uint64(e.depth) << depthAt
	w |= t.gen << genAt
	w |= uint64(e.score+scoreBias) << scoreAt
	w |= k >> checkAt << checkAt
	return w, true
}

func unpack(w uint64) entry {
	e := entry{
		score:  Score(w>>scoreAt&(1<<(checkAt-scoreAt)-1)) - scoreBias,
		depth:  int(uint8(w >> depthAt)),
		bound:  bound(w >> boundAt & 3),
		proven: w>>provenAt&1 == 1,
		move:   rules.NoMove,
	}
	if m := w & (1<<moveBits - 1); m != 0 {
		e.move = rules.Move(m - 1)
	}
	return e
}

// matches reports whether w holds an entry for key k.
func matches(w, k uint64) bool {
	return w>>checkAt == k>>checkAt && w>>boundAt&3 != uint64(boundNone)
}

// prefetch starts loading the bucket of key k into the cache, so that a
// probe soon after finds it there instead of waiting on memory.
func (t *table) prefetch(k uint64) {
	prefetch.Line(unsafe.Pointer(&t.buckets[k&t.mask]))
}

func (t *table) probe(k uint64) (entry, bool) {
	b := &t.buckets[k&t.mask]
	for i := range b {
		if w := b[i].Load(); matches(w, k) {
			return unpack(w), true
		}
	}
	return entry{}, false
}

// store keeps the deeper of the old and new entries for the same key (a
// proven one always replaces it); an entry for a new key replaces the
// bucket's least worth keeping: an empty one, else the one whose depth,
// less eight plies for each generation of age, is lowest.
func (t *table) store(k uint64, e entry) {
	w, ok := t.pack(k, e)
	if !ok {
		return
	}
	b := &t.buckets[k&t.mask]
	victim, worth := 0, 1<<30
	for i := range b {
		old := b[i].Load()
		if matches(old, k) {
			if int(uint8(old>>depthAt)) > e.depth && !e.proven {
				return
			}
			victim = i
			break
		}
		if old>>boundAt&3 == uint64(boundNone) {
			victim, worth = i, -1<<30
			continue
		}
		age := (t.gen - old>>genAt) & genMask
		if v := int(uint8(old>>depthAt)) - 8*int(age); v < worth {
			victim, worth = i, v
		}
	}
	b[victim].Store(w)
}
