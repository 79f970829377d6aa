package grade

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Write prints the review as a table, one move a line (its grade, the
// seeds it lost, the best move, that move's value for the mover and the
// best line), then the evaluation and each player's accuracy, with the
// figures the browser game's review shows. south and north name the
// players; empty names are left out.
func (rv *Review) Write(w io.Writer, south, north string) error {
	names := map[string]string{"s": "South", "n": "North"}
	players := map[string]string{"s": "South", "n": "North"}
	for side, name := range map[string]string{"s": south, "n": north} {
		if name != "" {
			players[side] += " (" + name + ")"
		}
	}
	fmt.Fprintf(w, "%d moves graded, %d nodes a position; values in seeds for the mover, exact when proven\n\n", len(rv.Plies), rv.Nodes)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ply\tmover\tmove\tgrade\tlost\tbest\tvalue\tbest line")
	for _, p := range rv.Plies {
		label := p.Label
		if p.Forced {
			label += " (forced)"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Ply, names[p.Side], p.Move, label, seeds(p.Loss),
			p.Best, value(p.BestScore, p.BestExact), strings.Join(p.PV, " "))
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("writing the review: %w", err)
	}
	if n := len(rv.Evaluation); n > 0 {
		fmt.Fprintf(w, "\nexpected final margin from South's side: %s at the start, %s at the end\n",
			value(rv.Evaluation[0].South, rv.Evaluation[0].Exact), value(rv.Evaluation[n-1].South, rv.Evaluation[n-1].Exact))
	}
	for _, side := range []string{"s", "n"} {
		pl, ok := rv.Players[side]
		if !ok {
			continue
		}
		if pl.Accuracy == nil {
			fmt.Fprintf(w, "%s: every move was forced\n", players[side])
			continue
		}
		_, err := fmt.Fprintf(w, "%s: accuracy %s%%; %s, %s, %s; %s seeds lost a move on average\n", players[side],
			strconv.FormatFloat(*pl.Accuracy, 'f', -1, 64), count(pl.Counts["blunder"], "blunder", "blunders"),
			count(pl.Counts["mistake"], "mistake", "mistakes"), count(pl.Counts["inaccuracy"], "inaccuracy", "inaccuracies"),
			seeds(pl.MeanLoss))
		if err != nil {
			return fmt.Errorf("writing the review: %w", err)
		}
	}
	return nil
}

// seeds writes a number of seeds as the review holds it, to the hundredth.
func seeds(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// value writes a signed value, marked exact when proven.
func value(x float64, exact bool) string {
	s := seeds(x)
	if x > 0 {
		s = "+" + s
	}
	if exact {
		s += " exact"
	}
	return s
}

func count(n int, one, other string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + other
}
