package egtb

import (
	"sync"
	"unsafe"
)

// board is a position's holes in sowing order, South to move. Seed counts
// stay below 128, so a byte per hole is enough.
type board [32]uint8

// lapMasks[pos][seeds] has a one in the byte of each hole a lap of seeds
// seeds (fewer than the board's holes) sown from hole pos adds a seed to,
// going round the board, as four words: adding it to a board's four
// words sows the lap, with no loop and no branch. all has a one in every
// hole's byte.
type lapMasks struct {
	lap [32][32][4]uint64
	all [4]uint64
}

// lapMaskTables holds each board size's lapMasks (32 KiB each), made on
// first use.
var lapMaskTables [33]struct {
	once  sync.Once
	masks *lapMasks
}

// masksFor returns the lapMasks of boards of size holes in all (2H).
func masksFor(size int) *lapMasks {
	t := &lapMaskTables[size]
	t.once.Do(func() {
		t.masks = new(lapMasks)
		for pos := 0; pos < size; pos++ {
			for seeds := 0; seeds < size; seeds++ {
				var ones board
				for i := 1; i <= seeds; i++ {
					ones[(pos+i)%size] = 1
				}
				t.masks.lap[pos][seeds] = *ones.words()
			}
		}
		var ones board
		for i := 0; i < size; i++ {
			ones[i] = 1
		}
		t.masks.all = *ones.words()
	})
	return t.masks
}

// words returns b as four words.
func (b *board) words() *[4]uint64 {
	return (*[4]uint64)(unsafe.Pointer(b))
}

// sow plays South's move from hole from on b under a lap cap and capture
// rule, exactly as package rules does (docs/rules.md, rules 3 to 7 and
// 12): relay sowing until the last seed of a lap falls into an empty hole,
// whole rounds of a lap of 2H or more seeds added in one pass. It returns
// the seeds captured and false if the sowing is endless (b is then
// garbage). The tests check it against rules.Position.Play.
func (b *board) sow(holes, from, maxLaps int, cross bool) (int, bool) {
	size := 2 * holes
	masks := masksFor(size)
	w := b.words()
	pos := from
	for lap := 1; ; lap++ {
		seeds := int(b[pos&31])
		b[pos&31] = 0
		if seeds >= size {
			rounds := uint64(seeds / size)
			seeds -= int(rounds) * size
			for k := range w {
				w[k] += masks.all[k] * rounds
			}
			if seeds == 0 {
				if b[pos&31] == 1 {
					break
				}
				if lap >= maxLaps {
					return 0, false
				}
				continue
			}
		}
		end := pos + seeds
		if end >= size {
			end -= size
		}
		emptyBefore := b[end&31] == 0
		m := &masks.lap[pos&31][seeds&31]
		w[0] += m[0]
		w[1] += m[1]
		w[2] += m[2]
		w[3] += m[3]
		pos = end
		if emptyBefore {
			break
		}
		if lap >= maxLaps {
			return 0, false
		}
	}
	if pos < holes || cross {
		opp := (size - 1 - pos) & 31
		if c := b[opp]; c != 0 {
			b[opp] = 0
			b[pos&31] = 0
			return int(c) + 1, true
		}
	}
	return 0, true
}

// mirrorRank returns the rank of b's mirror image: the board as seen by
// North, who is to move after South's move.
//
// This is the builder's hottest loop (a rank for every move of every
// position): the terms come from rankTerms, stepped through with one
// addition a bar, and the masks keep every index within its array, so that
// the compiler drops the bounds tests.
func (b *board) mirrorRank(holes int) uint64 {
	const mask = len(rankTerms) - 1
	var r uint64
	at := 0 // bar i's entry in rankTerms: i<<8 + i + the seeds before bar i, so 257 more a bar
	for j := holes; j < 2*holes; j++ {
		at += int(b[j&31])
		r += rankTerms[at&mask]
		at += 257
	}
	for j := 0; j < holes-1; j++ {
		at += int(b[j&31])
		r += rankTerms[at&mask]
		at += 257
	}
	return r
}

// rank returns the rank of b.
func (b *board) rank(holes int) uint64 {
	const mask = len(rankTerms) - 1
	var r uint64
	at := 0
	for j := 0; j < 2*holes-1; j++ {
		at += int(b[j&31])
		r += rankTerms[at&mask]
		at += 257
	}
	return r
}

// setRank sets b to the board of the given rank among those of n seeds on
// the given number of holes a row, which must be below their number; as
// Unrank, but straight into the board.
func (b *board) setRank(holes, n int, rank uint64) {
	const mask = len(rankTerms) - 1
	m := 2 * holes
	*b = board{}
	// Bars from the last down: c_i is the largest c with C(c, i+1) <= rank,
	// read from rankTerms, where the places of one bar are side by side.
	hi := n + m - 2
	next := n + m - 1
	for i := m - 2; i >= 0; i-- {
		terms := i << 8
		c := hi
		for rankTerms[(terms+c)&mask] > rank {
			c--
		}
		rank -= rankTerms[(terms+c)&mask]
		b[(i+1)&31] = uint8(next - c - 1)
		next = c
		hi = c - 1
	}
	b[0] = uint8(next)
}

// next steps b to the board of the next rank with the same seeds: the
// successor in the combinatorial number system. It must not be called on
// the last board (all seeds in hole 0).
func (b *board) next() {
	j := 1
	for b[j] == 0 {
		j++
	}
	t := b[0]
	b[0] = 0
	b[j-1] = t + 1
	b[j]--
}
