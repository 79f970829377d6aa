// Command makebook writes the opening book of proven values (package book):
// for each board asked for, every position within a number of plies of its
// start, with the value that egtb.Solve proves for it by search over the
// endgame databases in a folder. A position whose value is not proven in
// the time allowed is left out, and so is every position after it.
//
//	go run ./cmd/makebook --egtb DIR --board standard:6x4:2 [--board ...] > book/book.txt
//
// docs/solutions.md gives the commands that made the shipped book.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/book"
	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/internal/enginesolve"
	"github.com/endodoi/endodoi/rules"
)

type boardsFlag []boardSpec

type boardSpec struct {
	rules        rules.Rules
	holes, seeds int
	plies        int
}

func (b *boardsFlag) String() string { return fmt.Sprint(len(*b)) }

func (b *boardsFlag) Set(s string) error {
	f := strings.Split(s, ":")
	if len(f) != 3 {
		return fmt.Errorf("board %q: want variant:HxS:plies", s)
	}
	v, err := rules.ParseVariant(f[0])
	if err != nil {
		return err
	}
	hs := strings.Split(f[1], "x")
	if len(hs) != 2 {
		return fmt.Errorf("board %q: want HxS, e.g. 6x4", f[1])
	}
	h, err1 := strconv.Atoi(hs[0])
	sd, err2 := strconv.Atoi(hs[1])
	plies, err3 := strconv.Atoi(f[2])
	if err := errors.Join(err1, err2, err3); err != nil {
		return fmt.Errorf("board %q: %w", s, err)
	}
	r, err := rules.NewRules(v, 0)
	if err != nil {
		return err
	}
	*b = append(*b, boardSpec{rules: r, holes: h, seeds: sd, plies: plies})
	return nil
}

func main() {
	var boards boardsFlag
	dir := flag.String("egtb", "egtb", "`folder` of the endgame databases to search with")
	limit := flag.Duration("time", 2*time.Minute, "longest search for one position")
	flag.Var(&boards, "board", "`variant:HxS:plies`, e.g. standard:6x4:2 (repeatable)")
	flag.Parse()
	if len(boards) == 0 {
		fmt.Fprintln(os.Stderr, "makebook: give at least one --board")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	fmt.Println("# The opening book of proven values: variant, lap cap, position, value for the side to move.")
	fmt.Println("# Written by cmd/makebook; see docs/solutions.md.")
	for _, b := range boards {
		if err := write(ctx, os.Stdout, log, *dir, *limit, b); err != nil {
			log.Error("board failed", "board", fmt.Sprintf("%dx%d", b.holes, b.seeds), "err", err)
			os.Exit(1)
		}
	}
}

// write proves and prints the values of every position within b.plies of
// b's start, nearest first.
func write(ctx context.Context, w io.Writer, log *slog.Logger, dir string, limit time.Duration, b boardSpec) error {
	start, err := rules.NewPosition(b.holes, b.seeds)
	if err != nil {
		return err
	}
	tb, err := egtb.Open(dir, b.holes, b.rules)
	if err != nil {
		return fmt.Errorf("databases for %d holes (%s) in %s: %w", b.holes, b.rules, dir, err)
	}
	plies := "plies"
	if b.plies == 1 {
		plies = "ply"
	}
	fmt.Fprintf(w, "# 2x%dx%d %s, positions within %d %s of the start\n", b.holes, b.seeds, b.rules.Variant, b.plies, plies)
	frontier := []rules.Position{start}
	seen := map[rules.Position]bool{start: true}
	for ply := 0; ply <= b.plies && len(frontier) > 0; ply++ {
		var next []rules.Position
		var lines []string
		for _, p := range frontier {
			began := time.Now()
			v, ok, err := prove(ctx, tb, b.rules, p, limit)
			if err != nil {
				return err
			}
			log.Info("position", "ply", ply, "position", p.String(), "proven", ok, "value", v, "took", time.Since(began).Round(time.Millisecond))
			if !ok {
				continue
			}
			lines = append(lines, book.Entry{Rules: b.rules, Position: p, Value: v}.Format())
			for _, m := range p.LegalMoves(b.rules) {
				q, _ := p.Play(m, b.rules)
				q = withoutCaptures(q)
				if !seen[q] && q.HasLegalMove(b.rules) {
					seen[q] = true
					next = append(next, q)
				}
			}
		}
		sort.Strings(lines)
		for _, l := range lines {
			fmt.Fprintln(w, l)
		}
		frontier = next
	}
	return nil
}

// withoutCaptures returns p with no seeds captured: its future does not
// depend on them.
func withoutCaptures(p rules.Position) rules.Position {
	q, _ := rules.NewPositionFromRows(p.Row(rules.South), p.Row(rules.North), p.ToMove(), 0, 0)
	return q
}

// prove returns p's value for the side to move when egtb.Solve proves it
// within limit.
func prove(ctx context.Context, tb *egtb.Tablebase, r rules.Rules, p rules.Position, limit time.Duration) (int, bool, error) {
	if v, ok := tb.Probe(&p); ok {
		return v, true, nil
	}
	sol, err := egtb.Solve(ctx, p, egtb.SolveOptions{Rules: r, Dir: tb.Dir(), SearchTime: limit, Workers: 1,
		Search: enginesolve.Search(r, 0)})
	if err != nil {
		return 0, false, err
	}
	return sol.Value, sol.Solved, nil
}
