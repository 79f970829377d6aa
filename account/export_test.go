package account

// What the tests of package account_test see of the package's inside.

// ValidSessionID is validSessionID.
var ValidSessionID = validSessionID

// Runs says how many hashes h computed.
func (h *Hasher) Runs() int64 { return h.runs.Load() }
