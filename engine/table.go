package engine

import (
	"sync/atomic"

	"github.com/endodoi/endodoi/rules"
)

// bound tells how a stored score relates to the true value.
type bound uint8

const (
	boundNone  bound = iota
	boundLower       // the value is at least the score
	boundUpper       // the value is at most the score
	boundExact       // the score is the value (at the stored depth)
)

// entry is a decoded transposition-table entry.
type entry struct {
	score  Score
	depth  int
	bound  bound
	proven bool // the score rests on game ends only, not on the evaluation
	move   rules.Move
}

// table is a transposition table shared by the search threads. Each slot
// holds the key XORed with the data and the data, written and read
// atomically: a torn write by two threads shows as a key mismatch and is
// ignored (the lockless hashing scheme).
type table struct {
	slots []slot
	mask  uint64
}

type slot struct {
	check atomic.Uint64 // key ^ data
	data  atomic.Uint64
}

// newTable returns a table of about mib MiB (at least 1), rounded down to a
// power of two slots.
func newTable(mib int) *table {
	if mib < 1 {
		mib = 1
	}
	n := uint64(mib) << 20 / 16
	size := uint64(1)
	for size*2 <= n {
		size *= 2
	}
	return &table{slots: make([]slot, size), mask: size - 1}
}

func (t *table) clear() {
	for i := range t.slots {
		t.slots[i].check.Store(0)
		t.slots[i].data.Store(0)
	}
}

// data layout: score+Infinity (22 bits) | depth (8) | bound (2) | proven (1) | move (8)
func pack(e entry) uint64 {
	p := uint64(uint32(e.score+Infinity)) & (1<<22 - 1)
	p |= uint64(uint8(e.depth)) << 22
	p |= uint64(e.bound) << 30
	if e.proven {
		p |= 1 << 32
	}
	p |= uint64(e.move) << 33
	return p
}

func unpack(d uint64) entry {
	return entry{
		score:  Score(d&(1<<22-1)) - Infinity,
		depth:  int(uint8(d >> 22)),
		bound:  bound(d >> 30 & 3),
		proven: d>>32&1 == 1,
		move:   rules.Move(d >> 33),
	}
}

func (t *table) probe(k uint64) (entry, bool) {
	s := &t.slots[k&t.mask]
	d := s.data.Load()
	if s.check.Load()^d != k || d == 0 {
		return entry{}, false
	}
	return unpack(d), true
}

// store keeps the deeper of the old and new entries for the same key, and
// always replaces an entry for another key.
func (t *table) store(k uint64, e entry) {
	s := &t.slots[k&t.mask]
	if old := s.data.Load(); s.check.Load()^old == k && old != 0 {
		if o := unpack(old); o.depth > e.depth && !e.proven {
			return
		}
	}
	d := pack(e)
	s.data.Store(d)
	s.check.Store(k ^ d)
}
