package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

// rulesFlags are the rules options shared by several commands.
type rulesFlags struct {
	variant string
	maxLaps int
}

func (f *rulesFlags) register(fs *flag.FlagSet) {
	names := make([]string, 0, 2)
	for _, v := range rules.Variants() {
		names = append(names, v.String())
	}
	fs.StringVar(&f.variant, "variant", rules.Standard.String(), "rules variant: "+strings.Join(names, ", "))
	fs.IntVar(&f.maxLaps, "max-laps", rules.DefaultMaxLaps, "lap cap: a sowing not ended after this many laps is endless")
}

func (f *rulesFlags) rules() (rules.Rules, error) {
	v, err := rules.ParseVariant(f.variant)
	if err != nil {
		return rules.Rules{}, usagef("--variant: %v", err)
	}
	if f.maxLaps < 1 || f.maxLaps > rules.MaxMaxLaps {
		return rules.Rules{}, usagef("--max-laps %d out of range (1 to %d)", f.maxLaps, rules.MaxMaxLaps)
	}
	return rules.NewRules(v, f.maxLaps)
}

// positionAndRules reads the position operand and the rules options.
func (f *rulesFlags) positionAndRules(args []string) (rules.Position, rules.Rules, error) {
	p, err := positionOperand(args)
	if err != nil {
		return p, rules.Rules{}, err
	}
	r, err := f.rules()
	return p, r, err
}

// positionOperand reads a position given either as one argument or as its
// four space-separated fields in separate arguments (the shell splits an
// unquoted position). The keyword "start" gives the default start.
func positionOperand(args []string) (rules.Position, error) {
	if len(args) == 1 && args[0] == "start" {
		return rules.NewPosition(rules.DefaultHoles, rules.DefaultStartSeeds)
	}
	p, err := rules.ParsePosition(strings.Join(args, " "))
	if err != nil {
		return p, usagef("%v", err)
	}
	return p, nil
}

// inRange returns the usage error of option name's value v outside lo to
// hi, and nil within.
func inRange(name string, v, lo, hi int) error {
	if v < lo || v > hi {
		return usagef("--%s %d out of range (%d to %d)", name, v, lo, hi)
	}
	return nil
}

// unlessQuiet returns where progress goes: w, or nowhere (nil) when quiet.
func unlessQuiet(w io.Writer, quiet bool) io.Writer {
	if quiet {
		return nil
	}
	return w
}

// interruptible returns ctx cancelled also by Ctrl-C or SIGTERM.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// openTablebase opens the endgame databases in dir (none when dir is
// empty) for boards of holes a row under r; when dir holds none for them,
// it says so on standard error and returns nil, and the command goes on
// without.
func openTablebase(env Env, dir string, holes int, r rules.Rules) (*egtb.Tablebase, error) {
	if dir == "" {
		return nil, nil
	}
	tb, err := egtb.Open(dir, holes, r)
	if errors.Is(err, egtb.ErrNotFound) {
		fmt.Fprintf(env.Stderr, "note: no endgame database for %d holes a row under %s in %s\n", holes, r, dir)
		return nil, nil
	}
	return tb, err
}
