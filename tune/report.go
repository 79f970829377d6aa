package tune

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// FormatWeights writes weights as Go code, ready to paste into
// engine.DefaultWeights: "Weights{RowSeeds: 25, Occupied: 15, ...}".
func FormatWeights(w engine.Weights) string {
	var b strings.Builder
	b.WriteString("Weights{")
	for i, name := range weightNames {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s: %d", name, *field(&w, i))
	}
	b.WriteString("}")
	return b.String()
}

// ParseWeights reads the five weights, in hundredths of a seed, separated
// by commas, in the order RowSeeds, Occupied, Singletons, Targets, Tempo.
func ParseWeights(s string) (engine.Weights, error) {
	f := strings.Split(s, ",")
	if len(f) != len(weightNames) {
		return engine.Weights{}, fmt.Errorf("want %d comma-separated numbers, got %d", len(weightNames), len(f))
	}
	var w engine.Weights
	for i, x := range f {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil {
			return engine.Weights{}, fmt.Errorf("%q is not a whole number", x)
		}
		*field(&w, i) = engine.Score(n)
	}
	return w, nil
}

// ParseBoards reads the boards to play (Config.Boards): their holes a
// row, from rules.MinHoles to rules.MaxHoles, separated by commas.
func ParseBoards(s string) ([]int, error) {
	var holes []int
	for _, f := range strings.Split(s, ",") {
		h, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || h < rules.MinHoles || h > rules.MaxHoles {
			return nil, fmt.Errorf("%q is not a number of holes from %d to %d", f, rules.MinHoles, rules.MaxHoles)
		}
		holes = append(holes, h)
	}
	return holes, nil
}

// String is the match's line of a tuning run's report: the weight tried,
// the candidate, its score and whether it was kept, and the time since
// the run began.
func (m Match) String() string {
	verdict := "rejected"
	if m.Kept {
		verdict = "kept"
	}
	return fmt.Sprintf("pass %d  %-10s -> %s  score %.1f%% of %d games  %s  (%v)", m.Pass, m.Weight,
		FormatWeights(m.Candidate), 100*m.Score, m.Games, verdict, m.Elapsed.Round(time.Second))
}

// WriteRun runs cfg from the weights start and writes its report: the
// starting weights, a line for each match, the tuned weights, and with
// verify game pairs above 0 the tuned weights' score against start in a
// match of fresh openings (Verify).
func WriteRun(ctx context.Context, w io.Writer, cfg Config, start engine.Weights, verify int) error {
	fmt.Fprintf(w, "start: %s\n", FormatWeights(start))
	best, err := Run(ctx, cfg, start, func(m Match) { fmt.Fprintln(w, m) })
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "tuned: %s\n", FormatWeights(best))
	if verify > 0 {
		score, games, err := Verify(ctx, cfg, best, start, verify)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "verify: tuned against start, %d fresh games at depth %d: %.1f%%\n", games, cfg.Depth, 100*score)
	}
	return nil
}

// Verify plays tuned against start on pairs fresh openings (of another
// seed than the run's), as cfg's matches are played, and returns tuned's
// score fraction and the number of games: a check, free of the selection
// that the run's matches made, that the tuning gained.
func Verify(ctx context.Context, cfg Config, tuned, start engine.Weights, pairs int) (float64, int, error) {
	openings, err := Openings(cfg.Rules, cfg.Boards, pairs, cfg.OpeningPlies, cfg.Seed+1000)
	if err != nil {
		return 0, 0, err
	}
	return Play(ctx, cfg.Rules, tuned, start, cfg.Depth, openings, cfg.Workers)
}
