package cli

import (
	"context"
	"flag"
	"fmt"

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
			rec, g, err := loadRecord(env, args[0])
			if err != nil {
				return err
			}
			if *asJSON {
				b, err := rec.MarshalJSON()
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(env.Stdout, "%s\n", b)
				return err
			}
			fmt.Fprint(env.Stdout, record.Summary(g))
			return nil
		}
	},
}

// loadRecord reads and checks the game record in the file name, or on
// standard input for "-".
func loadRecord(env Env, name string) (*record.Record, *rules.Game, error) {
	if name == "-" {
		return record.Load(env.Stdin, "standard input")
	}
	return record.LoadFile(name)
}
