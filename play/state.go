package play

import (
	"context"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// State is a game as it stands at one moment: all that is shown of it,
// worked out here, so that whoever shows it (an answer, a live message)
// reads plain values and asks neither the game nor the store again. Every
// change carries the state it left (Change.State); Table.State gives it
// for a game that has not changed.
type State struct {
	// Info is the game's players, rules, times and online state, as
	// stored; its Moves are nil (see Board).
	Info game.Game
	// Board is the game's moves and positions under its rules: the game's
	// own, shared, and to be read only while the game's lock is held.
	Board *rules.Game
	// Status is as Game.Status says, Result as Game.Result, End as
	// Game.End.
	Status, Result, End string
	// Sowings are how the latest moves sowed, within the table's lap
	// budget (Table.ViewLaps): Sowings[k] is move SowingsFrom+k+1's.
	// They are the game's own, shared (not copied at each change) and
	// never changed after: to be read, not written.
	Sowings     []rules.Sowing
	SowingsFrom int
	// Clocks are each side's time left when the state was taken, for an
	// online game; Running is the side whose clock runs, when Runs.
	Clocks  [2]time.Duration
	Running rules.Side
	Runs    bool
	// Series is the series the game belongs to as read after the change,
	// and Tally its score; nil for a single game.
	Series *game.Series
	Tally  Tally
	// Ratings are an online game's players as the ratings see them
	// (ratings.go); nil for the others.
	Ratings *game.GameRatings
}

// State returns game g as it stands now, with its series read from the
// store.
func (t *Table) State(ctx context.Context, g *Game) (State, error) {
	st := g.state(t.now(), t.ViewLaps)
	if err := t.readSeries(ctx, &st); err != nil {
		return State{}, err
	}
	if err := t.readRatings(ctx, &st); err != nil {
		return State{}, err
	}
	return st, nil
}

// state is game g as it stands at now, its sowings within a budget of
// laps (0: all of them), without its series.
func (g *Game) state(now time.Time, laps int) State {
	if laps <= 0 {
		laps = int(^uint(0) >> 1)
	}
	st := State{Info: g.info, Board: g.board, Status: g.Status(), Result: g.Result(), End: g.End()}
	st.Sowings, st.SowingsFrom = g.Sowings(laps)
	st.Clocks, st.Running, st.Runs = g.Clocks(now)
	return st
}

// readSeries adds the series of the game of st, if it belongs to one.
func (t *Table) readSeries(ctx context.Context, st *State) error {
	id := st.Info.SeriesID
	if id == "" {
		return nil
	}
	sr, err := t.store.Series(ctx, id)
	if err != nil {
		return fmt.Errorf("game %s: %w", st.Info.ID, err)
	}
	st.Series, st.Tally = sr, TallyOf(sr)
	return nil
}
