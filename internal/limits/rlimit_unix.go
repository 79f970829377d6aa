//go:build unix

package limits

import "syscall"

// OpenFileLimit returns the process's limit on open files (its soft
// limit), or 0 if it cannot be read.
func OpenFileLimit() uint64 {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0
	}
	return uint64(lim.Cur)
}

// RaiseFileLimit raises the process's limit on open files to the most it
// may have (its hard limit): every live connection holds one. It returns
// the limit then in force (0 if unknown).
func RaiseFileLimit() (uint64, error) {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return 0, err
	}
	if lim.Cur < lim.Max {
		want := lim
		want.Cur = lim.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &want); err != nil {
			return uint64(lim.Cur), err
		}
	}
	return OpenFileLimit(), nil
}
