package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/play/game"
)

// An account is stored with its credentials and session all at once; its
// name is unique; sessions expire, end one by one or all together; a
// disabled account cannot hold a session; an anonymised one loses its
// name, credentials and sessions; a challenge is taken once, before it
// expires.
func TestAccounts(t *testing.T) { forEachStore(t, testAccounts) }

func testAccounts(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	at := now()
	a := &Account{Name: "Amina", Key: "amina"}
	pw := Credential{ID: "pw-1", Kind: CredentialPassword, Data: "$argon2id$..."}
	sess := &Session{Hash: "h1", Expires: at.Add(time.Hour)}
	if err := s.CreateAccount(ctx, a, []Credential{pw}, sess); err != nil {
		t.Fatal(err)
	}
	if !ValidID(a.ID) || sess.AccountID != a.ID {
		t.Fatalf("account id %q, session's %q", a.ID, sess.AccountID)
	}
	if err := s.CreateAccount(ctx, &Account{Name: "AMINA", Key: "amina"}, nil, nil); !errors.Is(err, ErrExists) {
		t.Errorf("a taken name: %v, want ErrExists", err)
	}
	got, err := s.AccountByKey(ctx, "amina")
	if err != nil || got.ID != a.ID || got.Name != "Amina" || got.Status != AccountActive || !got.Created.Equal(a.Created) {
		t.Fatalf("AccountByKey: %+v, %v; want %+v", got, err, a)
	}
	if _, err := s.AccountByKey(ctx, "nobody"); !errors.Is(err, ErrNotFound) {
		t.Errorf("no such name: %v", err)
	}
	creds, err := s.Credentials(ctx, a.ID)
	if err != nil || len(creds) != 1 || creds[0].Data != pw.Data || creds[0].Kind != CredentialPassword {
		t.Fatalf("credentials %+v, %v", creds, err)
	}
	pk := &Credential{ID: "pk-1", AccountID: a.ID, Kind: CredentialPasskey, Data: `{"k":1}`}
	if err := s.AddCredential(ctx, pk); err != nil {
		t.Fatal(err)
	}
	if err := s.AddCredential(ctx, &Credential{ID: "pk-1", AccountID: a.ID, Kind: CredentialPasskey, Data: "{}"}); !errors.Is(err, account.ErrCredentialExists) || !errors.Is(err, ErrExists) {
		t.Errorf("a credential registered twice: %v, want account.ErrCredentialExists", err)
	}
	if err := s.UseCredential(ctx, "pk-1", `{"k":2}`, at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	// The two credentials may be made in the same millisecond: then they
	// come in the order of their IDs, so the passkey is found by its ID.
	creds, _ = s.Credentials(ctx, a.ID)
	i := slices.IndexFunc(creds, func(c Credential) bool { return c.ID == "pk-1" })
	if len(creds) != 2 || i < 0 || creds[i].Data != `{"k":2}` || !creds[i].Used.Equal(at.Add(time.Minute)) {
		t.Errorf("after use: %+v", creds)
	}

	if got, err := s.SessionAccount(ctx, "h1", at); err != nil || got.ID != a.ID {
		t.Fatalf("SessionAccount: %+v, %v", got, err)
	}
	if _, err := s.SessionAccount(ctx, "h1", at.Add(2*time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Errorf("an expired session: %v, want ErrNotFound", err)
	}
	for _, h := range []string{"h2", "h3"} {
		if err := s.CreateSession(ctx, &Session{Hash: h, AccountID: a.ID, Expires: at.Add(time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.DeleteSession(ctx, "h1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionAccount(ctx, "h1", at); !errors.Is(err, ErrNotFound) {
		t.Errorf("an ended session: %v", err)
	}
	if hs, err := s.DeleteSessions(ctx, a.ID); err != nil || len(hs) != 2 || hs[0] == hs[1] || hs[0] != "h2" && hs[0] != "h3" {
		t.Errorf("DeleteSessions: %q, %v; want h2 and h3", hs, err)
	}

	if err := s.CreateSession(ctx, &Session{Hash: "h4", AccountID: a.ID, Expires: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if err := s.DisableAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SessionAccount(ctx, "h4", at); !errors.Is(err, ErrNotFound) {
		t.Errorf("session of a disabled account: %v", err)
	}
	if err := s.CreateSession(ctx, &Session{Hash: "h5", AccountID: a.ID, Expires: at.Add(time.Hour)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("new session of a disabled account: %v", err)
	}
	if err := s.EnableAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateSession(ctx, &Session{Hash: "h6", AccountID: a.ID, Expires: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// Seats taken while signed in: a game where the account plays South,
	// one where it plays North, one of somebody else.
	g1 := newOnline(t, s, "invite000001", "seat-a1")
	g2 := newOnline(t, s, "invite000002", "seat-x")
	other := newOnline(t, s, "invite000003", "seat-y")
	on, err := s.Game(ctx, g2.ID)
	if err != nil {
		t.Fatal(err)
	}
	o := *on.Online
	o.Seats[1] = "seat-a2"
	north := "Amina"
	if err := s.Update(ctx, g2.ID, game.Change{Ply: 0, Rev: o.Rev, From: 0, Result: "*", North: &north, Online: &o}); err != nil {
		t.Fatal(err)
	}
	for _, seat := range []string{"seat-a1", "seat-a2"} {
		if err := s.ClaimSeat(ctx, seat, a.ID); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.ClaimSeat(ctx, "seat-a1", a.ID); !errors.Is(err, ErrConflict) {
		t.Errorf("a seat claimed twice: %v, want ErrConflict", err)
	}
	games, err := s.AccountGames(ctx, a.ID, 10)
	if err != nil || len(games) != 2 || games[0] != (SeatGame{g2.ID, 1}) || games[1] != (SeatGame{g1.ID, 0}) {
		t.Errorf("AccountGames: %+v, %v; want %s as North, then %s as South", games, err, g2.ID, g1.ID)
	}
	if games, _ := s.AccountGames(ctx, a.ID, 1); len(games) != 1 {
		t.Errorf("AccountGames with limit 1: %d games", len(games))
	}
	if err := s.AnonymiseAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	for id, want := range map[string][2]string{g1.ID: {DeletedPlayer, ""}, g2.ID: {"Naserian", DeletedPlayer}, other.ID: {"Naserian", ""}} {
		if g, err := s.Game(ctx, id); err != nil || g.South != want[0] || g.North != want[1] {
			t.Errorf("after the account's deletion, game %s is played by %q and %q, want %q", id, g.South, g.North, want)
		}
	}
	if games, err := s.AccountGames(ctx, a.ID, 10); err != nil || len(games) != 0 {
		t.Errorf("games of a deleted account: %+v, %v", games, err)
	}
	if err := s.ClaimSeat(ctx, "seat-z", a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("a seat claimed by a deleted account: %v", err)
	}
	if got, err := s.Account(ctx, a.ID); err != nil || got.Name != "" || got.Status != AccountDeleted {
		t.Errorf("deleted account: %+v, %v", got, err)
	}
	if _, err := s.SessionAccount(ctx, "h6", at); !errors.Is(err, ErrNotFound) {
		t.Errorf("session of a deleted account: %v", err)
	}
	if creds, err := s.Credentials(ctx, a.ID); err != nil || len(creds) != 0 {
		t.Errorf("credentials of a deleted account: %+v, %v", creds, err)
	}
	if err := s.EnableAccount(ctx, a.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("enabling a deleted account: %v", err)
	}
	// The name is free again.
	if err := s.CreateAccount(ctx, &Account{Name: "amina", Key: "amina"}, nil, nil); err != nil {
		t.Errorf("the name of a deleted account: %v", err)
	}

	if err := s.PutChallenge(ctx, "c1", "data", at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.TakeChallenge(ctx, "c1", at.Add(2*time.Minute)); !errors.Is(err, ErrNotFound) {
		t.Errorf("expired challenge: %v", err)
	}
	if err := s.PutChallenge(ctx, "c2", "data", at.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if d, err := s.TakeChallenge(ctx, "c2", at); err != nil || d != "data" {
		t.Errorf("TakeChallenge: %q, %v", d, err)
	}
	if _, err := s.TakeChallenge(ctx, "c2", at); !errors.Is(err, ErrNotFound) {
		t.Errorf("a challenge taken twice: %v", err)
	}
	if s.WriteFailures() != 0 {
		t.Errorf("%d write failures", s.WriteFailures())
	}
}

// A sign-in bucket is read and written in one transaction, made on first
// use; a device belongs to an active account, is found while recent, and
// an account keeps its latest few.
func TestSignins(t *testing.T) { forEachStore(t, testSignins) }

func testSignins(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	at := now()
	var seen []bool
	for i := range 3 {
		err := s.TakeToken(ctx, "name:amina", at.Add(-time.Hour), func(b account.Bucket, found bool) account.Bucket {
			seen = append(seen, found)
			if found && (b.Tokens != float64(10-i) || !b.Updated.Equal(at)) {
				t.Errorf("take %d: bucket %+v", i, b)
			}
			return account.Bucket{Tokens: float64(9 - i), Updated: at}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(seen) != 3 || seen[0] || !seen[1] || !seen[2] {
		t.Errorf("found: %v, want false, true, true", seen)
	}
	a := &Account{Name: "Amina", Key: "amina"}
	if err := s.CreateAccount(ctx, a, nil, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		d := &account.Device{Hash: fmt.Sprint("d", i), AccountID: a.ID, Created: at, Used: at.Add(time.Duration(i) * time.Minute)}
		if err := s.AddDevice(ctx, d, 3, at.Add(-time.Hour)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddDevice(ctx, &account.Device{Hash: "x", AccountID: "nobody", Created: at, Used: at}, 3, at); !errors.Is(err, ErrNotFound) {
		t.Errorf("a device of no account: %v", err)
	}
	for hash, want := range map[string]string{"d0": "", "d1": a.ID, "d3": a.ID, "zz": ""} {
		id, err := s.DeviceAccount(ctx, hash, at.Add(-time.Hour), at.Add(time.Hour))
		if id != want || (want == "") != errors.Is(err, ErrNotFound) {
			t.Errorf("device %s: %q, %v; want %q", hash, id, err, want)
		}
	}
	if _, err := s.DeviceAccount(ctx, "d2", at.Add(2*time.Hour), at.Add(3*time.Hour)); !errors.Is(err, ErrNotFound) {
		t.Errorf("a device unused for long: %v", err)
	}
	if err := s.AnonymiseAccount(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeviceAccount(ctx, "d3", at.Add(-time.Hour), at); !errors.Is(err, ErrNotFound) {
		t.Errorf("a deleted account's device: %v", err)
	}
}
