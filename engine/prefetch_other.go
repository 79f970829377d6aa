//go:build !amd64

package engine

import "unsafe"

// prefetch does nothing where no prefetch instruction is wired in.
func prefetch(addr unsafe.Pointer) {}
