package engine

import (
	"math/bits"

	"github.com/endodoi/endodoi/rules"
)

// Weights are the evaluation's feature weights, in Score units per unit of
// feature. Each feature is the side to move's figure minus the opponent's.
type Weights struct {
	RowSeeds   Score // seeds in the player's row
	Occupied   Score // non-empty holes in the player's row
	Singletons Score // holes holding exactly one seed
	Targets    Score // seeds facing the player's empty holes (capture targets)
	Tempo      Score // a constant bonus for being the side to move
}

// DefaultWeights are the weights the engine plays with.
var DefaultWeights = Weights{RowSeeds: 20, Occupied: 15, Singletons: 15, Targets: 0, Tempo: 50}

// evaluate estimates the future capture margin of p for the side to move,
// for a position that still has legal moves.
//
// Without the Targets term (the default weights), it counts on the holes
// as the position packs them, four to a word: a handful of word operations
// instead of a pass over every hole.
func (w *Weights) evaluate(p *rules.Position) Score {
	if w.Targets != 0 {
		return w.evaluateHoles(p)
	}
	n := p.Holes()
	me := p.ToMove() & 1
	mine, theirs := &rowLanes[n][me], &rowLanes[n][me^1]
	b := p.Packed()
	var seeds, occupied, singles int
	for i := 0; i < (2*n+3)/4; i++ {
		x := b[i&(len(b)-1)]
		nonEmpty := ((x & lanesBelowTop) + lanesBelowTop | x) & lanesTop
		y := x ^ lanesLow // the lanes holding one seed are zero in y
		single := ^((y & lanesBelowTop) + lanesBelowTop | y) & lanesTop
		m, t := mine[i&(len(b)-1)], theirs[i&(len(b)-1)]
		seeds += int((x&m)*lanesLow>>48) - int((x&t)*lanesLow>>48)
		occupied += bits.OnesCount64(nonEmpty&m) - bits.OnesCount64(nonEmpty&t)
		singles += bits.OnesCount64(single&m) - bits.OnesCount64(single&t)
	}
	return w.RowSeeds*Score(seeds) + w.Occupied*Score(occupied) + w.Singletons*Score(singles) + w.Tempo
}

// Masks of the 16-bit lanes of a packed board (rules.Position.Packed).
const (
	lanesLow      = 0x0001_0001_0001_0001 // the lowest bit of each lane
	lanesTop      = 0x8000_8000_8000_8000 // the top bit of each lane
	lanesBelowTop = 0x7FFF_7FFF_7FFF_7FFF // all the other bits
)

// rowLanes[n][s] selects, on a packed board of n holes a row, the lanes of
// side s's row.
var rowLanes [rules.MaxHoles + 1][2][2 * rules.MaxHoles / 4]uint64

func init() {
	for n := rules.MinHoles; n <= rules.MaxHoles; n++ {
		for i := 0; i < 2*n; i++ {
			rowLanes[n][i/n][i/4] |= 0xFFFF << (16 * (i % 4))
		}
	}
}

// evaluateHoles is evaluate hole by hole, with every term.
func (w *Weights) evaluateHoles(p *rules.Position) Score {
	n := p.Holes()
	base := int(p.ToMove()) * n
	other := n - base
	last := 2*n - 1
	h := p.Board()
	var seeds, occupied, singles, targets int
	for j := 0; j < n; j++ {
		// The masks keep every index within the board array, so that
		// the compiler drops the bounds tests.
		a, b := int(h[(base+j)&holeMask]), int(h[(other+j)&holeMask])
		seeds += a - b
		occupied += b2i(a != 0) - b2i(b != 0)
		singles += b2i(a == 1) - b2i(b == 1)
		if a == 0 {
			targets += int(h[(last-base-j)&holeMask])
		}
		if b == 0 {
			targets -= int(h[(last-other-j)&holeMask])
		}
	}
	return w.RowSeeds*Score(seeds) + w.Occupied*Score(occupied) + w.Singletons*Score(singles) +
		w.Targets*Score(targets) + w.Tempo
}

// holeMask keeps an index within a position's board array (2×MaxHoles
// entries), which lets the compiler drop bounds tests in hot loops.
const holeMask = 2*rules.MaxHoles - 1

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
