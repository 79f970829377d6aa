package arena

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParseSPRT reads an SPRT's settings, "elo0,elo1[,alpha,beta]".
func ParseSPRT(s string) (SPRTConfig, error) {
	parts := strings.Split(s, ",")
	if len(parts) != 2 && len(parts) != 4 {
		return SPRTConfig{}, errors.New("want elo0,elo1 or elo0,elo1,alpha,beta")
	}
	var v [4]float64
	for i, p := range parts {
		x, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return SPRTConfig{}, fmt.Errorf("%q is not a number", p)
		}
		v[i] = x
	}
	c := SPRTConfig{Elo0: v[0], Elo1: v[1], Alpha: v[2], Beta: v[3]}
	if len(parts) == 4 && (c.Alpha == 0 || c.Beta == 0) {
		return SPRTConfig{}, errors.New("alpha and beta must be above 0")
	}
	if err := c.Validate(); err != nil {
		return SPRTConfig{}, err
	}
	return c, nil
}

// ProgressLine sums up a match in progress on one line.
func ProgressLine(st Stats) string {
	elo, lo, hi := st.Elo()
	left := "?"
	if st.Played > 0 && st.Played < st.Total {
		left = roundDuration(st.Elapsed * time.Duration(st.Total-st.Played) / time.Duration(st.Played)).String()
	} else if st.Played == st.Total {
		left = "0s"
	}
	return fmt.Sprintf("games %d/%d  W-D-L %d-%d-%d  Elo %s ± %s  elapsed %s  left %s",
		st.Played, st.Total, st.Wins, st.Draws, st.Losses, FormatElo(elo), halfWidth(lo, hi),
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

// WriteReport writes the report of a match between the players of specs,
// played under cfg, or of its games so far when interrupted.
func WriteReport(w io.Writer, cfg Config, specs [2]Spec, st Stats, interrupted bool) {
	fmt.Fprintf(w, "Player A:  %s\n", specs[0])
	fmt.Fprintf(w, "Player B:  %s\n", specs[1])
	fmt.Fprintf(w, "Board:     %d holes a row, %d seeds a hole; rules: %s\n", cfg.Holes, cfg.Seeds, cfg.Rules)
	balance := ""
	if cfg.Balanced > 0 {
		balance = fmt.Sprintf(", kept when within %d seeds by a depth-%d search", cfg.Balanced, BalanceDepth)
	}
	fmt.Fprintf(w, "Openings:  %s from the start%s, seed %d; A plays South in games 1, 3, 5, ...\n",
		arenaCount(cfg.OpeningPlies, "random ply", "random plies"), balance, cfg.Seed)
	games := fmt.Sprintf("%d of %d", st.Played, st.Total)
	switch {
	case interrupted:
		games += " (interrupted)"
	case st.SPRT != nil && st.SPRT.Verdict != Continue:
		games += " (stopped by the SPRT)"
	}
	fmt.Fprintf(w, "Games:     %s\n", games)
	fmt.Fprintf(w, "Result:    %s, %s, %s for A (W-D-L %d-%d-%d)\n",
		arenaCount(st.Wins, "win", "wins"), arenaCount(st.Draws, "draw", "draws"), arenaCount(st.Losses, "loss", "losses"),
		st.Wins, st.Draws, st.Losses)
	fmt.Fprintf(w, "Score:     %.1f%%\n", 100*st.Score())
	elo, lo, hi := st.Elo()
	fmt.Fprintf(w, "Elo:       %s ± %s (95%% interval %s to %s)\n", FormatElo(elo), halfWidth(lo, hi), FormatElo(lo), FormatElo(hi))
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
