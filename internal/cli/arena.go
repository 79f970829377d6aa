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

	"github.com/endodoi/endodoi/arena"
	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/rules"
)

var arenaCommand = &command{
	name:    "arena",
	summary: "play a match between two engine settings or bots and measure the Elo difference",
	usage:   "[options] <playerA> <playerB>",
	examples: []string{
		"endodoi arena --games 200 --holes 6 'time=100ms' baseline",
		"endodoi arena 'level=5' 'level=4'",
		"endodoi arena 'cmd=./mybot --fast;time=50ms' 'level=10'",
		"endodoi arena --concurrency 2 --sprt 0,10 'depth=7' 'depth=6'",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		var rf rulesFlags
		rf.register(fs)
		games := fs.Int("games", 100, "number of games, two per opening (one with each player as South)")
		holes := fs.Int("holes", rules.DefaultHoles, "holes per row")
		seeds := fs.Int("seeds", rules.DefaultStartSeeds, "seeds per hole at the start")
		plies := fs.Int("openings-plies", arena.DefaultOpeningPlies, "random plies played from the start to make each opening")
		balanced := fs.Int("balanced", 0, "keep only openings whose expected final margin (depth-10 search) is within this many seeds; 0 keeps all")
		seed := fs.Uint64("seed", 1, "seed of the random openings (and of level players' randomness)")
		concurrency := fs.Int("concurrency", 1, "games played at once")
		maxPlies := fs.Int("max-plies", arena.DefaultMaxPlies, "a game reaching this many plies is stopped and counted as a draw")
		sprt := fs.String("sprt", "", "stop early with an SPRT: `elo0,elo1[,alpha,beta]` (alpha and beta default to 0.05)")
		quiet := fs.Bool("quiet", false, "print no progress on standard error")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) != 2 {
				return usagef("want two players, A and B (got %d arguments); %s", len(args), arena.SpecSyntax)
			}
			r, err := rf.rules()
			if err != nil {
				return err
			}
			var specs [2]arena.Spec
			for i, a := range args {
				if specs[i], err = arena.ParseSpec(a); err != nil {
					return usagef("player %c %q: %v; %s", 'A'+i, a, err, arena.SpecSyntax)
				}
			}
			switch {
			case *games < 1 || *games > arena.MaxGames:
				return usagef("--games %d out of range (1 to %d)", *games, arena.MaxGames)
			case *holes < rules.MinHoles || *holes > rules.MaxHoles:
				return usagef("--holes %d out of range (%d to %d)", *holes, rules.MinHoles, rules.MaxHoles)
			case *seeds < rules.MinStartSeeds || *seeds > rules.MaxStartSeeds:
				return usagef("--seeds %d out of range (%d to %d)", *seeds, rules.MinStartSeeds, rules.MaxStartSeeds)
			case *plies < 0 || *plies > arena.MaxOpeningPlies:
				return usagef("--openings-plies %d out of range (0 to %d)", *plies, arena.MaxOpeningPlies)
			case *concurrency < 1 || *concurrency > arena.MaxConcurrency:
				return usagef("--concurrency %d out of range (1 to %d)", *concurrency, arena.MaxConcurrency)
			case *balanced < 0:
				return usagef("--balanced %d: want 0 (all openings) or a number of seeds", *balanced)
			case *maxPlies <= *plies:
				return usagef("--max-plies %d must be more than --openings-plies %d", *maxPlies, *plies)
			}
			cfg := arena.Config{
				Rules: r, Holes: *holes, Seeds: *seeds, Games: *games, OpeningPlies: *plies,
				Seed: *seed, Concurrency: *concurrency, MaxPlies: *maxPlies, Balanced: *balanced,
			}
			if *sprt != "" {
				sc, err := arena.ParseSPRT(*sprt)
				if err != nil {
					return usagef("--sprt %q: %v", *sprt, err)
				}
				cfg.SPRT = &sc
			}

			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			pp := &progressPrinter{w: env.Stderr, tty: terminal.IsTerminal(env.Stderr), total: *games}
			defer pp.finish()
			var progress func(arena.Stats)
			if !*quiet {
				progress = pp.update
			}
			st, err := arena.Run(ctx, cfg, specs[0].Factory(r, *seed), specs[1].Factory(r, ^*seed), progress)
			pp.finish()
			interrupted := err != nil && ctx.Err() != nil
			if err != nil && !interrupted {
				return err
			}
			arena.WriteReport(env.Stdout, cfg, specs, st, interrupted)
			if interrupted {
				return errors.New("interrupted")
			}
			return nil
		}
	},
}

// progressPrinter shows a match's progress: one line rewritten in place on
// a terminal, otherwise a line at every tenth of the games.
type progressPrinter struct {
	w       io.Writer
	tty     bool
	total   int
	decile  int // tenths of the games reported so far (not on a terminal)
	lastLen int // length of the line on the terminal
}

func (p *progressPrinter) update(st arena.Stats) {
	line := arena.ProgressLine(st)
	if p.tty {
		pad := ""
		if n := p.lastLen - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.lastLen = len(line)
		return
	}
	if d := st.Played * 10 / p.total; d > p.decile {
		p.decile = d
		fmt.Fprintln(p.w, line)
	}
}

// finish ends the terminal's progress line, once.
func (p *progressPrinter) finish() {
	if p.tty && p.lastLen > 0 {
		fmt.Fprintln(p.w)
		p.lastLen = 0
	}
}
