// Package seek holds the lobby's values as package lobby makes them and a
// store keeps them: the open seeks and the places in the quick-pairing
// pools, the challenges to a named player, the players they name, the
// pairing that turns them into a game, and the reports of games. It
// depends on the game's values only, so that a store keeps the lobby's
// rows without knowing its rules.
package seek

import (
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Errors of a store's lobby, which package lobby tells apart; test for
// them with errors.Is. The store's own (no such row, a conflict, a row
// that exists) are play's: game.ErrNotFound, game.ErrConflict,
// game.ErrExists.
var (
	// ErrLimit is the answer of a change that would take an account past
	// one of the limits its caller set (open seeks, pending challenges,
	// blocks). It is an answer about the data: it wraps ErrConflict.
	ErrLimit = fmt.Errorf("limit reached: %w", game.ErrConflict)
	// ErrBlocked: one of two players blocks the other. It wraps
	// ErrConflict.
	ErrBlocked = fmt.Errorf("one of the players blocks the other: %w", game.ErrConflict)
)

// Player is an account as the lobby shows it.
type Player struct {
	ID, Name string
	Bot      bool
}

// Seek is an open seek, or a place in a quick-pairing pool (Pool != "").
type Seek struct {
	ID        string
	Owner     Player // Owner.ID is set by the caller; the reads fill the rest
	Pool      string
	Holes     int
	Seeds     int
	Variant   rules.Variant
	Clock     game.Clock
	Rated     bool
	MinRating int // 0: no bound
	MaxRating int
	Created   time.Time
	Seen      time.Time // when its owner last held a lobby connection
}

// Challenge is a challenge to a named player.
type Challenge struct {
	ID       string
	From, To Player // their IDs are set by the caller; the reads fill the rest
	Holes    int
	Seeds    int
	Variant  rules.Variant
	Clock    game.Clock
	Rated    bool
	Side     string // the challenger's: "s", "n" or "random"
	Created  time.Time
	Expires  time.Time
}

// ChallengeLimits bound the challenges waiting for an answer: Incoming
// for one player's (counting only those of active accounts, which the
// player sees and may answer), Outgoing for one challenger's, and ToOne
// for one challenger's to one player.
type ChallengeLimits struct {
	Incoming, Outgoing, ToOne int
}

// Pairing is a game made in the lobby: the game, its seats' owners, and
// what it takes away, all stored in one transaction or none. Of two
// pairings that take the same seek, place or challenge, one is stored and
// the other is ErrConflict.
type Pairing struct {
	Game   *game.Game // an online game whose two seats are set
	Owners [2]string  // the accounts of the seats, by rules.Side
	// Seeks are the seeks and pool places taken; Challenge the challenge
	// accepted, or "".
	Seeks     []string
	Challenge string
	// Notice is told to the instances sharing the store at commit.
	Notice string
}

// Report is a player's report of a game.
type Report struct {
	ID      string
	GameID  string
	By      Player // By.ID is set by the caller
	Reason  string
	Text    string
	Created time.Time
}

// Present is a player listed in the lobby: a bot, or a person who holds
// a lobby connection now.
type Present struct {
	Player
	Online bool // holds a lobby connection now (a bot may not)
}

// Withdrawn is what an account had open in the lobby and a withdrawal
// removed: its seeks and pool places, and the challenges it sent or was
// sent.
type Withdrawn struct {
	Seeks      []Seek
	Challenges []Challenge
}
