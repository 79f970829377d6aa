package engine

import "github.com/endodoi/endodoi/rules"

// zobristCounts is how many seed counts per hole have their own random key;
// larger counts mix the count into the key of the largest.
const zobristCounts = 64

var (
	zobristHole  [2 * rules.MaxHoles][zobristCounts]uint64
	zobristNorth uint64 // North to move
	zobristSize  [rules.MaxHoles + 1]uint64
)

func splitmix(x *uint64) uint64 {
	*x += 0x9E3779B97F4A7C15
	z := *x
	z = (z ^ z>>30) * 0xBF58476D1CE4E5B9
	z = (z ^ z>>27) * 0x94D049BB133111EB
	return z ^ z>>31
}

func init() {
	seed := uint64(0x656E646F646F69) // fixed, so keys are the same in every run
	for i := range zobristHole {
		for c := range zobristHole[i] {
			zobristHole[i][c] = splitmix(&seed)
		}
	}
	zobristNorth = splitmix(&seed)
	for i := range zobristSize {
		zobristSize[i] = splitmix(&seed)
	}
}

// key returns the Zobrist key of p's board and side to move. Captured
// seeds are not part of it: scores are future margins, which do not depend
// on them.
func key(p *rules.Position) uint64 {
	n := p.Holes()
	k := zobristSize[n]
	h := p.Board()
	for i := 0; i < 2*n; i++ {
		c := int(h[i&holeMask])
		if c < zobristCounts {
			k ^= zobristHole[i][c]
		} else {
			x := uint64(c)
			k ^= zobristHole[i][zobristCounts-1] ^ splitmix(&x)
		}
	}
	if p.ToMove() == rules.North {
		k ^= zobristNorth
	}
	return k
}

// zobristMove keys a move for the busy table.
var zobristMove [32]uint64

func init() {
	seed := uint64(0x6275737921) // fixed, like the position keys
	for i := range zobristMove {
		zobristMove[i] = splitmix(&seed)
	}
}
