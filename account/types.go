package account

import "time"

// Account is a player's account: a name that follows them from device to
// device. A deleted account keeps its row, without name, credentials or
// sessions, so that what refers to it stays whole.
type Account struct {
	ID       string
	Name     string // as its owner spelled it; "" once deleted
	Key      string // the name case-folded, unique among accounts
	Skeleton string // the key's confusable skeleton (Skeleton), unique too; "" for none
	Created  time.Time
	Status   string // Active, Disabled or Deleted
	Kind     string // "" for a person, Bot for a bot
}

// The states of an account.
const (
	Active   = ""
	Disabled = "disabled" // by the site's operator: no sign-in
	Deleted  = "deleted"  // anonymised: no name, no sign-in
)

// Bot is the Kind of a bot's account: it acts by a token, not a session.
const Bot = "bot"

// The kinds of credential.
const (
	CredentialPassword = "password" // Data: the password's argon2id hash
	CredentialPasskey  = "passkey"  // Data: the WebAuthn credential, JSON
	CredentialBot      = "bot"      // a bot's token; its ID holds the hash
)

// Credential is a way to prove that one holds an account.
type Credential struct {
	ID        string // a passkey's credential ID, or the password's own
	AccountID string
	Kind      string
	Data      string
	Created   time.Time
	Used      time.Time
}

// Session is a signed-in browser: the hash of the id its cookie holds.
type Session struct {
	Hash      string
	AccountID string
	Created   time.Time
	Expires   time.Time
}

// Device is a browser that signed in to an account before: the hash of
// the random id of its device cookie. A correct password from it passes
// the limit on its account's name (limit.go).
type Device struct {
	Hash      string
	AccountID string
	Created   time.Time
	Used      time.Time
}

// Bucket is a token bucket of sign-ins, kept in the Store so that every
// instance counts the same: Tokens left at Updated.
type Bucket struct {
	Tokens  float64
	Updated time.Time
}

// Ended is what a sign-out, signing out everywhere, a deletion or a
// disabling ended: the sessions of Account whose hashes Sessions lists
// and, when All, every session that account had (and, when Stopped, it
// can start no other: disabled or deleted). Whoever holds connections
// opened by those sessions, or by the account, closes them.
type Ended struct {
	Account  string
	Sessions []string // the sessions' hashes (HashSessionID)
	All      bool
	Stopped  bool
}
