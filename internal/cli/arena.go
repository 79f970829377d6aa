package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/arena"
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
				sc, err := parseSPRT(*sprt)
				if err != nil {
					return err
				}
				cfg.SPRT = &sc
			}

			ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
			defer stop()
			pp := &progressPrinter{w: env.Stderr, tty: isTerminal(env.Stderr), total: *games}
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
			printArenaReport(env.Stdout, cfg, specs, st, interrupted)
			if interrupted {
				return errors.New("interrupted")
			}
			return nil
		}
	},
}

// parseSPRT reads "elo0,elo1[,alpha,beta]".
func parseSPRT(s string) (arena.SPRTConfig, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 && len(parts) != 4 {
		return arena.SPRTConfig{}, usagef("--sprt %q: want elo0,elo1 or elo0,elo1,alpha,beta", s)
	}
	var v [4]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return arena.SPRTConfig{}, usagef("--sprt %q: %q is not a number", s, p)
		}
		v[i] = x
	}
	c := arena.SPRTConfig{Elo0: v[0], Elo1: v[1], Alpha: v[2], Beta: v[3]}
	if len(parts) == 4 && (c.Alpha == 0 || c.Beta == 0) {
		return arena.SPRTConfig{}, usagef("--sprt %q: alpha and beta must be above 0", s)
	}
	if err := c.Validate(); err != nil {
		return arena.SPRTConfig{}, usagef("--sprt %q: %v", s, err)
	}
	return c, nil
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
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
	line := progressLine(st)
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

func progressLine(st arena.Stats) string {
	elo, lo, hi := st.Elo()
	left := "?"
	if st.Played > 0 && st.Played < st.Total {
		left = roundDuration(st.Elapsed * time.Duration(st.Total-st.Played) / time.Duration(st.Played)).String()
	} else if st.Played == st.Total {
		left = "0s"
	}
	return fmt.Sprintf("games %d/%d  W-D-L %d-%d-%d  Elo %s ± %s  elapsed %s  left %s",
		st.Played, st.Total, st.Wins, st.Draws, st.Losses, arena.FormatElo(elo), halfWidth(lo, hi),
		roundDuration(st.Elapsed), left)
}

// halfWidth formats half an interval's width.
func halfWidth(lo, hi float64) string {
	w := (hi - lo) / 2
	if math.IsInf(w, 0) || math.IsNaN(w) {
		return "inf"
	}
	return strconv.FormatFloat(w, 'f', 1, 64)
}

func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Minute:
		return d.Round(time.Second)
	case d >= time.Second:
		return d.Round(100 * time.Millisecond)
	}
	return d.Round(time.Millisecond)
}

func arenaCount(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

func printArenaReport(w io.Writer, cfg arena.Config, specs [2]arena.Spec, st arena.Stats, interrupted bool) {
	fmt.Fprintf(w, "Player A:  %s\n", specs[0])
	fmt.Fprintf(w, "Player B:  %s\n", specs[1])
	fmt.Fprintf(w, "Board:     %d holes a row, %d seeds a hole; rules: %s\n", cfg.Holes, cfg.Seeds, cfg.Rules)
	balance := ""
	if cfg.Balanced > 0 {
		balance = fmt.Sprintf(", kept when within %d seeds by a depth-%d search", cfg.Balanced, arena.BalanceDepth)
	}
	fmt.Fprintf(w, "Openings:  %s from the start%s, seed %d; A plays South in games 1, 3, 5, ...\n",
		arenaCount(cfg.OpeningPlies, "random ply", "random plies"), balance, cfg.Seed)
	games := fmt.Sprintf("%d of %d", st.Played, st.Total)
	switch {
	case interrupted:
		games += " (interrupted)"
	case st.SPRT != nil && st.SPRT.Verdict != arena.Continue:
		games += " (stopped by the SPRT)"
	}
	fmt.Fprintf(w, "Games:     %s\n", games)
	fmt.Fprintf(w, "Result:    %s, %s, %s for A (W-D-L %d-%d-%d)\n",
		arenaCount(st.Wins, "win", "wins"), arenaCount(st.Draws, "draw", "draws"), arenaCount(st.Losses, "loss", "losses"),
		st.Wins, st.Draws, st.Losses)
	fmt.Fprintf(w, "Score:     %.1f%%\n", 100*st.Score())
	elo, lo, hi := st.Elo()
	fmt.Fprintf(w, "Elo:       %s ± %s (95%% interval %s to %s)\n", arena.FormatElo(elo), halfWidth(lo, hi), arena.FormatElo(lo), arena.FormatElo(hi))
	fmt.Fprintf(w, "LOS:       %.1f%% (likelihood that A is stronger)\n", 100*st.LOS())
	p := st.Pairs
	fmt.Fprintf(w, "Pairs:     %d %d %d %d %d (pairs where A scored 0, 0.5, 1, 1.5, 2)\n", p[0], p[1], p[2], p[3], p[4])
	if st.ForfeitsA+st.ForfeitsB == 0 {
		fmt.Fprintf(w, "Forfeits:  none\n")
	} else {
		fmt.Fprintf(w, "Forfeits:  A %d, B %d\n", st.ForfeitsA, st.ForfeitsB)
		for _, n := range st.ForfeitNotes {
			fmt.Fprintf(w, "           %s\n", n)
		}
		if more := st.ForfeitsA + st.ForfeitsB - len(st.ForfeitNotes); more > 0 {
			fmt.Fprintf(w, "           and %d more\n", more)
		}
	}
	if st.Capped > 0 {
		fmt.Fprintf(w, "Capped:    %s stopped at %d plies, counted as draws\n", arenaCount(st.Capped, "game", "games"), cfg.MaxPlies)
	}
	if s := st.SPRT; s != nil {
		c := s.Config
		fmt.Fprintf(w, "SPRT:      elo0 %g, elo1 %g, alpha %g, beta %g: LLR %.2f (bounds %.2f, %.2f): %s\n",
			c.Elo0, c.Elo1, c.Alpha, c.Beta, s.LLR, s.Lower, s.Upper, s.Verdict)
	}
	fmt.Fprintf(w, "Time:      %s\n", roundDuration(st.Elapsed))
}
