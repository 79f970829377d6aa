//go:build race

package server

// The race detector slows the engine down many times over: the review
// tests then grade shorter games.
func init() { raceDetector = true }
