package account

import (
	"encoding/json"
	"strings"
)

// Revocation says that sign-ins ended: one session, or every session of
// an account, which may have been disabled or deleted besides. The servers
// sharing a database tell each other of it (store.Notifier), so that the
// live connections it opened stop acting on every server at once: each
// server checks again the session or bot token of the connections it
// names, and closes those that no longer hold.
type Revocation struct {
	// Account is the account whose sessions ended, or that was disabled
	// or deleted; "" when only the session is known.
	Account string `json:"a,omitempty"`
	// Session is the hash (HashSessionID) of the one session that ended;
	// "" for every session of Account, and its bot token.
	Session string `json:"s,omitempty"`
}

// revocationPrefix begins the notice of a revocation, told apart from the
// servers' other notices.
const revocationPrefix = "R"

// Notice is the notice that tells the servers of r.
func (r Revocation) Notice() string {
	b, _ := json.Marshal(r) // plain data: it always marshals
	return revocationPrefix + string(b)
}

// ParseRevocation reads a notice of Notice; ok is false for another
// notice.
func ParseRevocation(notice string) (r Revocation, ok bool) {
	rest, found := strings.CutPrefix(notice, revocationPrefix)
	if !found || json.Unmarshal([]byte(rest), &r) != nil || r.Account == "" && r.Session == "" {
		return Revocation{}, false
	}
	return r, true
}
