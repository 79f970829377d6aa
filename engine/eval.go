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
	var seeds, occupied, singles, targets int
	for j := 0; j < n; j++ {
		a, b := p.SeedsAt(base+j), p.SeedsAt(other+j)
		seeds += a - b
		occupied += b2i(a != 0) - b2i(b != 0)
		singles += b2i(a == 1) - b2i(b == 1)
		if a == 0 {
			targets += p.SeedsAt(last - base - j)
		}
		if b == 0 {
			targets -= p.SeedsAt(last - other - j)
		}
	}
	return w.RowSeeds*Score(seeds) + w.Occupied*Score(occupied) + w.Singletons*Score(singles) +
		w.Targets*Score(targets) + w.Tempo
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
