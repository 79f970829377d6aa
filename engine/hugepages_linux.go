//go:build linux && (amd64 || arm64)

package engine

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of the pages the table asks for: with them a probe
// anywhere in a table of many MiB rarely misses the TLB.
const hugePage = 2 << 20

// allocBuckets returns n empty buckets. A table of a huge page or more is
// aligned on one, and the kernel is asked to back it with huge pages
// (transparent huge pages in "madvise" mode) before anything touches it; a
// refusal only costs speed.
func allocBuckets(n uint64) []bucket {
	const size = unsafe.Sizeof(bucket{})
	const perPage = uint64(hugePage / size)
	if n < perPage {
		return make([]bucket, n)
	}
	all := make([]bucket, n+perPage)
	skip := uint64(0)
	if off := uintptr(unsafe.Pointer(&all[0])) % hugePage; off != 0 {
		skip = uint64((hugePage - off) / size)
	}
	b := all[skip : skip+n : skip+n]
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Pointer(&b[0])), n*uint64(size)), syscall.MADV_HUGEPAGE)
	return b
}
