// Package standing holds the players' standing as package players reads
// it and a store keeps it: each account's rating in each category, its
// record by side, the places of a leaderboard, a player's games, and the
// first mover's advantage fitted in each category.
package standing

import (
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// PlayerRating is an account's rating in one category.
type PlayerRating struct {
	Category string
	game.Rating
	Games int // the rated games it played there
}

// BoardEntry is a place on a leaderboard.
type BoardEntry struct {
	AccountID, Name string
	Bot             bool
	game.Rating
	Games int
}

// Record is a player's wins, draws and losses.
type Record struct{ Wins, Draws, Losses int }

// Advantage is the first mover's advantage fitted in a category, in
// rating points, with its standard error and the games it was fitted
// from, and when.
type Advantage struct {
	Advantage, StdErr float64
	Games             int
	Updated           time.Time
}

// SidedGame is a rated game as the first mover's advantage is fitted
// from it: both players' ratings before it, the first mover's first, and
// the first mover's score.
type SidedGame struct {
	First, Second game.Rating
	Score         float64
}

// PlayerGamesFilter selects the games of a player.
type PlayerGamesFilter struct {
	Result     string // "win", "draw", "loss", or "" for any, finished or not
	Side       string // "s", "n" or ""
	Category   string // or ""
	OpponentID string // an account, or ""
	// Before, when not zero, lists only the games made before it: the
	// cursor of the page after the one that ended with that game.
	Before GameCursor
	Limit  int
}

// GameCursor is the place of a game in a player's list: when it was made
// and its ID.
type GameCursor struct {
	Created time.Time
	ID      string
}

// PlayerGame is a game of a player.
type PlayerGame struct {
	game.Summary
	Side     rules.Side // the player's
	Rated    bool
	Category string
	// Opponent is the account holding the other seat, nil when none does
	// (Summary gives the name then); OpponentRating its rating before the
	// game when it was rated, else in the category now, nil if none.
	Opponent       *game.SeatAccount
	OpponentRating *game.Rating
	// Change is the game's change of the player's rating, when rated.
	Change *game.RatingChange
}
