package rules

import (
	"fmt"
	"strconv"
)

// String returns the position in the project's notation, for example
// "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0".
func (p Position) String() string {
	return string(p.AppendText(make([]byte, 0, 8*int(p.n)+16)))
}

// AppendText appends the position's notation to b.
func (p Position) AppendText(b []byte) []byte {
	n := int(p.n)
	for i := 0; i < 2*n; i++ {
		switch {
		case i == n:
			b = append(b, '/')
		case i > 0:
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, p.hole(i), 10)
	}
	b = append(b, ' ', p.toMove.Letter(), ' ')
	b = strconv.AppendUint(b, uint64(p.captured[South]), 10)
	b = append(b, ' ')
	b = strconv.AppendUint(b, uint64(p.captured[North]), 10)
	return b
}

// MarshalText implements encoding.TextMarshaler: the position's notation.
func (p Position) MarshalText() ([]byte, error) {
	if p.n < MinHoles {
		return nil, fmt.Errorf("rules: cannot marshal the zero Position")
	}
	return p.AppendText(nil), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (p *Position) UnmarshalText(b []byte) error {
	q, err := ParsePosition(string(b))
	if err != nil {
		return err
	}
	*p = q
	return nil
}

// PositionError is a syntax or range error in a position's notation.
type PositionError struct {
	Input  string // the text being parsed
	Column int    // 1-based byte offset of the problem in Input
	Msg    string
}

func (e *PositionError) Error() string {
	return fmt.Sprintf("position %q: column %d: %s", e.Input, e.Column, e.Msg)
}

// ParsePosition reads a position in the project's notation:
//
//	<South's holes a.. in sowing order>/<North's holes A.. in sowing order> <s|n> <South's captured> <North's captured>
//
// Counts are plain decimal numbers without signs or leading zeros, separated
// by commas; the fields are separated by single spaces. Both rows must have
// the same number of holes, from MinHoles to MaxHoles. The notation is exact:
// whatever parses prints back the same with [Position.String].
func ParsePosition(s string) (Position, error) {
	ps := positionParser{s: s}
	p, err := ps.parse()
	if err != nil {
		return Position{}, err
	}
	return p, nil
}

// positionParser reads one position, tracking the byte offset for errors.
type positionParser struct {
	s string
	i int
}

func (ps *positionParser) errorf(at int, format string, args ...any) error {
	return &PositionError{Input: ps.s, Column: at + 1, Msg: fmt.Sprintf(format, args...)}
}

// peek returns the next byte, or 0 at the end.
func (ps *positionParser) peek() byte {
	if ps.i < len(ps.s) {
		return ps.s[ps.i]
	}
	return 0
}

// number reads a decimal count of at most limit.
func (ps *positionParser) number(what string, limit uint64) (uint64, error) {
	s, start := ps.s, ps.i
	for ps.i < len(s) && s[ps.i] >= '0' && s[ps.i] <= '9' {
		ps.i++
	}
	digits := s[start:ps.i]
	switch {
	case digits == "" && start < len(s):
		return 0, ps.errorf(start, "want %s (a decimal number), found %q", what, s[start])
	case digits == "":
		return 0, ps.errorf(start, "want %s (a decimal number), found the end", what)
	case digits[0] == '0' && len(digits) > 1:
		return 0, ps.errorf(start, "%s %q has a leading zero", what, digits)
	}
	v, err := strconv.ParseUint(digits, 10, 64)
	if err != nil || v > limit {
		return 0, ps.errorf(start, "%s %s is too large (at most %d)", what, digits, limit)
	}
	return v, nil
}

func (ps *positionParser) parse() (Position, error) {
	var p Position
	var rows [2][MaxHoles]uint16
	var lens [2]int
	total := uint64(0)
	for side := 0; side < 2; side++ {
		for {
			if lens[side] == MaxHoles {
				return p, ps.errorf(ps.i, "%s's row has more than %d holes", Side(side), MaxHoles)
			}
			at := ps.i
			v, err := ps.number("a seed count", MaxBoardSeeds)
			if err != nil {
				return p, err
			}
			if total += v; total > MaxBoardSeeds {
				return p, ps.errorf(at, "more than %d seeds on the board", MaxBoardSeeds)
			}
			rows[side][lens[side]] = uint16(v)
			lens[side]++
			if ps.peek() != ',' {
				break
			}
			ps.i++
		}
		if side == 0 {
			switch ps.peek() {
			case '/':
				ps.i++
			case ' ':
				return p, ps.errorf(ps.i, "want '/' between South's and North's rows, found a space "+
					"(a position is <South's row>/<North's row> <s|n> <South's captured> <North's captured>)")
			default:
				return p, ps.errorf(ps.i, "want ',' or '/' after a seed count")
			}
		}
	}
	n := lens[0]
	if lens[1] != n {
		return p, ps.errorf(ps.i-1, "rows differ in length: South has %d holes, North %d", n, lens[1])
	}
	if n < MinHoles {
		return p, ps.errorf(0, "a row must have at least %d holes, these have %d", MinHoles, n)
	}
	p.n = uint8(n)
	for j := 0; j < n; j++ {
		p.setHole(j, rows[0][j])
		p.setHole(n+j, rows[1][j])
	}
	if ps.peek() != ' ' {
		return p, ps.errorf(ps.i, "want one space and the side to move (s or n) after the rows")
	}
	ps.i++
	switch ps.peek() {
	case 's':
		p.toMove = South
	case 'n':
		p.toMove = North
	default:
		return p, ps.errorf(ps.i, "want the side to move: s (South) or n (North)")
	}
	ps.i++
	for side := 0; side < 2; side++ {
		if ps.peek() != ' ' {
			return p, ps.errorf(ps.i, "want one space and %s's captured seeds", Side(side))
		}
		ps.i++
		at := ps.i
		v, err := ps.number(Side(side).String()+"'s captured seeds", MaxTotalSeeds)
		if err != nil {
			return p, err
		}
		if total += v; total > MaxTotalSeeds {
			return p, ps.errorf(at, "more than %d seeds in all, on the board and captured", MaxTotalSeeds)
		}
		p.captured[side] = uint32(v)
	}
	if ps.i != len(ps.s) {
		return p, ps.errorf(ps.i, "unexpected %q after the position", ps.s[ps.i:])
	}
	return p, nil
}
