package egtb

import (
	"fmt"

	"github.com/endodoi/endodoi/rules"
)

// MaxSeeds is the largest seed count a database may hold: values lie in
// [-n, n] and are stored as signed bytes.
const MaxSeeds = 127

// maxBinom bounds the binomial table: seed counts up to MaxSeeds on up to
// 2*rules.MaxHoles holes.
const maxBinom = MaxSeeds + 2*rules.MaxHoles

// binom[x][k] is the binomial coefficient C(x, k), saturated at 2^63.
var binom [maxBinom + 1][2*rules.MaxHoles + 1]uint64

// rankTerms[i<<8 + x] is C(x, i+1), the term of bar i at place x in a
// rank: binom transposed and flattened, so that a rank's loop over the bars
// steps through it with one addition a bar (bar i with i seeds before it
// at place x is at i*257 + seeds), and sized in a power of two, so that a
// masked index needs no bounds test. Places reach at most maxBinom (159).
var rankTerms [2 * rules.MaxHoles << 8]uint64

func init() {
	for x := 0; x <= maxBinom; x++ {
		binom[x][0] = 1
		for k := 1; k <= 2*rules.MaxHoles && k <= x; k++ {
			s := binom[x-1][k-1] + binom[x-1][k]
			if s < binom[x-1][k] || s > 1<<63 {
				s = 1 << 63
			}
			binom[x][k] = s
		}
	}
	for i := 0; i < 2*rules.MaxHoles; i++ {
		for x := 0; x <= maxBinom; x++ {
			rankTerms[i<<8+x] = binom[x][i+1]
		}
	}
}

// Size returns the number of boards of the given number of holes a row
// with n seeds on the board: the number of ways to put n seeds into 2*holes
// holes, C(n+2*holes-1, 2*holes-1). A database of n seeds has this many
// entries (South to move).
func Size(holes, n int) uint64 {
	if holes < rules.MinHoles || holes > rules.MaxHoles || n < 0 || n > MaxSeeds {
		return 0
	}
	return binom[n+2*holes-1][2*holes-1]
}

// CumulativeSize returns the number of boards with at most n seeds on the
// board, C(n+2*holes, 2*holes).
func CumulativeSize(holes, n int) uint64 {
	if holes < rules.MinHoles || holes > rules.MaxHoles || n < 0 || n > MaxSeeds {
		return 0
	}
	return binom[n+2*holes][2*holes]
}

// Rank returns the index of a board among the boards with the same number
// of holes and seeds, in [0, Size(len(board)/2, seeds)). The board lists the
// holes in sowing order (South's a.. then North's A..).
//
// The index is the combinatorial number system's rank of the bar positions
// of the board's stars-and-bars picture: with prefix sums s_i = board[0] +
// ... + board[i], bar i sits at c_i = s_i + i, and the rank is the sum of
// C(c_i, i+1) over i < len(board)-1.
func Rank(board []int) uint64 {
	var r uint64
	s := 0
	for i := 0; i < len(board)-1; i++ {
		s += board[i]
		r += binom[s+i][i+1]
	}
	return r
}

// Unrank fills board (2*holes entries) with the board of the given rank
// among those with n seeds. It reports an error if the rank is out of range.
func Unrank(board []int, n int, rank uint64) error {
	m := len(board)
	if m < 2*rules.MinHoles || m > 2*rules.MaxHoles || m%2 != 0 || n < 0 || n > MaxSeeds {
		return fmt.Errorf("egtb: unrank: bad board size %d or seed count %d", m, n)
	}
	if rank >= binom[n+m-1][m-1] {
		return fmt.Errorf("egtb: rank %d out of range for %d seeds on %d holes", rank, n, m)
	}
	// Bars from the last down: c_i is the largest c with C(c, i+1) <= rank.
	hi := n + m - 2 // c_{m-2} <= n+m-2
	next := n + m - 1
	for i := m - 2; i >= 0; i-- {
		c := hi
		for binom[c][i+1] > rank {
			c--
		}
		rank -= binom[c][i+1]
		board[i+1] = next - c - 1
		next = c
		hi = c - 1
	}
	board[0] = next
	return nil
}
