package engine

import "github.com/endodoi/endodoi/rules"

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
func (w *Weights) evaluate(p *rules.Position) Score {
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
