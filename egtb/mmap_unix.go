//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package egtb

import (
	"fmt"
	"math"
	"os"
	"syscall"
)

// mapFile maps the first length bytes of f into memory, read only, and
// returns them with the function that unmaps them.
func mapFile(f *os.File, length uint64) ([]byte, func() error, error) {
	if length == 0 {
		return nil, func() error { return nil }, nil
	}
	if length > math.MaxInt {
		return nil, nil, fmt.Errorf("%d bytes is too large to map", length)
	}
	data, err := syscall.Mmap(int(f.Fd()), 0, int(length), syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return nil, nil, err
	}
	return data, func() error { return syscall.Munmap(data) }, nil
}
