//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package egtb

import (
	"fmt"
	"math"
	"os"
)

// mapFile reads the first length bytes of f into memory (this system has
// no mapping of files here), and returns them with a function that does
// nothing.
func mapFile(f *os.File, length uint64) ([]byte, func() error, error) {
	if length > math.MaxInt {
		return nil, nil, fmt.Errorf("%d bytes is too large to read", length)
	}
	data := make([]byte, length)
	if _, err := f.ReadAt(data, 0); err != nil {
		return nil, nil, err
	}
	return data, func() error { return nil }, nil
}
