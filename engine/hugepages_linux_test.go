//go:build linux && (amd64 || arm64)

package engine

import (
	"testing"
	"unsafe"
)

// A table of a huge page or more starts on one and has the size asked
// for; a smaller one is allocated as it is.
func TestTableHugePageAligned(t *testing.T) {
	for _, mib := range []int{1, 2, 3, 16} {
		tb := newTable(mib)
		want := uint64(mib) << 20 / uint64(unsafe.Sizeof(bucket{}))
		for want&(want-1) != 0 {
			want &= want - 1
		}
		if got := uint64(len(tb.buckets)); got != want || uint64(cap(tb.buckets)) != want {
			t.Errorf("%d MiB: %d buckets (capacity %d), want %d", mib, got, cap(tb.buckets), want)
		}
		if mib >= 2 {
			if off := uintptr(unsafe.Pointer(&tb.buckets[0])) % hugePage; off != 0 {
				t.Errorf("%d MiB: the table starts %d bytes past a huge page", mib, off)
			}
		}
		tb.store(12345, entry{score: 3, depth: 2, bound: boundExact})
		if e, ok := tb.probe(12345); !ok || e.score != 3 {
			t.Errorf("%d MiB: stored entry not found: %+v %v", mib, e, ok)
		}
	}
}
