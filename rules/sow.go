package rules

// sow lifts the seeds of hole from and sows them under the relay rule,
// then applies the capture rule and passes the turn. It reports false if the
// sowing has not ended after maxLaps laps (the position is then garbage).
//
// This is the hot path of everything above the rules: it allocates nothing,
// and a lap of 2H or more seeds adds whole rounds to every hole in one pass
// instead of sowing them one by one.
func (p *Position) sow(from, maxLaps int, captureInOpponentRow bool) bool {
	h := &p.holes
	n := int(p.n)
	size := 2 * n
	pos := from
	for lap := 1; ; lap++ {
		seeds := int(h[pos&31])
		h[pos&31] = 0
		if seeds >= size {
			rounds := uint16(seeds / size)
			seeds -= int(rounds) * size
			for i := 0; i < size; i++ {
				h[i&31] += rounds
			}
			if seeds == 0 {
				// The last seed of the final round fell into the
				// starting hole, which was empty.
				if h[pos&31] == 1 {
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
		// hole was empty is read before the stores, so that the test does
		// not wait for them.
		end := pos + seeds
		if end >= size {
			end -= size
		}
		emptyBefore := h[end&31] == 0
		if pos+seeds < size {
			for i := pos + 1; i <= pos+seeds; i++ {
				h[i&31]++
			}
		} else {
			for i := pos + 1; i < size; i++ {
				h[i&31]++
			}
			for i := 0; i <= end; i++ {
				h[i&31]++
			}
		}
		pos = end
		if emptyBefore {
			break
		}
		if lap >= maxLaps {
			return false
		}
	}
	// The last seed fell into an empty hole (rule 5): capture (rule 6).
	mover := int(p.toMove)
	if pos/n == mover || captureInOpponentRow {
		opp := (size - 1 - pos) & 31
		if c := h[opp]; c != 0 {
			p.captured[mover] += uint32(c) + 1
			h[opp] = 0
			h[pos&31] = 0
		}
	}
	p.toMove ^= 1
	return true
}
