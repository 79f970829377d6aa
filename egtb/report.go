package egtb

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// BuildReport sums up a build: what it built and how long it took.
type BuildReport struct {
	Holes, MaxSeeds int
	Rules           rules.Rules // canonical, as the files name them
	Dir             string
	Stats           []CountStats // the counts solved in this run
	Loaded          int          // counts read from the files of an earlier build
	// Finished is the number of counts, from 0, that are built: all of
	// them after a build, fewer after an interrupted one.
	Finished int
	Elapsed  time.Duration
}

// BuildWithReport runs Build and sums it up. opt.Progress, if set, is
// called as Build calls it. An interrupted build returns a report whose
// Finished says how far it got, and an error wrapping ctx's that says it
// too, and how to resume.
func BuildWithReport(ctx context.Context, opt Options) (*Tablebase, BuildReport, error) {
	rep := BuildReport{Holes: opt.Holes, MaxSeeds: opt.MaxSeeds, Rules: opt.Rules.Canonical(), Dir: opt.Dir}
	var last Progress
	progress := opt.Progress
	opt.Progress = func(p Progress) {
		last = p // Build calls Progress from one goroutine at a time, the last time before it returns
		if progress != nil {
			progress(p)
		}
	}
	start := time.Now()
	tb, err := Build(ctx, opt)
	rep.Elapsed, rep.Loaded = time.Since(start), last.Loaded
	if err != nil {
		if errors.Is(err, context.Canceled) {
			rep.Finished = last.Seeds
			err = rep.interrupted(err)
		}
		return nil, rep, err
	}
	rep.Stats, rep.Finished = tb.Stats(), opt.MaxSeeds+1
	return tb, rep, nil
}

// interrupted returns the error of a build interrupted with err.
func (r BuildReport) interrupted(err error) error {
	if r.Finished == 0 {
		return &interruptedError{"interrupted before any count was finished", err}
	}
	return &interruptedError{fmt.Sprintf("interrupted while solving %d seeds; counts 0 to %d are finished in %s: run the same command again to resume",
		r.Finished, r.Finished-1, r.Dir), err}
}

// interruptedError is an interruption's error: a message of its own,
// wrapping the context's error.
type interruptedError struct {
	msg string
	err error
}

func (e *interruptedError) Error() string { return e.msg }
func (e *interruptedError) Unwrap() error { return e.err }

// Positions returns the positions of every count built, South to move.
func (r BuildReport) Positions() uint64 { return CumulativeSize(r.Holes, r.MaxSeeds) }

// Bytes returns the size of the counts' files.
func (r BuildReport) Bytes() uint64 {
	return r.Positions() + uint64(r.MaxSeeds+1)*headerSize
}

// Solved returns the positions solved in this run; the others were read.
func (r BuildReport) Solved() uint64 {
	var n uint64
	for _, c := range r.Stats {
		n += c.Positions
	}
	return n
}

// Write writes the report: a line per count solved (WriteStats), what was
// built, and the rate of this run.
func (r BuildReport) Write(w io.Writer) {
	WriteStats(w, r.Stats)
	fmt.Fprintf(w, "built %d holes a row, 0 to %d seeds, %s: %d positions (South to move; North's are their mirror images), %d bytes in %s\n",
		r.Holes, r.MaxSeeds, r.Rules, r.Positions(), r.Bytes(), r.Dir)
	if r.Loaded > 0 {
		fmt.Fprintf(w, "%d counts were already built and were read from their files\n", r.Loaded)
	}
	fmt.Fprintf(w, "time %v, %.2f M positions/s\n", r.Elapsed.Round(time.Millisecond), float64(r.Solved())/max(r.Elapsed.Seconds(), 1e-9)/1e6)
}

// String names the count a build or a solution is at: "7 of 12 seeds".
func (p Progress) String() string { return fmt.Sprintf("%d of %d seeds", p.Seeds, p.MaxSeeds) }

// Rate is "1.9 M pos/s": the positions a build solves a second so far
// (its work is two passes a position), or "" before any time passed.
func (p Progress) Rate() string {
	if p.Elapsed <= 0 {
		return ""
	}
	return fmt.Sprintf("%.1f M pos/s", float64(p.Done)/2/p.Elapsed.Seconds()/1e6)
}

// WriteStats writes a build's figures, a line per seed count: positions,
// moves that stay within the count, the shares won, lost and drawn by the
// side to move, and the time each took. It writes nothing for no counts.
func WriteStats(w io.Writer, st []CountStats) {
	if len(st) == 0 {
		return
	}
	fmt.Fprintf(w, "%5s %14s %14s %8s %8s %8s %10s %12s\n", "seeds", "positions", "moves within", "won", "lost", "zero", "time", "positions/s")
	for _, c := range st {
		fmt.Fprintf(w, "%5d %14d %14d %7.2f%% %7.2f%% %7.2f%% %10v %12.0f", c.Seeds, c.Positions, c.Moves,
			pct(c.Won, c.Positions), pct(c.Lost, c.Positions), pct(c.Positions-c.Won-c.Lost, c.Positions),
			c.Time.Round(time.Millisecond), float64(c.Positions)/max(c.Time.Seconds(), 1e-9))
		fmt.Fprintln(w)
	}
}

// pct returns a as a percentage of b, 0 when b is.
func pct(a, b uint64) float64 {
	if b == 0 {
		return 0
	}
	return 100 * float64(a) / float64(b)
}

// WriteVerdict writes a line with the value of p for its side to move and
// how the game ends with best play; for a position with more seeds on the
// board than the databases hold, a line that says so (the engine then
// probes them in its search).
func (tb *Tablebase) WriteVerdict(w io.Writer, p rules.Position) error {
	v, err := tb.Value(p)
	switch {
	case err == nil:
		fmt.Fprintf(w, "tablebase: value %s for %s to move, %s\n", Signed(v), p.ToMove(), Describe(p, v))
	case errors.Is(err, ErrBeyond):
		fmt.Fprintf(w, "tablebase: holds up to %d seeds on the board (this position has %d); probed in the search\n", tb.MaxSeeds(), p.OnBoard())
	default:
		return err
	}
	return nil
}

// WriteProbe writes what the databases know of p: its value for the side
// to move, every legal move's value, the best marked with a star, and a
// best line. For a position with more seeds on the board than the
// databases hold, it writes nothing and returns an error wrapping
// ErrBeyond that says what to build.
func (tb *Tablebase) WriteProbe(w io.Writer, p rules.Position) error {
	v, err := tb.Value(p)
	if errors.Is(err, ErrBeyond) {
		return &beyondError{fmt.Sprintf("%s has %d seeds on the board, but the databases in %s for %d holes a row hold positions with at most %d; build more with: endodoi egtb build --holes %d --max-seeds %d --dir %s",
			p, p.OnBoard(), tb.dir, tb.holes, tb.max, tb.holes, p.OnBoard(), tb.dir)}
	}
	if err != nil {
		return err
	}
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

// WriteSolvePlan writes what Solve is given, p under opt.Rules, and how it
// will go about it: a complete solution, or a search when that would take
// more than opt.Memory. It is the head of the report of endodoi solve,
// whose --memory sets opt.Memory; Solution.Write writes the rest.
func WriteSolvePlan(w io.Writer, p rules.Position, opt SolveOptions) {
	fmt.Fprintf(w, "position: %s\n", p)
	fmt.Fprintf(w, "board: %d holes a row, %d seeds on the board, %s\n", p.Holes(), p.OnBoard(), opt.Rules)
	if need := SolveMemory(p.Holes(), p.OnBoard()); opt.searches(p) {
		fmt.Fprintf(w, "method: search with the endgame databases (a complete solution would take about %.1f GiB, more than --memory %.4g)\n",
			need/(1<<30), opt.Memory/(1<<30))
		return
	}
	fmt.Fprintf(w, "method: retrograde analysis of every position with up to %d seeds on the board: %d positions with South to move (as many with North, their mirror images)\n",
		p.OnBoard(), CumulativeSize(p.Holes(), p.OnBoard()))
}

// String is the report's line of a bounding search.
func (b Bound) String() string {
	if b.Test != "" {
		held := "not yet"
		if b.Held {
			held = "holds"
		}
		return fmt.Sprintf("test of the %s bound at %s, depth %d: %s (%d nodes, %v); bounds %s to %s", b.Test, Signed(b.Target), b.Depth, held,
			b.Nodes, b.Elapsed.Round(time.Millisecond), Signed(b.Lo), Signed(b.Hi))
	}
	if b.Resumed {
		table := ""
		switch {
		case b.Deeper:
			table = " (made over databases of fewer seeds: the search goes on over these with an empty table)"
		case b.Cold:
			table = " (its table not found: the search goes on with an empty one)"
		}
		return fmt.Sprintf("resumed from the checkpoint%s: bounds at depth %d: %s to %s (%d nodes, %v in the runs before)", table, b.Depth, Signed(b.Lo), Signed(b.Hi), b.Nodes, b.Elapsed.Round(time.Second))
	}
	return fmt.Sprintf("bounds at depth %d: %s to %s (%d nodes, %v)", b.Depth, Signed(b.Lo), Signed(b.Hi), b.Nodes, b.Elapsed.Round(time.Millisecond))
}

// Write writes what Solve found for p under opt: the databases and the
// engine's search it used, the time and memory taken, and the value with a
// line of best play, or the bounds when the value is not known.
func (sol Solution) Write(w io.Writer, p rules.Position, opt SolveOptions) {
	if tb := sol.Databases; tb != nil {
		fmt.Fprintf(w, "databases: %s, up to %d seeds on the board\n", tb.Dir(), tb.MaxSeeds())
	}
	if res := sol.Engine; res != nil {
		kind := " (estimate)"
		if res.Exact {
			kind = " (exact)"
		}
		fmt.Fprintf(w, "engine search: depth %d, %d nodes, %v, score %s%s\n", res.Depth, res.Nodes, res.Elapsed.Round(time.Millisecond), res.scoreText(), kind)
		switch {
		case sol.Confirmed:
			fmt.Fprintf(w, "the bounds confirm the engine's value at depth %d\n", sol.Bounds.Depth)
		case res.Exact:
			fmt.Fprintf(w, "the bounds did not meet in the time left; the value rests on the engine's search alone\n")
		}
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	fmt.Fprintf(w, "time %v, memory %.2f GiB\n", sol.Elapsed.Round(time.Millisecond), float64(ms.Sys)/(1<<30))
	if !sol.Solved {
		estimate := "none"
		if sol.Engine != nil {
			estimate = sol.Engine.scoreText()
		}
		fmt.Fprintf(w, "not solved: searched %v; the bounds of depth %d hold, the engine's estimate is %s\n", opt.SearchTime, sol.Bounds.Depth, estimate)
		fmt.Fprintf(w, "value unknown, between %s and %s\n", Signed(sol.Bounds.Lo), Signed(sol.Bounds.Hi))
		return
	}
	if sol.PVProven {
		writeLine(w, p, sol.PV, opt.Rules)
	} else {
		fmt.Fprintf(w, "the line the engine expects (its score is an estimate, the line is not proven best): %s\n", rules.MoveList(sol.PV))
	}
	fmt.Fprintf(w, "result: %s\n", Describe(p, sol.Value))
	fmt.Fprintf(w, "value %s\n", Signed(SouthValue(p, sol.Value)))
}

// scoreText is the engine's score as the engine writes it, or in seeds
// with two decimals when the search did not say.
func (res *EngineResult) scoreText() string {
	if res.ScoreText != "" {
		return res.ScoreText
	}
	return fmt.Sprintf("%+.2f", float64(res.Score)/100)
}

// writeLine writes a principal variation from p and where it ends: the
// end of the game, or a cycle that the repetition rule ends.
func writeLine(w io.Writer, p rules.Position, line []rules.Move, r rules.Rules) {
	if len(line) == 0 {
		fmt.Fprintf(w, "principal variation: none\n")
	} else {
		fmt.Fprintf(w, "principal variation (%d moves): %s\n", len(line), rules.MoveList(line))
	}
	end := p
	for _, m := range line {
		end, _ = end.Play(m, r)
	}
	if !end.HasLegalMove(r) {
		f := end.Final()
		fmt.Fprintf(w, "it ends: %s has no legal move; %s\n", end.ToMove(), rules.ResultText(f.Captured(rules.South), f.Captured(rules.North)))
		return
	}
	fmt.Fprintf(w, "it reaches %s, where the best moves go round a cycle: the repetition rule ends the game with the seeds on the board counting for neither\n", end)
}
