package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

var replayCommand = &command{
	name:    "replay",
	summary: "check a game record and print its final position, score and result",
	usage:   "[--json] <file | ->",
	examples: []string{
		"endodoi replay game.txt",
		"endodoi replay - < game.json",
		"endodoi replay --json game.txt > game.json",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		asJSON := fs.Bool("json", false, "print the checked record in its JSON form instead of the summary")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 1 {
				return usagef("want one record file, or - for standard input")
			}
			name := args[0]
			var data []byte
			var err error
			if name == "-" {
				data, err = io.ReadAll(io.LimitReader(env.Stdin, record.MaxSize+1))
				name = "standard input"
			} else {
				data, err = readFileLimited(name, record.MaxSize+1)
			}
			if err != nil {
				return err
			}
			rec, err := record.Read(data)
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			g, err := rec.Game()
			if err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
			if *asJSON {
				b, err := rec.MarshalJSON()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
				return err
			}
			printGameSummary(env.Stdout, g)
			return nil
		}
	},
}

func readFileLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", name, err)
	}
	return data, nil
}

// printGameSummary prints a game's final position, score and result, and
// why it ended.
func printGameSummary(w io.Writer, g *rules.Game) {
	p := g.Position()
	s, n := g.Score()
	fmt.Fprintf(w, "moves: %d\n", g.Ply())
	fmt.Fprintf(w, "final position: %s\n", p)
	switch g.Status() {
	case rules.NoLegalMove:
		fmt.Fprintf(w, "end: %s has no legal move; the %d seeds on the board go to %s, who moved last\n",
			p.ToMove(), p.OnBoard(), p.ToMove().Opponent())
	case rules.Repetition:
		fmt.Fprintf(w, "end: the position occurred for the third time; the %d seeds on the board count for neither player\n",
			p.OnBoard())
	default:
		fmt.Fprintf(w, "end: not finished; %s to move\n", p.ToMove())
	}
	fmt.Fprintf(w, "score: South %d, North %d\n", s, n)
	fmt.Fprintf(w, "result: %s\n", g.Result())
}
