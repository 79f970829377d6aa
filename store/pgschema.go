package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// pgMigrations are the migrations of SQLite (see migrations) in
// PostgreSQL's dialect: the same versions, tables and columns, with times
// as TIMESTAMPTZ (the store writes them to the millisecond, in UTC) and the
// store-wide order of changes from a sequence. The table schema_version
// holds the version a database is at. A migration, once released, never
// changes: a new one is added instead, here and in migrations alike.
var pgMigrations = []migration{
	{1, `
CREATE TABLE series (
	id      TEXT PRIMARY KEY,
	created TIMESTAMPTZ NOT NULL,
	target  INTEGER NOT NULL
);
-- The store-wide order of the changes of games (games.touched).
CREATE SEQUENCE touched;
CREATE TABLE games (
	seq            BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE, -- the order of creation (SQLite's rowid)
	id             TEXT PRIMARY KEY,
	created        TIMESTAMPTZ NOT NULL,
	updated        TIMESTAMPTZ NOT NULL,
	south          TEXT NOT NULL,
	north          TEXT NOT NULL,
	start          TEXT NOT NULL,
	variant        TEXT NOT NULL,
	max_laps       INTEGER NOT NULL,
	computer_side  TEXT NOT NULL,
	computer_level INTEGER NOT NULL,
	series_id      TEXT REFERENCES series(id),
	result         TEXT NOT NULL,
	moves          INTEGER NOT NULL,
	touched        BIGINT NOT NULL -- store-wide order of the last change
);
CREATE INDEX games_touched ON games(touched);
CREATE INDEX games_series ON games(series_id, seq);
CREATE TABLE moves (
	game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	ply     INTEGER NOT NULL,
	move    TEXT NOT NULL,
	PRIMARY KEY (game_id, ply)
);
`},
	// Version 2: the key an imported game was stored under; NULL, which
	// the unique index allows many times, for the others.
	{2, `
ALTER TABLE games ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX games_import_key ON games(import_key);
`},
	// Version 3: online play (see migrations for the meaning of the
	// columns) and the server's heartbeat in meta.
	{3, `
CREATE TABLE online (
	game_id        TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
	invite         TEXT NOT NULL UNIQUE,
	south_seat     TEXT NOT NULL,
	north_seat     TEXT NOT NULL,
	clock_ms       BIGINT NOT NULL,
	increment_ms   BIGINT NOT NULL,
	per_move       BOOLEAN NOT NULL,
	south_ms       BIGINT NOT NULL,
	north_ms       BIGINT NOT NULL,
	turn_start     TIMESTAMPTZ, -- NULL when no clock runs
	end_reason     TEXT NOT NULL,
	draw_offer     TEXT NOT NULL,
	takeback_offer TEXT NOT NULL,
	rematch_offer  TEXT NOT NULL,
	next_game      TEXT NOT NULL,
	rev            BIGINT NOT NULL
);
CREATE INDEX online_open ON online(end_reason, turn_start);
CREATE INDEX online_south_seat ON online(south_seat);
CREATE INDEX online_north_seat ON online(north_seat);
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`},
	// Version 4: the reviews of finished games (see migrations).
	{4, `
CREATE TABLE reviews (
	game_id    TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
	review_key TEXT NOT NULL,
	created    TIMESTAMPTZ NOT NULL,
	data       TEXT NOT NULL
);
`},
}

// migrationLock is the key of the advisory lock under which a program
// migrates a PostgreSQL database, so that instances starting together
// migrate it once: the others wait, then find nothing to do.
const migrationLock int64 = 0x656e646f646f6931 // "endodoi1"

// pgMigrate brings the database on conn to version target in one
// transaction under migrationLock, and returns the version it is at. A
// database of a newer program is refused, unchanged.
func pgMigrate(ctx context.Context, conn *pgx.Conn, where string, target int) (int, error) {
	version := 0
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		// Another instance may hold the lock while it migrates; it takes
		// no longer than its statements.
		if _, err := tx.Exec(ctx, `SET LOCAL lock_timeout = '60s'`); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
			return fmt.Errorf("waiting for another instance's schema update: %w", err)
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)`); err != nil {
			return err
		}
		if err := tx.QueryRow(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_version`).Scan(&version); err != nil {
			return fmt.Errorf("reading the schema version: %w", err)
		}
		if version > latestVersion {
			return newerError(where, version)
		}
		was := version
		for _, m := range pgMigrations {
			if m.version <= version || m.version > target {
				continue
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return fmt.Errorf("updating to schema version %d: %w", m.version, err)
			}
			version = m.version
		}
		if version == was {
			return nil
		}
		if _, err := tx.Exec(ctx, `DELETE FROM schema_version`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO schema_version (version) VALUES ($1)`, version)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("opening %s: %w", where, err)
	}
	return version, nil
}

// pgCode returns the SQLSTATE of a PostgreSQL error, or "".
func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// SQLSTATE codes the store tells apart.
const (
	pgUniqueViolation     = "23505"
	pgForeignKeyViolation = "23503"
	pgSerialization       = "40001"
	pgDeadlock            = "40P01"
	pgLockNotAvailable    = "55P03" // lock_timeout ran out
	pgNoDatabase          = "3D000"
)
