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
// The store is written once for both engines: the steps of every change
// in tx.go, games and series in games.go, online play in online.go,
// reviews in review.go, copies in copy.go and both schemas in schema.go,
// with the few pieces of SQL that differ in dialect.go. What each engine
// does its own way is in sqlite.go and writer.go (its one writer), and in
// postgres.go and notify.go (retries, notices to the other instances).
//
// The store keeps what was played, not whether it was legal: callers replay
// a game with package rules before they append a move.
package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Store is an open database of games, in SQLite (*SQLite) or PostgreSQL
// (*Postgres). Its methods are safe for concurrent use. A write returns
// nil only once it is committed; a write that fails for a reason of the
// storage rather than of the data returns an error wrapping ErrUnsaved (or
// ErrBusy) and writes nothing.
type Store interface {
	// CreateGame stores a new game with its moves and sets g.ID, g.Created
	// and g.Updated unless given (an imported game's), and g.Online.Rev.
	// When g.ImportKey is set and a game with that key is stored already,
	// it stores nothing, sets g.ID to that game's ID and returns an error
	// wrapping ErrExists. A g.SeriesID of no stored series is ErrNotFound.
	CreateGame(ctx context.Context, g *game.Game) error
	// CreateSeries starts a series to target wins and returns its ID.
	CreateSeries(ctx context.Context, target int) (string, error)
	// CreateSeriesGame starts a series to target wins with g as its first
	// game, both or neither, and sets g.SeriesID as well as what
	// CreateGame sets.
	CreateSeriesGame(ctx context.Context, target int, g *game.Game) error
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
	Update(ctx context.Context, id string, c game.Change) error
	// ResumeClocks restarts the running clocks of a server that was last
	// alive at alive and runs again at now, and returns how many.
	ResumeClocks(ctx context.Context, alive, now time.Time) (int, error)
	// SetAlive records that the server was running at t.
	SetAlive(ctx context.Context, t time.Time) error

	// Game returns game id with its moves (ErrNotFound if none).
	Game(ctx context.Context, id string) (*game.Game, error)
	// GameByImportKey returns the game stored under import key key.
	GameByImportKey(ctx context.Context, key string) (*game.Game, error)
	// GameByInvite returns the online game whose invite code is code.
	GameByInvite(ctx context.Context, code string) (*game.Game, error)
	// Games lists games, the most recently changed first.
	Games(ctx context.Context, limit, offset int) ([]game.Summary, error)
	// GamesByID returns the summaries of the games ids names that exist,
	// in the order given.
	GamesByID(ctx context.Context, ids []string) ([]game.Summary, error)
	// GameIDs returns the IDs of every stored game, oldest first.
	GameIDs(ctx context.Context) ([]string, error)
	// OnlineGames lists the online games in progress, the most recently
	// changed first.
	OnlineGames(ctx context.Context, limit int) ([]game.Summary, error)
	// OpenOnlineGames returns the IDs of the online games in progress
	// last changed before idle (all of them for a zero idle), the oldest
	// change first.
	OpenOnlineGames(ctx context.Context, idle time.Time) ([]string, error)
	// Series returns series id with its games, oldest first.
	Series(ctx context.Context, id string) (*game.Series, error)
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

	// The accounts (accounts.go).
	Accounts
	// The ratings (ratings.go).
	Ratings
	// The lobby: seeks, pools, challenges, blocks, reports (lobby.go).
	Lobby

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

// decode sets the game's start, rules and computer from their stored
// forms; both engines store them alike.
func decodeGame(g *game.Game, start, variant string, maxLaps int, side string, level int) error {
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
		g.Computer = &game.Computer{Side: rules.South, Level: level}
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
func computerColumns(g *game.Game) (side string, level int) {
	if g.Computer == nil {
		return "", 0
	}
	return string(g.Computer.Side.Letter()), g.Computer.Level
}

// decode sets the summary's holes, side to move and variant from the
// game's stored start and variant.
func decodeSummary(sm *game.Summary, start, variant string) error {
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
