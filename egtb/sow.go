package egtb

import (
	"encoding/binary"
	"sync"
)

// board is a position's holes in sowing order, South to move. Seed counts
// stay below 128, so a byte per hole is enough.
type board [32]uint8

// lapMasks[pos][seeds] is what a lap of seeds seeds (fewer than the
// board's holes) sown from hole pos adds to a board's four words
// ([board.word], little-endian): a one in the byte of each hole it adds a
// seed to, going round the board, less the seeds it takes from hole pos.
// Adding it sows the lap, with no loop and no branch: the words wrap, but
// the board they end as has every byte in range, so the sum is exact. all
// has a one in every hole's byte.
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
				m := &t.masks.lap[pos][seeds]
				for k := range m {
					m[k] = ones.word(k)
				}
				m[pos>>3] -= uint64(seeds) << (pos & 7 * 8)
			}
		}
		var ones board
		for i := 0; i < size; i++ {
			ones[i] = 1
		}
		for k := range t.masks.all {
			t.masks.all[k] = ones.word(k)
		}
	})
	return t.masks
}

// word returns holes 8k to 8k+7 of b as a little-endian word.
func (b *board) word(k int) uint64 {
	return binary.LittleEndian.Uint64(b[(k&3)*8:])
}

// setWord sets holes 8k to 8k+7 of b from a little-endian word.
func (b *board) setWord(k int, w uint64) {
	binary.LittleEndian.PutUint64(b[(k&3)*8:], w)
}

// sow plays South's move from hole from on b (whose size's lapMasks are
// masks) under a lap cap and capture rule, exactly as package rules does
// (docs/rules.md, rules 3 to 7 and 12): relay sowing until the last seed of a lap falls into an empty hole,
// whole rounds of a lap of 2H or more seeds added in one pass. It returns
// the seeds captured and false if the sowing is endless (b is then
// garbage). The tests check it against rules.Position.Play.
//
// The board is held in four words, in registers, for the whole sowing: a
// lap reads its hole's byte from them and adds its mask to them, so that
// a lap is a short chain of register operations and one load of a mask,
// with nothing stored and loaded back until the move ends.
func (b *board) sow(masks *lapMasks, holes, from, maxLaps int, cross bool) (int, bool) {
	size := 2 * holes
	w0, w1, w2, w3 := b.word(0), b.word(1), b.word(2), b.word(3)
	// hole returns hole pos's seeds, selecting its word without a branch.
	hole := func(pos int) int {
		lo, hi := w0, w2
		if pos&8 != 0 {
			lo, hi = w1, w3
		}
		if pos&16 != 0 {
			lo = hi
		}
		return int(uint8(lo >> (pos & 7 * 8)))
	}
	pos := from
	for lap := 1; ; lap++ {
		seeds := hole(pos)
		if seeds >= size {
			// Whole rounds, rare, are added on the board in memory: the
			// hole keeps the rest, which the lap below takes, and gets a
			// seed a round like every other.
			rounds := seeds / size
			seeds -= rounds * size
			b.setWord(0, w0)
			b.setWord(1, w1)
			b.setWord(2, w2)
			b.setWord(3, w3)
			b[pos&31] = uint8(seeds)
			r := uint64(rounds)
			w0, w1 = b.word(0)+masks.all[0]*r, b.word(1)+masks.all[1]*r
			w2, w3 = b.word(2)+masks.all[2]*r, b.word(3)+masks.all[3]*r
			if seeds == 0 {
				// The last seed fell into the hole the lap started from.
				if rounds == 1 {
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
		emptyBefore := hole(end) == 0
		m := &masks.lap[pos&31][seeds&31]
		w0 += m[0]
		w1 += m[1]
		w2 += m[2]
		w3 += m[3]
		pos = end
		if emptyBefore {
			break
		}
		if lap >= maxLaps {
			return 0, false
		}
	}
	b.setWord(0, w0)
	b.setWord(1, w1)
	b.setWord(2, w2)
	b.setWord(3, w3)
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
	// The four places from the highest possible are compared at once,
	// without a branch: a hole rarely holds four seeds or more, and a
	// search place by place mispredicts where it stops, once a bar. The
	// places are in increasing order of their terms, those before bar i's
	// first place (and those that wrap round the table, when hi is below
	// 3) hold 0, which is never above rank: so the places above rank are
	// the top k of the four, and c is hi-k unless all four are.
	hi := n + m - 2
	next := n + m - 1
	for i := m - 2; i >= 0; i-- {
		terms := i << 8
		k := (rank-rankTerms[(terms+hi)&mask])>>63 +
			(rank-rankTerms[(terms+hi-1)&mask])>>63 +
			(rank-rankTerms[(terms+hi-2)&mask])>>63 +
			(rank-rankTerms[(terms+hi-3)&mask])>>63
		c := hi - int(k)
		if k == 4 {
			for rankTerms[(terms+c)&mask] > rank {
				c--
			}
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
