package account

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/trustelem/zxcvbn"
	"golang.org/x/crypto/argon2"
	"golang.org/x/text/secure/precis"
	"golang.org/x/text/unicode/norm"
)

// The length of a password, in characters.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// MinStrength is the least zxcvbn score (0 to 4) a new password must
// have: 2 refuses every password of its lists of common passwords and
// whatever it guesses in under a million tries, which throttled sign-in
// and argon2id make slow to try online.
const MinStrength = 2

// strengthRunes bounds the text zxcvbn reads: its matching grows fast
// with the length, and a longer password is not weaker.
const strengthRunes = 64

// PreparePassword is a password as hashed: the PRECIS OpaqueString
// profile's form, so that one typed on another device, composed
// otherwise, is the same; as given when it has none (it then matches
// nothing stored).
func PreparePassword(pw string) string {
	if len(pw) > 4*MaxPasswordLen {
		return pw
	}
	if p, err := precis.OpaqueString.String(pw); err == nil {
		return p
	}
	return pw
}

// CheckPassword checks a new password, with the words of the user's own
// (their name) that it must not lean on, and returns it prepared. The
// error wraps ErrBadPassword.
func CheckPassword(pw string, userWords ...string) (string, error) {
	if len(pw) > 4*MaxPasswordLen {
		return "", fmt.Errorf("%w: more than %d characters", ErrBadPassword, MaxPasswordLen)
	}
	p, err := precis.OpaqueString.String(pw)
	if err != nil {
		return "", fmt.Errorf("%w: it has characters a password cannot have", ErrBadPassword)
	}
	switch n := utf8.RuneCountInString(p); {
	case n < MinPasswordLen:
		return "", fmt.Errorf("%w: fewer than %d characters", ErrBadPassword, MinPasswordLen)
	case n > MaxPasswordLen:
		return "", fmt.Errorf("%w: more than %d characters", ErrBadPassword, MaxPasswordLen)
	}
	head := p
	if utf8.RuneCountInString(head) > strengthRunes {
		head = string([]rune(head)[:strengthRunes])
	}
	words := append([]string{"endodoi", "en dodoi", "dodoi", "mancala"}, userWords...)
	if guessable(p, userWords) || zxcvbn.PasswordStrength(head, words).Score < MinStrength {
		return "", fmt.Errorf("%w: too easy to guess; try a few unrelated words", ErrBadPassword)
	}
	return p, nil
}

// minDistinct is the fewest different characters a password must have.
const minDistinct = 5

// commonWords are words a password is too often made of, with a year or
// a few digits and marks around them: the seasons, months and days (in
// English and the site's other languages), the site's names, and the
// words of the lists of common passwords that zxcvbn misses beside a
// year. They are compared without case or accents.
var commonWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`
		spring summer autumn fall winter january february march april may june july august september october
		november december monday tuesday wednesday thursday friday saturday sunday
		password passwort welcome letmein qwerty admin login hello iloveyou football soccer baseball dragon monkey
		sunshine princess shadow master secret
		endodoi dodoi mancala bao
		kiangazi masika vuli kipupwe nenosiri karibu
		jaro leto podzim zima heslo
		xuan ha thu dong matkhau
		`) {
		commonWords[w] = true
	}
}

// guessable reports whether the prepared password pw is one that
// attackers try early though zxcvbn may miss it: one of a few characters
// repeated, in whatever script (éééééééé), or made of a common word, the
// site's name or the user's own words, said once or more, with only
// digits, spaces and marks besides (Summer2024!, Endodoi2026!,
// Amina-Amina).
func guessable(pw string, userWords []string) bool {
	distinct := map[rune]bool{}
	for _, c := range strings.ToLower(pw) {
		distinct[c] = true
	}
	if len(distinct) < minDistinct {
		return true
	}
	letters := plainLetters(pw)
	if letters == "" {
		return false // digits and marks only: zxcvbn's to judge
	}
	for w := range commonWords {
		if repeats(letters, w) {
			return true
		}
	}
	for _, w := range userWords {
		if w = plainLetters(w); w != "" && repeats(letters, w) {
			return true
		}
	}
	return false
}

// repeats reports whether s is w said once or more.
func repeats(s, w string) bool {
	n := len(s) / len(w)
	return n > 0 && len(s)%len(w) == 0 && strings.Repeat(w, n) == s
}

// plainLetters is the letters of s, lower-cased and without accents.
func plainLetters(s string) string {
	var b strings.Builder
	for _, c := range norm.NFD.String(strings.ToLower(s)) {
		if unicode.IsLetter(c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// Params are argon2id's parameters.
type Params struct {
	Time      uint32 // passes over the memory
	MemoryKiB uint32
	Threads   uint8
}

// DefaultParams are RFC 9106's second recommended option (64 MiB of
// memory) with its passes and lanes scaled to a small server: 2 passes on
// 2 lanes rather than 3 on 4. On the 2-core machine it was measured on,
// one hash took about 150 ms (the RFC's 3 passes on 4 lanes, 520 ms).
var DefaultParams = Params{Time: 2, MemoryKiB: 64 << 10, Threads: 2}

// The bounds of the parameters read back from a stored hash, so that a
// damaged one cannot ask for all the memory.
const (
	maxMemoryKiB = 1 << 20
	maxTime      = 16
)

const (
	saltLen = 16
	keyLen  = 32
)

// ErrBusy: too many passwords are being hashed at once.
var ErrBusy = errors.New("too many sign-ins at once; try again in a moment")

// Hasher hashes passwords, a bounded number at once: each hash holds
// Params.MemoryKiB of memory.
type Hasher struct {
	p    Params
	sem  chan struct{}
	wait time.Duration
	runs atomic.Int64 // hashes computed, to check that every sign-in costs one
}

// NewHasher returns a hasher with p that runs at most parallel hashes at
// once, and makes the others wait up to wait for their turn.
func NewHasher(p Params, parallel int, wait time.Duration) *Hasher {
	return &Hasher{p: p, sem: make(chan struct{}, max(1, parallel)), wait: wait}
}

func (h *Hasher) acquire(ctx context.Context) (func(), error) {
	t := time.NewTimer(h.wait)
	defer t.Stop()
	select {
	case h.sem <- struct{}{}:
		return func() { <-h.sem }, nil
	case <-t.C:
		return nil, ErrBusy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Hash hashes a prepared password with a new salt, in the PHC string
// format: $argon2id$v=19$m=...,t=...,p=...$salt$hash.
func (h *Hasher) Hash(ctx context.Context, pw string) (string, error) {
	salt := make([]byte, saltLen)
	rand.Read(salt)
	release, err := h.acquire(ctx)
	if err != nil {
		return "", err
	}
	defer release()
	return h.hash(pw, salt), nil
}

func (h *Hasher) hash(pw string, salt []byte) string {
	h.runs.Add(1)
	return h.format(salt, argon2.IDKey([]byte(pw), salt, h.p.Time, h.p.MemoryKiB, h.p.Threads, keyLen))
}

// format writes salt and key, with h's parameters, in the PHC string
// format.
func (h *Hasher) format(salt, key []byte) string {
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, h.p.MemoryKiB, h.p.Time, h.p.Threads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// decoy returns a hash in the format of Hash's, with h's parameters, that
// no password has: its key is random bytes, not a hash. Checking a
// password against it costs what checking one against a real hash does,
// and making it costs nothing, where hashing would take a server's start
// a fifth of a second and 64 MiB.
func (h *Hasher) decoy() string {
	salt, key := make([]byte, saltLen), make([]byte, keyLen)
	rand.Read(salt)
	rand.Read(key)
	return h.format(salt, key)
}

// Verify reports whether the prepared password pw has the hash stored,
// with the parameters stored with it.
func (h *Hasher) Verify(ctx context.Context, pw, stored string) (bool, error) {
	p, salt, want, err := parseHash(stored)
	if err != nil {
		return false, err
	}
	release, err := h.acquire(ctx)
	if err != nil {
		return false, err
	}
	defer release()
	h.runs.Add(1)
	got := argon2.IDKey([]byte(pw), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}

func parseHash(s string) (p Params, salt, key []byte, err error) {
	parts := strings.Split(s, "$")
	bad := func(why string) error { return fmt.Errorf("stored password hash: %s", why) }
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" || parts[2] != fmt.Sprintf("v=%d", argon2.Version) {
		return p, nil, nil, bad("not argon2id of version 19")
	}
	var threads uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &threads); err != nil {
		return p, nil, nil, bad("parameters: " + err.Error())
	}
	if p.MemoryKiB == 0 || p.MemoryKiB > maxMemoryKiB || p.Time == 0 || p.Time > maxTime || threads == 0 || threads > 255 {
		return p, nil, nil, bad("parameters out of bounds")
	}
	p.Threads = uint8(threads)
	b64 := base64.RawStdEncoding
	if salt, err = b64.DecodeString(parts[4]); err != nil || len(salt) < 8 {
		return p, nil, nil, bad("salt")
	}
	if key, err = b64.DecodeString(parts[5]); err != nil || len(key) < 16 || len(key) > 64 {
		return p, nil, nil, bad("key")
	}
	return p, salt, key, nil
}

func newCredentialID() string {
	var b [12]byte
	rand.Read(b[:])
	return "password-" + hex.EncodeToString(b[:])
}
