package rules

// Lap is one lift-and-sow within a move: the seeds of hole From are lifted
// and sown one by one into the following holes; the last falls into To.
// Holes are numbered in sowing order, 0..2H-1.
type Lap struct {
	From  int // hole the seeds were lifted from
	Seeds int // seeds lifted
	To    int // hole the last seed fell into
}

// Sowing describes a move lap by lap, for animation, teaching and checks.
type Sowing struct {
	Move Move
	Laps []Lap
	// CaptureFrom is the hole whose seeds were captured, or -1 if the move
	// captured nothing. Captured counts every seed taken: the opposite
	// hole's and the seed that ended the sowing.
	CaptureFrom int
	Captured    int
}

// End returns the hole where the sowing ended.
// End returns the hole where the sowing ended, or -1 for an empty Sowing.
func (s Sowing) End() int {
	if len(s.Laps) == 0 {
		return -1
	}
	return s.Laps[len(s.Laps)-1].To
}

// Trace plays m like [Position.Play] and also reports every lap. It sows
// seed by seed, independently of Play's faster sowing, and allocates; use it
// where the laps are wanted, not in search.
func (p Position) Trace(m Move, r Rules) (Position, Sowing, error) {
	from, err := p.check(m)
	if err != nil {
		return p, Sowing{}, err
	}
	q := p
	h := q.Board()
	size := 2 * int(q.n)
	sw := Sowing{Move: m, CaptureFrom: -1}
	pos := from
	for {
		if len(sw.Laps) == r.Laps() {
			return p, Sowing{}, ErrEndless
		}
		lap := Lap{From: pos, Seeds: int(h[pos])}
		h[pos] = 0
		for k := 0; k < lap.Seeds; k++ {
			pos = (pos + 1) % size
			h[pos]++
		}
		lap.To = pos
		sw.Laps = append(sw.Laps, lap)
		if h[pos] == 1 {
			break
		}
	}
	ownRow := pos/int(q.n) == int(q.toMove)
	if ownRow || r.captureInOpponentRow() {
		opp := size - 1 - pos
		if h[opp] > 0 {
			sw.CaptureFrom = opp
			sw.Captured = int(h[opp]) + 1
			q.captured[q.toMove] += uint32(sw.Captured)
			h[opp], h[pos] = 0, 0
		}
	}
	q.setBoard(&h)
	q.toMove ^= 1
	return q, sw, nil
}
