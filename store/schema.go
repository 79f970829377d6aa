package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/endodoi/endodoi/account"
)

// migration brings a database from version-1 to version, in each
// engine's dialect.
type migration struct {
	version          int
	sqlite, postgres string
}

// fills are the steps of migrations that statements cannot do, by
// version: each runs after its migration's statements, in their
// transaction.
var fills = map[int]func(ctx context.Context, db stepDB) error{
	9: fillSkeletons,
}

// stepDB is a migration's transaction, for its fill: statements written
// with ? placeholders, rows read as text.
type stepDB interface {
	query(ctx context.Context, q string, args ...any) ([][]string, error)
	exec(ctx context.Context, q string, args ...any) error
}

// sqliteStep and pgStep are each engine's stepDB.
type (
	sqliteStep struct{ conn *sql.Conn }
	pgStep     struct{ tx pgx.Tx }
)

func (s sqliteStep) query(ctx context.Context, q string, args ...any) ([][]string, error) {
	rs, err := s.conn.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		row, ptrs := make([]string, len(cols)), make([]any, len(cols))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

func (s sqliteStep) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.conn.ExecContext(ctx, q, args...)
	return err
}

// dollars numbers the ? placeholders of q for PostgreSQL.
func dollars(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			fmt.Fprintf(&b, "$%d", n)
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func (s pgStep) query(ctx context.Context, q string, args ...any) ([][]string, error) {
	rs, err := s.tx.Query(ctx, dollars(q), args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]string
	for rs.Next() {
		row, ptrs := make([]string, len(rs.FieldDescriptions())), make([]any, len(rs.FieldDescriptions()))
		for i := range row {
			ptrs[i] = &row[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

func (s pgStep) exec(ctx context.Context, q string, args ...any) error {
	_, err := s.tx.Exec(ctx, dollars(q), args...)
	return err
}

// migrations is every change of the schema since the first release, oldest
// first, for both engines: the same versions, tables and columns
// (TestSchemasAlike compares them). PostgreSQL keeps times as TIMESTAMPTZ
// (the store writes them to the millisecond, in UTC) where SQLite keeps
// text, booleans as BOOLEAN where SQLite keeps 0 or 1, the time of a
// clock that does not run as NULL where SQLite keeps ”, and draws the
// store-wide order of changes from a sequence; its games have a column
// seq for SQLite's rowid.
//
// On SQLite, PRAGMA user_version holds the version a database is at; Open
// runs the ones it lacks, each in a transaction of its own. On PostgreSQL
// the table schema_version holds it, and OpenPostgres runs them in one
// transaction. A migration, once released, never changes: a new one is
// added instead.
var migrations = []migration{
	// Version 1 is the layout of the first release. Those databases have
	// it with user_version 0, so it must run harmlessly over them: every
	// statement says IF NOT EXISTS.
	{1,
		// SQLite
		`
CREATE TABLE IF NOT EXISTS series (
	id      TEXT PRIMARY KEY,
	created TEXT NOT NULL,
	target  INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
	id             TEXT PRIMARY KEY,
	created        TEXT NOT NULL,
	updated        TEXT NOT NULL,
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
	touched        INTEGER NOT NULL -- store-wide order of the last change
);
CREATE INDEX IF NOT EXISTS games_touched ON games(touched);
CREATE INDEX IF NOT EXISTS games_series ON games(series_id, created);
CREATE TABLE IF NOT EXISTS moves (
	game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	ply     INTEGER NOT NULL,
	move    TEXT NOT NULL,
	PRIMARY KEY (game_id, ply)
);
`,
		// PostgreSQL
		`
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
	// Version 2: the key an imported game was stored under, so that
	// importing it again finds it instead of storing it twice. Games made
	// here have none (NULL), which the unique index allows many times.
	{2,
		// SQLite
		`
ALTER TABLE games ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX games_import_key ON games(import_key);
`,
		// PostgreSQL
		`
ALTER TABLE games ADD COLUMN import_key TEXT;
CREATE UNIQUE INDEX games_import_key ON games(import_key);
`},
	// Version 3: online play. A game played on two devices has a row in
	// online: its invite, its seats (hashes of their tokens), its clocks
	// and its open offers. meta keeps the time the server was last known
	// alive, so that a restart gives the outage back to running clocks.
	{3,
		// SQLite
		`
CREATE TABLE online (
	game_id        TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
	invite         TEXT NOT NULL UNIQUE,
	south_seat     TEXT NOT NULL, -- SHA-256 of the seat's token, hex; '' while free
	north_seat     TEXT NOT NULL,
	clock_ms       INTEGER NOT NULL, -- the time for the game, or for each move; 0: no clock
	increment_ms   INTEGER NOT NULL,
	per_move       INTEGER NOT NULL, -- 1: correspondence, clock_ms for each move
	south_ms       INTEGER NOT NULL, -- time left when the running clock started
	north_ms       INTEGER NOT NULL,
	turn_start     TEXT NOT NULL,    -- when the running clock started; '' when none runs
	end_reason     TEXT NOT NULL,    -- how the game ended when not by the rules of play
	draw_offer     TEXT NOT NULL,    -- the side with an open offer, or ''
	takeback_offer TEXT NOT NULL,
	rematch_offer  TEXT NOT NULL,
	next_game      TEXT NOT NULL,
	rev            INTEGER NOT NULL
);
CREATE INDEX online_open ON online(end_reason, turn_start);
CREATE INDEX online_south_seat ON online(south_seat);
CREATE INDEX online_north_seat ON online(north_seat);
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`,
		// PostgreSQL
		`
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
	// Version 4: the reviews of finished games, so that each is computed
	// once. review_key says what a review was made from (the game's moves
	// and the search budget); data is the review as the server serves it.
	{4,
		// SQLite
		`
CREATE TABLE reviews (
	game_id    TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
	review_key TEXT NOT NULL,
	created    TEXT NOT NULL,
	data       TEXT NOT NULL
);
`,
		// PostgreSQL
		`
CREATE TABLE reviews (
	game_id    TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
	review_key TEXT NOT NULL,
	created    TIMESTAMPTZ NOT NULL,
	data       TEXT NOT NULL
);
`},
	// Version 5: accounts. credentials holds an account's password hash
	// and passkeys, sessions the hashes of the ids that signed-in
	// browsers hold, challenges the pending passkey ceremonies, by the
	// hash of the id their browser holds, and seat_owners the seats taken
	// while signed in (by the seat's hash, which the games of a series and
	// rematches keep).
	{5,
		// SQLite
		`
CREATE TABLE accounts (
	id       TEXT PRIMARY KEY,
	name     TEXT NOT NULL,        -- as its owner spelled it; '' once deleted
	name_key TEXT NOT NULL UNIQUE, -- the name case-folded
	created  TEXT NOT NULL,
	status   TEXT NOT NULL         -- '', 'disabled' or 'deleted'
);
CREATE TABLE credentials (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL, -- 'password' or 'passkey'
	data       TEXT NOT NULL,
	created    TEXT NOT NULL,
	used       TEXT NOT NULL
);
CREATE INDEX credentials_account ON credentials(account_id);
CREATE TABLE sessions (
	id_hash    TEXT PRIMARY KEY, -- SHA-256 of the cookie's id, hex
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TEXT NOT NULL,
	expires    TEXT NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);
CREATE INDEX sessions_expires ON sessions(expires);
CREATE TABLE challenges (
	id_hash TEXT PRIMARY KEY,
	data    TEXT NOT NULL,
	expires TEXT NOT NULL
);
CREATE INDEX challenges_expires ON challenges(expires);
CREATE TABLE seat_owners (
	seat       TEXT PRIMARY KEY, -- online.south_seat or north_seat: a seat token's hash
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TEXT NOT NULL
);
CREATE INDEX seat_owners_account ON seat_owners(account_id);
`,
		// PostgreSQL
		`
CREATE TABLE accounts (
	id       TEXT PRIMARY KEY,
	name     TEXT NOT NULL,
	name_key TEXT NOT NULL UNIQUE,
	created  TIMESTAMPTZ NOT NULL,
	status   TEXT NOT NULL
);
CREATE TABLE credentials (
	id         TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	kind       TEXT NOT NULL,
	data       TEXT NOT NULL,
	created    TIMESTAMPTZ NOT NULL,
	used       TIMESTAMPTZ NOT NULL
);
CREATE INDEX credentials_account ON credentials(account_id);
CREATE TABLE sessions (
	id_hash    TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TIMESTAMPTZ NOT NULL,
	expires    TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);
CREATE INDEX sessions_expires ON sessions(expires);
CREATE TABLE challenges (
	id_hash TEXT PRIMARY KEY,
	data    TEXT NOT NULL,
	expires TIMESTAMPTZ NOT NULL
);
CREATE INDEX challenges_expires ON challenges(expires);
CREATE TABLE seat_owners (
	seat       TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TIMESTAMPTZ NOT NULL
);
CREATE INDEX seat_owners_account ON seat_owners(account_id);
`},
	// Version 6: the lobby. accounts.kind tells bots (their tokens are
	// credentials of kind 'bot'); seeks holds the open seeks and the
	// places in the quick-pairing pools (pool names the pool), each with
	// the time its owner was last seen in the lobby; lobby_challenges the
	// challenges to a named player; blocks who will not play whom; reports
	// the players' reports of games.
	{6,
		// SQLite
		`
ALTER TABLE accounts ADD COLUMN kind TEXT NOT NULL DEFAULT ''; -- '' a person, 'bot'
CREATE TABLE seeks (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	pool         TEXT NOT NULL,    -- '' for a seek, else the pool's id
	holes        INTEGER NOT NULL,
	seeds        INTEGER NOT NULL,
	variant      TEXT NOT NULL,
	clock_ms     INTEGER NOT NULL,
	increment_ms INTEGER NOT NULL,
	per_move     INTEGER NOT NULL, -- 1: correspondence
	rated        INTEGER NOT NULL,
	min_rating   INTEGER NOT NULL, -- 0: no bound
	max_rating   INTEGER NOT NULL,
	created      TEXT NOT NULL,
	seen         TEXT NOT NULL     -- when its owner last held a lobby connection
);
CREATE INDEX seeks_account ON seeks(account_id);
CREATE UNIQUE INDEX seeks_pool_place ON seeks(pool, account_id) WHERE pool != '';
CREATE TABLE lobby_challenges (
	id           TEXT PRIMARY KEY,
	from_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	to_id        TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	holes        INTEGER NOT NULL,
	seeds        INTEGER NOT NULL,
	variant      TEXT NOT NULL,
	clock_ms     INTEGER NOT NULL,
	increment_ms INTEGER NOT NULL,
	per_move     INTEGER NOT NULL,
	rated        INTEGER NOT NULL,
	side         TEXT NOT NULL,    -- the challenger's: 's', 'n' or 'random'
	created      TEXT NOT NULL,
	expires      TEXT NOT NULL
);
CREATE INDEX lobby_challenges_from ON lobby_challenges(from_id);
CREATE INDEX lobby_challenges_to ON lobby_challenges(to_id);
CREATE INDEX lobby_challenges_expires ON lobby_challenges(expires);
CREATE TABLE blocks (
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	blocked_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TEXT NOT NULL,
	PRIMARY KEY (account_id, blocked_id)
);
CREATE INDEX blocks_blocked ON blocks(blocked_id);
CREATE TABLE reports (
	id         TEXT PRIMARY KEY,
	game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	reason     TEXT NOT NULL,
	text       TEXT NOT NULL,
	created    TEXT NOT NULL,
	UNIQUE (game_id, account_id)
);
CREATE INDEX reports_created ON reports(created);
`,
		// PostgreSQL
		`
ALTER TABLE accounts ADD COLUMN kind TEXT NOT NULL DEFAULT '';
CREATE TABLE seeks (
	id           TEXT PRIMARY KEY,
	account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	pool         TEXT NOT NULL,
	holes        INTEGER NOT NULL,
	seeds        INTEGER NOT NULL,
	variant      TEXT NOT NULL,
	clock_ms     BIGINT NOT NULL,
	increment_ms BIGINT NOT NULL,
	per_move     BOOLEAN NOT NULL,
	rated        BOOLEAN NOT NULL,
	min_rating   INTEGER NOT NULL,
	max_rating   INTEGER NOT NULL,
	created      TIMESTAMPTZ NOT NULL,
	seen         TIMESTAMPTZ NOT NULL
);
CREATE INDEX seeks_account ON seeks(account_id);
CREATE UNIQUE INDEX seeks_pool_place ON seeks(pool, account_id) WHERE pool != '';
CREATE TABLE lobby_challenges (
	id           TEXT PRIMARY KEY,
	from_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	to_id        TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	holes        INTEGER NOT NULL,
	seeds        INTEGER NOT NULL,
	variant      TEXT NOT NULL,
	clock_ms     BIGINT NOT NULL,
	increment_ms BIGINT NOT NULL,
	per_move     BOOLEAN NOT NULL,
	rated        BOOLEAN NOT NULL,
	side         TEXT NOT NULL,
	created      TIMESTAMPTZ NOT NULL,
	expires      TIMESTAMPTZ NOT NULL
);
CREATE INDEX lobby_challenges_from ON lobby_challenges(from_id);
CREATE INDEX lobby_challenges_to ON lobby_challenges(to_id);
CREATE INDEX lobby_challenges_expires ON lobby_challenges(expires);
CREATE TABLE blocks (
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	blocked_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (account_id, blocked_id)
);
CREATE INDEX blocks_blocked ON blocks(blocked_id);
CREATE TABLE reports (
	id         TEXT PRIMARY KEY,
	game_id    TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	reason     TEXT NOT NULL,
	text       TEXT NOT NULL,
	created    TIMESTAMPTZ NOT NULL,
	UNIQUE (game_id, account_id)
);
CREATE INDEX reports_created ON reports(created);
`},
	// Version 7: ratings. games.rated says a game counts for its players'
	// ratings (cleared at its end when it cannot: see ratingTx) and
	// games.category is an online game's rating category
	// ("<holes>-<speed>"). ratings holds each account's rating in each
	// category it played rated games in, with provisional_from, when its
	// deviation grows past the provisional bound; rating_history each
	// rated game's change of each player's rating, once a game and
	// account (its key); rating_advantages the first mover's advantage
	// fitted in each category.
	{7,
		// SQLite
		`
ALTER TABLE games ADD COLUMN rated INTEGER NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN category TEXT NOT NULL DEFAULT '';
CREATE TABLE ratings (
	account_id       TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	category         TEXT NOT NULL,
	rating           REAL NOT NULL,
	rd               REAL NOT NULL,
	volatility       REAL NOT NULL,
	games            INTEGER NOT NULL,
	updated          TEXT NOT NULL, -- the last rated game's end, when rd was last brought up to date
	provisional_from TEXT NOT NULL,
	PRIMARY KEY (account_id, category)
);
CREATE INDEX ratings_board ON ratings(category, rating);
CREATE TABLE rating_history (
	game_id           TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	account_id        TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	category          TEXT NOT NULL,
	side              TEXT NOT NULL,    -- 's' or 'n'
	moved_first       INTEGER NOT NULL, -- 1: this side moved first
	score             REAL NOT NULL,    -- 1, 0.5 or 0
	advantage         REAL NOT NULL,    -- the first mover's advantage the change used
	at                TEXT NOT NULL,
	rating_before     REAL NOT NULL,
	rd_before         REAL NOT NULL,    -- grown by the absence up to the game
	volatility_before REAL NOT NULL,
	rating_after      REAL NOT NULL,
	rd_after          REAL NOT NULL,
	volatility_after  REAL NOT NULL,
	PRIMARY KEY (game_id, account_id)
);
CREATE INDEX rating_history_account ON rating_history(account_id, category, at);
CREATE INDEX rating_history_category ON rating_history(category, at);
CREATE TABLE rating_advantages (
	category  TEXT PRIMARY KEY,
	advantage REAL NOT NULL,
	stderr    REAL NOT NULL,
	games     INTEGER NOT NULL,
	updated   TEXT NOT NULL
);
`,
		// PostgreSQL
		`
ALTER TABLE games ADD COLUMN rated BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE games ADD COLUMN category TEXT NOT NULL DEFAULT '';
CREATE TABLE ratings (
	account_id       TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	category         TEXT NOT NULL,
	rating           DOUBLE PRECISION NOT NULL,
	rd               DOUBLE PRECISION NOT NULL,
	volatility       DOUBLE PRECISION NOT NULL,
	games            INTEGER NOT NULL,
	updated          TIMESTAMPTZ NOT NULL,
	provisional_from TIMESTAMPTZ NOT NULL,
	PRIMARY KEY (account_id, category)
);
CREATE INDEX ratings_board ON ratings(category, rating);
CREATE TABLE rating_history (
	game_id           TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
	account_id        TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	category          TEXT NOT NULL,
	side              TEXT NOT NULL,
	moved_first       BOOLEAN NOT NULL,
	score             DOUBLE PRECISION NOT NULL,
	advantage         DOUBLE PRECISION NOT NULL,
	at                TIMESTAMPTZ NOT NULL,
	rating_before     DOUBLE PRECISION NOT NULL,
	rd_before         DOUBLE PRECISION NOT NULL,
	volatility_before DOUBLE PRECISION NOT NULL,
	rating_after      DOUBLE PRECISION NOT NULL,
	rd_after          DOUBLE PRECISION NOT NULL,
	volatility_after  DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (game_id, account_id)
);
CREATE INDEX rating_history_account ON rating_history(account_id, category, at);
CREATE INDEX rating_history_category ON rating_history(category, at);
CREATE TABLE rating_advantages (
	category  TEXT PRIMARY KEY,
	advantage DOUBLE PRECISION NOT NULL,
	stderr    DOUBLE PRECISION NOT NULL,
	games     INTEGER NOT NULL,
	updated   TIMESTAMPTZ NOT NULL
);
`},
	// Version 8: sign-in limits shared by every instance. signin_limits
	// holds a token bucket per key (a name's sign-ins), devices the hashes
	// of the ids of the device cookies of browsers that signed in to an
	// account, whose correct passwords pass the name's limit.
	{8,
		// SQLite
		`
CREATE TABLE signin_limits (
	key     TEXT PRIMARY KEY,
	tokens  REAL NOT NULL, -- -1 for a bucket just made, not yet counted
	updated TEXT NOT NULL
);
CREATE INDEX signin_limits_updated ON signin_limits(updated);
CREATE TABLE devices (
	id_hash    TEXT PRIMARY KEY, -- SHA-256 of the device cookie's id, hex
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TEXT NOT NULL,
	used       TEXT NOT NULL
);
CREATE INDEX devices_account ON devices(account_id, used);
`,
		// PostgreSQL
		`
CREATE TABLE signin_limits (
	key     TEXT PRIMARY KEY,
	tokens  DOUBLE PRECISION NOT NULL,
	updated TIMESTAMPTZ NOT NULL
);
CREATE INDEX signin_limits_updated ON signin_limits(updated);
CREATE TABLE devices (
	id_hash    TEXT PRIMARY KEY,
	account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
	created    TIMESTAMPTZ NOT NULL,
	used       TIMESTAMPTZ NOT NULL
);
CREATE INDEX devices_account ON devices(account_id, used);
`},
	// Version 9: look-alike usernames. accounts.name_skeleton is the
	// UTS #39 confusable skeleton of name_key (account.Skeleton), unique
	// among the accounts that have one; of accounts stored before, whose
	// names looked alike, the oldest keeps it and the others have ''; a
	// deleted account has ''.
	{9,
		// SQLite
		`
ALTER TABLE accounts ADD COLUMN name_skeleton TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX accounts_skeleton ON accounts(name_skeleton) WHERE name_skeleton != '';
`,
		// PostgreSQL
		`
ALTER TABLE accounts ADD COLUMN name_skeleton TEXT NOT NULL DEFAULT '';
CREATE UNIQUE INDEX accounts_skeleton ON accounts(name_skeleton) WHERE name_skeleton != '';
`},
	// Version 10: who is in the lobby. lobby_presence holds, for each
	// account that held a lobby connection lately on any instance, when
	// it was last seen there; the lobby lists those seen within its grace,
	// and the bots (accounts_bots). Challenges are counted by sender and
	// target together.
	{10,
		// SQLite
		`
CREATE TABLE lobby_presence (
	account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
	seen       TEXT NOT NULL
);
CREATE INDEX lobby_presence_seen ON lobby_presence(seen);
CREATE INDEX lobby_challenges_pair ON lobby_challenges(from_id, to_id);
CREATE INDEX accounts_bots ON accounts(name_key) WHERE kind = 'bot';
`,
		// PostgreSQL
		`
CREATE TABLE lobby_presence (
	account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
	seen       TIMESTAMPTZ NOT NULL
);
CREATE INDEX lobby_presence_seen ON lobby_presence(seen);
CREATE INDEX lobby_challenges_pair ON lobby_challenges(from_id, to_id);
CREATE INDEX accounts_bots ON accounts(name_key) WHERE kind = 'bot';
`},
	// Version 11: the index of the open online games holds each open game
	// alone, not its turn's start, which every move moves on: a move no
	// longer rewrites the index (on SQLite, its two entries' pages; on
	// PostgreSQL, the move's update of online may be a heap-only one, which
	// adds no entry to any of the table's indexes).
	{11,
		// SQLite
		`
DROP INDEX online_open;
CREATE INDEX online_open ON online(game_id) WHERE end_reason = '';
`,
		// PostgreSQL
		`
DROP INDEX online_open;
CREATE INDEX online_open ON online(game_id) WHERE end_reason = '';
`},
}

// latestVersion is the schema version this program writes.
var latestVersion = migrations[len(migrations)-1].version

// querier is what both a pool and a single connection offer.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// schemaVersion returns the database's schema version, counting a
// database of the first release (user_version 0 with a games table) as
// version 1.
func schemaVersion(ctx context.Context, db querier) (int, error) {
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return 0, fmt.Errorf("reading the schema version: %w", err)
	}
	if v != 0 {
		return v, nil
	}
	var n int
	if err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'games'`).Scan(&n); err != nil {
		return 0, fmt.Errorf("reading the schema: %w", err)
	}
	if n > 0 {
		return 1, nil
	}
	return 0, nil
}

// newerError is the error for a database this program is too old for.
func newerError(path string, v int) error {
	return fmt.Errorf("%s was made by a newer endodoi (schema version %d; this one knows up to %d): use that version or a newer one", path, v, latestVersion)
}

// migrate brings the database on conn to version target, one transaction
// a migration.
func migrate(ctx context.Context, conn *sql.Conn, path string, target int) error {
	v, err := schemaVersion(ctx, conn)
	if err != nil {
		return err
	}
	if v > latestVersion {
		return newerError(path, v)
	}
	for _, m := range migrations {
		if m.version <= v || m.version > target {
			continue
		}
		if err := runMigration(ctx, conn, m); err != nil {
			return fmt.Errorf("updating %s to schema version %d: %w", path, m.version, err)
		}
	}
	return nil
}

func runMigration(ctx context.Context, conn *sql.Conn, m migration) error {
	if err := retryBusy(func() error {
		_, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
		return err
	}); err != nil {
		return err
	}
	_, err := conn.ExecContext(ctx, m.sqlite)
	if fill := fills[m.version]; err == nil && fill != nil {
		err = fill(ctx, sqliteStep{conn})
	}
	if err == nil {
		// The pragma takes no parameter; the version is a number we wrote.
		_, err = conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA user_version = %d`, m.version))
	}
	if err == nil {
		err = retryBusy(func() error {
			_, err := conn.ExecContext(ctx, `COMMIT`)
			return err
		})
	}
	if err != nil {
		conn.ExecContext(context.Background(), `ROLLBACK`)
		return err
	}
	return nil
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
		for _, m := range migrations {
			if m.version <= version || m.version > target {
				continue
			}
			if _, err := tx.Exec(ctx, m.postgres); err != nil {
				return fmt.Errorf("updating to schema version %d: %w", m.version, err)
			}
			if fill := fills[m.version]; fill != nil {
				if err := fill(ctx, pgStep{tx}); err != nil {
					return fmt.Errorf("updating to schema version %d: %w", m.version, err)
				}
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

// fillSkeletons gives the accounts stored before version 9 their
// skeletons, oldest first: an account whose name looks like an older
// one's has none.
func fillSkeletons(ctx context.Context, db stepDB) error {
	rows, err := db.query(ctx, `SELECT id, name_key FROM accounts WHERE name != '' ORDER BY created, id`)
	if err != nil {
		return err
	}
	taken := map[string]bool{}
	for _, r := range rows {
		sk := account.Skeleton(r[1])
		if taken[sk] {
			continue
		}
		taken[sk] = true
		if err := db.exec(ctx, `UPDATE accounts SET name_skeleton = ? WHERE id = ?`, sk, r[0]); err != nil {
			return err
		}
	}
	return nil
}
