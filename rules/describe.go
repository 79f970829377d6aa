package rules

import (
	"fmt"
	"strings"
)

// MoveList writes moves separated by spaces.
func MoveList(moves []Move) string {
	names := make([]string, len(moves))
	for i, m := range moves {
		names[i] = m.String()
	}
	return strings.Join(names, " ")
}

// NumberedMoves writes moves numbered as in game records: "1. a A 2. c B",
// or "1... A 2. a B" in a game North begins.
func NumberedMoves(first Side, moves []Move) string {
	var b strings.Builder
	side := first
	number := 1
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch {
		case side == South:
			fmt.Fprintf(&b, "%d. ", number)
		case i == 0:
			fmt.Fprintf(&b, "%d... ", number)
		}
		b.WriteString(m.String())
		if side == North {
			number++
		}
		side = side.Opponent()
	}
	return b.String()
}

// ResultText states a final score and the result.
func ResultText(south, north int) string {
	s := fmt.Sprintf("Final score: South %d, North %d: ", south, north)
	switch {
	case south > north:
		return s + fmt.Sprintf("South wins by %d.", south-north)
	case north > south:
		return s + fmt.Sprintf("North wins by %d.", north-south)
	}
	return s + "a draw."
}

// GameOverText explains the end of the game in p, whose side to move has no
// legal move (rule 8): the sweep and the final result. movesPlayed is the
// number of moves played before p, or -1 when unknown.
func GameOverText(p Position, movesPlayed int) string {
	mover := p.ToMove()
	last := mover.Opponent()
	var b strings.Builder
	if p.RowSeeds(mover) == 0 {
		fmt.Fprintf(&b, "%s has no legal move (its row is empty): the game is over.", mover)
	} else {
		fmt.Fprintf(&b, "%s has no legal move (every sowing it could start is endless): the game is over.", mover)
	}
	who := last.String()
	if movesPlayed > 0 {
		who += ", who moved last"
	}
	fmt.Fprintf(&b, " The %d seeds left on the board go to %s.\n", p.OnBoard(), who)
	f := p.Final()
	b.WriteString(ResultText(f.Captured(South), f.Captured(North)))
	return b.String()
}

// Describe says who moved what and what came of it, e.g.
// "South plays c: 5 laps, captures 7 (B's 6 and the last seed)".
func (sow Sowing) Describe(before Position) string {
	mover := before.ToMove()
	holes := before.Holes()
	laps := "1 lap"
	if n := len(sow.Laps); n != 1 {
		laps = fmt.Sprintf("%d laps", n)
	}
	head := fmt.Sprintf("%s plays %s: %s", mover, sow.Move, laps)
	end := sow.End()
	if sow.Captured > 0 && sow.CaptureFrom >= 0 {
		return fmt.Sprintf("%s, ends in %s and captures %d (%s's %d and the last seed)", head,
			MoveAt(end, holes), sow.Captured, MoveAt(sow.CaptureFrom, holes), sow.Captured-1)
	}
	if end < 0 {
		return head
	}
	endHole := MoveAt(end, holes)
	opposite := MoveAt(2*holes-1-end, holes)
	if endHole.Side() == mover {
		return fmt.Sprintf("%s, ends in %s in its own row; the opposite hole %s is empty: no capture", head, endHole, opposite)
	}
	return fmt.Sprintf("%s, ends in %s's row (%s), no capture", head, mover.Opponent(), endHole)
}

// LapsText shows a sowing lap by lap, with the board after each lap.
func (sow Sowing) LapsText(before Position) string {
	holes := before.Holes()
	board := make([]int, 2*holes)
	for i := range board {
		board[i] = before.SeedsAt(i)
	}
	var b strings.Builder
	for i, lap := range sow.Laps {
		board[lap.From] = 0
		for k := 1; k <= lap.Seeds; k++ {
			board[(lap.From+k)%len(board)]++
		}
		what := "was empty: the sowing ends"
		if board[lap.To] > 1 {
			what = fmt.Sprintf("held %d: relay", board[lap.To]-1)
		}
		fmt.Fprintf(&b, "  lap %d: lifted %d from %s, last seed in %s (%s)  %s\n", i+1, lap.Seeds,
			MoveAt(lap.From, holes), MoveAt(lap.To, holes), what, compactBoard(board, holes))
	}
	if sow.Captured > 0 && sow.CaptureFrom >= 0 {
		fmt.Fprintf(&b, "  capture: %s from %s and the last seed from %s\n", plural(sow.Captured-1, "seed"),
			MoveAt(sow.CaptureFrom, holes), MoveAt(sow.End(), holes))
	}
	return b.String()
}

// compactBoard writes a board in position order: a.. / A...
func compactBoard(board []int, holes int) string {
	var b strings.Builder
	for i, n := range board {
		switch {
		case i == holes:
			b.WriteByte('/')
		case i > 0:
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d", n)
	}
	return b.String()
}

// plural writes a count and a noun, adding an s unless the count is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
