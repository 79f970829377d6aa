package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// The accounts' value types are package account's; these names are
// theirs.
type (
	Account    = account.Account
	Credential = account.Credential
	Session    = account.Session
)

// The states of an account, and the kinds of credential (account's).
const (
	AccountActive      = account.Active
	AccountDisabled    = account.Disabled
	AccountDeleted     = account.Deleted
	CredentialPassword = account.CredentialPassword
	CredentialPasskey  = account.CredentialPasskey
)

// Accounts are the store's accounts, their credentials and sessions, and
// the pending challenges of passkey ceremonies: what package account needs
// (account.Store), and the seats of accounts.
type Accounts interface {
	// CreateAccount stores a with its credentials, and s when not nil,
	// all or none, setting a.ID (when "", else that of NewAccountID) and
	// a.Created. A name whose key is taken is ErrExists.
	CreateAccount(ctx context.Context, a *Account, creds []Credential, s *Session) error
	// Account returns account id; AccountByKey the account named key;
	// AccountBySkeleton the one whose name has that skeleton.
	Account(ctx context.Context, id string) (*Account, error)
	AccountByKey(ctx context.Context, key string) (*Account, error)
	AccountBySkeleton(ctx context.Context, skeleton string) (*Account, error)
	// Credentials returns the credentials of account id.
	Credentials(ctx context.Context, accountID string) ([]Credential, error)
	// AddCredential stores a new credential of an active account; an ID
	// stored already is account.ErrCredentialExists.
	AddCredential(ctx context.Context, c *Credential) error
	// UseCredential records that credential id was used at t, and sets
	// its data.
	UseCredential(ctx context.Context, id, data string, t time.Time) error
	// CreateSession stores s, for an active account, and forgets the
	// sessions that expired.
	CreateSession(ctx context.Context, s *Session) error
	// SessionAccount returns the active account of the session whose id
	// hashes to hash and that has not expired at now.
	SessionAccount(ctx context.Context, hash string, now time.Time) (*Account, error)
	// DeleteSession ends one session; DeleteSessions every session of
	// an account, and returns their hashes.
	DeleteSession(ctx context.Context, hash string) error
	DeleteSessions(ctx context.Context, accountID string) ([]string, error)
	// DisableAccount stops account id from signing in, ending its
	// sessions; EnableAccount lets it sign in again.
	DisableAccount(ctx context.Context, id string) error
	EnableAccount(ctx context.Context, id string) error
	// AnonymiseAccount deletes the name, credentials and sessions of
	// account id; its games are kept.
	AnonymiseAccount(ctx context.Context, id string) error
	// PutChallenge keeps data under hash until expires; TakeChallenge
	// returns it once, before it expires (ErrNotFound otherwise).
	PutChallenge(ctx context.Context, hash, data string, expires time.Time) error
	TakeChallenge(ctx context.Context, hash string, now time.Time) (string, error)
	// ClaimSeat makes the seat whose token hashes to seat the active
	// account accountID's; a seat claimed already stays its owner's
	// (ErrConflict).
	ClaimSeat(ctx context.Context, seat, accountID string) error
	// AccountGames returns the online games in which account accountID
	// holds a seat, the most recently changed first, at most limit.
	AccountGames(ctx context.Context, accountID string, limit int) ([]SeatGame, error)
	// The sign-in limits and the devices (signins.go), as
	// account.Store says.
	TakeToken(ctx context.Context, key string, forget time.Time, take func(b account.Bucket, found bool) account.Bucket) error
	AddDevice(ctx context.Context, d *account.Device, keep int, forget time.Time) error
	DeviceAccount(ctx context.Context, hash string, since, at time.Time) (string, error)
}

// SeatGame is a game of an account and the side it plays there.
type SeatGame struct {
	GameID string
	Side   rules.Side
}

// DeletedPlayer is the name of the player of a deleted account in its
// games.
const DeletedPlayer = game.DeletedPlayer

// accountsVersion is the schema version that has the accounts.
const accountsVersion = 5

// errNoAccounts is the answer of a database opened read-only at a version
// older than the accounts.
var errNoAccounts = fmt.Errorf("this database has no accounts (schema version under %d): %w", accountsVersion, ErrNotFound)

// accountCols are the columns of an account as written (the latest
// schema); accountSelect reads them from any version.
const accountCols = `id, name, name_key, created, status, kind, name_skeleton`

// accountSelect is the select list of an account's columns, each with
// prefix (a table's alias and a dot), in scanAccount's order: an account
// of a database older than the lobby is a person, and one older than the
// skeletons has none.
func (c *core) accountSelect(prefix string) string {
	kind, skeleton := prefix+"kind", prefix+"name_skeleton"
	if c.version < lobbyVersion {
		kind = "''"
	}
	if c.version < skeletonVersion {
		skeleton = "''"
	}
	p := prefix
	return p + "id, " + p + "name, " + p + "name_key, " + p + "created, " + p + "status, " + kind + ", " + skeleton
}

// skeletonVersion is the schema version that has the names' skeletons.
const skeletonVersion = 9

func scanAccount(r row) (*Account, error) {
	a := &Account{}
	err := r.Scan(&a.ID, &a.Name, &a.Key, timeCol{&a.Created}, &a.Status, &a.Kind, &a.Skeleton)
	return a, err
}

func (c *core) CreateAccount(ctx context.Context, a *Account, creds []Credential, s *Session) error {
	if a.ID == "" {
		a.ID = newID()
	}
	a.Created = now()
	return c.eng.write(ctx, "storing an account", false, func(t *tx) error {
		// A name whose key or skeleton is taken.
		n, err := t.exec(`INSERT INTO accounts (`+accountCols+`) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT DO NOTHING`, a.ID, a.Name, a.Key, a.Created, a.Status, a.Kind, a.Skeleton)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("account %q: %w", a.Name, ErrExists)
		}
		for i := range creds {
			creds[i].AccountID = a.ID
			if err := t.insertCredential(&creds[i]); err != nil {
				return err
			}
		}
		if s == nil {
			return nil
		}
		s.AccountID = a.ID
		return t.insertSession(s)
	})
}

func (t *tx) insertCredential(c *Credential) error {
	if c.Created.IsZero() {
		c.Created = now()
	}
	if c.Used.IsZero() {
		c.Used = c.Created
	}
	if err := t.activeAccount(c.AccountID); err != nil {
		return err
	}
	n, err := t.exec(`INSERT INTO credentials (id, account_id, kind, data, created, used) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO NOTHING`, c.ID, c.AccountID, c.Kind, c.Data, c.Created, c.Used)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("credential for account %s: %w", c.AccountID, errCredentialExists)
	}
	return nil
}

// activeAccount checks that account id is active, and keeps it so until
// the change commits.
func (t *tx) activeAccount(id string) error {
	var status string
	err := t.q.queryRow(t.ctx, `SELECT status FROM accounts WHERE id = ?{lock rows}`, id).Scan(&status)
	if errors.Is(err, sql.ErrNoRows) || err == nil && status != AccountActive {
		return fmt.Errorf("active account %s: %w", id, ErrNotFound)
	}
	return err
}

func (t *tx) insertSession(s *Session) error {
	if s.Created.IsZero() {
		s.Created = now()
	}
	if _, err := t.exec(`DELETE FROM sessions WHERE expires < ?`, s.Created); err != nil {
		return err
	}
	if err := t.activeAccount(s.AccountID); err != nil {
		return err
	}
	_, err := t.exec(`INSERT INTO sessions (id_hash, account_id, created, expires) VALUES (?, ?, ?, ?)`,
		s.Hash, s.AccountID, s.Created, s.Expires)
	return err
}

func (c *core) readAccount(ctx context.Context, what, where string, arg any) (*Account, error) {
	if c.version < accountsVersion {
		return nil, errNoAccounts
	}
	a, err := scanAccount(c.pool.queryRow(ctx, `SELECT `+c.accountSelect("")+` FROM accounts WHERE `+where, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("account %s: %w", what, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading account %s: %w", what, err)
	}
	return a, nil
}

func (c *core) Account(ctx context.Context, id string) (*Account, error) {
	return c.readAccount(ctx, id, `id = ?`, id)
}

func (c *core) AccountByKey(ctx context.Context, key string) (*Account, error) {
	return c.readAccount(ctx, fmt.Sprintf("%q", key), `name_key = ?`, key)
}

func (c *core) AccountBySkeleton(ctx context.Context, skeleton string) (*Account, error) {
	if c.version < skeletonVersion || skeleton == "" {
		return nil, fmt.Errorf("account of skeleton %q: %w", skeleton, ErrNotFound)
	}
	return c.readAccount(ctx, fmt.Sprintf("of skeleton %q", skeleton), `name_skeleton = ?`, skeleton)
}

func (c *core) Credentials(ctx context.Context, accountID string) ([]Credential, error) {
	if c.version < accountsVersion {
		return nil, errNoAccounts
	}
	rs, err := c.pool.query(ctx, `SELECT id, account_id, kind, data, created, used FROM credentials
		WHERE account_id = ? ORDER BY created, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("reading the credentials of account %s: %w", accountID, err)
	}
	var out []Credential
	for rs.Next() {
		var cr Credential
		if err := rs.Scan(&cr.ID, &cr.AccountID, &cr.Kind, &cr.Data, timeCol{&cr.Created}, timeCol{&cr.Used}); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the credentials of account %s: %w", accountID, err)
		}
		out = append(out, cr)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the credentials of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) AddCredential(ctx context.Context, cr *Credential) error {
	return c.eng.write(ctx, "storing a credential", true, func(t *tx) error { return t.insertCredential(cr) })
}

func (c *core) UseCredential(ctx context.Context, id, data string, at time.Time) error {
	return c.eng.write(ctx, "recording a credential's use", true, func(t *tx) error {
		n, err := t.exec(`UPDATE credentials SET data = ?, used = ? WHERE id = ?`, data, at, id)
		if err == nil && n == 0 {
			err = fmt.Errorf("credential: %w", ErrNotFound)
		}
		return err
	})
}

func (c *core) CreateSession(ctx context.Context, s *Session) error {
	return c.eng.write(ctx, "storing a session", false, func(t *tx) error { return t.insertSession(s) })
}

func (c *core) SessionAccount(ctx context.Context, hash string, at time.Time) (*Account, error) {
	if c.version < accountsVersion {
		return nil, errNoAccounts
	}
	a, err := scanAccount(c.pool.queryRow(ctx, `SELECT `+c.accountSelect("a.")+`
		FROM sessions s JOIN accounts a ON a.id = s.account_id
		WHERE s.id_hash = ? AND s.expires > ? AND a.status = ''`, hash, at))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("session: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading a session: %w", err)
	}
	return a, nil
}

func (c *core) DeleteSession(ctx context.Context, hash string) error {
	return c.eng.write(ctx, "ending a session", true, func(t *tx) error {
		_, err := t.exec(`DELETE FROM sessions WHERE id_hash = ?`, hash)
		return err
	})
}

func (c *core) DeleteSessions(ctx context.Context, accountID string) ([]string, error) {
	var hashes []string
	err := c.eng.write(ctx, "ending sessions", false, func(t *tx) error {
		var err error
		hashes, err = ids(t.q.query(t.ctx, `DELETE FROM sessions WHERE account_id = ? RETURNING id_hash`, accountID))
		return err
	})
	if err != nil {
		return nil, err
	}
	return hashes, nil
}

// setStatus sets the status of account id, which must not be deleted.
func (t *tx) setStatus(id, status string) error {
	n, err := t.exec(`UPDATE accounts SET status = ? WHERE id = ? AND status != ?`, status, id, AccountDeleted)
	if err == nil && n == 0 {
		err = fmt.Errorf("account %s: %w", id, ErrNotFound)
	}
	return err
}

func (c *core) DisableAccount(ctx context.Context, id string) error {
	return c.eng.write(ctx, "disabling an account", false, func(t *tx) error {
		if err := t.setStatus(id, AccountDisabled); err != nil {
			return err
		}
		_, err := t.exec(`DELETE FROM sessions WHERE account_id = ?`, id)
		return err
	})
}

func (c *core) EnableAccount(ctx context.Context, id string) error {
	return c.eng.write(ctx, "enabling an account", true, func(t *tx) error { return t.setStatus(id, AccountActive) })
}

func (c *core) AnonymiseAccount(ctx context.Context, id string) error {
	return c.eng.write(ctx, "deleting an account", false, func(t *tx) error {
		// The key must stay unique, and no name is that long: the old
		// name is free again.
		n, err := t.exec(`UPDATE accounts SET name = '', name_key = ?, name_skeleton = '', status = ? WHERE id = ?`,
			"deleted:"+id, AccountDeleted, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("account %s: %w", id, ErrNotFound)
		}
		if _, err := t.exec(`DELETE FROM sessions WHERE account_id = ?`, id); err != nil {
			return err
		}
		if _, err = t.exec(`DELETE FROM credentials WHERE account_id = ?`, id); err != nil {
			return err
		}
		if _, err = t.exec(`DELETE FROM devices WHERE account_id = ?`, id); err != nil {
			return err
		}
		// Its games stay, under no name of its own.
		at := now()
		for _, side := range []string{"south", "north"} {
			if _, err := t.exec(`UPDATE games SET `+side+` = ?, updated = ?, touched = {touched}
				WHERE id IN (SELECT o.game_id FROM online o JOIN seat_owners so ON so.seat = o.`+side+`_seat
				WHERE so.account_id = ?)`, DeletedPlayer, at, t.touch(), id); err != nil {
				return err
			}
		}
		_, err = t.exec(`DELETE FROM seat_owners WHERE account_id = ?`, id)
		return err
	})
}

func (c *core) ClaimSeat(ctx context.Context, seat, accountID string) error {
	return c.eng.write(ctx, "recording a seat's account", false, func(t *tx) error {
		if err := t.activeAccount(accountID); err != nil {
			return err
		}
		n, err := t.exec(`INSERT INTO seat_owners (seat, account_id, created) VALUES (?, ?, ?)
			ON CONFLICT (seat) DO NOTHING`, seat, accountID, now())
		if err == nil && n == 0 {
			err = fmt.Errorf("seat: %w (it has an account)", ErrConflict)
		}
		return err
	})
}

func (c *core) AccountGames(ctx context.Context, accountID string, limit int) ([]SeatGame, error) {
	if c.version < accountsVersion {
		return nil, errNoAccounts
	}
	rs, err := c.pool.query(ctx, `SELECT g.id, CASE WHEN o.south_seat IN (SELECT seat FROM seat_owners WHERE account_id = ?)
		THEN 's' ELSE 'n' END
		FROM games g JOIN online o ON o.game_id = g.id
		WHERE o.south_seat IN (SELECT seat FROM seat_owners WHERE account_id = ?)
			OR o.north_seat IN (SELECT seat FROM seat_owners WHERE account_id = ?)
		ORDER BY g.touched DESC LIMIT ?`, accountID, accountID, accountID, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
	}
	var out []SeatGame
	for rs.Next() {
		var sg SeatGame
		var side string
		if err := rs.Scan(&sg.GameID, &side); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
		}
		sg.Side = rules.South
		if side == "n" {
			sg.Side = rules.North
		}
		out = append(out, sg)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) PutChallenge(ctx context.Context, hash, data string, expires time.Time) error {
	return c.eng.write(ctx, "storing a challenge", false, func(t *tx) error {
		if _, err := t.exec(`DELETE FROM challenges WHERE expires < ?`, now()); err != nil {
			return err
		}
		_, err := t.exec(`INSERT INTO challenges (id_hash, data, expires) VALUES (?, ?, ?)`, hash, data, expires)
		return err
	})
}

func (c *core) TakeChallenge(ctx context.Context, hash string, at time.Time) (string, error) {
	var data string
	var expires time.Time
	err := c.eng.write(ctx, "taking a challenge", false, func(t *tx) error {
		err := t.q.queryRow(t.ctx, `SELECT data, expires FROM challenges WHERE id_hash = ?`, hash).Scan(&data, timeCol{&expires})
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("challenge: %w", ErrNotFound)
		}
		if err != nil {
			return err
		}
		n, err := t.exec(`DELETE FROM challenges WHERE id_hash = ?`, hash)
		if err == nil && n == 0 {
			// Another request took it first.
			err = fmt.Errorf("challenge: %w", ErrNotFound)
		}
		return err
	})
	if err != nil {
		return "", err
	}
	if !expires.After(at) {
		return "", fmt.Errorf("challenge expired: %w", ErrNotFound)
	}
	return data, nil
}

// The store is what package account needs.
var _ account.Store = Store(nil)
