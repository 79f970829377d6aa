package egtb

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
	h := u.holes
	size := 2 * h
	// The board as the move left it, before it was turned round for North.
	var a board
	for j := 0; j < h; j++ {
		a[j] = t[j+h]
		a[j+h] = t[j]
	}
	u.out = u.out[:0]
	for e := 0; e < size; e++ {
		// The last seed fell into an empty hole, and captured nothing.
		if a[e] != 1 || ((e < h || u.cross) && a[size-1-e] != 0) {
			continue
		}
		u.unlap(&a, e, 1)
	}
	return u.out
}

// unlap takes back the lap (the lap-th from the move's end) that ended in
// hole x of b, b holding what the lap left there; for each way it can have
// started it records the predecessor if that is a move's first lap, and
// takes back the lap before if there can be one.
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
		if at < u.holes {
			u.out = append(u.out, c.rank(u.holes))
		}
		// A lap before this one ended here, on a hole that was not
		// empty, so with two seeds or more.
		if k >= 2 && lap < u.maxLaps {
			u.unlap(&c, at, lap+1)
		}
		c[at&31] = 0
	}
}
