package rules

import "fmt"

// Move names the hole a move lifts its seeds from: its owner and its place
// (column) in the owner's row, counted from 0 in sowing order. In notation a
// move is the hole's letter, lower case for South (a, b, c, ...) and upper
// case for North (A, B, C, ...).
//
// The same naming serves for any hole; [Move.Index] turns it into the hole's
// number in sowing order on a board of a given size.
type Move uint8

// NoMove is the zero-information move returned alongside errors.
const NoMove Move = 0xFF

const sideBit = 0x10

// NewMove returns the move that lifts from column col (0-based, in sowing
// order) of side s's row. It panics if col is not in [0, MaxHoles), which is
// a programming error rather than bad input.
func NewMove(s Side, col int) Move {
	if col < 0 || col >= MaxHoles {
		panic(fmt.Sprintf("rules: NewMove column %d out of range", col))
	}
	return Move(uint8(s)<<4 | uint8(col))
}

// MoveAt returns the move for hole number index (0..2*holes-1, sowing order)
// on a board with the given number of holes per row.
func MoveAt(index, holes int) Move {
	if index >= holes {
		return NewMove(North, index-holes)
	}
	return NewMove(South, index)
}

// Side returns the owner of the hole.
func (m Move) Side() Side { return Side(m >> 4 & 1) }

// Column returns the hole's place in its owner's row, from 0, in sowing order.
func (m Move) Column() int { return int(m & 0x0F) }

// Index returns the hole's number in sowing order (0..2*holes-1) on a board
// with the given number of holes per row.
func (m Move) Index(holes int) int { return int(m.Side())*holes + m.Column() }

// String returns the move's letter, or "-" for NoMove.
func (m Move) String() string {
	if m == NoMove || m&^0x1F != 0 {
		return "-"
	}
	base := byte('a')
	if m.Side() == North {
		base = 'A'
	}
	return string(base + byte(m.Column()))
}

// ParseMove reads a move's letter: a..p for South's holes, A..P for North's.
// Whether the hole exists on a given board is checked when the move is
// played.
func ParseMove(s string) (Move, error) {
	if len(s) != 1 {
		return NoMove, fmt.Errorf("move %q: want one hole letter (a-p for South, A-P for North)", s)
	}
	c := s[0]
	switch {
	case c >= 'a' && c < 'a'+MaxHoles:
		return NewMove(South, int(c-'a')), nil
	case c >= 'A' && c < 'A'+MaxHoles:
		return NewMove(North, int(c-'A')), nil
	}
	return NoMove, fmt.Errorf("move %q: want one hole letter (a-p for South, A-P for North)", s)
}

// MarshalText implements encoding.TextMarshaler.
func (m Move) MarshalText() ([]byte, error) {
	if m == NoMove || m&^0x1F != 0 {
		return nil, fmt.Errorf("rules: cannot marshal invalid move %#x", uint8(m))
	}
	return []byte(m.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (m *Move) UnmarshalText(b []byte) error {
	mv, err := ParseMove(string(b))
	if err != nil {
		return err
	}
	*m = mv
	return nil
}
