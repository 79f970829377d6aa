// Package ratings applies the players' ratings when a rated game ends:
// which games count, how much a game between the same two players counts
// (the farming policy), and the new ratings by Glicko-2 with the first
// mover's advantage (package rating). The change that ends a game carries
// the step this package makes of it (End.Step), and the store runs that
// step in the change's own transaction: the store only locks, reads and
// writes the rows the step names.
//
// The package also names a game's rating category, once, when the game
// is made. It speaks no HTTP and keeps nothing. docs/ratings.md gives the
// system and the policy.
package ratings

import (
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rating"
	"github.com/endodoi/endodoi/rules"
)

// params are the rating system's parameters.
var params = rating.DefaultParams()

// Params returns the parameters the site rates games with.
func Params() rating.Params { return params }

// Category is the rating category of a game on holes holes a row with
// clock c ("8-blitz").
func Category(holes int, c game.Clock) string {
	return rating.CategoryOf(holes, c.Time, c.Increment, c.PerMove).String()
}

// The farming policy: of the rated games of one category between the
// same two accounts that end within FarmWindow, the first FullGames count
// fully, each of the next HalvedGames half as much as the one before,
// and the others not at all (they end casual).
const (
	FarmWindow  = 24 * time.Hour
	FullGames   = 3
	HalvedGames = 3
)

// Weight is how much the n-th rated game of a category between the same
// two accounts within FarmWindow counts (n from 1): 1 for the first
// FullGames, then ½, ¼, ⅛; 0 for a game that is not to be rated.
func Weight(n int) float64 {
	switch {
	case n <= FullGames:
		return 1
	case n <= FullGames+HalvedGames:
		return 1 / float64(int(1)<<(n-FullGames))
	}
	return 0
}

// End is a game that has just ended, as the ratings see it.
type End struct {
	Category string
	// First is the side that moved first.
	First rules.Side
	// Result is the game's result token: "1-0", "0-1", "1/2-1/2", or
	// "*" for an abort.
	Result string
	// Aborted says the game was aborted: it is never rated.
	Aborted bool
	// Moved says whether each side (by rules.Side) has made a move: a
	// game one side never moved in is not rated.
	Moved [2]bool
	// At is when the game ended.
	At time.Time
}

// southScores are South's score of each decided result.
var southScores = map[string]float64{"1-0": 1, "0-1": 0, "1/2-1/2": 0.5}

// Step returns the ratings' step of the change that ends the game as e
// says (game.Change.Rate). Run in the change's transaction, it rates the
// game once, as the farming policy weighs it, when both seats are held
// by two different accounts and both sides have moved; otherwise it
// stores the game as casual. A game already rated, or not made rated,
// is left alone.
func (e End) Step() func(game.RatingTx) error {
	return func(tx game.RatingTx) error {
		pending, seats, err := tx.Seats()
		if err != nil || !pending {
			return err
		}
		southScore, decided := southScores[e.Result]
		if e.Aborted || !decided || !e.Moved[rules.South] || !e.Moved[rules.North] ||
			seats[rules.South] == nil || seats[rules.North] == nil || seats[rules.South].ID == seats[rules.North].ID {
			return tx.Unrate()
		}
		if _, err := rating.ParseCategory(e.Category); err != nil {
			return tx.Unrate()
		}
		ids := [2]string{seats[rules.South].ID, seats[rules.North].ID}
		played, err := tx.RatedBetween(e.Category, ids[0], ids[1], e.At.Add(-FarmWindow))
		if err != nil {
			return err
		}
		weight := Weight(played + 1)
		if weight == 0 {
			return tx.Unrate()
		}
		advantage, err := tx.Advantage(e.Category)
		if err != nil {
			return err
		}
		initial := params.Initial()
		initial.At = e.At // a new player's clock starts at their first rated game
		before, err := tx.LockRatings(e.Category, ids, initial)
		if err != nil {
			return err
		}
		changes, err := e.changes(before, southScore, advantage, weight)
		if err != nil {
			// Stored ratings always rate; were they not to, the game ends
			// unrated rather than not at all.
			return tx.Unrate()
		}
		for side := range changes {
			changes[side].AccountID = ids[side]
		}
		var provisionalFrom [2]time.Time
		for side := range changes {
			provisionalFrom[side] = params.ProvisionalFrom(changes[side].After)
		}
		return tx.SaveRatings(changes, provisionalFrom)
	}
}

// changes computes both players' changes, by side, from their ratings
// before the game.
func (e End) changes(before [2]game.Rating, southScore, advantage, weight float64) ([2]game.RatingChange, error) {
	var out [2]game.RatingChange
	first := e.First
	firstScore := southScore
	if first == rules.North {
		firstScore = 1 - southScore
	}
	// A flag falls at its deadline, which may be before a player's last
	// rated game was recorded: no rating goes back in time.
	when := e.At
	for _, r := range before {
		if r.At.After(when) {
			when = r.At
		}
	}
	nf, ns, err := params.RateWeighted(before[first], before[first.Opponent()], firstScore, advantage, weight, when)
	if err != nil {
		return out, fmt.Errorf("rating a game: %w", err)
	}
	var after [2]game.Rating
	after[first], after[first.Opponent()] = nf, ns
	for _, side := range []rules.Side{rules.South, rules.North} {
		score := southScore
		if side == rules.North {
			score = 1 - southScore
		}
		b := before[side]
		b.Deviation = params.Current(b, when).Deviation
		out[side] = game.RatingChange{Category: e.Category, Side: side, MovedFirst: side == first, Score: score,
			Advantage: advantage, At: e.At, Before: b, After: after[side]}
	}
	return out, nil
}
