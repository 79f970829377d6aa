package egtb

import (
	"fmt"
	"io"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// WriteStats writes a build's figures, a line per seed count: positions,
// moves that stay within the count, the shares won, lost and drawn by the
// side to move, and the time each took. It writes nothing for no counts.
func WriteStats(w io.Writer, st []CountStats) {
	if len(st) == 0 {
		return
	}
	fmt.Fprintf(w, "%5s %14s %14s %8s %8s %8s %10s %12s\n", "seeds", "positions", "moves within", "won", "lost", "zero", "time", "positions/s")
	for _, c := range st {
		fmt.Fprintf(w, "%5d %14d %14d %7.2f%% %7.2f%% %7.2f%% %10v %12.0f\n", c.Seeds, c.Positions, c.Moves,
			pct(c.Won, c.Positions), pct(c.Lost, c.Positions), pct(c.Positions-c.Won-c.Lost, c.Positions),
			c.Time.Round(time.Millisecond), float64(c.Positions)/max(c.Time.Seconds(), 1e-9))
	}
}

// pct returns a as a percentage of b, 0 when b is.
func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// WriteProbe writes what the databases know of p, whose value for the side
// to move is v (from Value): the value, every legal move's value, the best
// marked with a star, and a best line.
func (tb *Tablebase) WriteProbe(w io.Writer, p rules.Position, v int) error {
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "value: %s for %s to move (%s)\n", Signed(v), p.ToMove(), Describe(p, v))
	moves, err := tb.Moves(p)
	if err != nil {
		return err
	}
	if len(moves) == 0 {
		fmt.Fprintf(w, "%s\n", rules.GameOverText(p, -1))
		return nil
	}
	for _, mv := range moves {
		note := ""
		if mv.Captures > 0 {
			note = fmt.Sprintf("  (captures %d)", mv.Captures)
		}
		best := " "
		if mv.Value == v {
			best = "*"
		}
		fmt.Fprintf(w, "%s %s  %s%s\n", best, mv.Move, Signed(mv.Value), note)
	}
	pv, err := tb.PV(p, 40)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "line: %s\n", rules.MoveList(pv))
	return nil
}

// Signed writes a value with an explicit sign, and 0 as "0".
func Signed(v int) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%+d", v)
}
