//go:build !(linux && (amd64 || arm64))

package hugepages

// Size is the size of a huge page (none here).
const Size = 0

// Make returns make([]T, n).
func Make[T any](n int) []T { return make([]T, n) }
