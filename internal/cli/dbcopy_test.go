package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// fillForCopy stores, through the store's API, local games, a series, an
// imported game and online games, and the heartbeat.
func fillForCopy(t *testing.T, st store.Store) {
	t.Helper()
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	mv := func(letters ...string) []rules.Move {
		var ms []rules.Move
		for _, l := range letters {
			m, err := rules.ParseMove(l)
			check(err)
			ms = append(ms, m)
		}
		return ms
	}
	start, _ := rules.NewPosition(6, 4)
	local := &game.Game{South: "Naserian", North: "endodoi", Start: start, Rules: rules.Rules{MaxLaps: 500},
		Computer: &game.Computer{Side: rules.North, Level: 5}, Moves: mv("c", "D")}
	check(st.CreateGame(ctx, local))
	check(st.AppendMove(ctx, local.ID, 2, mv("f")[0], "*"))
	check(st.CreateGame(ctx, &game.Game{South: "Leshan", North: "Sironka", Start: start, Rules: rules.Rules{Variant: rules.Cross, MaxLaps: 300}}))
	first := &game.Game{Start: start, Moves: mv("a", "B"), Result: "1-0"}
	check(st.CreateSeriesGame(ctx, 3, first))
	check(st.CreateGame(ctx, &game.Game{Start: start.WithToMove(rules.North), SeriesID: first.SeriesID}))
	check(st.CreateGame(ctx, &game.Game{Start: start, ImportKey: "sha256:feed", Moves: mv("a"), Result: "*"}))
	clock := game.Clock{Time: 10 * time.Minute, Increment: 5 * time.Second}
	for i, invite := range []string{"inviteA", "inviteB"} {
		g := &game.Game{South: "Kakuta", Start: start, Online: &game.Online{Invite: invite,
			Seats: [2]string{"seat" + invite, ""}, Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}}
		check(st.CreateGame(ctx, g))
		if i == 0 {
			o := *g.Online
			o.Seats[rules.North] = "seat-north"
			o.TurnStart = time.Date(2026, 3, 1, 9, 30, 0, 42e6, time.UTC)
			o.DrawOffer = "n"
			check(st.Update(ctx, g.ID, game.Change{Ply: 0, Rev: o.Rev, From: 0, Moves: mv("b"), Result: "*", Online: &o}))
		}
	}
	check(st.SetAlive(ctx, time.Date(2026, 3, 1, 9, 31, 0, 7e6, time.UTC)))
}

// sameGames compares two stores through the store's API, field by field.
func sameGames(t *testing.T, a, b store.Store) {
	t.Helper()
	ctx := context.Background()
	ids, err := a.GameIDs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	idsB, err := b.GameIDs(ctx)
	if err != nil || !slices.Equal(ids, idsB) {
		t.Fatalf("games %v, copied as %v (%v)", ids, idsB, err)
	}
	series := map[string]bool{}
	for _, id := range ids {
		ga, err := a.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := b.Game(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(ga, gb) {
			t.Errorf("game %s:\n%+v\ncopied as\n%+v", id, ga, gb)
		}
		if ga.Online != nil && gb.Online != nil && *ga.Online != *gb.Online {
			t.Errorf("game %s online: %+v, copied as %+v", id, *ga.Online, *gb.Online)
		}
		if ga.SeriesID != "" {
			series[ga.SeriesID] = true
		}
	}
	for id := range series {
		sa, err := a.Series(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		sb, err := b.Series(ctx, id)
		if err != nil || !reflect.DeepEqual(sa, sb) {
			t.Errorf("series %+v, copied as %+v (%v)", sa, sb, err)
		}
	}
	la, err := a.Games(ctx, 100, 0)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.Games(ctx, 100, 0)
	if err != nil || !reflect.DeepEqual(la, lb) {
		t.Errorf("listing %+v, copied as %+v (%v)", la, lb, err)
	}
	oa, _ := a.OnlineGames(ctx, 10)
	ob, err := b.OnlineGames(ctx, 10)
	if err != nil || !reflect.DeepEqual(oa, ob) || len(oa) != 2 {
		t.Errorf("online games %+v, copied as %+v (%v)", oa, ob, err)
	}
	ta, _, _ := a.Alive(ctx)
	tb, ok, err := b.Alive(ctx)
	if err != nil || !ok || !ta.Equal(tb) {
		t.Errorf("heartbeat %v, copied as %v (%t, %v)", ta, tb, ok, err)
	}
}

// A round trip SQLite → PostgreSQL → SQLite keeps every game as it was.
func TestDBCopyRoundTrip(t *testing.T) {
	ctx := context.Background()
	pg := pgtest.NewDatabase(t)
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(ctx, filepath.Join(data, "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	fillForCopy(t, st)
	// An account with a password, a passkey, a session and a seat.
	hasher := account.NewHasher(account.Params{Time: 1, MemoryKiB: 64, Threads: 1}, 2, time.Second)
	const password = "kite-Umbrella-74-ledger"
	signed, err := account.New(st, hasher).SignUp(ctx, "Amina", password)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddCredential(ctx, &store.Credential{ID: "passkey-1", AccountID: signed.Account.ID,
		Kind: store.CredentialPasskey, Data: `{"sign":1}`}); err != nil {
		t.Fatal(err)
	}
	seated, err := st.GameByInvite(ctx, "inviteA")
	if err != nil {
		t.Fatal(err)
	}
	if err := st.ClaimSeat(ctx, "seatinviteA", signed.Account.ID); err != nil {
		t.Fatal(err)
	}
	st.Close()

	code, out, errOut := run(t, "", "db", "copy", "--from", data, "--to", pg)
	if code != 0 || !strings.Contains(out, "copied 7 games (7 moves), 1 series and 2 online games") || !strings.Contains(out, "checked") ||
		!strings.Contains(out, "with 1 account: 2 credentials (passwords and passkeys), 1 session and 1 owned seat; 0 blocks and 0 reports\n") {
		t.Fatalf("copy to PostgreSQL: exit %d:\n%s%s", code, out, errOut)
	}
	back := filepath.Join(dir, "back")
	code, out, errOut = run(t, "", "db", "copy", "--from", pg, "--to", back)
	if code != 0 || !strings.Contains(out, "copied 7 games") {
		t.Fatalf("copy back: exit %d:\n%s%s", code, out, errOut)
	}

	a, err := store.OpenReadOnly(ctx, filepath.Join(data, "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mid, err := store.OpenPostgres(ctx, pg)
	if err != nil {
		t.Fatal(err)
	}
	defer mid.Close()
	b, err := store.Open(ctx, filepath.Join(back, "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sameGames(t, a, mid)
	sameGames(t, a, b)

	// In both copies the account signs in with its password, its browser
	// stays signed in, its passkey is known and its seat is its own.
	creds, err := a.Credentials(ctx, signed.Account.ID)
	if err != nil || len(creds) != 2 {
		t.Fatalf("credentials %+v, %v", creds, err)
	}
	for name, cp := range map[string]store.Store{"PostgreSQL": mid, "SQLite": b} {
		svc := account.New(cp, hasher)
		in, err := svc.SignIn(ctx, account.PasswordSignIn{Name: "amina", Password: password})
		if err != nil || in.Account.ID != signed.Account.ID {
			t.Errorf("%s: signing in: %+v, %v", name, in, err)
		}
		if _, err := svc.SignIn(ctx, account.PasswordSignIn{Name: "Amina", Password: "wrong-" + password}); !errors.Is(err, account.ErrSignIn) {
			t.Errorf("%s: signing in with a wrong password: %v", name, err)
		}
		if who, err := svc.Who(ctx, signed.Session); err != nil || who.ID != signed.Account.ID {
			t.Errorf("%s: the session signed in before the copy: %+v, %v", name, who, err)
		}
		if got, err := cp.Credentials(ctx, signed.Account.ID); err != nil || !reflect.DeepEqual(got, creds) {
			t.Errorf("%s: credentials %+v, copied as %+v (%v)", name, creds, got, err)
		}
		games, err := cp.AccountGames(ctx, signed.Account.ID, 10)
		if err != nil || len(games) != 1 || games[0] != (store.SeatGame{GameID: seated.ID, Side: rules.South}) {
			t.Errorf("%s: the account's games %+v, %v; want South of %s", name, games, err, seated.ID)
		}
	}

	// Again into a destination that holds games: refused.
	code, out, errOut = run(t, "", "db", "copy", "--from", data, "--to", pg)
	if code != 1 || !strings.Contains(errOut, "already holds games") {
		t.Errorf("copy into a database with games: exit %d:\n%s%s", code, out, errOut)
	}
	if ids, _ := mid.GameIDs(ctx); len(ids) != 7 {
		t.Errorf("%d games after the refused copy, want 7", len(ids))
	}
}

func TestDBCopyUsage(t *testing.T) {
	data, _ := dbWithGames(t, 3)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"db", "copy", "--to", t.TempDir()}, 2, "copy wants --from and --to"},
		{[]string{"db", "copy", "--from", data, "--to", t.TempDir(), "extra"}, 2, "copy takes no arguments"},
		{[]string{"db", "copy", "--from", filepath.Join(t.TempDir(), "none"), "--to", t.TempDir()}, 1, "no database at"},
		{[]string{"db", "copy", "--from", data, "--to", data}, 1, "the same database"},
		{[]string{"db", "copy", "--from", data, "--to", "mysql://x"}, 1, "want a postgres:// URL"},
		{[]string{"db", "copy", "--from", "sqlite://x", "--to", t.TempDir()}, 1, "want a postgres:// URL"},
	} {
		code, out, errOut := run(t, "", c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, want %d saying %q:\n%s%s", c.args, code, c.code, c.want, out, errOut)
		}
	}
	// SQLite to SQLite, into a file.
	to := filepath.Join(t.TempDir(), "copy.db")
	code, out, errOut := run(t, "", "db", "copy", "--from", data, "--to", to)
	if code != 0 || !strings.Contains(out, "copied 3 games (30 moves), 0 series and 0 online games") {
		t.Errorf("copy to a file: exit %d:\n%s%s", code, out, errOut)
	}
}
