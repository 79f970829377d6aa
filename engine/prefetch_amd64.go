package engine

import "unsafe"

// prefetch asks the processor to bring the cache line at addr closer: a
// hint that neither waits for the line nor faults.
//
//go:noescape
func prefetch(addr unsafe.Pointer)
