package rules

// Perft returns the number of legal move sequences of exactly depth moves
// from p under rules r, without the repetition rule (a sequence stops only
// where the side to move has no legal move). Perft(p, 0, r) is 1.
func Perft(p Position, depth int, r Rules) uint64 {
	if depth <= 0 {
		return 1
	}
	counts := make([]uint64, depth+1)
	PerftCounts(p, r, counts)
	return counts[depth]
}

// PerftCounts fills counts[d], for every d from 1 to len(counts)-1, with the
// number of legal move sequences of d moves from p (counts[0] is set to 1),
// in one walk of the move tree.
func PerftCounts(p Position, r Rules, counts []uint64) {
	if len(counts) == 0 {
		return
	}
	clear(counts)
	counts[0] = 1
	if len(counts) == 1 {
		return
	}
	perft(p, counts[1:], r.Laps(), r.captureInOpponentRow())
}

// perft adds to counts[0] the legal moves of p, to counts[1] the legal
// replies to each, and so on. p is passed by value so that the children's
// copies stay on the stack.
func perft(p Position, counts []uint64, laps int, cross bool) {
	n := int(p.n)
	base := int(p.toMove) * n
	for j := 0; j < n; j++ {
		if p.holes[base+j] == 0 {
			continue
		}
		q := p
		if !q.sow(base+j, laps, cross) {
			continue
		}
		counts[0]++
		if len(counts) > 1 {
			perft(q, counts[1:], laps, cross)
		}
	}
}
