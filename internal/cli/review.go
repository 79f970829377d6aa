package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/internal/terminal"
)

// maxReviewNodes bounds review's --nodes: ten thousand times the default
// already takes hours a move.
const maxReviewNodes = 1_000_000_000

var reviewCommand = &command{
	name:    "review",
	summary: "grade every move of a game record and each player's accuracy, as the browser game's review does",
	usage:   "[--nodes N] [--egtb DIR] [--json] [--quiet] <file | ->",
	examples: []string{
		"endodoi review game.txt",
		"endodoi review --egtb ~/.local/share/endodoi/egtb game.json",
		"endodoi review --json - < game.txt > review.json",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		nodes := fs.Int("nodes", grade.DefaultNodes, fmt.Sprintf("search budget of each position, in nodes (1 to %d); the browser game's reviews use the default", maxReviewNodes))
		egtbDir := fs.String("egtb", "", "directory of endgame databases to take exact values from; the browser game takes those in egtb in its data folder (see 'endodoi serve')")
		asJSON := fs.Bool("json", false, "print the review in the form of the browser game's API (docs/api.md) instead of the table")
		quiet := fs.Bool("quiet", false, "no progress bar")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 1 {
				return usagef("want one record file, or - for standard input")
			}
			if err := inRange("nodes", *nodes, 1, maxReviewNodes); err != nil {
				return err
			}
			rec, g, err := loadRecord(env, args[0])
			if err != nil {
				return err
			}
			tb, err := openTablebase(env, *egtbDir, g.Start().Holes(), g.Rules())
			if err != nil {
				return err
			}
			opt := grade.Options{Nodes: uint64(*nodes), Tablebase: tb}
			ctx, stop := interruptible(ctx)
			defer stop()
			bar := terminal.NewProgressBar(unlessQuiet(env.Stderr, *quiet))
			started := time.Now()
			opt.Progress = func(done int) {
				bar.Draw(fmt.Sprintf("%d of %d moves graded", done, g.Ply()), uint64(done), uint64(g.Ply()), time.Since(started))
			}
			rv, err := grade.Game(ctx, g, opt)
			bar.End()
			switch {
			case errors.Is(err, context.Canceled):
				return errors.New("interrupted")
			case err != nil:
				return err
			case *asJSON:
				b, err := json.Marshal(rv)
				if err != nil {
					return fmt.Errorf("encoding the review: %w", err)
				}
				_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
				return err
			}
			return rv.Write(env.Stdout, rec.South, rec.North)
		}
	},
}
