package rules

import (
	"errors"
	"fmt"
)

// Status tells whether a game is still going on and, if not, why it ended.
type Status uint8

const (
	// InProgress: the side to move has a legal move.
	InProgress Status = iota
	// NoLegalMove: the side to move had no legal move (rule 8); the seeds on
	// the board went to the player who made the last move.
	NoLegalMove
	// Repetition: a position occurred for the third time (rule 9); the seeds
	// on the board count for neither player.
	Repetition
)

// String returns the status in words.
func (s Status) String() string {
	switch s {
	case NoLegalMove:
		return "no legal move"
	case Repetition:
		return "third repetition"
	}
	return "in progress"
}

// Result is the outcome of a game. In records and the API it is written
// as a token (see [Result.Token]): its text form.
type Result uint8

// The results.
const (
	Unfinished Result = iota // "*"
	SouthWins                // "1-0"
	NorthWins                // "0-1"
	Draw                     // "1/2-1/2"
)

// WinFor returns the result of a game side won.
func WinFor(side Side) Result {
	if side&1 == North {
		return NorthWins
	}
	return SouthWins
}

// Token returns the result's record notation: "1-0" when South won, "0-1"
// when North won, "1/2-1/2" for a draw and "*" for a game that goes on.
func (r Result) Token() string {
	switch r {
	case SouthWins:
		return "1-0"
	case NorthWins:
		return "0-1"
	case Draw:
		return "1/2-1/2"
	}
	return "*"
}

// ParseResult reads a result token: "1-0", "0-1", "1/2-1/2" or "*".
func ParseResult(s string) (Result, error) {
	switch s {
	case "1-0":
		return SouthWins, nil
	case "0-1":
		return NorthWins, nil
	case "1/2-1/2":
		return Draw, nil
	case "*":
		return Unfinished, nil
	}
	return Unfinished, fmt.Errorf("want 1-0, 0-1, 1/2-1/2 or *, found %q", s)
}

// MarshalText implements encoding.TextMarshaler: the result's token.
func (r Result) MarshalText() ([]byte, error) {
	if r > Draw {
		return nil, fmt.Errorf("rules: invalid result %d", uint8(r))
	}
	return []byte(r.Token()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (r *Result) UnmarshalText(b []byte) error {
	pr, err := ParseResult(string(b))
	if err != nil {
		return err
	}
	*r = pr
	return nil
}

// String returns the result in words, e.g. "South wins"; see Token for
// its record notation.
func (r Result) String() string {
	switch r {
	case SouthWins:
		return "South wins"
	case NorthWins:
		return "North wins"
	case Draw:
		return "draw"
	}
	return "unfinished"
}

// Winner returns the winning side, and false for a draw or an unfinished
// game.
func (r Result) Winner() (Side, bool) {
	switch r {
	case SouthWins:
		return South, true
	case NorthWins:
		return North, true
	}
	return South, false
}

// ErrGameOver is returned when a move is played after the game has ended.
var ErrGameOver = errors.New("the game is over")

// Game is a game in progress or finished: its start, its moves and the
// positions they led to. It applies the end-of-game rules: no legal move
// (rule 8) and third repetition (rule 9). A Game is not safe for concurrent
// use.
type Game struct {
	rules   Rules
	history []Position // history[0] is the start; history[i] follows moves[i-1]
	moves   []Move
	seen    map[Position]int // occurrences of each position in history
	status  Status
}

// NewGame starts a game from start under rules r.
func NewGame(start Position, r Rules) (*Game, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if start.n < MinHoles || start.n > MaxHoles {
		return nil, fmt.Errorf("invalid start position: %d holes per row", start.n)
	}
	g := &Game{rules: r.Canonical(), seen: make(map[Position]int)}
	g.push(start)
	return g, nil
}

// push appends p to the history and updates the status.
func (g *Game) push(p Position) {
	g.history = append(g.history, p)
	g.seen[p]++
	switch {
	case g.seen[p] >= 3:
		g.status = Repetition
	case !p.HasLegalMove(g.rules):
		g.status = NoLegalMove
	default:
		g.status = InProgress
	}
}

// Play plays m for the side to move. An illegal move leaves the game as it
// was and returns an error that wraps ErrGameOver or one of Position.Play's
// errors.
func (g *Game) Play(m Move) error {
	if g.status != InProgress {
		return fmt.Errorf("move %s: %w (%s)", m, ErrGameOver, g.status)
	}
	next, err := g.Position().Play(m, g.rules)
	if err != nil {
		return fmt.Errorf("move %s: %w", m, err)
	}
	g.moves = append(g.moves, m)
	g.push(next)
	return nil
}

// PlayTraced is Play that also reports how the move sowed, lap by lap, as
// [Position.Trace] does: the move is sown once, for the game and for its
// description. Its errors are Play's.
func (g *Game) PlayTraced(m Move) (Sowing, error) {
	if g.status != InProgress {
		return Sowing{}, fmt.Errorf("move %s: %w (%s)", m, ErrGameOver, g.status)
	}
	next, sw, err := g.Position().Trace(m, g.rules)
	if err != nil {
		return Sowing{}, fmt.Errorf("move %s: %w", m, err)
	}
	g.moves = append(g.moves, m)
	g.push(next)
	return sw, nil
}

// Undo takes back the last move and returns it; it returns false when no
// move has been played.
func (g *Game) Undo() (Move, bool) {
	if len(g.moves) == 0 {
		return NoMove, false
	}
	last := g.history[len(g.history)-1]
	if g.seen[last]--; g.seen[last] == 0 {
		delete(g.seen, last)
	}
	g.history = g.history[:len(g.history)-1]
	m := g.moves[len(g.moves)-1]
	g.moves = g.moves[:len(g.moves)-1]
	// The status of the earlier position is recomputed, not remembered:
	// it was in progress, since a move followed it.
	g.status = InProgress
	return m, true
}

// Rules returns the game's rules, in canonical form.
func (g *Game) Rules() Rules { return g.rules }

// Start returns the start position.
func (g *Game) Start() Position { return g.history[0] }

// Position returns the current position, before any end-of-game sweep.
func (g *Game) Position() Position { return g.history[len(g.history)-1] }

// PositionAt returns the position after the first ply moves (0 is the
// start). It panics if ply is out of range [0, len(Moves())].
func (g *Game) PositionAt(ply int) Position { return g.history[ply] }

// History returns a copy of the positions before the current one, oldest
// first: what the engine needs for the repetition rule.
func (g *Game) History() []Position {
	return append([]Position(nil), g.history[:len(g.history)-1]...)
}

// Moves returns a copy of the moves played.
func (g *Game) Moves() []Move { return append([]Move(nil), g.moves...) }

// Ply returns the number of moves played.
func (g *Game) Ply() int { return len(g.moves) }

// Status tells whether the game is over and why.
func (g *Game) Status() Status { return g.status }

// Over reports whether the game has ended.
func (g *Game) Over() bool { return g.status != InProgress }

// Occurrences returns how many times the current position has occurred in
// the game, this time included.
func (g *Game) Occurrences() int { return g.seen[g.Position()] }

// LegalMoves returns the legal moves of the side to move; none once the
// game is over.
func (g *Game) LegalMoves() []Move {
	if g.Over() {
		return nil
	}
	return g.Position().LegalMoves(g.rules)
}

// FinalPosition returns the current position with the end-of-game sweep
// applied when the game ended for want of a legal move; otherwise the
// current position.
func (g *Game) FinalPosition() Position {
	if g.status == NoLegalMove {
		return g.Position().Final()
	}
	return g.Position()
}

// Score returns the seeds each side has captured, the sweep included once
// the game has ended for want of a legal move.
func (g *Game) Score() (south, north int) {
	p := g.FinalPosition()
	return p.Captured(South), p.Captured(North)
}

// Result returns the game's outcome: the side with more captured seeds
// wins; equal totals are a draw (rule 10).
func (g *Game) Result() Result {
	if !g.Over() {
		return Unfinished
	}
	s, n := g.Score()
	switch {
	case s > n:
		return SouthWins
	case n > s:
		return NorthWins
	}
	return Draw
}
