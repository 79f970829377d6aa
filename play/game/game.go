// Package game holds the values of a game being played, as package play
// makes them and a store keeps them: a game's players, rules and moves,
// its online state (seats, clock, offers, how it ended), its series, the
// change that a store makes of it in one transaction, and its players as
// the ratings see them. It depends on the rules and the ratings' values
// only, so that play builds wherever the rules do, the browser's
// WebAssembly included.
package game

import (
	"errors"
	"time"

	"github.com/endodoi/endodoi/rating"
	"github.com/endodoi/endodoi/rules"
)

// Errors of a store, which play tells apart; test for them with
// errors.Is.
var (
	ErrNotFound = errors.New("not found")
	// ErrConflict: the game has changed since the caller read it (another
	// move or a takeback came first).
	ErrConflict = errors.New("the game has changed meanwhile")
	// ErrExists: a game with the same import key is already stored.
	ErrExists = errors.New("already stored")
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
	// Rated says that the game counts for its players' ratings: asked
	// for when it is made, kept at its end only if the ratings then count
	// it (Change.Rate).
	Rated bool
	// Category is an online game's rating category ("8-blitz"), named
	// when the game is made; "" for the others.
	Category string
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

// Series is a series: its target and its games, oldest first.
type Series struct {
	ID      string
	Created time.Time
	Target  int
	Games   []Summary
}

// Online is the state of a game played on two devices, beside its moves:
// who holds its seats, its clocks, its open offers and how it ended. A
// store keeps it as given; package play decides what it means.
type Online struct {
	Invite string    // the code that seats the second player
	Seats  [2]string // by rules.Side: the SHA-256 of the seat's token, in hex; "" while the seat is free
	Clock  Clock
	// Left is each side's time when the running clock started (at
	// TurnStart), or now when no clock runs.
	Left      [2]time.Duration
	TurnStart time.Time // when the running clock started; zero when none runs
	// End is how the game ended when not by the rules of play ("resign",
	// "timeout", "agreed", "aborted", "expired"), or "".
	End string
	// The side with an open offer ("s" or "n"), or "".
	DrawOffer, TakebackOffer, RematchOffer string
	Next                                   string // the next game of the series or the rematch
	// Rev counts the changes of the game, moves included; the store sets
	// it (1 for a new game, one more at each Update).
	Rev int64
}

// Clock is a time control: Time for the whole game with Increment added
// after each move, or Time for each move when PerMove; no clock when Time
// is zero.
type Clock struct {
	Time, Increment time.Duration
	PerMove         bool
}

// Change is a change of a stored game, made only if the game is still as
// the caller saw it: Ply moves and, for an online game, revision Rev.
type Change struct {
	Ply int   // the moves the caller saw
	Rev int64 // the revision the caller saw (online games)
	// Moves replace the game's moves from From on: a move appended is
	// From = Ply with one move, a takeback From < Ply with none.
	From   int
	Moves  []rules.Move
	Result string
	// South and North, when not nil, are the players' new names.
	South, North *string
	// Online, for an online game, is its new state; its Rev is set to
	// Rev+1.
	Online *Online
	// ClocksOnly says that Online differs from the state stored only in
	// the time left, the turn's start and the draw and takeback offers, as
	// after a move: a store may write those alone.
	ClocksOnly bool
	// Next, when not nil, is the game that follows this one (a rematch,
	// the next game of a series), stored in the same transaction as the
	// change or not at all, so that of two racing requests for it only
	// one leaves a  Update sets its ID, Created and Updated, and
	// Online.Next to its ID; Online must be set.
	Next *Game
	// Notice, when not "", is told to the instances listening on a
	// shared store (Notifier) by the change's own transaction: they hear
	// of the change if and only if it is committed. Other stores ignore
	// it.
	Notice string
	// At, when not zero, is when the change happened, for the game's
	// updated time: a flag falls at its deadline, however late the
	// server records it. Zero means now.
	At time.Time
	// Rate, when not nil, is the ratings' step of a change that ends a
	// game made rated: the store calls it in the change's transaction,
	// after the change, and it reads, locks and writes the players'
	// ratings through the RatingTx it is given, with the change or not at
	// all. A store that keeps no ratings ignores it.
	Rate func(RatingTx) error
}

// Rating is a player's rating in one category (package rating's value).
type Rating = rating.Rating

// RatingTx is what the ratings read and write of a store in the
// transaction of the change that ends a game made rated (Change.Rate):
// the rows it names, nothing of how the game ended.
type RatingTx interface {
	// Seats says whether the game is stored as rated and has not been
	// rated yet, and returns the accounts that hold its seats, by side
	// (nil for a seat no account, or a deleted one, holds).
	Seats() (pending bool, seats [2]*SeatAccount, err error)
	// Advantage returns the first mover's advantage stored for category,
	// 0 if none.
	Advantage(category string) (float64, error)
	// RatedBetween counts the rated games of category between accounts a
	// and b that ended at or after since.
	RatedBetween(category, a, b string, since time.Time) (int, error)
	// LockRatings returns the ratings in category of the accounts ids (by
	// side), initial for one that has none there, and keeps them from
	// changing until the transaction ends.
	LockRatings(category string, ids [2]string, initial Rating) ([2]Rating, error)
	// Unrate stores the game as casual.
	Unrate() error
	// SaveRatings stores the game's change of each player's rating, by
	// side: the rating after (changes[side].After, whose At is when it
	// was brought up to date), when it turns provisional, and the change
	// itself for the history. A second change of one game's ratings is
	// ErrConflict.
	SaveRatings(changes [2]RatingChange, provisionalFrom [2]time.Time) error
}

// RatingChange is the change of one player's rating by one rated game.
type RatingChange struct {
	GameID, AccountID, Category string
	Side                        rules.Side
	MovedFirst                  bool
	Score                       float64 // 1, 0.5 or 0
	Advantage                   float64 // the first mover's advantage used
	At                          time.Time
	// Before is the rating before the game, its deviation grown by the
	// player's absence up to the game; After the rating after it.
	Before, After Rating
}

// DeletedPlayer is the name of the player of a deleted account in its
// games.
const DeletedPlayer = "deleted player"

// SeatAccount is the account that holds a seat.
type SeatAccount struct {
	ID, Name string // Name is "" once deleted
	Bot      bool
	Status   string
}

// GameSeat is a seat of a game as the ratings see it.
type GameSeat struct {
	Account *SeatAccount  // nil when no account holds the seat
	Rating  *Rating       // the account's rating in the game's category now; nil if none
	Games   int           // the rated games of that rating
	Change  *RatingChange // the game's change of the rating, once rated and ended
}

// GameRatings are a game's players as the ratings see them.
type GameRatings struct {
	Rated    bool
	Category string
	Seats    [2]GameSeat // by rules.Side
}

// Review is the stored review of a finished game: the engine's grading of
// its moves, kept as package analysis made it so that it is computed once.
type Review struct {
	GameID string
	// Key says what the review was made from (a digest of the game's
	// moves and of the search budget): a review whose key no longer
	// matches the game is stale, and is made again.
	Key     string
	Created time.Time
	Data    []byte // the review as the API serves it (JSON); the store does not read it
}
