package cli

import (
	"context"
	"flag"
	"fmt"

	"github.com/endodoi/endodoi/internal/terminal"
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
			terminal.DrawBoard(env.Stdout, p)
			moves := p.LegalMoves(r)
			if len(moves) == 0 {
				fmt.Fprintf(env.Stdout, "%s has no legal move: the game is over, and the %d seeds on the board go to %s.\n",
					p.ToMove(), p.OnBoard(), p.ToMove().Opponent())
				return nil
			}
			fmt.Fprintf(env.Stdout, "%s to move. Legal moves: %s\n", p.ToMove(), rules.MoveList(moves))
			return nil
		}
	},
}
