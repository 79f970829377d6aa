package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	sqlite3 "modernc.org/sqlite/lib"
)

// Review is the stored review of a finished game: the engine's grading of
// its moves, kept as the server made it so that it is computed once.
type Review struct {
	GameID string
	// Key says what the review was made from (the server's digest of the
	// game's moves and of the search budget): a review whose key no longer
	// matches the game is stale, and the server makes it again.
	Key     string
	Created time.Time
	Data    []byte // the review as the server serves it (JSON); the store does not read it
}

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
func (s *SQLite) SaveReview(ctx context.Context, r *Review) error {
	if err := prepareReview(r); err != nil {
		return err
	}
	return s.write(ctx, "storing a review", func(t *wtx) error {
		_, err := t.s.wc.ExecContext(t.ctx, `INSERT INTO reviews (game_id, review_key, created, data) VALUES (?, ?, ?, ?)
			ON CONFLICT (game_id) DO UPDATE SET review_key = excluded.review_key, created = excluded.created,
			data = excluded.data`, r.GameID, r.Key, r.Created.Format(timeFormat), string(r.Data))
		if hasCode(err, sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY) {
			return fmt.Errorf("game %s: %w", r.GameID, ErrNotFound)
		}
		return err
	})
}

// Review returns the stored review of game id, or ErrNotFound.
func (s *SQLite) Review(ctx context.Context, id string) (*Review, error) {
	if s.version < reviewsVersion {
		// A database opened read-only at an older version has none.
		return nil, fmt.Errorf("review of game %s: %w", id, ErrNotFound)
	}
	r := &Review{GameID: id}
	var created, data string
	err := s.r.QueryRowContext(ctx, `SELECT review_key, created, data FROM reviews WHERE game_id = ?`, id).Scan(
		&r.Key, &created, &data)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("review of game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the review of game %s: %w", id, err)
	}
	if r.Created, err = parseTime("review of game "+id, created); err != nil {
		return nil, err
	}
	r.Data = []byte(data)
	return r, nil
}

// SaveReview stores the review of game r.GameID, replacing any it had. It
// sets r.Created to now when it is zero. A game that does not exist is
// ErrNotFound.
func (p *Postgres) SaveReview(ctx context.Context, r *Review) error {
	if err := prepareReview(r); err != nil {
		return err
	}
	return p.write(ctx, "storing a review", false, func(ctx context.Context, q pgExec) error {
		_, err := q.Exec(ctx, `INSERT INTO reviews (game_id, review_key, created, data) VALUES ($1, $2, $3, $4)
			ON CONFLICT (game_id) DO UPDATE SET review_key = excluded.review_key, created = excluded.created,
			data = excluded.data`, r.GameID, r.Key, r.Created, string(r.Data))
		if pgCode(err) == pgForeignKeyViolation {
			return fmt.Errorf("game %s: %w", r.GameID, ErrNotFound)
		}
		return err
	})
}

// Review returns the stored review of game id, or ErrNotFound.
func (p *Postgres) Review(ctx context.Context, id string) (*Review, error) {
	r := &Review{GameID: id}
	var data string
	err := p.pool.QueryRow(ctx, `SELECT review_key, created, data FROM reviews WHERE game_id = $1`, id).Scan(
		&r.Key, &r.Created, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("review of game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the review of game %s: %w", id, err)
	}
	r.Created = pgTime(r.Created)
	r.Data = []byte(data)
	return r, nil
}
