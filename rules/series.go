package rules

import "fmt"

// Series keeps the tally of a series of games (ol alai): the players play
// until one has won Target games; draws count for neither, and the first
// player alternates from game to game, South first. Players keep their rows
// throughout, so a game's winning side is a player.
type Series struct {
	target  int
	results []Result
	wins    [2]int
}

// DefaultSeriesTarget is the default number of wins that takes a series.
const DefaultSeriesTarget = 3

// MaxSeriesTarget is the largest accepted series target.
const MaxSeriesTarget = 99

// NewSeries starts a series to target wins (1 to MaxSeriesTarget).
func NewSeries(target int) (*Series, error) {
	if target < 1 || target > MaxSeriesTarget {
		return nil, fmt.Errorf("series target %d out of range (1 to %d)", target, MaxSeriesTarget)
	}
	return &Series{target: target}, nil
}

// Target returns the number of wins that takes the series.
func (s *Series) Target() int { return s.target }

// NextFirst returns the side that moves first in the next game.
func (s *Series) NextFirst() Side { return Side(len(s.results) & 1) }

// Record adds a finished game's result to the tally.
func (s *Series) Record(r Result) error {
	if s.Over() {
		return fmt.Errorf("the series is over: %s has won %d games", s.leader(), s.target)
	}
	if r < SouthWins || r > Draw {
		return fmt.Errorf("cannot record a %s game in a series", r)
	}
	s.results = append(s.results, r)
	if w, ok := r.Winner(); ok {
		s.wins[w]++
	}
	return nil
}

// Games returns the results of the games played so far.
func (s *Series) Games() []Result { return append([]Result(nil), s.results...) }

// Wins returns the games side has won: its ol alai tally.
func (s *Series) Wins(side Side) int { return s.wins[side&1] }

// Draws returns the number of drawn games.
func (s *Series) Draws() int { return len(s.results) - s.wins[0] - s.wins[1] }

// Over reports whether a player has reached the target.
func (s *Series) Over() bool { return s.wins[0] >= s.target || s.wins[1] >= s.target }

// Winner returns the player who won the series, and false while it goes on.
func (s *Series) Winner() (Side, bool) {
	if !s.Over() {
		return South, false
	}
	return s.leader(), true
}

func (s *Series) leader() Side {
	if s.wins[North] > s.wins[South] {
		return North
	}
	return South
}
