package engine

import (
	"math/bits"

	"github.com/endodoi/endodoi/rules"
)

var (
	keyNorth uint64 // North to move
	keySize  [rules.MaxHoles + 1]uint64
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
	keyNorth = splitmix(&seed)
	for i := range keySize {
		keySize[i] = splitmix(&seed)
	}
}

// key returns the key of p's board and side to move: a hash of the holes
// as the position packs them (four to a word), of the board's size and of
// the side to move. Captured seeds are not part of it: scores are future
// margins, which do not depend on them.
//
// Each pair of words is multiplied, 128 bits wide, by the pair's salts and
// folded (the mixing step of wyhash); the pairs are independent, so that
// their products are computed side by side.
func key(p *rules.Position) uint64 {
	b := p.Packed()
	n := p.Holes()
	k := mix(b[0]^keySalt[0], b[1]^keySalt[1]) ^ mix(b[2]^keySalt[2], b[3]^keySalt[3])
	if n > 8 {
		k ^= mix(b[4]^keySalt[4], b[5]^keySalt[5]) ^ mix(b[6]^keySalt[6], b[7]^keySalt[7])
	}
	k ^= keySize[n]
	if p.ToMove() == rules.North {
		k ^= keyNorth
	}
	return mix(k, keySalt[8])
}

// mix folds the 128-bit product of a and b into 64 bits.
func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}

// keySalt holds fixed random words for key.
var keySalt [9]uint64

func init() {
	seed := uint64(0x6B657973616C74) // fixed, so keys are the same in every run
	for i := range keySalt {
		keySalt[i] = splitmix(&seed)
	}
}

// zobristMove keys a move for the busy table.
var zobristMove [32]uint64

func init() {
	seed := uint64(0x6275737921) // fixed, like the position keys
	for i := range zobristMove {
		zobristMove[i] = splitmix(&seed)
	}
}
