package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
)

// accountRows are the accounts of a store with their credentials,
// sessions, seats, blocks, reports and when they were last in the lobby,
// as stored. The pending challenges
// of passkey ceremonies are not among them: they last minutes, and a copy
// is made with the server stopped. Nor are the lobby's open seeks and
// challenges, which their players post again.
type accountRows struct {
	Accounts    []Account
	Credentials []Credential
	Sessions    []Session
	Seats       []seatOwner
	Blocks      []blockRow
	Reports     []seek.Report // By.ID only
	Presence    []presenceRow
}

// presenceRow is when an account was last seen in the lobby.
type presenceRow struct {
	AccountID string
	Seen      time.Time
}

// blockRow is one account's block of another.
type blockRow struct {
	AccountID, BlockedID string
	Created              time.Time
}

// seatOwner is a seat taken while signed in: the seat's hash and its
// account.
type seatOwner struct {
	Seat, AccountID string
	Created         time.Time
}

// accountRows reads the accounts and what belongs to them in one
// snapshot, each kind sorted by its key (byte-wise, as every engine
// orders alike). A database older than the accounts has none.
func (c *core) accountRows(ctx context.Context) (accountRows, error) {
	var ar accountRows
	if c.version < accountsVersion {
		return ar, nil
	}
	err := c.eng.read(ctx, func(q runner) error {
		if err := eachRow(ctx, q, `SELECT `+c.accountSelect("")+` FROM accounts`, func(r row) error {
			a, err := scanAccount(r)
			if err == nil {
				ar.Accounts = append(ar.Accounts, *a)
			}
			return err
		}); err != nil {
			return err
		}
		if err := eachRow(ctx, q, `SELECT id, account_id, kind, data, created, used FROM credentials`, func(r row) error {
			var cr Credential
			err := r.Scan(&cr.ID, &cr.AccountID, &cr.Kind, &cr.Data, timeCol{&cr.Created}, timeCol{&cr.Used})
			ar.Credentials = append(ar.Credentials, cr)
			return err
		}); err != nil {
			return err
		}
		if err := eachRow(ctx, q, `SELECT id_hash, account_id, created, expires FROM sessions`, func(r row) error {
			var s Session
			err := r.Scan(&s.Hash, &s.AccountID, timeCol{&s.Created}, timeCol{&s.Expires})
			ar.Sessions = append(ar.Sessions, s)
			return err
		}); err != nil {
			return err
		}
		if err := eachRow(ctx, q, `SELECT seat, account_id, created FROM seat_owners`, func(r row) error {
			var so seatOwner
			err := r.Scan(&so.Seat, &so.AccountID, timeCol{&so.Created})
			ar.Seats = append(ar.Seats, so)
			return err
		}); err != nil || c.version < lobbyVersion {
			return err
		}
		if err := eachRow(ctx, q, `SELECT account_id, blocked_id, created FROM blocks`, func(r row) error {
			var b blockRow
			err := r.Scan(&b.AccountID, &b.BlockedID, timeCol{&b.Created})
			ar.Blocks = append(ar.Blocks, b)
			return err
		}); err != nil {
			return err
		}
		if err := eachRow(ctx, q, `SELECT id, game_id, account_id, reason, text, created FROM reports`, func(r row) error {
			var rp seek.Report
			err := r.Scan(&rp.ID, &rp.GameID, &rp.By.ID, &rp.Reason, &rp.Text, timeCol{&rp.Created})
			ar.Reports = append(ar.Reports, rp)
			return err
		}); err != nil || c.version < presenceVersion {
			return err
		}
		return eachRow(ctx, q, `SELECT account_id, seen FROM lobby_presence`, func(r row) error {
			var p presenceRow
			err := r.Scan(&p.AccountID, timeCol{&p.Seen})
			ar.Presence = append(ar.Presence, p)
			return err
		})
	})
	if err != nil {
		return accountRows{}, fmt.Errorf("listing the accounts of %s: %w", c.eng.name(), err)
	}
	slices.SortFunc(ar.Accounts, func(a, b Account) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(ar.Credentials, func(a, b Credential) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(ar.Sessions, func(a, b Session) int { return strings.Compare(a.Hash, b.Hash) })
	slices.SortFunc(ar.Seats, func(a, b seatOwner) int { return strings.Compare(a.Seat, b.Seat) })
	slices.SortFunc(ar.Blocks, func(a, b blockRow) int {
		return cmp.Or(strings.Compare(a.AccountID, b.AccountID), strings.Compare(a.BlockedID, b.BlockedID))
	})
	slices.SortFunc(ar.Reports, func(a, b seek.Report) int { return strings.Compare(a.ID, b.ID) })
	slices.SortFunc(ar.Presence, func(a, b presenceRow) int { return strings.Compare(a.AccountID, b.AccountID) })
	return ar, nil
}

// restoreAccounts stores the rows of ar as they are, whatever the state of
// their accounts (a disabled account keeps its credentials), the
// accounts first for the rest to refer to, a batch per transaction.
func (c *core) restoreAccounts(ctx context.Context, ar accountRows) error {
	insert := func(n int, one func(t *tx, i int) error) error {
		return c.insertBatches(ctx, "copying accounts", n, one)
	}
	if err := insert(len(ar.Accounts), func(t *tx, i int) error {
		a := ar.Accounts[i]
		_, err := t.exec(`INSERT INTO accounts (`+accountCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)`, a.ID, a.Name, a.Key, a.Created, a.Status, a.Kind, a.Skeleton)
		if err != nil {
			return fmt.Errorf("account %s: %w", a.ID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(ar.Credentials), func(t *tx, i int) error {
		cr := ar.Credentials[i]
		_, err := t.exec(`INSERT INTO credentials (id, account_id, kind, data, created, used) VALUES (?, ?, ?, ?, ?, ?)`,
			cr.ID, cr.AccountID, cr.Kind, cr.Data, cr.Created, cr.Used)
		if err != nil {
			return fmt.Errorf("a credential of account %s: %w", cr.AccountID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(ar.Sessions), func(t *tx, i int) error {
		s := ar.Sessions[i]
		_, err := t.exec(`INSERT INTO sessions (id_hash, account_id, created, expires) VALUES (?, ?, ?, ?)`,
			s.Hash, s.AccountID, s.Created, s.Expires)
		if err != nil {
			return fmt.Errorf("a session of account %s: %w", s.AccountID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(ar.Seats), func(t *tx, i int) error {
		so := ar.Seats[i]
		_, err := t.exec(`INSERT INTO seat_owners (seat, account_id, created) VALUES (?, ?, ?)`, so.Seat, so.AccountID, so.Created)
		if err != nil {
			return fmt.Errorf("a seat of account %s: %w", so.AccountID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(ar.Blocks), func(t *tx, i int) error {
		b := ar.Blocks[i]
		_, err := t.exec(`INSERT INTO blocks (account_id, blocked_id, created) VALUES (?, ?, ?)`, b.AccountID, b.BlockedID, b.Created)
		if err != nil {
			return fmt.Errorf("a block of account %s: %w", b.AccountID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(ar.Reports), func(t *tx, i int) error {
		r := ar.Reports[i]
		_, err := t.exec(`INSERT INTO reports (id, game_id, account_id, reason, text, created) VALUES (?, ?, ?, ?, ?, ?)`,
			r.ID, r.GameID, r.By.ID, r.Reason, r.Text, r.Created)
		if err != nil {
			return fmt.Errorf("a report of account %s: %w", r.By.ID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	return insert(len(ar.Presence), func(t *tx, i int) error {
		p := ar.Presence[i]
		if _, err := t.exec(`INSERT INTO lobby_presence (account_id, seen) VALUES (?, ?)`, p.AccountID, p.Seen); err != nil {
			return fmt.Errorf("the lobby presence of account %s: %w", p.AccountID, err)
		}
		return nil
	})
}

// diffAccounts describes the first difference between the account rows a
// and their copy b, or returns "" when they are the same. It names the
// accounts, never a credential's data, a session's hash or a seat's.
func diffAccounts(a, b accountRows) string {
	if len(a.Accounts) != len(b.Accounts) || len(a.Credentials) != len(b.Credentials) ||
		len(a.Sessions) != len(b.Sessions) || len(a.Seats) != len(b.Seats) ||
		len(a.Blocks) != len(b.Blocks) || len(a.Reports) != len(b.Reports) || len(a.Presence) != len(b.Presence) {
		return fmt.Sprintf("the copy holds %d accounts, %d credentials, %d sessions, %d seats of accounts, %d blocks, %d reports and %d in the lobby; the source %d, %d, %d, %d, %d, %d and %d",
			len(b.Accounts), len(b.Credentials), len(b.Sessions), len(b.Seats), len(b.Blocks), len(b.Reports), len(b.Presence),
			len(a.Accounts), len(a.Credentials), len(a.Sessions), len(a.Seats), len(a.Blocks), len(a.Reports), len(a.Presence))
	}
	for i, x := range a.Accounts {
		y := b.Accounts[i]
		var d differ
		d.str("ID", x.ID, y.ID)
		d.str("name", x.Name, y.Name)
		d.str("name key", x.Key, y.Key)
		d.time("created", x.Created, y.Created)
		d.str("status", x.Status, y.Status)
		if d.first != "" {
			return fmt.Sprintf("account %s: %s", x.ID, d.first)
		}
	}
	secret := func(what string, same bool) string {
		if same {
			return ""
		}
		return what + " copied otherwise"
	}
	for i, x := range a.Credentials {
		y := b.Credentials[i]
		var d differ
		d.first = secret("ID", x.ID == y.ID)
		d.str("account", x.AccountID, y.AccountID)
		d.str("kind", x.Kind, y.Kind)
		if d.first == "" {
			d.first = secret("data", x.Data == y.Data)
		}
		d.time("created", x.Created, y.Created)
		d.time("used", x.Used, y.Used)
		if d.first != "" {
			return fmt.Sprintf("a credential of account %s: %s", x.AccountID, d.first)
		}
	}
	for i, x := range a.Sessions {
		y := b.Sessions[i]
		var d differ
		d.first = secret("hash", x.Hash == y.Hash)
		d.str("account", x.AccountID, y.AccountID)
		d.time("created", x.Created, y.Created)
		d.time("expires", x.Expires, y.Expires)
		if d.first != "" {
			return fmt.Sprintf("a session of account %s: %s", x.AccountID, d.first)
		}
	}
	for i, x := range a.Seats {
		y := b.Seats[i]
		var d differ
		d.first = secret("seat", x.Seat == y.Seat)
		d.str("account", x.AccountID, y.AccountID)
		d.time("created", x.Created, y.Created)
		if d.first != "" {
			return fmt.Sprintf("a seat of account %s: %s", x.AccountID, d.first)
		}
	}
	for i, x := range a.Blocks {
		y := b.Blocks[i]
		var d differ
		d.str("account", x.AccountID, y.AccountID)
		d.str("blocked account", x.BlockedID, y.BlockedID)
		d.time("created", x.Created, y.Created)
		if d.first != "" {
			return fmt.Sprintf("a block of account %s: %s", x.AccountID, d.first)
		}
	}
	for i, x := range a.Reports {
		y := b.Reports[i]
		var d differ
		d.str("ID", x.ID, y.ID)
		d.str("game", x.GameID, y.GameID)
		d.str("account", x.By.ID, y.By.ID)
		d.str("reason", x.Reason, y.Reason)
		d.str("text", x.Text, y.Text)
		d.time("created", x.Created, y.Created)
		if d.first != "" {
			return fmt.Sprintf("report %s: %s", x.ID, d.first)
		}
	}
	for i, x := range a.Presence {
		y := b.Presence[i]
		var d differ
		d.str("account", x.AccountID, y.AccountID)
		d.time("seen", x.Seen, y.Seen)
		if d.first != "" {
			return fmt.Sprintf("the lobby presence of account %s: %s", x.AccountID, d.first)
		}
	}
	return ""
}
