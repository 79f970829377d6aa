// Package store keeps games and series in a database: an SQLite file in
// the data folder by default (through a pure-Go driver, so no C compiler
// and no database server is needed), or PostgreSQL, which many server
// instances can share. Both implement Store, with the same errors and the
// same guarantees: every change is committed, and durable, before the call
// returns, and every read sees every change acknowledged before it.
//
// On SQLite one goroutine writes: it gathers the changes that callers ask
// for at the same moment into one transaction, each change in a savepoint
// of its own so that one change's failure undoes only that change, and
// pays for one sync for all of them. Reads use a pool of other
// connections, which WAL mode lets read while the writer writes.
//
// On PostgreSQL each change is a transaction of its own on a pooled
// connection; the database server gathers the commits that arrive
// together into one flush of its log (see postgres.go).
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
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/endodoi/endodoi/rules"
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
	// ImportKey identifies an imported game, so that importing it again
	// finds the stored one (see CreateGame); empty for other games.
	ImportKey string
	// Online is the state of a game played on two devices; nil for the
	// others.
	Online *Online
}

// Summary is a game in a listing.
type Summary struct {
	ID               string
	Created, Updated time.Time
	South, North     string
	Holes            int
	Variant          rules.Variant
	Moves            int
	ToMove           rules.Side // the side to move after Moves moves
	Result           string
	SeriesID         string
	Online           bool   // played on two devices
	End              string // for an online game, Online.End
}

// Series is a stored series: its target and its games, oldest first.
type Series struct {
	ID      string
	Created time.Time
	Target  int
	Games   []Summary
}

// Store is an open database of games, in SQLite (*SQLite) or PostgreSQL
// (*Postgres). Its methods are safe for concurrent use. A write returns
// nil only once it is committed; a write that fails for a reason of the
// storage rather than of the data returns an error wrapping ErrUnsaved (or
// ErrBusy) and writes nothing.
type Store interface {
	// CreateGame stores a new game with its moves and sets g.ID, g.Created
	// and g.Updated (and g.Online.Rev). When g.ImportKey is set and a game
	// with that key is stored already, it stores nothing, sets g.ID to that
	// game's ID and returns an error wrapping ErrExists. A g.SeriesID of no
	// stored series is ErrNotFound.
	CreateGame(ctx context.Context, g *Game) error
	// CreateSeries starts a series to target wins and returns its ID.
	CreateSeries(ctx context.Context, target int) (string, error)
	// CreateSeriesGame starts a series to target wins with g as its first
	// game, both or neither, and sets g.SeriesID as well as what
	// CreateGame sets.
	CreateSeriesGame(ctx context.Context, target int, g *Game) error
	// AppendMove adds move number ply (counted from 0) to game id and sets
	// its result. It returns ErrConflict unless the game has exactly ply
	// moves, ErrNotFound if there is no such game.
	AppendMove(ctx context.Context, id string, ply int, m rules.Move, result string) error
	// Truncate takes back the moves of game id from number ply on, for a
	// game that has exactly had moves (else ErrConflict), and sets its
	// result.
	Truncate(ctx context.Context, id string, had, ply int, result string) error
	// Update changes game id as c says, or returns ErrConflict if the
	// game has changed since the caller read it (ErrNotFound if there is
	// none).
	Update(ctx context.Context, id string, c Change) error
	// ResumeClocks restarts the running clocks of a server that was last
	// alive at alive and runs again at now, and returns how many.
	ResumeClocks(ctx context.Context, alive, now time.Time) (int, error)
	// SetAlive records that the server was running at t.
	SetAlive(ctx context.Context, t time.Time) error

	// Game returns game id with its moves (ErrNotFound if none).
	Game(ctx context.Context, id string) (*Game, error)
	// GameByImportKey returns the game stored under import key key.
	GameByImportKey(ctx context.Context, key string) (*Game, error)
	// GameByInvite returns the online game whose invite code is code.
	GameByInvite(ctx context.Context, code string) (*Game, error)
	// Games lists games, the most recently changed first.
	Games(ctx context.Context, limit, offset int) ([]Summary, error)
	// GamesByID returns the summaries of the games ids names that exist,
	// in the order given.
	GamesByID(ctx context.Context, ids []string) ([]Summary, error)
	// GameIDs returns the IDs of every stored game, oldest first.
	GameIDs(ctx context.Context) ([]string, error)
	// OnlineGames lists the online games in progress, the most recently
	// changed first.
	OnlineGames(ctx context.Context, limit int) ([]Summary, error)
	// OpenOnlineGames returns the IDs of the online games in progress
	// last changed before idle (all of them for a zero idle), the oldest
	// change first.
	OpenOnlineGames(ctx context.Context, idle time.Time) ([]string, error)
	// Series returns series id with its games, oldest first.
	Series(ctx context.Context, id string) (*Series, error)
	// Alive returns when the server was last recorded running, if ever.
	Alive(ctx context.Context) (time.Time, bool, error)
	// SeatExists reports whether some online game has a seat whose token
	// hashes to hash.
	SeatExists(ctx context.Context, hash string) (bool, error)

	// SaveReview stores the review of game r.GameID, replacing any it
	// had, and sets r.Created to now when it is zero (ErrNotFound if there
	// is no such game). Review returns the stored review of game id
	// (ErrNotFound if none). A game's review goes with the game.
	SaveReview(ctx context.Context, r *Review) error
	Review(ctx context.Context, id string) (*Review, error)

	// WriteFailures returns how many writes failed since the store was
	// opened for a reason other than the data (ErrConflict, ErrNotFound,
	// ErrExists).
	WriteFailures() int64
	// Close finishes the writes already asked for, then closes the
	// database. Writes asked for afterwards fail.
	Close() error
}

// Both engines are stores.
var (
	_ Store = (*SQLite)(nil)
	_ Store = (*Postgres)(nil)
)

// SQLite is a store in an SQLite database file. It is safe for concurrent
// use.
type SQLite struct {
	path     string
	version  int    // the schema version
	keyCol   string // the import key column, or NULL before version 2
	readOnly bool

	r *sql.DB // the readers' pool

	// The writer's connection and its statements; nil when read-only.
	w       *sql.DB
	wc      *sql.Conn
	stmts   *statements
	queue   chan *write
	stopped chan struct{} // closed when the writer has returned

	mu       sync.RWMutex // guards closed against the writes being queued
	closed   bool
	sending  sync.WaitGroup // writes being handed to the writer
	failures atomic.Int64
}

// maxBatch bounds the writes one transaction carries, so that a long queue
// does not keep the first ones waiting for one huge commit.
const maxBatch = 256

// uri returns the SQLite URI of the database file at path with the given
// parameters.
func uri(path string, params ...string) string {
	// SQLite decodes %XX in a file: URI, and ? or # would end the path.
	p := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23").Replace(filepath.ToSlash(path))
	q := url.Values{}
	for _, kv := range params {
		k, v, _ := strings.Cut(kv, "=")
		q.Add(k, v)
	}
	return "file:" + p + "?" + q.Encode()
}

// roURI opens path for reading only, writing nothing, not even the -wal
// and -shm files SQLite makes beside a WAL database: when there is no
// -wal file no program has the database open, and the file alone is the
// database, so SQLite may read it as immutable.
func roURI(path string, params ...string) string {
	params = append(params, "mode=ro")
	if _, err := os.Stat(path + "-wal"); errors.Is(err, fs.ErrNotExist) {
		params = append(params, "immutable=1")
	}
	return uri(path, params...)
}

// Open opens the database file at path, creating it if needed, and brings
// its schema up to date. It refuses, writing nothing, a file it cannot
// write (ErrReadOnly), a damaged file (ErrDamaged), and a file made by a
// newer version of the program.
func Open(ctx context.Context, path string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	path = abs
	fi, err := os.Stat(path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if err := checkWritable(path); err != nil {
		return nil, err
	}
	if exists && fi.Size() > 0 {
		v, problems, err := inspect(ctx, path, 5)
		if err != nil {
			return nil, err
		}
		if len(problems) > 0 {
			return nil, damagedError(path, problems)
		}
		if v > latestVersion {
			return nil, newerError(path, v)
		}
	}

	s := &SQLite{path: path, version: latestVersion, keyCol: "import_key"}
	s.w, err = sql.Open("sqlite", uri(path, "_pragma=busy_timeout(100)", "_pragma=foreign_keys(1)",
		"_pragma=journal_mode(WAL)", "_pragma=synchronous(FULL)"))
	if err == nil {
		s.w.SetMaxOpenConns(1)
		s.w.SetMaxIdleConns(1)
		s.w.SetConnMaxLifetime(0)
		s.w.SetConnMaxIdleTime(0)
		s.wc, err = s.w.Conn(ctx)
	}
	if err == nil {
		err = migrate(ctx, s.wc, path, latestVersion)
	}
	if err == nil {
		s.stmts, err = prepare(ctx, s.wc)
	}
	if err == nil {
		// Readers may not write, by mistake or otherwise: only the writer
		// does, so that writes never wait for each other's locks.
		s.r, err = sql.Open("sqlite", uri(path, "_pragma=busy_timeout(5000)", "_pragma=query_only(1)"))
	}
	if err == nil {
		n := 2*runtime.GOMAXPROCS(0) + 2
		s.r.SetMaxOpenConns(n)
		s.r.SetMaxIdleConns(n)
		err = s.r.PingContext(ctx)
	}
	if err != nil {
		s.closeDBs()
		if hasCode(err, sqlite3.SQLITE_READONLY) {
			return nil, fmt.Errorf("opening %s: %w: %w", path, ErrReadOnly, err)
		}
		if isDamage(err) {
			return nil, damagedError(path, []string{err.Error()})
		}
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	s.queue = make(chan *write, maxBatch)
	s.stopped = make(chan struct{})
	go s.run()
	return s, nil
}

// OpenReadOnly opens the database at path for reading, writing nothing to
// it: no schema update, no -wal or -shm files when no other program has it
// open. It opens a damaged file too, so that Check can report on it.
// Writes return ErrReadOnly.
func OpenReadOnly(ctx context.Context, path string) (*SQLite, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	path = abs
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	if fi.IsDir() {
		return nil, fmt.Errorf("opening %s: a folder, not a database file", path)
	}
	r, err := sql.Open("sqlite", roURI(path, "_pragma=busy_timeout(5000)"))
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", path, err)
	}
	r.SetMaxOpenConns(2*runtime.GOMAXPROCS(0) + 2)
	s := &SQLite{path: path, r: r, readOnly: true, keyCol: "import_key"}
	s.version, err = schemaVersion(ctx, r)
	if err != nil {
		// A damaged file may not even tell its version; Check says why.
		s.version = -1
	}
	if s.version < 2 {
		s.keyCol = "NULL"
	}
	return s, nil
}

// Path returns the database file's absolute path.
func (s *SQLite) Path() string { return s.path }

// Version returns the database's schema version, or -1 when it could not
// be read (a damaged file opened with OpenReadOnly).
func (s *SQLite) Version() int { return s.version }

// WriteFailures returns how many writes failed since Open for a reason
// other than the data (ErrConflict, ErrNotFound, ErrExists): a full disk,
// a lock held elsewhere, a damaged file. Zero means every write the store
// accepted is in the database.
func (s *SQLite) WriteFailures() int64 { return s.failures.Load() }

// Close finishes the writes already asked for, then closes the database.
// Writes asked for afterwards fail.
func (s *SQLite) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	if s.queue != nil {
		s.sending.Wait()
		close(s.queue)
		<-s.stopped
	}
	return s.closeDBs()
}

func (s *SQLite) closeDBs() error {
	var errs []error
	// The readers first: the last connection to close moves the WAL into
	// the database file and removes it, and a query_only one cannot.
	if s.r != nil {
		errs = append(errs, s.r.Close())
	}
	if s.stmts != nil {
		// A connection with statements open stays open after Close.
		errs = append(errs, s.stmts.close())
	}
	if s.wc != nil {
		errs = append(errs, s.wc.Close())
	}
	if s.w != nil {
		errs = append(errs, s.w.Close())
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("closing %s: %w", s.path, err)
	}
	return nil
}

func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// ValidID reports whether id has the form of the store's game and series
// IDs, 16 lowercase hexadecimal digits, so that callers can refuse any
// other at once.
func ValidID(id string) bool {
	if len(id) != 16 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

func now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

const timeFormat = "2006-01-02T15:04:05.000Z"

func parseTime(what, text string) (time.Time, error) {
	t, err := time.Parse(timeFormat, text)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: stored time %q: %w", what, text, err)
	}
	return t, nil
}

// CreateSeries starts a series to target wins and returns its ID.
func (s *SQLite) CreateSeries(ctx context.Context, target int) (string, error) {
	id := newID()
	err := s.write(ctx, "creating a series", func(t *wtx) error {
		return t.insertSeries(id, now(), target)
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// CreateSeriesGame starts a series to target wins with g as its first game,
// both or neither, and sets g.SeriesID, g.ID, g.Created and g.Updated.
func (s *SQLite) CreateSeriesGame(ctx context.Context, target int, g *Game) error {
	g.SeriesID = newID()
	prepareGame(g)
	return s.write(ctx, "creating a series", func(t *wtx) error {
		if err := t.insertSeries(g.SeriesID, g.Created, target); err != nil {
			return err
		}
		return t.insertGame(g)
	})
}

// CreateGame stores a new game with its moves and sets g.ID, g.Created and
// g.Updated. When g.ImportKey is set and a game with that key is stored
// already, it stores nothing, sets g.ID to that game's ID and returns an
// error wrapping ErrExists.
func (s *SQLite) CreateGame(ctx context.Context, g *Game) error {
	prepareGame(g)
	return s.write(ctx, "creating a game", func(t *wtx) error { return t.insertGame(g) })
}

func prepareGame(g *Game) {
	g.ID = newID()
	g.Created = now()
	g.Updated = g.Created
	if g.Result == "" {
		g.Result = "*"
	}
}

// AppendMove adds move number ply (counted from 0) to game id and sets its
// result. It returns ErrConflict unless the game has exactly ply moves.
func (s *SQLite) AppendMove(ctx context.Context, id string, ply int, m rules.Move, result string) error {
	updated := now()
	return s.write(ctx, "storing a move", func(t *wtx) error {
		if err := t.setMoves(id, ply, ply+1, result, updated); err != nil {
			return err
		}
		return t.insertMoves(id, ply, []rules.Move{m})
	})
}

// Truncate takes back the moves of game id from number ply on, for a game
// that has exactly had moves, and sets its result.
func (s *SQLite) Truncate(ctx context.Context, id string, had, ply int, result string) error {
	if ply < 0 || ply > had {
		return fmt.Errorf("taking back to move %d of a game of %d moves: out of range", ply, had)
	}
	updated := now()
	return s.write(ctx, "taking back moves", func(t *wtx) error {
		if err := t.setMoves(id, had, ply, result, updated); err != nil {
			return err
		}
		_, err := t.s.stmts.deleteMoves.ExecContext(t.ctx, id, ply)
		return err
	})
}

// read runs f in a read transaction, so that what it reads in several
// queries is one state of the database.
func (s *SQLite) read(ctx context.Context, f func(*sql.Tx) error) error {
	tx, err := s.r.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return f(tx)
}

// Game returns game id with its moves.
func (s *SQLite) Game(ctx context.Context, id string) (*Game, error) {
	var g *Game
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		g, err = s.game(ctx, tx, `id = ?`, id)
		return err
	})
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("game %s: %w", id, ErrNotFound)
		}
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	return g, nil
}

// GameByImportKey returns the game stored under import key key.
func (s *SQLite) GameByImportKey(ctx context.Context, key string) (*Game, error) {
	var g *Game
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		g, err = s.game(ctx, tx, s.keyCol+` = ?`, key)
		return err
	})
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("game with import key %q: %w", key, ErrNotFound)
		}
		return nil, fmt.Errorf("reading the game with import key %q: %w", key, err)
	}
	return g, nil
}

// game reads the game that where selects, with its moves.
func (s *SQLite) game(ctx context.Context, tx *sql.Tx, where string, arg any) (*Game, error) {
	g := &Game{}
	var created, updated, start, variant, side string
	var maxLaps, level, n int
	var series, key sql.NullString
	err := tx.QueryRowContext(ctx, `SELECT id, created, updated, south, north, start, variant, max_laps,
		computer_side, computer_level, series_id, result, moves, `+s.keyCol+` FROM games WHERE `+where, arg).Scan(
		&g.ID, &created, &updated, &g.South, &g.North, &start, &variant, &maxLaps, &side, &level, &series, &g.Result, &n, &key)
	if err != nil {
		return nil, err
	}
	what := "game " + g.ID
	if g.Created, err = parseTime(what, created); err != nil {
		return nil, err
	}
	if g.Updated, err = parseTime(what, updated); err != nil {
		return nil, err
	}
	g.SeriesID = series.String
	g.ImportKey = key.String
	if err := g.decode(start, variant, maxLaps, side, level); err != nil {
		return nil, err
	}
	rows, err := tx.QueryContext(ctx, `SELECT move FROM moves WHERE game_id = ? ORDER BY ply`, g.ID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	g.Moves = make([]rules.Move, 0, n)
	for rows.Next() {
		var text string
		if err := rows.Scan(&text); err != nil {
			return nil, err
		}
		m, err := rules.ParseMove(text)
		if err != nil {
			return nil, fmt.Errorf("%s: stored move %d: %w", what, len(g.Moves)+1, err)
		}
		g.Moves = append(g.Moves, m)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(g.Moves) != n {
		return nil, fmt.Errorf("%s: %d moves stored, %d counted", what, len(g.Moves), n)
	}
	if g.Online, err = s.readOnline(ctx, tx, g.ID); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return g, nil
}

// decode sets the game's start, rules and computer from their stored
// forms; both engines store them alike.
func (g *Game) decode(start, variant string, maxLaps int, side string, level int) error {
	what := "game " + g.ID
	var err error
	if g.Start, err = rules.ParsePosition(start); err != nil {
		return fmt.Errorf("%s: stored start: %w", what, err)
	}
	if g.Rules.Variant, err = rules.ParseVariant(variant); err != nil {
		return fmt.Errorf("%s: stored variant: %w", what, err)
	}
	g.Rules.MaxLaps = maxLaps
	g.Rules = g.Rules.Canonical()
	switch side {
	case "":
	case "s", "n":
		g.Computer = &Computer{Side: rules.South, Level: level}
		if side == "n" {
			g.Computer.Side = rules.North
		}
	default:
		return fmt.Errorf("%s: stored computer side %q", what, side)
	}
	return nil
}

// computerColumns returns the stored forms of g.Computer: its side's
// letter and its level, or "" and 0 for a game between two people.
func computerColumns(g *Game) (side string, level int) {
	if g.Computer == nil {
		return "", 0
	}
	return string(g.Computer.Side.Letter()), g.Computer.Level
}

// decode sets the summary's holes, side to move and variant from the
// game's stored start and variant.
func (sm *Summary) decode(start, variant string) error {
	what := "game " + sm.ID
	p, err := rules.ParsePosition(start)
	if err != nil {
		return fmt.Errorf("%s: stored start: %w", what, err)
	}
	sm.Holes = p.Holes()
	// Turns alternate: no move gives its player another.
	sm.ToMove = p.ToMove()
	if sm.Moves%2 == 1 {
		sm.ToMove = sm.ToMove.Opponent()
	}
	if sm.Variant, err = rules.ParseVariant(variant); err != nil {
		return fmt.Errorf("%s: stored variant: %w", what, err)
	}
	return nil
}

// GameIDs returns the IDs of every stored game, oldest first.
func (s *SQLite) GameIDs(ctx context.Context) ([]string, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT id FROM games ORDER BY rowid`)
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing games: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	return ids, nil
}

// summaryColumns are the columns scanSummaries reads from games.
func (s *SQLite) summaryColumns() string {
	end := `NULL`
	if s.version >= 3 {
		end = `(SELECT end_reason FROM online WHERE online.game_id = games.id)`
	}
	return `id, created, updated, south, north, start, variant, moves, result, series_id, ` + end
}

func scanSummaries(rows *sql.Rows) ([]Summary, error) {
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var sm Summary
		var created, updated, start, variant string
		var series, end sql.NullString
		if err := rows.Scan(&sm.ID, &created, &updated, &sm.South, &sm.North, &start, &variant, &sm.Moves,
			&sm.Result, &series, &end); err != nil {
			return nil, err
		}
		sm.Online, sm.End = end.Valid, end.String
		what := "game " + sm.ID
		var err error
		if sm.Created, err = parseTime(what, created); err != nil {
			return nil, err
		}
		if sm.Updated, err = parseTime(what, updated); err != nil {
			return nil, err
		}
		sm.SeriesID = series.String
		if err := sm.decode(start, variant); err != nil {
			return nil, err
		}
		out = append(out, sm)
	}
	return out, rows.Err()
}

// Games lists games, the most recently played first.
func (s *SQLite) Games(ctx context.Context, limit, offset int) ([]Summary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+s.summaryColumns()+` FROM games
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
func (s *SQLite) Series(ctx context.Context, id string) (*Series, error) {
	sr := &Series{ID: id}
	err := s.read(ctx, func(tx *sql.Tx) error {
		var created string
		err := tx.QueryRowContext(ctx, `SELECT created, target FROM series WHERE id = ?`, id).Scan(&created, &sr.Target)
		if err != nil {
			return err
		}
		if sr.Created, err = parseTime("series "+id, created); err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+s.summaryColumns()+` FROM games WHERE series_id = ?
			ORDER BY rowid`, id)
		if err != nil {
			return err
		}
		sr.Games, err = scanSummaries(rows)
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("series %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	return sr, nil
}
