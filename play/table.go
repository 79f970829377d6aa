package play

import (
	"context"
	"errors"
	"time"

	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// Store is what play needs of the place its games are kept: each game,
// its series and the owners of its seats, read; new games and each change
// of a game, stored in one transaction each. A write returns nil only once
// it is kept, and errors.Is tells game.ErrNotFound, game.ErrConflict and
// game.ErrExists apart. Package store keeps games in SQLite or PostgreSQL;
// package play/memory keeps them in memory, for the browser and for tests.
type Store interface {
	// CreateGame stores a new game with its moves and sets g.ID,
	// g.Created and g.Updated (and g.Online.Rev). When g.ImportKey is
	// set and a game with that key is stored already, it stores nothing,
	// sets g.ID to that game's ID and returns an error wrapping
	// game.ErrExists.
	CreateGame(ctx context.Context, g *game.Game) error
	// CreateSeriesGame starts a series to target wins with g as its first
	// game, both or neither, and sets g.SeriesID as well as what
	// CreateGame sets.
	CreateSeriesGame(ctx context.Context, target int, g *game.Game) error
	// Update changes game id as c says, or returns game.ErrConflict if
	// the game has changed since the caller read it (game.ErrNotFound if
	// there is none).
	Update(ctx context.Context, id string, c game.Change) error
	// Game returns game id with its moves.
	Game(ctx context.Context, id string) (*game.Game, error)
	// Series returns series id with its games, oldest first.
	Series(ctx context.Context, id string) (*game.Series, error)
	// SeatExists reports whether some online game has a seat whose token
	// hashes to hash.
	SeatExists(ctx context.Context, hash string) (bool, error)
	// SeatOwners returns the active accounts that own the seats given
	// (token hashes), by seat; seats without an owner, or whose owner is
	// disabled or deleted, are left out: such an account acts on none.
	SeatOwners(ctx context.Context, seats []string) (map[string]string, error)
	// GameRatings returns who holds the seats of online game id, with
	// their ratings in its category and the game's change of them.
	GameRatings(ctx context.Context, id string) (*game.GameRatings, error)
}

// Table is where games are played: it loads them from the store, and
// makes, stores and tells each change of them. The changes of one game
// are made one at a time, under the game's lock (With).
type Table struct {
	store Store
	locks locks
	// notice, when not nil, is the notice a change sends to the other
	// instances sharing the store, through the change's own transaction.
	notice func(Notice) string
	// OnChange, when not nil, is told of every change once it is stored,
	// with the game as it is then, before the call that made it returns:
	// of a move, and of a flag that fell while a request was on its way.
	OnChange func(ctx context.Context, g *Game, c Change)
	// ViewLaps bounds the laps of the sowings a State lists (0: no bound):
	// nothing but the repetition rule bounds a game's length.
	ViewLaps int
	// Clock tells the time of every change and of the clocks' reading:
	// clock.Real unless a test moves it by hand.
	Clock clock.Clock
	// KeepMost and KeepIdle bound the games kept in memory (memory.go):
	// 0 for DefaultKeepMost and DefaultKeepIdle; a negative KeepMost keeps
	// none.
	KeepMost int
	KeepIdle time.Duration
	// memory keeps the games served lately (memory.go).
	memory gameMemory
	// ratings keeps the players of the games shown lately (ratings.go).
	ratings ratingsCache
}

// NewTable returns a table over st; notice, if not nil, writes the notice
// of each change for the other instances.
func NewTable(st Store, notice func(Notice) string) *Table {
	return &Table{store: st, notice: notice, Clock: clock.Real}
}

// now is the time of a change: the table's clock's, to the millisecond,
// as the store keeps times, so that a game kept in memory is the one
// stored.
func (t *Table) now() time.Time { return t.Clock.Now().UTC().Truncate(time.Millisecond) }

// Notice is what the other instances are told of a change of a game.
type Notice struct {
	Game  string
	Event string
	// Move is a move's, in notation, with Ply the moves played after it
	// and At when it was played: enough for another instance to play it
	// on the game it keeps (Heard). Empty for other changes.
	Move string
	Ply  int
	At   time.Time
	// Rev is the online game's revision after the change; 0 for a game
	// played on one device.
	Rev int64
	// Deadline is when the running clock falls after the change; zero
	// when none runs.
	Deadline time.Time
	// Board is the game's board after the change while it is an online
	// game not ended otherwise than by the rules; nil otherwise.
	Board *rules.Game
}

// Change is a change made to a game: what its watchers are told, and
// what the one who made it is answered.
type Change struct {
	// Event names the change: "move", "takeback", "join", "resign",
	// "timeout", "rematch" and the other actions (docs/api.md).
	Event string
	// Sowing is how the move sowed, for a move.
	Sowing *rules.Sowing
	// State is the game as the change left it, taken once the change was
	// stored: its clocks read then, its series read after it.
	State State
}

// deadline is when the running clock of online state o falls in game b,
// or zero: what a change's notice tells the other instances' timers.
func deadline(o *game.Online, b *rules.Game) time.Time {
	if o == nil || o.TurnStart.IsZero() || o.Clock.Time == 0 || o.End != "" || b.Over() {
		return time.Time{}
	}
	return o.TurnStart.Add(o.Left[b.Position().ToMove()])
}

// edit is a change to store: the game's board is brought up to date
// already; the rest is here.
type edit struct {
	event        string
	had          int // the moves before the change
	from         int // the moves kept; moves follow them
	moves        []rules.Move
	result       string
	online       *game.Online // the new online state; nil for a game on one device
	south, north *string      // new names, when not nil
	next         *game.Game   // the game that follows, stored with the change
	at           time.Time    // when the change happened; zero for now
	sowing       *rules.Sowing
	// clocksOnly: online differs from the game's online state only in
	// what a move changes (game.Change.ClocksOnly).
	clocksOnly bool
}

// commit stores edit e of game g, sets the rest of g's state to what was
// stored, and tells OnChange of the change, with the state it left.
func (t *Table) commit(ctx context.Context, g *Game, e edit) (Change, error) {
	ch := game.Change{Ply: e.had, From: e.from, Moves: e.moves, Result: e.result, Online: e.online,
		ClocksOnly: e.clocksOnly, South: e.south, North: e.north, Next: e.next}
	if o := g.info.Online; o != nil {
		ch.Rev = o.Rev
	}
	if e.at.IsZero() {
		e.at = t.now()
	}
	e.at = e.at.UTC().Truncate(time.Millisecond)
	ch.At = e.at
	if t.notice != nil {
		n := Notice{Game: g.info.ID, Event: e.event}
		if e.event == "move" && len(e.moves) == 1 {
			n.Move, n.Ply, n.At = e.moves[0].String(), e.had+1, e.at
		}
		if e.online != nil {
			n.Rev = ch.Rev + 1
			n.Deadline = deadline(e.online, g.board)
			if e.online.End == "" {
				n.Board = g.board
			}
		}
		ch.Notice = t.notice(n)
	}
	ch.Rate = g.rated(e)
	if err := t.store.Update(ctx, g.info.ID, ch); err != nil {
		return Change{}, err
	}
	g.stored(e)
	c := Change{Event: e.event, Sowing: e.sowing, State: g.state(t.now(), t.ViewLaps)}
	if err := t.readSeries(ctx, &c.State); err != nil {
		// The change is stored and g is as it left it; only what shows
		// it failed.
		return Change{}, err
	}
	if err := t.readRatings(ctx, &c.State); err != nil {
		return Change{}, err
	}
	if t.OnChange != nil {
		t.OnChange(ctx, g, c)
	}
	return c, nil
}

// stored sets the rest of g's state, its board being up to date already,
// to what edit e stored.
func (g *Game) stored(e edit) {
	g.info.Result, g.info.Updated = e.result, e.at
	if e.online != nil {
		g.info.Online = e.online
	}
	if e.south != nil {
		g.info.South = *e.south
	}
	if e.north != nil {
		g.info.North = *e.north
	}
}

// rated returns the ratings' step of edit e of game g (game.Change.Rate)
// when e ends a game made rated, or nil.
func (g *Game) rated(e edit) func(game.RatingTx) error {
	o := g.info.Online
	if !g.info.Rated || o == nil || e.online == nil || o.End != "" || g.info.Result != "*" ||
		e.online.End == "" && e.result == "*" {
		return nil
	}
	end := ratings.End{Category: g.info.Category, First: g.info.Start.ToMove(), Result: e.result,
		Aborted: e.online.End == EndAborted, At: e.at}
	for _, side := range []rules.Side{rules.South, rules.North} {
		end.Moved[side] = takebackPoint(g.board, side) >= 0
	}
	return end.Step()
}

// startResult is the result a new game sg is stored with: what its moves
// decide, unless it is a game on one device that comes resigned (an
// imported record) with a win while its moves leave it going, which is
// stored as Act stores a resignation.
func startResult(sg *game.Game, board *rules.Game) string {
	if sg.Online == nil && !board.Over() &&
		(sg.Result == rules.SouthWins.Token() || sg.Result == rules.NorthWins.Token()) {
		return sg.Result
	}
	return board.Result().Token()
}

// Load returns game id as stored, replayed.
func (t *Table) Load(ctx context.Context, id string) (*Game, error) { return load(ctx, t.store, id) }

// Create stores the new game sg, with the moves board has played from its
// start (nil for none), and with series > 0 the series to that many wins
// that it starts. A record imported again finds its game (created false).
// sg.Result is set from the moves, except for a resignation (startResult).
func (t *Table) Create(ctx context.Context, sg *game.Game, board *rules.Game, series int) (g *Game, created bool, err error) {
	if board == nil {
		if board, err = rules.NewGame(sg.Start, sg.Rules); err != nil {
			return nil, false, errorf(ErrBadRequest, "%v", err)
		}
	}
	sg.Result = startResult(sg, board)
	if sg.Created.IsZero() {
		sg.Created = t.now()
	}
	if sg.Online != nil && sg.Category == "" {
		sg.Category = ratings.Category(sg.Start.Holes(), sg.Online.Clock)
	}
	if series > 0 {
		err = t.store.CreateSeriesGame(ctx, series, sg)
	} else {
		err = t.store.CreateGame(ctx, sg)
	}
	if errors.Is(err, game.ErrExists) {
		// The same record imported again: its game, as it is now.
		g, err = t.Load(ctx, sg.ID)
		return g, false, err
	}
	if err != nil {
		return nil, false, err
	}
	g = &Game{info: *sg, board: board, sowings: make([]rules.Sowing, board.Ply())}
	g.info.Moves = nil
	return g, true, nil
}
