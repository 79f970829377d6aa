//go:build !(linux && (amd64 || arm64))

package engine

// allocBuckets returns n empty buckets.
func allocBuckets(n uint64) []bucket { return make([]bucket, n) }
