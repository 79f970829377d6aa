package engine

import (
	"sync/atomic"

	"github.com/endodoi/endodoi/rules"
)

// busyTable marks the moves the threads of a parallel search are
// searching, by position key and move, so that another thread reaching the
// same move takes it last instead of repeating the work (the "simplified
// ABDADA" of Tom Kerrigan). A mark lost to a collision costs only some
// repeated work.
type busyTable [busySize]atomic.Uint64

const busySize = 1 << 12

// busyMinDepth is the least remaining depth at which moves are marked:
// below it a subtree is cheaper to search twice than to coordinate.
const busyMinDepth = 3

func busyKey(k uint64, m rules.Move) uint64 { return k ^ zobristMove[m&31] }

// enter marks move m of the position with key k as being searched and
// returns the mark, for leave.
func (b *busyTable) enter(k uint64, m rules.Move) uint64 {
	x := busyKey(k, m)
	b[x&(busySize-1)].Store(x)
	return x
}

// leave removes a mark, unless another has replaced it.
func (b *busyTable) leave(x uint64) {
	b[x&(busySize-1)].CompareAndSwap(x, 0)
}

// searching reports whether some thread is searching move m of the
// position with key k.
func (b *busyTable) searching(k uint64, m rules.Move) bool {
	x := busyKey(k, m)
	return b[x&(busySize-1)].Load() == x
}
