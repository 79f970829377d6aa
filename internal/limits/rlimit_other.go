//go:build !unix

package limits

// OpenFileLimit returns 0: the limit on open files is not known here.
func OpenFileLimit() uint64 { return 0 }

// RaiseFileLimit does nothing where the system has no such limit to
// raise.
func RaiseFileLimit() (uint64, error) { return 0, nil }
