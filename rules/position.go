package rules

import (
	"errors"
	"fmt"
)

// Position is a board, the side to move and both players' captured seeds.
// The zero value is not a valid position: make one with [NewPosition],
// [NewPositionFromRows] or [ParsePosition].
//
// Positions are small values: copy them freely; two positions are equal
// under == when they have the same board, side to move and captures.
type Position struct {
	// holes in sowing order, South's a.. at 0..n-1, North's A.. at n..2n-1,
	// packed four to a word: hole i is the 16-bit lane i%4 of word i/4.
	// Lanes from 2n on are always zero. Packed, a lap of the sowing adds
	// one to a run of holes with a few word additions (see sow).
	holes    [holeWords]uint64
	captured [2]uint32
	n        uint8 // holes per row
	toMove   Side
}

// NewPosition returns the start position of a board with the given number of
// holes per row (MinHoles to MaxHoles) and seeds per hole (MinStartSeeds to
// MaxStartSeeds), South to move.
func NewPosition(holes, seeds int) (Position, error) {
	if holes < MinHoles || holes > MaxHoles {
		return Position{}, fmt.Errorf("holes per row %d out of range (%d to %d)", holes, MinHoles, MaxHoles)
	}
	if seeds < MinStartSeeds || seeds > MaxStartSeeds {
		return Position{}, fmt.Errorf("seeds per hole %d out of range (%d to %d)", seeds, MinStartSeeds, MaxStartSeeds)
	}
	p := Position{n: uint8(holes)}
	for i := 0; i < 2*holes; i++ {
		p.setHole(i, uint16(seeds))
	}
	return p, nil
}

// NewPositionFromRows returns a position with the given rows (each in its
// owner's sowing order, both of the same length), side to move and captured
// seeds.
func NewPositionFromRows(south, north []int, toMove Side, capturedSouth, capturedNorth int) (Position, error) {
	if len(south) != len(north) {
		return Position{}, fmt.Errorf("rows differ in length: South has %d holes, North %d", len(south), len(north))
	}
	n := len(south)
	if n < MinHoles || n > MaxHoles {
		return Position{}, fmt.Errorf("holes per row %d out of range (%d to %d)", n, MinHoles, MaxHoles)
	}
	if toMove != South && toMove != North {
		return Position{}, fmt.Errorf("invalid side to move %d", toMove)
	}
	p := Position{n: uint8(n), toMove: toMove}
	total := 0
	for i, row := range [2][]int{south, north} {
		for j, c := range row {
			if c < 0 {
				return Position{}, fmt.Errorf("hole %s holds %d seeds: counts cannot be negative", NewMove(Side(i), j), c)
			}
			total += c
			if total > MaxBoardSeeds {
				return Position{}, fmt.Errorf("more than %d seeds on the board", MaxBoardSeeds)
			}
			p.setHole(i*n+j, uint16(c))
		}
	}
	for i, c := range [2]int{capturedSouth, capturedNorth} {
		if c < 0 || c > MaxTotalSeeds {
			return Position{}, fmt.Errorf("%s's captured seeds %d out of range (0 to %d)", Side(i), c, MaxTotalSeeds)
		}
		if total += c; total > MaxTotalSeeds {
			return Position{}, fmt.Errorf("more than %d seeds in all, on the board and captured", MaxTotalSeeds)
		}
		p.captured[i] = uint32(c)
	}
	return p, nil
}

// MustParsePosition is like ParsePosition but panics on error. It is meant
// for positions written into programs and tests, not for outside input.
func MustParsePosition(s string) Position {
	p, err := ParsePosition(s)
	if err != nil {
		panic(err)
	}
	return p
}

// Holes returns the number of holes per row.
func (p Position) Holes() int { return int(p.n) }

// ToMove returns the side to move.
func (p Position) ToMove() Side { return p.toMove }

// WithToMove returns the position with the given side to move.
func (p Position) WithToMove(s Side) Position {
	p.toMove = s & 1
	return p
}

// Seeds returns the number of seeds in the hole m names, or 0 if the board
// has no such hole.
func (p Position) Seeds(m Move) int {
	if m.Column() >= int(p.n) || m&^0x1F != 0 {
		return 0
	}
	return int(p.hole(m.Index(int(p.n))))
}

// SeedsAt returns the number of seeds in hole number i (sowing order,
// 0..2H-1), or 0 if there is no such hole.
func (p Position) SeedsAt(i int) int {
	if i < 0 || i >= 2*int(p.n) {
		return 0
	}
	return int(p.hole(i))
}

// Board returns the seed counts of every hole in sowing order (South's
// row a.., then North's A..); entries from 2H on are zero. It is for
// loops that read many holes: one unpacked copy, with no bounds test per
// hole. Hot loops that can work a word at a time use Packed.
func (p *Position) Board() [2 * MaxHoles]uint16 {
	var b [2 * MaxHoles]uint16
	for i := range b {
		b[i] = uint16(p.holes[i>>2] >> (16 * uint(i&3)))
	}
	return b
}

// Packed returns the holes as the position keeps them, four to a 64-bit
// word: hole i (sowing order, 0..2H-1) is bits 16*(i%4) to 16*(i%4)+15 of
// word i/4, and every bit from hole 2H on is zero. It is for hot loops
// that work on many holes at once (a hash, counts of holes by content).
func (p *Position) Packed() [2 * MaxHoles / 4]uint64 { return p.holes }

// Row returns side s's seed counts in its sowing order.
func (p Position) Row(s Side) []int {
	n := int(p.n)
	row := make([]int, n)
	for j := range row {
		row[j] = int(p.hole(int(s&1)*n + j))
	}
	return row
}

// Captured returns the seeds side s has captured.
func (p Position) Captured(s Side) int { return int(p.captured[s&1]) }

// OnBoard returns the number of seeds on the board.
func (p Position) OnBoard() int {
	return int(laneSum(&p.holes, &allLanes))
}

// RowSeeds returns the number of seeds in side s's row.
func (p Position) RowSeeds(s Side) int {
	return int(laneSum(&p.holes, &rowLanes[p.n&(MaxHoles|(MaxHoles-1))][s&1]))
}

// Total returns all seeds: on the board and captured by either player.
func (p Position) Total() int {
	return p.OnBoard() + int(p.captured[0]) + int(p.captured[1])
}

// FinalMargin returns the final capture margin, from South's view, that a
// future capture margin for p's side to move leads to: South's captured
// seeds less North's, plus future when South is to move, minus it when
// North is. seed is one seed in future's unit: 1 for whole seeds.
func FinalMargin[V ~int | ~int32 | ~int64 | ~float64](p Position, future, seed V) V {
	if p.toMove == North {
		future = -future
	}
	return V(int(p.captured[South])-int(p.captured[North]))*seed + future
}

// Errors returned by Play and Trace. They are plain values, so checking for
// them costs no allocation: compare with == or errors.Is.
var (
	ErrWrongSide   = errors.New("wrong side: that hole belongs to the player not to move")
	ErrNoSuchHole  = errors.New("no such hole on this board")
	ErrEmptyHole   = errors.New("empty hole: there are no seeds to lift")
	ErrEndless     = errors.New("endless sowing: the sowing does not end within the lap cap")
	ErrInvalidMove = errors.New("invalid move value")
)

// check returns the hole index of m, or an error if m cannot be played on p
// for a reason other than endless sowing.
func (p *Position) check(m Move) (int, error) {
	if m&^0x1F != 0 {
		return 0, ErrInvalidMove
	}
	if m.Side() != p.toMove {
		return 0, ErrWrongSide
	}
	if m.Column() >= int(p.n) {
		return 0, ErrNoSuchHole
	}
	i := m.Index(int(p.n))
	if p.hole(i) == 0 {
		return 0, ErrEmptyHole
	}
	return i, nil
}

// Play returns the position after the side to move plays m under rules r:
// the seeds are sown, relayed and captured, and the turn passes. It returns
// ErrWrongSide, ErrNoSuchHole, ErrEmptyHole or ErrEndless if m is not legal;
// p itself never changes. Play does not apply the end-of-game sweep: see
// [Position.Final].
//
// Play allocates nothing.
func (p Position) Play(m Move, r Rules) (Position, error) {
	var q Position
	if err := p.PlayTo(&q, m, r); err != nil {
		return p, err
	}
	return q, nil
}

// PlayTo is Play for searches that keep their positions in place: it
// writes the position after m into *dst, copying no other position, and
// returns the same errors as Play. On error *dst holds no meaningful
// position; p never changes unless dst is p.
//
// PlayTo allocates nothing.
func (p *Position) PlayTo(dst *Position, m Move, r Rules) error {
	i, err := p.check(m)
	if err != nil {
		return err
	}
	*dst = *p
	if !dst.sow(i, r.Laps(), r.captureInOpponentRow()) {
		return ErrEndless
	}
	return nil
}

// IsLegal reports whether m is a legal move in p.
func (p Position) IsLegal(m Move, r Rules) bool {
	_, err := p.Play(m, r)
	return err == nil
}

// AppendLegalMoves appends the legal moves of the side to move to dst, in
// row order, and returns the extended slice. With a dst of enough capacity
// (MaxHoles) it allocates nothing.
func (p Position) AppendLegalMoves(dst []Move, r Rules) []Move {
	laps, cross := r.Laps(), r.captureInOpponentRow()
	for j := p.nextLegal(0, laps, cross); j >= 0; j = p.nextLegal(j+1, laps, cross) {
		dst = append(dst, NewMove(p.toMove, j))
	}
	return dst
}

// LegalMoves returns the legal moves of the side to move, in row order.
func (p Position) LegalMoves(r Rules) []Move {
	return p.AppendLegalMoves(make([]Move, 0, MaxHoles), r)
}

// HasLegalMove reports whether the side to move has a legal move. When it
// has none, the game is over (rule 8).
func (p Position) HasLegalMove(r Rules) bool {
	return p.nextLegal(0, r.Laps(), r.captureInOpponentRow()) >= 0
}

// nextLegal returns the first column from j on of a legal move of the side
// to move, or -1.
func (p *Position) nextLegal(j, laps int, cross bool) int {
	base := int(p.toMove) * int(p.n)
	for ; j < int(p.n); j++ {
		if p.hole(base+j) == 0 {
			continue
		}
		q := *p
		if q.sow(base+j, laps, cross) {
			return j
		}
	}
	return -1
}

// Final returns the position after the end-of-game sweep of rule 8: every
// seed left on the board goes to the player who made the last move, the
// opponent of the side to move. Call it when the side to move has no legal
// move.
func (p Position) Final() Position {
	last := p.toMove.Opponent()
	p.captured[last] += uint32(p.OnBoard())
	p.holes = [holeWords]uint64{}
	return p
}

// DescribeMoveError returns a short reason, for people, why m cannot be
// played in p: err is what Play, Trace or Game.Play returned for it.
func DescribeMoveError(p Position, m Move, err error) string {
	switch {
	case errors.Is(err, ErrWrongSide):
		return fmt.Sprintf("wrong side: hole %s is %s's, but %s is to move", m, m.Side(), p.ToMove())
	case errors.Is(err, ErrNoSuchHole):
		return fmt.Sprintf("no such hole: %s (this board has %d holes a row, %s to %s)", m, p.Holes(),
			NewMove(m.Side(), 0), NewMove(m.Side(), p.Holes()-1))
	case errors.Is(err, ErrEmptyHole):
		return fmt.Sprintf("empty hole: %s has no seeds to lift", m)
	case errors.Is(err, ErrEndless):
		return fmt.Sprintf("endless sowing: the sowing from %s has not ended after the lap cap", m)
	}
	return err.Error()
}
