package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// Review is the stored review of a finished game (game.Review).
type Review = game.Review

// reviewsVersion is the schema version that has the reviews table.
const reviewsVersion = 4

// prepareReview refuses a review the store cannot keep, and dates it.
func prepareReview(r *Review) error {
	if r.GameID == "" || len(r.Data) == 0 {
		return fmt.Errorf("storing a review: no game or no data")
	}
	if r.Created.IsZero() {
		r.Created = now()
	}
	r.Created = r.Created.UTC().Truncate(time.Millisecond)
	return nil
}

// SaveReview stores the review of game r.GameID, replacing any it had. It
// sets r.Created to now when it is zero. A game that does not exist is
// ErrNotFound.
func (c *core) SaveReview(ctx context.Context, r *Review) error {
	if err := prepareReview(r); err != nil {
		return err
	}
	return c.eng.write(ctx, "storing a review", true, func(t *tx) error {
		_, err := t.exec(`INSERT INTO reviews (game_id, review_key, created, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (game_id) DO UPDATE SET review_key = excluded.review_key, created = excluded.created,
			data = excluded.data`, r.GameID, r.Key, r.Created, string(r.Data))
		if t.d.foreignKey(err) {
			return fmt.Errorf("game %s: %w", r.GameID, ErrNotFound)
		}
		return err
	})
}

// Review returns the stored review of game id, or ErrNotFound.
func (c *core) Review(ctx context.Context, id string) (*Review, error) {
	if c.version < reviewsVersion {
		// A database opened read-only at an older version has none.
		return nil, fmt.Errorf("review of game %s: %w", id, ErrNotFound)
	}
	r := &Review{GameID: id}
	var data string
	err := c.pool.queryRow(ctx, `SELECT review_key, created, data FROM reviews WHERE game_id = ?`, id).Scan(
		&r.Key, timeCol{&r.Created}, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("review of game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the review of game %s: %w", id, err)
	}
	r.Data = []byte(data)
	return r, nil
}
