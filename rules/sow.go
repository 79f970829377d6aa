package rules

// holeWords is the number of 64-bit words that hold a board's holes, four
// 16-bit holes a word.
const holeWords = 2 * MaxHoles / 4

// laneOnes has a one in every 16-bit lane: multiplying a word by it sums
// the word's four lanes into the top lane.
const laneOnes = 0x0001_0001_0001_0001

// hole returns the seeds in hole i (0 to 2H-1, or up to 2*MaxHoles-1 for
// a zero).
func (p *Position) hole(i int) uint64 {
	return p.holes[(i>>2)&(holeWords-1)] >> (16 * uint(i&3)) & 0xFFFF
}

// setHole puts c seeds in hole i.
func (p *Position) setHole(i int, c uint16) {
	w := &p.holes[(i>>2)&(holeWords-1)]
	shift := 16 * uint(i&3)
	*w = *w&^(0xFFFF<<shift) | uint64(c)<<shift
}

// setBoard sets every hole from b, in the layout of Board.
func (p *Position) setBoard(b *[2 * MaxHoles]uint16) {
	for i := range b {
		p.setHole(i, b[i])
	}
}

// laneSum returns the sum of the holes whose lanes mask selects. No word's
// lanes can carry into the next: a board holds at most MaxBoardSeeds
// (65,535) seeds.
func laneSum(w, mask *[holeWords]uint64) uint64 {
	var t uint64
	for i := range w {
		t += (w[i] & mask[i]) * laneOnes >> 48
	}
	return t
}

var (
	// allLanes selects every hole.
	allLanes [holeWords]uint64
	// rowLanes[n][s] selects side s's row on a board of n holes a row.
	rowLanes [2 * MaxHoles][2][holeWords]uint64
	// sowSpans[n][k], on a board of n holes a row (2n holes in all), holds
	// in each hole's lane how many of the first k seeds of a sowing from
	// just before hole 0 fall into it: k for 0 <= k < 4n, so past one
	// round. The seeds that a lap from hole p sows one each into the s
	// holes after it (s < 2n) are then sowSpans[n][p+1+s] less
	// sowSpans[n][p+1], word by word, with no borrows since the counts
	// grow with k; sowSpans[n][2n] is one seed in every hole.
	sowSpans [MaxHoles + 1][4 * MaxHoles][holeWords]uint64
)

func init() {
	for i := range allLanes {
		allLanes[i] = ^uint64(0)
	}
	for n := MinHoles; n <= MaxHoles; n++ {
		size := 2 * n
		for i := 0; i < size; i++ {
			rowLanes[n][i/n][i>>2] |= 0xFFFF << (16 * uint(i&3))
		}
		for k := 1; k < 2*size; k++ {
			sowSpans[n][k] = sowSpans[n][k-1]
			h := (k - 1) % size
			sowSpans[n][k][h>>2] += 1 << (16 * uint(h&3))
		}
	}
}

// sow lifts the seeds of hole from and sows them under the relay rule,
// then applies the capture rule and passes the turn. It reports false if the
// sowing has not ended after maxLaps laps (the position is then garbage).
//
// This is the hot path of everything above the rules: it allocates nothing,
// and a lap, however many seeds it sows, is a few word additions (the
// holes are packed four to a word, and the seeds a lap adds to each hole
// come from the table sowSpans), with no branch but whether the sowing
// goes on. The capture, too, is computed rather than branched on.
func (p *Position) sow(from, maxLaps int, captureInOpponentRow bool) bool {
	h := &p.holes
	n := int(p.n)
	size := 2 * n
	words := (size + 3) >> 2
	spans := &sowSpans[n]
	pos := from
	for lap := 1; ; lap++ {
		shift := 16 * uint(pos&3)
		w := &h[(pos>>2)&(holeWords-1)]
		seeds := int(*w >> shift & 0xFFFF)
		*w &^= 0xFFFF << shift
		if seeds >= size {
			// Whole rounds first: each adds a seed to every hole.
			rounds := uint64(seeds / size)
			seeds -= int(rounds) * size
			all := &spans[size&(4*MaxHoles-1)]
			for i := 0; i < words; i++ {
				h[i&(holeWords-1)] += rounds * all[i&(holeWords-1)]
			}
			if seeds == 0 {
				// The last seed of the final round fell into the
				// starting hole, which was empty.
				if p.hole(pos) == 1 {
					break
				}
				if lap >= maxLaps {
					return false
				}
				continue
			}
		}
		// The remaining seeds (fewer than a round) go one each into the
		// holes after pos, wrapping past the last hole. Whether the last
		// hole was empty is read before the additions, so that the test
		// does not wait for them.
		end := pos + seeds - size
		end += (end >> 63) & size // wrapped without a branch
		emptyBefore := p.hole(end) == 0
		hi := &spans[(pos+1+seeds)&(4*MaxHoles-1)]
		lo := &spans[(pos+1)&(4*MaxHoles-1)]
		// Unrolled, the spans' lanes past the board being zero: a board
		// of up to 8 holes a row fits in four words.
		h[0] += hi[0] - lo[0]
		h[1] += hi[1] - lo[1]
		h[2] += hi[2] - lo[2]
		h[3] += hi[3] - lo[3]
		if words > 4 {
			h[4] += hi[4] - lo[4]
			h[5] += hi[5] - lo[5]
			h[6] += hi[6] - lo[6]
			h[7] += hi[7] - lo[7]
		}
		pos = end
		if emptyBefore {
			break
		}
		if lap >= maxLaps {
			return false
		}
	}
	// The last seed fell into an empty hole (rule 5): capture (rule 6) if
	// that hole is in the mover's row (or in any row, under the cross
	// rule) and the opposite hole holds seeds. Computed without branches:
	// which of the two happens is a coin toss to the processor.
	mover := uint64(p.toMove & 1)
	opp := size - 1 - pos
	own := b2u(pos >= n) ^ mover ^ 1 | b2u(captureInOpponentRow)
	taken := p.hole(opp) & -own
	took := (taken | -taken) >> 63 // 1 if anything was taken
	p.captured[mover] += uint32(taken + took)
	h[(opp>>2)&(holeWords-1)] -= taken << (16 * uint(opp&3))
	h[(pos>>2)&(holeWords-1)] -= took << (16 * uint(pos&3))
	p.toMove ^= 1
	return true
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
