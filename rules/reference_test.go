package rules

import (
	"testing"
)

// plainPosition is a position as a plain program keeps it: one 16-bit
// count a hole, in sowing order.
type plainPosition struct {
	holes    [2 * MaxHoles]uint16
	captured [2]uint32
	n        uint8
	toMove   Side
}

func toPlain(p Position) plainPosition {
	return plainPosition{holes: p.Board(), captured: p.captured, n: p.n, toMove: p.toMove}
}

// sowPlain is a reference for sow: the plain allocation-free loop that
// sows seed by seed on a board of one count a hole, with none of sow's
// shortcuts (packed holes, a lap in a few word additions, no branches on
// the capture). Perft over it measures what those shortcuts are worth.
func (p *plainPosition) sowPlain(from, maxLaps int, captureInOpponentRow bool) bool {
	h := &p.holes
	n := int(p.n)
	size := 2 * n
	pos := from
	for lap := 1; ; lap++ {
		seeds := h[pos]
		h[pos] = 0
		for ; seeds > 0; seeds-- {
			pos++
			if pos == size {
				pos = 0
			}
			h[pos]++
		}
		if h[pos] == 1 {
			break // the last seed fell into an empty hole
		}
		if lap >= maxLaps {
			return false
		}
	}
	mover := int(p.toMove)
	if pos/n == mover || captureInOpponentRow {
		if opp := size - 1 - pos; h[opp] != 0 {
			p.captured[mover] += uint32(h[opp]) + 1
			h[opp], h[pos] = 0, 0
		}
	}
	p.toMove ^= 1
	return true
}

// perftPlain is perft over sowPlain.
func perftPlain(p plainPosition, counts []uint64, laps int, cross bool) {
	n := int(p.n)
	base := int(p.toMove) * n
	for j := 0; j < n; j++ {
		if p.holes[base+j] == 0 {
			continue
		}
		q := p
		if !q.sowPlain(base+j, laps, cross) {
			continue
		}
		counts[0]++
		if len(counts) > 1 {
			perftPlain(q, counts[1:], laps, cross)
		}
	}
}

// TestSowPlain checks the reference against the real sowing: the same
// perft counts from starts of every variant, small lap caps included.
func TestSowPlain(t *testing.T) {
	for _, r := range []Rules{DefaultRules(), {Variant: Cross}, {MaxLaps: 2}, {Variant: Cross, MaxLaps: 3}} {
		for _, size := range [][2]int{{2, 3}, {3, 2}, {4, 4}, {6, 4}, {8, 4}, {5, 12}} {
			p, err := NewPosition(size[0], size[1])
			if err != nil {
				t.Fatal(err)
			}
			const depth = 5
			want := make([]uint64, depth+1)
			PerftCounts(p, r, want)
			got := make([]uint64, depth)
			perftPlain(toPlain(p), got, r.Laps(), r.captureInOpponentRow())
			for d := 1; d <= depth; d++ {
				if got[d-1] != want[d] {
					t.Errorf("%v, %d holes, %d seeds, depth %d: plain %d, real %d", r, size[0], size[1], d, got[d-1], want[d])
				}
			}
		}
	}
}

// BenchmarkSowing runs perft from the 8-hole start to depth 8 (4,645,971
// moves) over the real sowing and over the plain seed-by-seed loop, side
// by side, so that their ratio is measured in one run:
//
//	GOMAXPROCS=1 go test -run '^$' -bench Sowing -benchtime 5x -count 3 ./rules/
func BenchmarkSowing(b *testing.B) {
	p, _ := NewPosition(8, 4)
	pp := toPlain(p)
	r := DefaultRules()
	const depth = 8
	for _, sower := range []string{"real", "plain"} {
		b.Run(sower, func(b *testing.B) {
			counts := make([]uint64, depth+1)
			b.ReportAllocs()
			for b.Loop() {
				if sower == "real" {
					PerftCounts(p, r, counts)
				} else {
					clear(counts)
					counts[0] = 1
					perftPlain(pp, counts[1:], r.Laps(), r.captureInOpponentRow())
				}
			}
			var moves uint64
			for _, c := range counts[1:] {
				moves += c
			}
			if moves != 4645971 {
				b.Fatalf("%s: %d moves, want 4645971", sower, moves)
			}
			b.ReportMetric(float64(moves)*float64(b.N)/b.Elapsed().Seconds(), "moves/s")
		})
	}
}
