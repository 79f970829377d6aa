// Command solvedplay measures how often the engine's levels keep the
// proven value of a position on a solved board: positions are drawn from
// the engine's self-play at level 5 (after a few random opening moves, so
// that the games differ), each position's value and the value each level's
// move keeps are proven by egtb.Solve over large databases, and the levels
// play with what a user has out of the box (the opening book, and the
// databases the server builds by itself). docs/strength.md has the figures
// and the command.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"os/signal"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/enginesolve"
	"github.com/endodoi/endodoi/rules"
)

func main() {
	proofDir := flag.String("proof-egtb", "", "`folder` of the large databases the values are proven with")
	playDir := flag.String("play-egtb", "", "`folder` of the databases the levels play with (empty: none)")
	holes := flag.Int("holes", 6, "holes a row")
	seeds := flag.Int("seeds", 4, "seeds a hole at the start")
	positions := flag.Int("positions", 200, "positions to measure")
	limit := flag.Duration("time", time.Minute, "longest proof of one position")
	seed := flag.Uint64("seed", 1, "random seed of the opening moves")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *proofDir, *playDir, *holes, *seeds, *positions, *limit, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "solvedplay:", err)
		os.Exit(1)
	}
}

type prover struct {
	ctx   context.Context
	r     rules.Rules
	tb    *egtb.Tablebase
	limit time.Duration
	cache map[rules.Position]proof
}

type proof struct {
	value int
	ok    bool
}

// value proves p's value for the side to move (captured seeds aside).
func (pr *prover) value(p rules.Position) (int, bool) {
	key, _ := rules.NewPositionFromRows(p.Row(rules.South), p.Row(rules.North), p.ToMove(), 0, 0)
	if c, ok := pr.cache[key]; ok {
		return c.value, c.ok
	}
	if !key.HasLegalMove(pr.r) {
		pr.cache[key] = proof{-key.OnBoard(), true}
		return -key.OnBoard(), true
	}
	sol, err := egtb.Solve(pr.ctx, key, egtb.SolveOptions{Rules: pr.r, Dir: pr.tb.Dir(), SearchTime: pr.limit, Workers: 1,
		Search: enginesolve.Search(pr.r, 0)})
	ok := err == nil && sol.Solved
	pr.cache[key] = proof{sol.Value, ok}
	return sol.Value, ok
}

// keeps reports whether move m keeps p's proven value v.
func (pr *prover) keeps(p rules.Position, m rules.Move, v int) (bool, bool) {
	q, err := p.Play(m, pr.r)
	if err != nil {
		return false, false
	}
	w, ok := pr.value(q)
	if !ok {
		return false, false
	}
	gain := q.Captured(p.ToMove()) - p.Captured(p.ToMove())
	return gain-w == v, true
}

type sample struct {
	pos     rules.Position
	history []rules.Position
}

func run(ctx context.Context, proofDir, playDir string, holes, seeds, want int, limit time.Duration, seed uint64) error {
	r := rules.DefaultRules()
	proofTB, err := egtb.Open(proofDir, holes, r)
	if err != nil {
		return err
	}
	var playTB engine.Tablebase
	if playDir != "" {
		tb, err := egtb.Open(playDir, holes, r)
		if err != nil {
			return err
		}
		playTB = tb
		slog.Info("levels 9 and 10 play with databases", "maxSeeds", tb.MaxSeeds())
	}
	start, err := rules.NewPosition(holes, seeds)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0))
	selfPlay, err := engine.New(engine.Config{Rules: r, HashMiB: 16})
	if err != nil {
		return err
	}
	// Positions from self-play games: 2 to 5 random moves, then level 5.
	var samples []sample
	for len(samples) < want {
		g, _ := rules.NewGame(start, r)
		random := 2 + rng.IntN(4)
		var game []sample
		for !g.Over() {
			var m rules.Move
			if g.Ply() < random {
				moves := g.LegalMoves()
				m = moves[rng.IntN(len(moves))]
			} else {
				game = append(game, sample{g.Position(), g.History()})
				res, err := selfPlay.PlayLevel(ctx, g.Position(), g.History(), 5, nil)
				if err != nil {
					return err
				}
				m = res.Move
			}
			if err := g.Play(m); err != nil {
				return err
			}
		}
		// Five positions a game, spread over it.
		for i := 0; i < 5 && len(game) > 0 && len(samples) < want; i++ {
			samples = append(samples, game[rng.IntN(len(game))])
		}
	}
	pr := &prover{ctx: ctx, r: r, tb: proofTB, limit: limit, cache: map[rules.Position]proof{}}
	levels := []int{7, 8, 9, 10}
	kept := map[int]int{}
	measured, unproven := 0, 0
	for i, s := range samples {
		v, ok := pr.value(s.pos)
		if !ok {
			unproven++
			continue
		}
		results := map[int]bool{}
		complete := true
		for _, level := range levels {
			cfg := engine.Config{Rules: r, HashMiB: 16}
			if level >= 9 {
				cfg.Tablebase, cfg.Book = playTB, true
			}
			e, err := engine.New(cfg)
			if err != nil {
				return err
			}
			res, err := e.PlayLevel(ctx, s.pos, s.history, level, nil)
			if err != nil {
				return err
			}
			k, ok := pr.keeps(s.pos, res.Move, v)
			if !ok {
				complete = false
				break
			}
			results[level] = k
		}
		if !complete {
			unproven++
			continue
		}
		measured++
		for level, k := range results {
			if k {
				kept[level]++
			}
		}
		slog.Info("position", "n", i+1, "position", s.pos.String(), "value", v, "kept", fmt.Sprint(results))
	}
	fmt.Printf("2×%d×%d: %d positions from level-5 self-play, %d measured (%d left out: a value not proven within %v)\n",
		holes, seeds, len(samples), measured, unproven, limit)
	for _, level := range levels {
		fmt.Printf("level %2d keeps the proven value in %d of %d positions (%.1f%%)\n", level, kept[level], measured,
			100*float64(kept[level])/float64(max(measured, 1)))
	}
	return nil
}
