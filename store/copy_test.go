package store

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// fillVaried stores games of every kind: local games with and without the
// computer, taken back and renamed, a series, an imported game, online
// games in progress, ended (and reviewed) and with offers, an empty
// series and the heartbeat.
func fillVaried(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	start, _ := rules.NewPosition(6, 4)
	eight, _ := rules.NewPosition(8, 5)
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	vsComputer := newGame(t, s, &game.Game{South: "Naserian", North: "endodoi", Start: start,
		Rules: rules.Rules{Variant: rules.Cross, MaxLaps: 500}, Computer: &game.Computer{Side: rules.North, Level: 7},
		Moves: moves(t, "c", "D", "f")})
	check(s.Truncate(ctx, vsComputer.ID, 3, 1, "*"))
	first := &game.Game{South: "Leshan", North: "Sironka", Start: eight, Moves: moves(t, "a")}
	check(s.CreateSeriesGame(ctx, 3, first))
	check(s.AppendMove(ctx, first.ID, 1, moves(t, "B")[0], "1-0"))
	newGame(t, s, &game.Game{Start: eight.WithToMove(rules.North), SeriesID: first.SeriesID, Moves: moves(t, "A")})
	newGame(t, s, &game.Game{South: "Imported", Start: start, ImportKey: "sha256:0123", Moves: moves(t, "a", "B", "c"), Result: "1/2-1/2"})
	_, err := s.CreateSeries(ctx, 5)
	check(err)
	playing := newOnline(t, s, "inv-playing", "seat-1")
	_, o := onlineOf(t, s, playing.ID)
	o.Seats[rules.North] = "seat-2"
	o.TurnStart = time.Date(2026, 3, 1, 12, 0, 0, 123e6, time.UTC)
	o.Left = [2]time.Duration{4*time.Minute + 10*time.Millisecond, 5 * time.Minute}
	o.DrawOffer = "s"
	check(s.Update(ctx, playing.ID, game.Change{Ply: 0, Rev: o.Rev, From: 0, Moves: moves(t, "a"), Result: "*", Online: &o}))
	ended := newOnline(t, s, "inv-ended", "seat-3")
	_, o = onlineOf(t, s, ended.ID)
	o.End, o.RematchOffer, o.Next = "resign", "n", "0123456789abcdef"
	o.Clock = game.Clock{Time: 72 * time.Hour, PerMove: true}
	check(s.Update(ctx, ended.ID, game.Change{Rev: o.Rev, Result: "0-1", Online: &o}))
	newOnline(t, s, "inv-waiting", "seat-4")
	name := "Kakuta"
	check(s.Update(ctx, vsComputer.ID, game.Change{Ply: 1, From: 1, Result: "*", North: &name}))
	check(s.SetAlive(ctx, time.Date(2026, 3, 1, 12, 5, 0, 999e6, time.UTC)))
	check(s.SaveReview(ctx, &Review{GameID: ended.ID, Key: "key", Data: []byte(`{"plies": []}`),
		Created: time.Date(2026, 3, 1, 12, 6, 0, 5e6, time.UTC)}))
}

// fillAccounts stores accounts in every state: an active one with a
// password, a passkey, a session and the South seat of the online game
// inv-playing, a disabled one that keeps its password, a deleted one, and
// a pending passkey challenge.
func fillAccounts(t *testing.T, s Store) {
	t.Helper()
	ctx := context.Background()
	check := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	amina := &Account{Name: "Amina", Key: "amina"}
	check(s.CreateAccount(ctx, amina, []Credential{{ID: "pw-amina", Kind: CredentialPassword, Data: "$argon2id$v=19$amina"}},
		&Session{Hash: "session-amina", Expires: now().Add(time.Hour)}))
	check(s.AddCredential(ctx, &Credential{ID: "pk-amina", AccountID: amina.ID, Kind: CredentialPasskey, Data: `{"sign":1}`}))
	check(s.UseCredential(ctx, "pk-amina", `{"sign":2}`, time.Date(2026, 3, 1, 12, 7, 0, 3e6, time.UTC)))
	check(s.ClaimSeat(ctx, "seat-1", amina.ID))
	baraka := &Account{Name: "Baraka", Key: "baraka"}
	check(s.CreateAccount(ctx, baraka, []Credential{{ID: "pw-baraka", Kind: CredentialPassword, Data: "$argon2id$v=19$baraka"}}, nil))
	check(s.DisableAccount(ctx, baraka.ID))
	gone := &Account{Name: "Chui", Key: "chui"}
	check(s.CreateAccount(ctx, gone, nil, nil))
	check(s.AnonymiseAccount(ctx, gone.ID))
	check(s.PutChallenge(ctx, "challenge", "{}", now().Add(5*time.Minute)))
	// Amina blocks Baraka, and reports the game she plays.
	_, err := s.Block(ctx, amina.ID, baraka.ID, 10, nil)
	check(err)
	// Amina is in the lobby.
	check(s.TouchLobby(ctx, []string{amina.ID}, now()))
	playing, err := s.GameByInvite(ctx, "inv-playing")
	check(err)
	check(s.AddReport(ctx, &seek.Report{GameID: playing.ID, By: seek.Player{ID: amina.ID}, Reason: "abuse", Text: "rude words"}))
}

// sameAccounts checks that b holds the accounts of a, as the account
// flows read them (fillAccounts made them), and the pending challenge not.
func sameAccounts(t *testing.T, a, b Store) {
	t.Helper()
	ctx := context.Background()
	ra, err := a.(copier).accountRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := b.(copier).accountRows(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(ra.Accounts) != 3 || len(ra.Credentials) != 3 || len(ra.Sessions) != 1 || len(ra.Seats) != 1 ||
		len(ra.Blocks) != 1 || len(ra.Reports) != 1 || len(ra.Presence) != 1 {
		t.Fatalf("the source holds %+v", ra)
	}
	if d := diffAccounts(ra, rb); d != "" {
		t.Errorf("accounts: %s", d)
	}
	for _, acc := range ra.Accounts {
		x, errA := a.Account(ctx, acc.ID)
		y, errB := b.Account(ctx, acc.ID)
		if errA != nil || errB != nil || *x != *y {
			t.Errorf("account %s: %+v (%v), copied as %+v (%v)", acc.ID, x, errA, y, errB)
			continue
		}
		ca, _ := a.Credentials(ctx, acc.ID)
		cb, err := b.Credentials(ctx, acc.ID)
		if err != nil || !slices.Equal(ca, cb) {
			t.Errorf("credentials of account %s: %+v, copied as %+v (%v)", acc.ID, ca, cb, err)
		}
	}
	amina, err := b.AccountByKey(ctx, "amina")
	if err != nil {
		t.Fatal(err)
	}
	if who, err := b.SessionAccount(ctx, "session-amina", now()); err != nil || who.ID != amina.ID {
		t.Errorf("the copied session is %+v, %v; want Amina's", who, err)
	}
	playing, err := b.GameByInvite(ctx, "inv-playing")
	if err != nil {
		t.Fatal(err)
	}
	if games, err := b.AccountGames(ctx, amina.ID, 10); err != nil || len(games) != 1 || games[0] != (SeatGame{playing.ID, rules.South}) {
		t.Errorf("Amina's games in the copy: %+v, %v; want South of %s", games, err, playing.ID)
	}
	baraka, err := b.AccountByKey(ctx, "baraka")
	if err != nil || baraka.Status != AccountDisabled {
		t.Fatalf("the disabled account, copied: %+v, %v", baraka, err)
	}
	if blocked, err := b.Blocked(ctx, baraka.ID, amina.ID); err != nil || !blocked {
		t.Errorf("Amina's block of Baraka, copied: %v, %v", blocked, err)
	}
	if reports, err := b.Reports(ctx, 10); err != nil || len(reports) != 1 || reports[0].Text != "rude words" {
		t.Errorf("the report, copied: %+v, %v", reports, err)
	}
	if _, err := b.TakeChallenge(ctx, "challenge", now()); !errors.Is(err, ErrNotFound) {
		t.Errorf("a pending challenge was copied: %v", err)
	}
}

// sameStores checks that b holds what a holds, as the API reads it.
func sameStores(t *testing.T, a, b Store) {
	t.Helper()
	ctx := context.Background()
	ia, ib := contents(t, a), contents(t, b)
	if !slices.Equal(ia.Series, ib.Series) || ia.Moves != ib.Moves || ia.Online != ib.Online || len(ia.Games) != len(ib.Games) {
		t.Fatalf("contents %+v, copied as %+v", ia, ib)
	}
	for _, ref := range ia.Games {
		ga, err := a.Game(ctx, ref.ID)
		if err != nil {
			t.Fatal(err)
		}
		gb, err := b.Game(ctx, ref.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := diffGame(ga, gb); d != "" {
			t.Errorf("game %s: %s", ref.ID, d)
		}
		if d, err := diffReview(ctx, b, a, ref.ID); d != "" || err != nil {
			t.Errorf("game %s: review: %s (%v)", ref.ID, d, err)
		}
	}
	for _, id := range ia.Series {
		sa, _ := a.Series(ctx, id)
		sb, err := b.Series(ctx, id)
		if err != nil || diffSeries(sa, sb) != "" {
			t.Errorf("series %s: %s (%v)", id, diffSeries(sa, sb), err)
		}
	}
	ids := func(s Store) []string {
		list, err := s.Games(ctx, 100, 0)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sm := range list {
			out = append(out, sm.ID)
		}
		return out
	}
	if x, y := ids(a), ids(b); !slices.Equal(x, y) {
		t.Errorf("listing %v, copied as %v", x, y)
	}
	x, _ := a.OpenOnlineGames(ctx, time.Time{})
	y, _ := b.OpenOnlineGames(ctx, time.Time{})
	if !slices.Equal(x, y) || len(x) != 2 {
		t.Errorf("open online games %v, copied as %v", x, y)
	}
	ta, _, _ := a.Alive(ctx)
	tb, ok, err := b.Alive(ctx)
	if !ok || err != nil || !ta.Equal(tb) {
		t.Errorf("heartbeat %v, copied as %v (%t, %v)", ta, tb, ok, err)
	}
}

// copyInto copies src into a new store that open makes, checking the
// report.
func copyInto(t *testing.T, src Store, open func() Store) Store {
	t.Helper()
	dst := open()
	var stages []string
	rep, err := Copy(context.Background(), dst, src, func(stage string, done, total int) {
		stages = append(stages, stage)
	})
	if err != nil {
		t.Fatal(err)
	}
	inv := contents(t, src)
	if rep.Games != len(inv.Games) || rep.Moves != inv.Moves || rep.Series != len(inv.Series) || rep.Online != 3 || rep.Reviews != 1 || !rep.Alive ||
		rep.Accounts != 3 || rep.Credentials != 3 || rep.Sessions != 1 || rep.Seats != 1 {
		t.Errorf("report %+v, source %+v", rep, inv)
	}
	if !slices.Contains(stages, "copying") || !slices.Contains(stages, "checking") {
		t.Errorf("progress stages %v", stages)
	}
	return dst
}

// A copy holds what the source holds, as the API reads it, and carries on
// where the source left off.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	sqlite := func(t *testing.T) func() Store {
		path := filepath.Join(t.TempDir(), "games.db")
		return func() Store {
			s := open(t, path)
			t.Cleanup(func() { s.Close() })
			return s
		}
	}
	postgres := func(t *testing.T) func() Store {
		url := newPostgresDB(t)
		return func() Store { return openPostgres(t, url) }
	}
	for _, c := range []struct {
		name string
		via  func(t *testing.T) func() Store
	}{{"sqlite to sqlite", sqlite}, {"sqlite to postgres to sqlite", postgres}} {
		t.Run(c.name, func(t *testing.T) {
			src := sqlite(t)()
			fillVaried(t, src)
			fillAccounts(t, src)
			via := c.via(t)
			mid := copyInto(t, src, via)
			sameStores(t, src, mid)
			sameAccounts(t, src, mid)
			last := copyInto(t, mid, sqlite(t))
			sameStores(t, src, last)
			sameAccounts(t, src, last)

			// Into a store that holds games: refused, unchanged.
			before := contents(t, mid)
			if _, err := Copy(ctx, mid, src, nil); !errors.Is(err, ErrNotEmpty) {
				t.Errorf("copy into a store with games: %v, want ErrNotEmpty", err)
			}
			if after := contents(t, mid); len(after.Games) != len(before.Games) || after.Moves != before.Moves {
				t.Errorf("the refused copy changed the destination: %+v, was %+v", after, before)
			}

			// The copies carry on: the next move, the next revision, the
			// next change listed first, the import key known.
			for _, s := range []Store{mid, last} {
				g, err := s.GameByInvite(ctx, "inv-playing")
				if err != nil {
					t.Fatal(err)
				}
				o := *g.Online
				o.DrawOffer = ""
				if err := s.Update(ctx, g.ID, game.Change{Ply: 1, Rev: g.Online.Rev, From: 1, Moves: moves(t, "B"), Result: "*", Online: &o}); err != nil {
					t.Errorf("move in a copied online game: %v", err)
				}
				if list, _ := s.Games(ctx, 1, 0); len(list) != 1 || list[0].ID != g.ID {
					t.Errorf("the game just played is not listed first: %+v", list)
				}
				start, _ := rules.NewPosition(6, 4)
				if err := s.CreateGame(ctx, &game.Game{Start: start, ImportKey: "sha256:0123"}); !errors.Is(err, ErrExists) {
					t.Errorf("importing a copied import again: %v, want ErrExists", err)
				}
				if ok, _ := s.SeatExists(ctx, "seat-4"); !ok {
					t.Error("a copied seat is not found")
				}
				// The accounts carry on too: their names taken, their
				// seats owned, their sessions open to new ones.
				if err := s.CreateAccount(ctx, &Account{Name: "AMINA", Key: "amina"}, nil, nil); !errors.Is(err, ErrExists) {
					t.Errorf("a copied account's name taken again: %v, want ErrExists", err)
				}
				other := &Account{Name: "Dalila", Key: "dalila"}
				if err := s.CreateAccount(ctx, other, nil, nil); err != nil {
					t.Fatal(err)
				}
				if err := s.ClaimSeat(ctx, "seat-1", other.ID); !errors.Is(err, ErrConflict) {
					t.Errorf("a copied seat claimed by another account: %v, want ErrConflict", err)
				}
			}
		})
	}
}

// diffAccounts finds a changed password hash, session or seat, and names
// the account, never the secret.
func TestDiffAccounts(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rows := func() accountRows {
		return accountRows{
			Accounts:    []Account{{ID: "a1", Name: "Amina", Key: "amina", Created: at}},
			Credentials: []Credential{{ID: "pw-secret", AccountID: "a1", Kind: CredentialPassword, Data: "$argon2id$secret", Created: at, Used: at}},
			Sessions:    []Session{{Hash: "session-secret", AccountID: "a1", Created: at, Expires: at.Add(time.Hour)}},
			Seats:       []seatOwner{{Seat: "seat-secret", AccountID: "a1", Created: at}},
		}
	}
	if d := diffAccounts(rows(), rows()); d != "" {
		t.Errorf("the same rows differ: %s", d)
	}
	for what, change := range map[string]func(*accountRows){
		"name":     func(r *accountRows) { r.Accounts[0].Name = "Amina2" },
		"password": func(r *accountRows) { r.Credentials[0].Data = "$argon2id$other-secret" },
		"used":     func(r *accountRows) { r.Credentials[0].Used = at.Add(time.Millisecond) },
		"session":  func(r *accountRows) { r.Sessions[0].Hash = "other-secret" },
		"expires":  func(r *accountRows) { r.Sessions[0].Expires = at },
		"seat":     func(r *accountRows) { r.Seats[0].Seat = "other-secret" },
		"count":    func(r *accountRows) { r.Seats = nil },
	} {
		b := rows()
		change(&b)
		d := diffAccounts(rows(), b)
		if d == "" || strings.Contains(d, "secret") {
			t.Errorf("%s changed: %q", what, d)
		}
	}
}
