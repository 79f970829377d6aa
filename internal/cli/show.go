package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/endodoi/endodoi/rules"
)

var showCommand = &command{
	name:    "show",
	summary: "draw a position as the players see it",
	usage:   "[--variant V] [--max-laps L] [<position> | start]",
	examples: []string{
		"endodoi show '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0'",
		"endodoi show start",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) == 0 {
				args = []string{"start"}
			}
			p, r, err := rf.positionAndRules(args)
			if err != nil {
				return err
			}
			drawBoard(env.Stdout, p)
			moves := p.LegalMoves(r)
			if len(moves) == 0 {
				fmt.Fprintf(env.Stdout, "%s has no legal move: the game is over, and the %d seeds on the board go to %s.\n",
					p.ToMove(), p.OnBoard(), p.ToMove().Opponent())
				return nil
			}
			names := make([]string, len(moves))
			for i, m := range moves {
				names[i] = m.String()
			}
			fmt.Fprintf(env.Stdout, "%s to move. Legal moves: %s\n", p.ToMove(), strings.Join(names, " "))
			return nil
		}
	},
}

// drawBoard draws p from South's side of the board: North's row on top,
// read right to left in its sowing order, South's row below, left to right.
// Each column pairs a hole with the hole opposite it.
func drawBoard(w io.Writer, p rules.Position) {
	n := p.Holes()
	width := 2
	for i := 0; i < 2*n; i++ {
		width = max(width, len(strconv.Itoa(p.SeedsAt(i))))
	}
	cell := width + 2
	var b strings.Builder
	labels := func(side rules.Side) {
		b.WriteString("    ")
		for col := 0; col < n; col++ {
			j := col
			if side == rules.North {
				j = n - 1 - col
			}
			fmt.Fprintf(&b, " %*s", cell, rules.NewMove(side, j).String()+strings.Repeat(" ", (cell-1)/2))
		}
		b.WriteByte('\n')
	}
	rule := func() {
		b.WriteString("    +")
		for col := 0; col < n; col++ {
			b.WriteString(strings.Repeat("-", cell))
			b.WriteByte('+')
		}
		b.WriteByte('\n')
	}
	row := func(side rules.Side, name, arrow string) {
		fmt.Fprintf(&b, "  %s |", name)
		for col := 0; col < n; col++ {
			j := col
			if side == rules.North {
				j = n - 1 - col
			}
			fmt.Fprintf(&b, " %*d |", width, p.Seeds(rules.NewMove(side, j)))
		}
		fmt.Fprintf(&b, " %s\n", arrow)
	}
	fmt.Fprintf(&b, "North  captured %d%s\n", p.Captured(rules.North), marker(p, rules.North))
	labels(rules.North)
	rule()
	row(rules.North, "N", "<- North sows right to left")
	rule()
	row(rules.South, "S", "-> South sows left to right")
	rule()
	labels(rules.South)
	fmt.Fprintf(&b, "South  captured %d%s\n", p.Captured(rules.South), marker(p, rules.South))
	fmt.Fprintf(&b, "%s\n", p)
	io.WriteString(w, b.String())
}

func marker(p rules.Position, s rules.Side) string {
	if p.ToMove() == s {
		return "  (to move)"
	}
	return ""
}
