//go:build linux && (amd64 || arm64)

package hugepages

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// An array of a huge page or more starts on one where its element's size
// divides a huge page; every array has the length asked for, zeroed.
func TestMakeAligned(t *testing.T) {
	check := func(what string, start unsafe.Pointer, elem, bytes uintptr, n, length, capacity int) {
		t.Helper()
		if length != n || capacity != n {
			t.Errorf("%s: length %d, capacity %d, want %d", what, length, capacity, n)
		}
		if bytes >= Size && Size%elem == 0 && uintptr(start)%Size != 0 {
			t.Errorf("%s: starts %d bytes past a huge page", what, uintptr(start)%Size)
		}
	}
	for _, n := range []int{0, 1, 1000, Size - 1, Size, 3*Size + 5} {
		b := Make[byte](n)
		if n > 0 {
			check("bytes "+strconv.Itoa(n), unsafe.Pointer(&b[0]), 1, uintptr(n), n, len(b), cap(b))
		}
		type odd [3]uint32 // 12 bytes: a huge page is no multiple of it
		o := Make[odd](n / 12)
		if len(o) > 0 {
			check("12-byte elements "+strconv.Itoa(n/12), unsafe.Pointer(&o[0]), 12, uintptr(len(o))*12, n/12, len(o), cap(o))
		}
		for i := range b {
			if b[i] != 0 {
				t.Fatalf("bytes %d: not zeroed at %d", n, i)
			}
		}
	}
}

// Where the kernel takes the advice (transparent huge pages not "never"),
// an array written once is backed by huge pages.
func TestMakeBacked(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || strings.Contains(string(mode), "[never]") {
		t.Skipf("transparent huge pages off here (%q, %v)", strings.TrimSpace(string(mode)), err)
	}
	before := anonHuge(t)
	a := Make[uint64](16 * Size / 8)
	for i := range a {
		a[i] = uint64(i)
	}
	if after := anonHuge(t); after-before < 8*Size/1024 {
		t.Errorf("%d KiB of huge pages before 32 MiB written, %d after", before, after)
	}
}

// anonHuge returns the process's anonymous memory in huge pages, in KiB.
func anonHuge(t *testing.T) int {
	t.Helper()
	data, err := os.ReadFile("/proc/self/smaps_rollup")
	if err != nil {
		t.Skipf("no smaps_rollup: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "AnonHugePages:" {
			kib, _ := strconv.Atoi(f[1])
			return kib
		}
	}
	t.Fatal("no AnonHugePages line in smaps_rollup")
	return 0
}
