package account_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/store"
)

// testParams make hashing cheap in tests; the flows are the same.
var testParams = account.Params{Time: 1, MemoryKiB: 64, Threads: 1}

func newService(t *testing.T) (*account.Service, *account.Hasher, store.Store) {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	h := account.NewHasher(testParams, 2, time.Second)
	return account.New(st, h), h, st
}

// A new service hashes nothing: its decoy, checked when a sign-in has no
// hash to check, is made without one, with the parameters of the hashes
// the service writes, so that checking against it costs as much.
func TestDecoyCostsNothingToMake(t *testing.T) {
	s, h, _ := newService(t)
	if n := h.Runs(); n != 0 {
		t.Errorf("a new service hashed %d times", n)
	}
	p, err := account.HashParams(s.Decoy())
	if err != nil || p != testParams {
		t.Errorf("the decoy's parameters: %+v, %v; want %+v", p, err, testParams)
	}
	other, _, _ := newService(t)
	if s.Decoy() == other.Decoy() {
		t.Error("two services made the same decoy")
	}
}

func TestFlows(t *testing.T) {
	ctx := context.Background()
	s, h, _ := newService(t)
	const pw = "kite-Umbrella-74-ledger"
	up, err := s.SignUp(ctx, "Amina", pw)
	if err != nil {
		t.Fatal(err)
	}
	if !account.ValidSessionID(up.Session) || up.Account.Name != "Amina" || up.Expires.Sub(time.Now()) < account.SessionLife-time.Minute {
		t.Fatalf("signed up: %+v", up)
	}
	if _, err := s.SignUp(ctx, "AMINA", pw); !errors.Is(err, account.ErrNameTaken) {
		t.Errorf("a taken name: %v", err)
	}
	if _, err := s.SignUp(ctx, "Baraka", "password1"); !errors.Is(err, account.ErrBadPassword) {
		t.Errorf("a common password: %v", err)
	}
	if a, err := s.Who(ctx, up.Session); err != nil || a.ID != up.Account.ID {
		t.Errorf("Who: %+v, %v", a, err)
	}
	for _, bad := range []string{"", "x", strings.Repeat("A", 43), up.Session[:42] + "!"} {
		if _, err := s.Who(ctx, bad); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("Who(%q): %v", bad, err)
		}
	}

	// Every failed sign-in costs one hash, whatever failed.
	for _, c := range []struct{ name, pw string }{{"amina", "wrong password"}, {"nobody", pw}, {"x", pw}, {"Amina", ""}} {
		before := h.Runs()
		if _, err := s.SignIn(ctx, account.PasswordSignIn{Name: c.name, Password: c.pw}); !errors.Is(err, account.ErrSignIn) {
			t.Errorf("SignIn(%q, %q): %v, want account.ErrSignIn", c.name, c.pw, err)
		}
		if n := h.Runs() - before; n != 1 {
			t.Errorf("SignIn(%q, %q) hashed %d times, want 1", c.name, c.pw, n)
		}
	}
	in, err := s.SignIn(ctx, account.PasswordSignIn{Name: "ａmina", Password: pw})
	if err != nil || in.Account.ID != up.Account.ID || in.Session == up.Session {
		t.Fatalf("SignIn: %+v, %v", in, err)
	}
	if ended, err := s.SignOut(ctx, in.Session); err != nil || ended.Account != up.Account.ID || len(ended.Sessions) != 1 {
		t.Fatalf("SignOut: %+v, %v", ended, err)
	}
	if _, err := s.Who(ctx, in.Session); !errors.Is(err, account.ErrNoSession) {
		t.Errorf("after sign-out: %v", err)
	}
	in2, _ := s.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: pw})
	// Signing out everywhere says which sessions ended, for whoever holds
	// connections opened by them.
	if e, err := s.SignOutEverywhere(ctx, up.Account.ID); err != nil || len(e.Sessions) != 2 || !e.All || e.Account != up.Account.ID ||
		!strings.Contains(strings.Join(e.Sessions, " "), account.HashSessionID(up.Session)) {
		t.Errorf("SignOutEverywhere: %+v, %v; want both sessions", e, err)
	}
	for _, id := range []string{up.Session, in2.Session} {
		if _, err := s.Who(ctx, id); !errors.Is(err, account.ErrNoSession) {
			t.Errorf("after sign-out everywhere: %v", err)
		}
	}

	// The operator disables, enables, anonymises.
	if e, err := s.Admin(ctx, "disable", "Amina"); err != nil || !e.Stopped || e.Account != up.Account.ID {
		t.Fatalf("disable: %+v, %v", e, err)
	}
	if _, err := s.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: pw}); !errors.Is(err, account.ErrSignIn) {
		t.Errorf("signing in to a disabled account: %v", err)
	}
	if _, err := s.Admin(ctx, "enable", "amina"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: pw}); err != nil {
		t.Errorf("after enabling: %v", err)
	}
	if _, err := s.Admin(ctx, "frobnicate", "amina"); err == nil {
		t.Error("an unknown action passed")
	}
	if _, err := s.Admin(ctx, "disable", "nobody"); !errors.Is(err, account.ErrNotFound) {
		t.Errorf("no such account: %v", err)
	}
	if _, err := s.Admin(ctx, "anonymise", "amina"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: pw}); !errors.Is(err, account.ErrSignIn) {
		t.Errorf("signing in to a deleted account: %v", err)
	}
	if _, err := s.SignUp(ctx, "amina", pw); err != nil {
		t.Errorf("the name of a deleted account is free again: %v", err)
	}
}

// A name that looks like another account's (the same UTS #39 skeleton) is
// taken: Cyrillic, Greek and dotless letters for Latin ones.
func TestLookAlikeNames(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newService(t)
	const pw = "kite-Umbrella-74-ledger"
	for _, name := range []string{"Amina", "Oloitip", "Nairimi", "HcBot"} {
		if _, err := s.SignUp(ctx, name, pw); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"\u0410mina", "Ol\u03bfitip", "Na\u0131rimi", "H\u0441Bot", "Arnina"} {
		if _, err := s.SignUp(ctx, name, pw); !errors.Is(err, account.ErrNameTaken) {
			t.Errorf("SignUp(%q) beside an account that looks the same: %v, want ErrNameTaken", name, err)
		}
		if _, _, err := s.CreateBot(ctx, name); !errors.Is(err, account.ErrNameTaken) {
			t.Errorf("CreateBot(%q): %v, want ErrNameTaken", name, err)
		}
	}
	// Once the account is deleted, its look-alikes are free.
	in, err := s.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: pw})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, in.Account.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SignUp(ctx, "\u0410mina", pw); err != nil {
		t.Errorf("a look-alike of a deleted account: %v", err)
	}
}
