// Package passkeytest is a software authenticator for tests: enough of a
// passkey to answer the server's WebAuthn ceremonies as a browser would,
// over HTTP or HTTPS, with a signature counter a test can set back.
package passkeytest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/go-webauthn/webauthn/protocol/webauthncbor"
)

// Key is a passkey of the software authenticator.
type Key struct {
	ID     []byte
	User   []byte // the user handle it was made for
	Count  uint32 // its signature counter, counted up by each Get
	Origin string // the page's origin it answers for
	key    *ecdsa.PrivateKey
}

var b64 = base64.RawURLEncoding

// New returns a new passkey for the page at origin.
func New(t testing.TB, origin string) *Key {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 16)
	rand.Read(id)
	return &Key{ID: id, key: k, Origin: origin}
}

func clientData(typ, challenge, origin string) []byte {
	b, _ := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": origin, "crossOrigin": false})
	return b
}

func authData(rpID string, flags byte, count uint32, attested []byte) []byte {
	h := sha256.Sum256([]byte(rpID))
	out := append(h[:], flags)
	out = binary.BigEndian.AppendUint32(out, count)
	return append(out, attested...)
}

// Create answers a registration's options, as JSON, for the relying party
// rpID: the browser's PublicKeyCredential.toJSON().
func (k *Key) Create(t testing.TB, options string, rpID string) string {
	t.Helper()
	var o struct {
		PublicKey struct {
			Challenge string
			User      struct{ ID string }
		}
	}
	if err := json.Unmarshal([]byte(options), &o); err != nil || o.PublicKey.Challenge == "" {
		t.Fatalf("registration options %s: %v", options, err)
	}
	var err error
	if k.User, err = b64.DecodeString(o.PublicKey.User.ID); err != nil {
		t.Fatalf("user id %q: %v", o.PublicKey.User.ID, err)
	}
	x, y := make([]byte, 32), make([]byte, 32)
	k.key.PublicKey.X.FillBytes(x)
	k.key.PublicKey.Y.FillBytes(y)
	cose, _ := webauthncbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: x, -3: y})
	attested := append(make([]byte, 16), byte(len(k.ID)>>8), byte(len(k.ID)))
	attested = append(append(attested, k.ID...), cose...)
	att, _ := webauthncbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{},
		"authData": authData(rpID, 0x45, 0, attested)}) // user present and verified, with a credential
	b, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.ID), "rawId": b64.EncodeToString(k.ID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(clientData("webauthn.create", o.PublicKey.Challenge, k.Origin)),
			"attestationObject": b64.EncodeToString(att)}})
	return string(b)
}

// Get answers a sign-in's options, as JSON, for the relying party rpID,
// counting its signature counter up.
func (k *Key) Get(t testing.TB, options string, rpID string) string {
	t.Helper()
	var o struct{ PublicKey struct{ Challenge string } }
	if err := json.Unmarshal([]byte(options), &o); err != nil || o.PublicKey.Challenge == "" {
		t.Fatalf("sign-in options %s: %v", options, err)
	}
	k.Count++
	ad := authData(rpID, 0x05, k.Count, nil)
	cd := clientData("webauthn.get", o.PublicKey.Challenge, k.Origin)
	h := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), h[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(map[string]any{"id": b64.EncodeToString(k.ID), "rawId": b64.EncodeToString(k.ID), "type": "public-key",
		"response": map[string]any{"clientDataJSON": b64.EncodeToString(cd), "authenticatorData": b64.EncodeToString(ad),
			"signature": b64.EncodeToString(sig), "userHandle": b64.EncodeToString(k.User)}})
	return string(b)
}
