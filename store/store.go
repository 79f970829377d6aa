// Package store keeps games and series in an SQLite database (through a
// pure-Go driver, so no C compiler is needed). Every change is a committed
// transaction before the call returns: after a crash or a restart, games
// continue where they were.
//
// The store keeps what was played, not whether it was legal: callers replay
// a game with package rules before they append a move.
package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver

	"github.com/endodoi/endodoi/rules"
)

// Errors the store returns; test for them with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	// ErrConflict: the game has changed since the caller read it (another
	// move or a takeback came first).
	ErrConflict = errors.New("the game has changed meanwhile")
)

// Computer says which side the computer plays in a game, and at what
// level; a game between two people has none.
type Computer struct {
	Side  rules.Side
	Level int
}

// Game is a stored game.
type Game struct {
	ID               string
	Created, Updated time.Time
	South, North     string // the players' names
	Start            rules.Position
	Rules            rules.Rules
	Moves            []rules.Move
	Computer         *Computer // nil for two people
	SeriesID         string    // empty outside a series
	// Result is the record notation of the outcome: "1-0", "0-1",
	// "1/2-1/2" or "*" while the game goes on. The caller keeps it up to
	// date with AppendMove and Truncate.
	Result string
}

// Summary is a game in a listing.
type Summary struct {
	ID               string
	Created, Updated time.Time
	South, North     string
	Holes            int
	Variant          rules.Variant
	Moves            int
	Result           string
	SeriesID         string
}

// Series is a stored series: its target and its games, oldest first.
type Series struct {
	ID      string
	Created time.Time
	Target  int
	Games   []Summary
}

// Store is an open database. It is safe for concurrent use.
type Store struct {
	db *sql.DB
}

const schema = `
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
`

// Open opens the database file at path, creating it and its tables if
// needed.
func Open(ctx context.Context, path string) (*Store, error) {
	q := url.Values{}
	for _, p := range []string{"foreign_keys(1)", "journal_mode(WAL)", "synchronous(FULL)", "busy_timeout(10000)"} {
		q.Add("_pragma", p)
	}
	// Write transactions take the write lock when they begin, so that two
	// of them never both read and then fail to upgrade.
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if _, err := db.ExecContext(ctx, schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

const timeFormat = "2006-01-02T15:04:05.000Z"

// CreateSeries starts a series to target wins and returns its ID.
func (s *Store) CreateSeries(ctx context.Context, target int) (string, error) {
	id := newID()
	_, err := s.db.ExecContext(ctx, `INSERT INTO series (id, created, target) VALUES (?, ?, ?)`,
		id, now().Format(timeFormat), target)
	if err != nil {
		return "", fmt.Errorf("creating a series: %w", err)
	}
	return id, nil
}

// CreateGame stores a new game with its moves and sets g.ID, g.Created and
// g.Updated.
func (s *Store) CreateGame(ctx context.Context, g *Game) error {
	g.ID = newID()
	g.Created = now()
	g.Updated = g.Created
	if g.Result == "" {
		g.Result = "*"
	}
	side, level := "", 0
	if g.Computer != nil {
		side, level = string(g.Computer.Side.Letter()), g.Computer.Level
	}
	var series any
	if g.SeriesID != "" {
		series = g.SeriesID
	}
	return s.tx(ctx, "creating a game", func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO games (id, created, updated, south, north, start, variant,
			max_laps, computer_side, computer_level, series_id, result, moves, touched)
			VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?, (SELECT COALESCE(MAX(touched), 0) + 1 FROM games))`,
			g.ID, g.Created.Format(timeFormat), g.Updated.Format(timeFormat), g.South, g.North, g.Start.String(),
			g.Rules.Variant.String(), g.Rules.Laps(), side, level, series, g.Result, len(g.Moves))
		if err != nil {
			if strings.Contains(err.Error(), "FOREIGN KEY") {
				return fmt.Errorf("series %s: %w", g.SeriesID, ErrNotFound)
			}
			return err
		}
		return insertMoves(ctx, tx, g.ID, 0, g.Moves)
	})
}

func insertMoves(ctx context.Context, tx *sql.Tx, id string, from int, moves []rules.Move) error {
	for i, m := range moves {
		if _, err := tx.ExecContext(ctx, `INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)`,
			id, from+i, m.String()); err != nil {
			return err
		}
	}
	return nil
}

// tx runs f in a transaction and commits it.
func (s *Store) tx(ctx context.Context, what string, f func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := f(tx); err != nil {
		tx.Rollback()
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrConflict) {
			return err
		}
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// AppendMove adds move number ply (counted from 0) to game id and sets its
// result. It returns ErrConflict unless the game has exactly ply moves.
func (s *Store) AppendMove(ctx context.Context, id string, ply int, m rules.Move, result string) error {
	return s.tx(ctx, "storing a move", func(tx *sql.Tx) error {
		if err := checkPly(ctx, tx, id, ply); err != nil {
			return err
		}
		if err := insertMoves(ctx, tx, id, ply, []rules.Move{m}); err != nil {
			return err
		}
		return setMoves(ctx, tx, id, ply+1, result)
	})
}

// Truncate takes back the moves of game id from number ply on, for a game
// that has exactly had moves, and sets its result.
func (s *Store) Truncate(ctx context.Context, id string, had, ply int, result string) error {
	return s.tx(ctx, "taking back moves", func(tx *sql.Tx) error {
		if err := checkPly(ctx, tx, id, had); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM moves WHERE game_id = ? AND ply >= ?`, id, ply); err != nil {
			return err
		}
		return setMoves(ctx, tx, id, ply, result)
	})
}

func checkPly(ctx context.Context, tx *sql.Tx, id string, ply int) error {
	var n int
	err := tx.QueryRowContext(ctx, `SELECT moves FROM games WHERE id = ?`, id).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return err
	}
	if n != ply {
		return fmt.Errorf("game %s has %d moves, not %d: %w", id, n, ply, ErrConflict)
	}
	return nil
}

func setMoves(ctx context.Context, tx *sql.Tx, id string, n int, result string) error {
	_, err := tx.ExecContext(ctx, `UPDATE games SET moves = ?, result = ?, updated = ?,
		touched = (SELECT MAX(touched) + 1 FROM games) WHERE id = ?`, n, result, now().Format(timeFormat), id)
	return err
}

// Game returns game id with its moves.
func (s *Store) Game(ctx context.Context, id string) (*Game, error) {
	g := &Game{ID: id}
	var created, updated, start, variant, side string
	var maxLaps, level, n int
	var series sql.NullString
	err := s.db.QueryRowContext(ctx, `SELECT created, updated, south, north, start, variant, max_laps,
		computer_side, computer_level, series_id, result, moves FROM games WHERE id = ?`, id).Scan(
		&created, &updated, &g.South, &g.North, &start, &variant, &maxLaps, &side, &level, &series, &g.Result, &n)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	g.Created, _ = time.Parse(timeFormat, created)
	g.Updated, _ = time.Parse(timeFormat, updated)
	g.SeriesID = series.String
	if g.Start, err = rules.ParsePosition(start); err != nil {
		return nil, fmt.Errorf("game %s: stored start: %w", id, err)
	}
	if g.Rules.Variant, err = rules.ParseVariant(variant); err != nil {
		return nil, fmt.Errorf("game %s: stored variant: %w", id, err)
	}
	g.Rules.MaxLaps = maxLaps
	if side != "" {
		g.Computer = &Computer{Side: rules.South, Level: level}
		if side == "n" {
			g.Computer.Side = rules.North
		}
	}
	rows, err := s.db.QueryContext(ctx, `SELECT move FROM moves WHERE game_id = ? ORDER BY ply`, id)
	if err != nil {
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	defer rows.Close()
	g.Moves = make([]rules.Move, 0, n)
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, fmt.Errorf("reading game %s: %w", id, err)
		}
		m, err := rules.ParseMove(text)
		if err != nil {
			return nil, fmt.Errorf("game %s: stored move: %w", id, err)
		}
		g.Moves = append(g.Moves, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	return g, nil
}

const summaryColumns = `id, created, updated, south, north, start, variant, moves, result, series_id`

func scanSummaries(rows *sql.Rows) ([]Summary, error) {
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sm Summary
		var created, updated, start, variant string
		var series sql.NullString
		if err := rows.Scan(&sm.ID, &created, &updated, &sm.South, &sm.North, &start, &variant, &sm.Moves,
			&sm.Result, &series); err != nil {
			return nil, err
		}
		sm.Created, _ = time.Parse(timeFormat, created)
		sm.Updated, _ = time.Parse(timeFormat, updated)
		sm.SeriesID = series.String
		if p, err := rules.ParsePosition(start); err == nil {
			sm.Holes = p.Holes()
		}
		sm.Variant, _ = rules.ParseVariant(variant)
		out = append(out, sm)
	}
	return out, rows.Err()
}

// Games lists games, the most recently played first.
func (s *Store) Games(ctx context.Context, limit, offset int) ([]Summary, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM games
		ORDER BY touched DESC LIMIT ? OFFSET ?`, limit, offset)
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	list, err := scanSummaries(rows)
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	return list, nil
}

// Series returns series id with its games.
func (s *Store) Series(ctx context.Context, id string) (*Series, error) {
	sr := &Series{ID: id}
	var created string
	err := s.db.QueryRowContext(ctx, `SELECT created, target FROM series WHERE id = ?`, id).Scan(&created, &sr.Target)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("series %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	sr.Created, _ = time.Parse(timeFormat, created)
	rows, err := s.db.QueryContext(ctx, `SELECT `+summaryColumns+` FROM games WHERE series_id = ?
		ORDER BY rowid`, id)
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	if sr.Games, err = scanSummaries(rows); err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	return sr, nil
}
