// Package prefetch asks the processor to bring a cache line closer before
// it is read: for the large arrays read at random places (the engine's
// transposition table, the endgame builder's values), whose reads miss the
// caches, so that the miss overlaps other work instead of stalling it.
package prefetch

import "unsafe"

// Line asks the processor to bring the cache line at addr into its
// caches: a hint that neither waits for the line nor faults.
//
//go:noescape
func Line(addr unsafe.Pointer)
