package account

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/store"
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

func newService(t *testing.T) (*Service, *Hasher, store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := NewHasher(testParams, 2, time.Second)
	return New(st, h), h, st
}

func TestFlows(t *testing.T) {
	ctx := context.Background()
	s, h, _ := newService(t)
	const pw = "kite-Umbrella-74-ledger"
	up, err := s.SignUp(ctx, "Amina", pw)
	if err != nil {
		t.Fatal(err)
	}
	if !validSessionID(up.Session) || up.Account.Name != "Amina" || up.Expires.Sub(time.Now()) < SessionLife-time.Minute {
		t.Fatalf("signed up: %+v", up)
	}
	if _, err := s.SignUp(ctx, "AMINA", pw); !errors.Is(err, ErrNameTaken) {
		t.Errorf("a taken name: %v", err)
	}
	if _, err := s.SignUp(ctx, "Baraka", "password1"); !errors.Is(err, ErrBadPassword) {
		t.Errorf("a common password: %v", err)
	}
	if a, err := s.Who(ctx, up.Session); err != nil || a.ID != up.Account.ID {
		t.Errorf("Who: %+v, %v", a, err)
	}
	for _, bad := range []string{"", "x", strings.Repeat("A", 43), up.Session[:42] + "!"} {
		if _, err := s.Who(ctx, bad); !errors.Is(err, ErrNoSession) {
			t.Errorf("Who(%q): %v", bad, err)
		}
	}

	// Every failed sign-in costs one hash, whatever failed.
	for _, c := range []struct{ name, pw string }{{"amina", "wrong password"}, {"nobody", pw}, {"x", pw}, {"Amina", ""}} {
		before := h.runs.Load()
		if _, err := s.SignIn(ctx, c.name, c.pw); !errors.Is(err, ErrSignIn) {
			t.Errorf("SignIn(%q, %q): %v, want ErrSignIn", c.name, c.pw, err)
		}
		if n := h.runs.Load() - before; n != 1 {
			t.Errorf("SignIn(%q, %q) hashed %d times, want 1", c.name, c.pw, n)
		}
	}
	in, err := s.SignIn(ctx, "ａmina", pw)
	if err != nil || in.Account.ID != up.Account.ID || in.Session == up.Session {
		t.Fatalf("SignIn: %+v, %v", in, err)
	}
	if err := s.SignOut(ctx, in.Session); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Who(ctx, in.Session); !errors.Is(err, ErrNoSession) {
		t.Errorf("after sign-out: %v", err)
	}
	in2, _ := s.SignIn(ctx, "amina", pw)
	if n, err := s.SignOutEverywhere(ctx, up.Account.ID); err != nil || n != 2 {
		t.Errorf("SignOutEverywhere: %d, %v; want 2", n, err)
	}
	for _, id := range []string{up.Session, in2.Session} {
		if _, err := s.Who(ctx, id); !errors.Is(err, ErrNoSession) {
			t.Errorf("after sign-out everywhere: %v", err)
		}
	}

	// The operator disables, enables, anonymises.
	if err := s.Admin(ctx, "disable", "Amina"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "amina", pw); !errors.Is(err, ErrSignIn) {
		t.Errorf("signing in to a disabled account: %v", err)
	}
	if err := s.Admin(ctx, "enable", "amina"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "amina", pw); err != nil {
		t.Errorf("after enabling: %v", err)
	}
	if err := s.Admin(ctx, "frobnicate", "amina"); err == nil {
		t.Error("an unknown action passed")
	}
	if err := s.Admin(ctx, "disable", "nobody"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("no such account: %v", err)
	}
	if err := s.Admin(ctx, "anonymise", "amina"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, "amina", pw); !errors.Is(err, ErrSignIn) {
		t.Errorf("signing in to a deleted account: %v", err)
	}
	if _, err := s.SignUp(ctx, "amina", pw); err != nil {
		t.Errorf("the name of a deleted account is free again: %v", err)
	}
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
