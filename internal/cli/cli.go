// Package cli implements the endodoi command's subcommands: the wiring of
// the packages that do the work (rules, engine, egtb, store, arena, ...),
// which read the options of the larger commands themselves (serve, bot,
// loadtest, arena, tune, play), and the printing of what those return.
// Package main only wires Run to the process, so that tests can drive
// every subcommand with plain readers and writers.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Env is what a subcommand may touch of the outside world.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// command is one subcommand.
type command struct {
	name     string
	summary  string
	usage    string   // arguments after the name
	examples []string // full command lines
	// setup registers the command's options on fs and returns the function
	// that runs the command with the arguments left after the options.
	setup func(fs *flag.FlagSet) func(ctx context.Context, env Env, args []string) error
}

// parse reads options anywhere among the arguments, so that
// "perft <position> 5 --max-laps 50" works as well as options first.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var rest []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return rest, nil
		}
		if args[0] == "--" {
			return append(rest, args[1:]...), nil
		}
		rest = append(rest, args[0])
		args = args[1:]
	}
}

// usageError marks errors in the command line; they exit with status 2 and
// point at the command's help.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

var commands map[string]*command

func init() {
	commands = map[string]*command{}
	for _, c := range []*command{applyCommand, dbCommand, perftCommand, showCommand, replayCommand, reviewCommand, engineCommand, playCommand, analyzeCommand, arenaCommand, benchCommand, tuneCommand, serveCommand, siteCommand, egtbCommand, solveCommand, loadtestCommand, adminCommand, botCommand} {
		commands[c.name] = c
	}
}

// Run runs the endodoi command with the given arguments (without the
// program name) and returns the process exit status: 0 on success, 1 when
// the work failed, 2 for a bad command line.
func Run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		args = []string{serveCommand.name} // the browser game
	}
	name, rest := args[0], args[1:]
	switch name {
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 {
			if c, ok := commands[rest[0]]; ok {
				printCommandHelp(env.Stdout, c)
				return 0
			}
			fmt.Fprintf(env.Stderr, "endodoi: no command %q; run 'endodoi help' for the list\n", rest[0])
			return 2
		}
		printHelp(env.Stdout)
		return 0
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(env.Stderr, "endodoi: unknown command %q; run 'endodoi help' for the list\n", name)
		return 2
	}
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	run := c.setup(fs)
	operands, err := parse(fs, rest)
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		err = &usageError{msg: err.Error()}
	}
	if err == nil {
		err = run(ctx, env, operands)
	}
	var ue *usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		printCommandHelp(env.Stdout, c)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(env.Stderr, "endodoi %s: %v\nusage: endodoi %s %s\nrun 'endodoi help %s' for details\n", c.name, err, c.name, c.usage, c.name)
		return 2
	}
	fmt.Fprintf(env.Stderr, "endodoi %s: %v\n", c.name, err)
	return 1
}

func printHelp(w io.Writer) {
	fmt.Fprint(w, `endodoi: En Dodoi, the two-row relay-sowing mancala of the Maasai

Usage: endodoi [command] [arguments]

With no command, endodoi starts the browser game (endodoi serve) and prints
the address to open.

Commands:
`)
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `  help     show this list, or 'endodoi help <command>' for one command

Examples:
`)
	for _, n := range names {
		if ex := commands[n].examples; len(ex) > 0 {
			fmt.Fprintf(w, "  %s\n", ex[0])
		}
	}
	fmt.Fprint(w, `
A position is written <South's holes a..>/<North's holes A..> <s|n> <South's captured> <North's captured>,
for example '4,4,4,4,4,4/4,4,4,4,4,4 s 0 0'; a move is a hole letter: a.. for South, A.. for North.
The rules the program plays are in docs/rules.md.
`)
}

func printCommandHelp(w io.Writer, c *command) {
	fmt.Fprintf(w, "endodoi %s: %s\n\nUsage: endodoi %s %s\n", c.name, c.summary, c.name, c.usage)
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	c.setup(fs)
	var b strings.Builder
	fs.SetOutput(&b)
	fs.PrintDefaults()
	if b.Len() > 0 {
		fmt.Fprintf(w, "\nOptions:\n%s", b.String())
	}
	if len(c.examples) > 0 {
		fmt.Fprintf(w, "\nExamples:\n")
		for _, ex := range c.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}
