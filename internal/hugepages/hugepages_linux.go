//go:build linux && (amd64 || arm64)

package hugepages

import (
	"syscall"
	"unsafe"
)

// Size is the size of a huge page.
const Size = 2 << 20

// Make returns a zeroed slice of n elements of T. For one of a huge page
// or more the kernel is asked to back it with huge pages before anything
// touches it (a refusal only costs speed); where T's size divides a huge
// page, the slice starts on one, so that none of it is left on small pages
// at its ends.
func Make[T any](n int) []T {
	var zero T
	size := unsafe.Sizeof(zero)
	if size == 0 || uintptr(n)*size < Size {
		return make([]T, n)
	}
	var s []T
	if Size%size == 0 {
		all := make([]T, n+int(Size/size))
		skip := (Size - uintptr(unsafe.Pointer(&all[0]))%Size) % Size / size
		s = all[skip : int(skip)+n : int(skip)+n]
	} else {
		s = make([]T, n)
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), uintptr(n)*size), syscall.MADV_HUGEPAGE)
	return s
}
