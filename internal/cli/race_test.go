//go:build race

package cli

// The race detector keeps shadow memory for every allocation: a server
// built with it takes several times the memory.
func init() { raceMemory = 8 }
