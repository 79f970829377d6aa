package egtb

import "math/bits"

// unmover finds the predecessors of a board within its count by playing
// South's moves backwards: the builder's propagation needs, for each
// position it determines, the positions with a move to it, and finding
// them this way costs no memory, where lists of them cost four bytes a
// move (a dozen or more bytes a position) and, past the memory, a disk.
//
// A move ends when the last seed of a lap falls into an empty hole, and a
// lap picks up the hole its predecessor ended in (docs/rules.md, rules 3
// to 7). Read backwards, a lap that ended in hole x and had k seeds took
// one seed from each of the k holes before x, going back, and started in
// the hole just before those, which it had emptied: that hole holds no
// seed once the k seeds are taken back, and it gets them back. The last lap
// ended in a hole now holding exactly one seed; every earlier lap ended in
// the hole the next one started in, which then held two seeds or more;
// the first started in one of South's holes. A board therefore has a
// predecessor for each chain of such laps, at most the lap cap long, that
// reaches back to one of South's holes, and each chain is one move of one
// predecessor (a move is played one way only).
type unmover struct {
	holes   int
	maxLaps int
	cross   bool
	out     []uint64
}

func newUnmover(holes int, maxLaps int, cross bool) *unmover {
	return &unmover{holes: holes, maxLaps: maxLaps, cross: cross, out: make([]uint64, 0, 64)}
}

// predecessors returns the ranks of the boards, South to move, with a move
// to t that captures nothing, once for each such move. t is South to move,
// so it is the mirror image of the board the move left. The slice is
// reused by the next call.
func (u *unmover) predecessors(t *board) []uint64 {
	h, size := u.holes, 2*u.holes
	u.out = u.out[:0]
	// The laps are taken back on t as it is, not turned round: the move
	// was South's, whose holes are t's h to 2h-1, and each board found is
	// ranked as its mirror image.
	//
	// The last seed fell into an empty hole (one seed now), and captured
	// nothing: a hole of the mover's that can capture has an empty hole
	// opposite. The holes are found with masks of the board's words.
	w := [4]uint64{t.word(0), t.word(1), t.word(2), t.word(3)}
	ones := [4]uint64{w[0] ^ oneBytes, w[1] ^ oneBytes, w[2] ^ oneBytes, w[3] ^ oneBytes}
	opposite := bits.Reverse32(empties(&w, size)) >> (32 - size)
	if !u.cross {
		opposite |= 1<<h - 1 // the holes of the mover's opponent, where nothing is captured
	}
	for m := empties(&ones, size) & opposite; m != 0; m &= m - 1 {
		u.unlap(t, bits.TrailingZeros32(m), 1)
	}
	return u.out
}

// Word masks of a board's bytes, whose seeds are below 128.
const (
	lowBits  = 0x7F7F7F7F7F7F7F7F
	highBits = 0x8080808080808080
	oneBytes = 0x0101010101010101
)

// emptyBytes returns a mask with bit i set where byte i of w is 0; w's
// bytes are below 128.
func emptyBytes(w uint64) uint32 {
	// A byte below 128 plus 127 has its top bit set unless it is 0, and
	// carries nothing into the next byte. The top bits are then gathered
	// into one byte: bit 8i times 2^(56-7i) is bit 56+i, and no two of
	// the products' bits meet.
	z := ^(w + lowBits) & highBits
	return uint32((z >> 7) * 0x0102040810204080 >> 56)
}

// empties returns a mask of the empty holes among the first size of the
// board of words w.
func empties(w *[4]uint64, size int) uint32 {
	m := emptyBytes(w[0])
	if size > 8 {
		m |= emptyBytes(w[1]) << 8
		if size > 16 {
			m |= emptyBytes(w[2])<<16 | emptyBytes(w[3])<<24
		}
	}
	return m & uint32(1<<size-1)
}

// unlap takes back the lap (the lap-th from the move's end) that ended in
// hole x of b, b holding what the lap left there and turned round as the
// move left it for North (the mover's holes are h to 2h-1); for each way it
// can have started it records the predecessor, ranked turned back, if that
// is a move's first lap, and takes back the lap before if there can be one.
func (u *unmover) unlap(b *board, x, lap int) {
	size := 2 * u.holes
	c := *b
	at := x
	for k := 1; c[at&31] != 0; k++ {
		c[at&31]--
		if at--; at < 0 {
			at = size - 1
		}
		if c[at&31] != 0 {
			continue
		}
		// The lap started here with k seeds.
		c[at&31] = uint8(k)
		if at >= u.holes {
			u.out = append(u.out, c.mirrorRank(u.holes))
		}
		// A lap before this one ended here, on a hole that was not
		// empty, so with two seeds or more.
		if k >= 2 && lap < u.maxLaps {
			u.unlap(&c, at, lap+1)
		}
		c[at&31] = 0
	}
}
