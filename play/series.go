package play

import (
	"context"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// Tally is the score of a series (ol alai): each side's wins and the draws.
type Tally struct {
	Wins  [2]int // by side
	Draws int
	// Over is true once a side has won the series' target of games; Winner
	// is that side.
	Over   bool
	Winner rules.Side
}

// TallyOf counts the results of series sr's games.
func TallyOf(sr *game.Series) Tally {
	var t Tally
	for _, g := range sr.Games {
		// A token the store should not hold counts for no one, as an
		// unfinished game.
		res, _ := rules.ParseResult(g.Result)
		switch res {
		case rules.SouthWins:
			t.Wins[rules.South]++
		case rules.NorthWins:
			t.Wins[rules.North]++
		case rules.Draw:
			t.Draws++
		}
	}
	switch {
	case t.Wins[rules.South] >= sr.Target:
		t.Over, t.Winner = true, rules.South
	case t.Wins[rules.North] >= sr.Target:
		t.Over, t.Winner = true, rules.North
	}
	return t
}

// NextGame starts and stores the next game of series id, played on one
// device: the same board, rules, players and computer, with the other
// player moving first. The requests on one series are run one at a time.
func (t *Table) NextGame(ctx context.Context, id string) (*Game, error) {
	defer t.locks.lock("series " + id)()
	sg, err := t.next(ctx, id, false)
	if err != nil {
		return nil, err
	}
	g, _, err := t.Create(ctx, sg, nil, 0)
	return g, err
}

// next returns the next game of series id, not yet stored. The next game
// of an online series is started by a seat (rematch), not by NextGame.
func (t *Table) next(ctx context.Context, id string, online bool) (*game.Game, error) {
	sr, err := t.store.Series(ctx, id)
	if err != nil {
		return nil, err
	}
	if tally := TallyOf(sr); tally.Over {
		return nil, errorf(ErrNotNow, "the series is over: %s won it", tally.Winner)
	}
	if len(sr.Games) == 0 {
		return nil, errorf(ErrNotNow, "the series has no game")
	}
	if last := sr.Games[len(sr.Games)-1]; last.Online && !online {
		return nil, errorf(ErrNotNow, "an online series goes on when a player asks for the next game (the rematch action)")
	} else if last.Result == "*" && last.End == "" {
		return nil, errorf(ErrNotNow, "game %d of the series is not finished", len(sr.Games))
	}
	first, err := t.store.Game(ctx, sr.Games[0].ID)
	if err != nil {
		return nil, err
	}
	last, err := t.store.Game(ctx, sr.Games[len(sr.Games)-1].ID)
	if err != nil {
		return nil, err
	}
	// The first player alternates from the first game's, draws included.
	starter := first.Start.ToMove()
	if len(sr.Games)%2 == 1 {
		starter = starter.Opponent()
	}
	return &game.Game{South: last.South, North: last.North, Start: first.Start.WithToMove(starter),
		Rules: last.Rules, Computer: last.Computer, SeriesID: id, Result: "*"}, nil
}
