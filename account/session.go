package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
)

// sessionIDLen is the length of a session id: 32 bytes in base64url.
const sessionIDLen = 43

// NewSessionID returns a new session id, 256 random bits, and the hash
// the store keeps of it.
func NewSessionID() (id, hash string) {
	var b [32]byte
	rand.Read(b[:])
	id = base64.RawURLEncoding.EncodeToString(b[:])
	return id, HashSessionID(id)
}

// HashSessionID is the SHA-256 of id, hex: what the store keeps, so that
// a copy of the database signs nobody in.
func HashSessionID(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

func validSessionID(id string) bool {
	if len(id) != sessionIDLen {
		return false
	}
	_, err := base64.RawURLEncoding.DecodeString(id)
	return err == nil
}

// NewAccountID returns a new account id, 64 random bits in hexadecimal,
// for an account whose id must be known before it is stored (a passkey's
// user handle).
func NewAccountID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
