package egtb

import (
	"sync/atomic"
	"unsafe"

	"github.com/endodoi/endodoi/internal/hugepages"
)

// sharedBytes is an array of bytes that workers change one at a time, at
// once, through atomic operations on the 32-bit words that hold them: the
// three-byte builder's values and move counters, changed by whichever
// worker finds a predecessor first. Outside the parallel rounds it is read
// and written as an ordinary byte slice, as the one-byte builder's bytes
// always are, each by the worker that owns it.
type sharedBytes []uint32

func newSharedBytes(n uint64) sharedBytes {
	return hugepages.Make[uint32](int((n + 3) / 4))
}

// uint8s returns the first n bytes as a slice.
func (a sharedBytes) uint8s(n uint64) []uint8 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*uint8)(unsafe.Pointer(&a[0])), n)
}

// int8s returns the first n bytes as a slice of signed bytes.
func (a sharedBytes) int8s(n uint64) []int8 {
	if n == 0 {
		return nil
	}
	return unsafe.Slice((*int8)(unsafe.Pointer(&a[0])), n)
}

// littleEndian says where byte i of a word sits in it.
var littleEndian = func() bool {
	x := uint32(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// shift returns the position of byte i within its word, in bits.
func shift(i uint64) uint32 {
	if littleEndian {
		return uint32(8 * (i & 3))
	}
	return uint32(8 * (3 - i&3))
}

// load returns byte i.
func (a sharedBytes) load(i uint64) uint8 {
	return uint8(atomic.LoadUint32(&a[i>>2]) >> shift(i))
}

// decrementPair takes one from byte 2i, which must not be 0, and returns
// what is left and byte 2i+1, as they are after the change.
func (a sharedBytes) decrementPair(i uint64) (uint8, int8) {
	s := shift(2 * i)
	w := atomic.AddUint32(&a[i>>1], ^(uint32(1)<<s - 1))
	return uint8(w >> s), int8(w >> shift(2*i+1))
}

// change sets byte i to to if it is from, and reports whether it did.
func (a sharedBytes) change(i uint64, from, to uint8) bool {
	w, s := &a[i>>2], shift(i)
	for {
		old := atomic.LoadUint32(w)
		if uint8(old>>s) != from {
			return false
		}
		if atomic.CompareAndSwapUint32(w, old, old&^(0xFF<<s)|uint32(to)<<s) {
			return true
		}
	}
}
