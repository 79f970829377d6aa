package account

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// testParams make hashing cheap in tests; the flows are the same.
var testParams = Params{Time: 1, MemoryKiB: 64, Threads: 1}

func TestParseUsername(t *testing.T) {
	for _, c := range []struct{ in, display, key string }{
		{"amina", "amina", "amina"},
		{"Amina", "Amina", "amina"},
		{"ＡＭＩＮＡ", "AMINA", "amina"}, // full width is folded
		{"Đức_99", "Đức_99", "đức_99"},
		{"abc", "abc", "abc"},
		{"abcdefghijklmnopqrst", "abcdefghijklmnopqrst", "abcdefghijklmnopqrst"},
	} {
		d, k, err := ParseUsername(c.in)
		if err != nil || d != c.display || k != c.key {
			t.Errorf("ParseUsername(%q) = %q, %q, %v; want %q, %q", c.in, d, k, err, c.display, c.key)
		}
	}
	for _, bad := range []string{"", "ab", "abcdefghijklmnopqrstu", "two words", "tab\tname", "nul\x00name",
		"\xff\xfeabc", "deleted player", strings.Repeat("a", 1000), "zero\u200bwidth"} {
		if _, _, err := ParseUsername(bad); !errors.Is(err, ErrBadName) {
			t.Errorf("ParseUsername(%q): %v, want ErrBadName", bad, err)
		}
	}
}

func TestCheckPassword(t *testing.T) {
	for _, weak := range []string{"password", "password123", "12345678", "qwertyuiop", "iloveyou1", "amina2024",
		"short", "endodoi1", strings.Repeat("a", 20)} {
		if _, err := CheckPassword(weak, "amina"); !errors.Is(err, ErrBadPassword) {
			t.Errorf("CheckPassword(%q): %v, want ErrBadPassword", weak, err)
		}
	}
	if _, err := CheckPassword(strings.Repeat("Xy7#", 33)); !errors.Is(err, ErrBadPassword) {
		t.Error("a password of 132 characters was accepted")
	}
	for _, good := range []string{"correct horse battery staple", "kite-Umbrella-74-ledger", "mbegu nne kila shimo"} {
		if _, err := CheckPassword(good, "amina"); err != nil {
			t.Errorf("CheckPassword(%q): %v", good, err)
		}
	}
	// Composed and decomposed forms are one password.
	a, err1 := CheckPassword("caf\u00e9 lumière piano")
	b, err2 := CheckPassword("cafe\u0301 lumière piano")
	if err1 != nil || err2 != nil || a != b || PreparePassword("cafe\u0301") != PreparePassword("caf\u00e9") {
		t.Errorf("normalised %q, %q (%v, %v)", a, b, err1, err2)
	}
}

func TestHash(t *testing.T) {
	ctx := context.Background()
	h := NewHasher(testParams, 2, time.Second)
	s, err := h.Hash(ctx, "a password")
	if err != nil || !strings.HasPrefix(s, "$argon2id$v=19$m=64,t=1,p=1$") {
		t.Fatalf("hash %q, %v", s, err)
	}
	if s2, _ := h.Hash(ctx, "a password"); s2 == s {
		t.Error("two hashes of one password are the same: no salt")
	}
	if ok, err := h.Verify(ctx, "a password", s); !ok || err != nil {
		t.Errorf("Verify of the password: %v, %v", ok, err)
	}
	if ok, err := h.Verify(ctx, "a passwore", s); ok || err != nil {
		t.Errorf("Verify of another: %v, %v", ok, err)
	}
	for _, bad := range []string{"", "$argon2i$v=19$m=64,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5",
		"$argon2id$v=19$m=64,t=1,p=0$c2FsdHNhbHQ$a2V5a2V5a2V5a2V5a2V5", "$argon2id$v=19$m=64,t=1,p=1$!$a2V5a2V5a2V5a2V5a2V5"} {
		if _, err := h.Verify(ctx, "x", bad); err == nil {
			t.Errorf("Verify against %q: no error", bad)
		}
	}
	// The hashes wait their turn, and give up.
	busy := NewHasher(testParams, 1, 10*time.Millisecond)
	release, _ := busy.acquire(ctx)
	if _, err := busy.Hash(ctx, "x"); !errors.Is(err, ErrBusy) {
		t.Errorf("a hash with none free: %v, want ErrBusy", err)
	}
	release()
}

// The parsers never panic, and what they accept keeps their promises.
func FuzzParseUsername(f *testing.F) {
	for _, s := range []string{"amina", "ＡＭＩＮＡ", "two words", "Đức_99", "\xff", "ab"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, k, err := ParseUsername(s)
		if err != nil {
			if !errors.Is(err, ErrBadName) {
				t.Fatalf("%q: %v does not wrap ErrBadName", s, err)
			}
			return
		}
		if n := utf8.RuneCountInString(d); n < MinNameLen || n > MaxNameLen || !utf8.ValidString(k) || strings.ContainsAny(d, " \t\n") {
			t.Fatalf("%q accepted as %q (%q)", s, d, k)
		}
		if d2, k2, err := ParseUsername(d); err != nil || d2 != d || k2 != k {
			t.Fatalf("%q: its display form %q parses as %q, %q, %v", s, d, d2, k2, err)
		}
	})
}

func FuzzCheckPassword(f *testing.F) {
	for _, s := range []string{"password", "correct horse battery staple", "caf\u00e9 lumière", "\x00\x01", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := CheckPassword(s)
		if err != nil {
			if !errors.Is(err, ErrBadPassword) {
				t.Fatalf("%q: %v does not wrap ErrBadPassword", s, err)
			}
			return
		}
		if n := utf8.RuneCountInString(p); n < MinPasswordLen || n > MaxPasswordLen || PreparePassword(s) != p {
			t.Fatalf("%q accepted as %q", s, p)
		}
	})
}

// Passwords built from a season or a common word and a year, the site's
// or the user's name, or one character repeated (in any script), are
// refused.
func TestWeakPasswords(t *testing.T) {
	for _, weak := range []string{"Summer2024!", "Winter2025", "Endodoi2026!", "éééééééé", "ééééééééé1", "ддддддддд",
		"Autumn2023?", "spring2026", "Password2025!", "EnDodoi2024", "En Dodoi 2025", "amina2024!", "Amina-Amina",
		"Kiangazi2025", "ааааbbbbcccc", "Monday2024!", "2025Summer!"} {
		if _, err := CheckPassword(weak, "Amina"); !errors.Is(err, ErrBadPassword) {
			t.Errorf("CheckPassword(%q): %v, want ErrBadPassword", weak, err)
		}
	}
	for _, good := range []string{"correct horse battery staple", "kite-Umbrella-74-ledger", "mbegu nne kila shimo",
		"Summer lantern 2024 orbit", "čtyři semínka v každé jamce"} {
		if _, err := CheckPassword(good, "Amina"); err != nil {
			t.Errorf("CheckPassword(%q): %v", good, err)
		}
	}
}

// A name stacking more marks on one character than a display name may
// is refused.
func TestUsernameMarks(t *testing.T) {
	if _, _, err := ParseUsername("x\u0301\u0302\u0303\u0304\u0306yz"); !errors.Is(err, ErrBadName) {
		t.Errorf("five marks on one letter: %v", err)
	}
	if _, _, err := ParseUsername("Đức_Tiến"); err != nil {
		t.Errorf("Vietnamese tones: %v", err)
	}
}
