package account

// What the tests of package account_test see of the package's inside.

// ValidSessionID is validSessionID.
var ValidSessionID = validSessionID

// Runs says how many hashes h computed.
func (h *Hasher) Runs() int64 { return h.runs.Load() }

// Decoy is the hash s checks a password against when there is none.
func (s *Service) Decoy() string { return s.dummy }

// HashParams are the parameters stored in hash.
func HashParams(hash string) (Params, error) {
	p, _, _, err := parseHash(hash)
	return p, err
}
