package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/account"
)

// signinsVersion is the schema version that has the sign-in limits and
// the devices.
const signinsVersion = 8

var errNoSignins = fmt.Errorf("this database has no sign-in limits (schema version under %d): %w", signinsVersion, ErrNotFound)

func (c *core) TakeToken(ctx context.Context, key string, forget time.Time, take func(b account.Bucket, found bool) account.Bucket) error {
	if c.version < signinsVersion {
		return errNoSignins
	}
	return c.eng.write(ctx, "counting a sign-in", false, func(t *tx) error {
		// A row first, so that two instances counting at once wait for
		// each other on it.
		n, err := t.exec(`INSERT INTO signin_limits (key, tokens, updated) VALUES (?, -1, ?) ON CONFLICT (key) DO NOTHING`, key, forget)
		if err != nil {
			return err
		}
		if n > 0 {
			if _, err := t.exec(`DELETE FROM signin_limits WHERE updated < ? AND key != ?`, forget, key); err != nil {
				return err
			}
		}
		var b account.Bucket
		if err := t.q.queryRow(t.ctx, `SELECT tokens, updated FROM signin_limits WHERE key = ?{lock rows}`, key).
			Scan(&b.Tokens, timeCol{&b.Updated}); err != nil {
			return err
		}
		found := b.Tokens >= 0
		if !found {
			b = account.Bucket{}
		}
		b = take(b, found)
		_, err = t.exec(`UPDATE signin_limits SET tokens = ?, updated = ? WHERE key = ?`, max(b.Tokens, 0), b.Updated, key)
		return err
	})
}

func (c *core) AddDevice(ctx context.Context, d *account.Device, keep int, forget time.Time) error {
	if c.version < signinsVersion {
		return errNoSignins
	}
	return c.eng.write(ctx, "remembering a device", false, func(t *tx) error {
		if err := t.activeAccount(d.AccountID); err != nil {
			return err
		}
		if _, err := t.exec(`INSERT INTO devices (id_hash, account_id, created, used) VALUES (?, ?, ?, ?)`,
			d.Hash, d.AccountID, d.Created, d.Used); err != nil {
			return err
		}
		_, err := t.exec(`DELETE FROM devices WHERE account_id = ? AND (used < ? OR id_hash NOT IN
			(SELECT id_hash FROM devices WHERE account_id = ? ORDER BY used DESC, id_hash LIMIT ?))`,
			d.AccountID, forget, d.AccountID, keep)
		return err
	})
}

func (c *core) DeviceAccount(ctx context.Context, hash string, since, at time.Time) (string, error) {
	if c.version < signinsVersion {
		return "", errNoSignins
	}
	var id string
	err := c.eng.write(ctx, "recording a device's use", false, func(t *tx) error {
		err := t.q.queryRow(t.ctx, `SELECT d.account_id FROM devices d JOIN accounts a ON a.id = d.account_id
			WHERE d.id_hash = ? AND d.used >= ? AND a.status = ''`, hash, since).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("device: %w", ErrNotFound)
		}
		if err != nil {
			return err
		}
		_, err = t.exec(`UPDATE devices SET used = ? WHERE id_hash = ?`, at, hash)
		return err
	})
	return id, err
}
