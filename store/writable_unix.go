//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd

package store

import "syscall"

// canWrite reports whether this process may write path as the system sees
// it (ownership, a read-only mount), beyond the mode bits.
func canWrite(path string) bool {
	const wOK = 2 // W_OK of access(2)
	return syscall.Access(path, wOK) == nil
}
