// Package tune tunes the engine's evaluation weights by self-play: a
// coordinate descent in which each candidate change of one weight plays a
// match against the current weights, and is kept only when it wins it.
package tune

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/endodoi/endodoi/arena"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// Config sets up a tuning run.
type Config struct {
	Rules        rules.Rules
	Boards       []int // holes per row of the boards played, in turn (4 seeds a hole)
	Pairs        int   // game pairs per match: each opening is played with both colours
	Depth        int   // fixed search depth of both sides
	OpeningPlies int   // random plies that make each opening
	Passes       int   // coordinate-descent passes over all weights
	Step         engine.Score
	Accept       float64 // the score a candidate needs to replace the current weights, e.g. 0.52
	Seed         uint64
	Workers      int
}

// Match is the outcome of one candidate's match.
type Match struct {
	Pass      int
	Weight    string
	Candidate engine.Weights
	Score     float64 // the candidate's score fraction
	Games     int
	Kept      bool
	Elapsed   time.Duration // since the run began
}

// weightNames and fields tie each tunable weight to its name.
var weightNames = []string{"RowSeeds", "Occupied", "Singletons", "Targets", "Tempo"}

func field(w *engine.Weights, i int) *engine.Score {
	return [...]*engine.Score{&w.RowSeeds, &w.Occupied, &w.Singletons, &w.Targets, &w.Tempo}[i]
}

// Run tunes from start and returns the best weights found. progress, if
// not nil, receives every match.
func Run(ctx context.Context, cfg Config, start engine.Weights, progress func(Match)) (engine.Weights, error) {
	if len(cfg.Boards) == 0 || cfg.Pairs < 1 || cfg.Depth < 1 || cfg.Passes < 1 || cfg.Step <= 0 {
		return start, fmt.Errorf("tune: incomplete configuration %+v", cfg)
	}
	began := time.Now()
	best := start
	step := cfg.Step
	rng := rand.New(rand.NewPCG(cfg.Seed, 1))
	for pass := 1; pass <= cfg.Passes; pass++ {
		improved := false
		for i, name := range weightNames {
			for _, delta := range []engine.Score{step, -step} {
				cand := best
				*field(&cand, i) += delta
				openings, err := Openings(cfg.Rules, cfg.Boards, cfg.Pairs, cfg.OpeningPlies, rng.Uint64())
				if err != nil {
					return best, err
				}
				score, games, err := Play(ctx, cfg.Rules, cand, best, cfg.Depth, openings, cfg.Workers)
				if err != nil {
					return best, err
				}
				m := Match{Pass: pass, Weight: name, Candidate: cand, Score: score, Games: games, Kept: score >= cfg.Accept,
					Elapsed: time.Since(began)}
				if progress != nil {
					progress(m)
				}
				if m.Kept {
					best = cand
					improved = true
					break
				}
			}
		}
		if !improved {
			step /= 2
			if step == 0 {
				break
			}
		}
	}
	return best, nil
}

// Openings returns pairs positions, cycling through the boards, each made by
// plies random legal moves from the board's 4-seed start (the arena's
// openings).
func Openings(r rules.Rules, boards []int, pairs, plies int, seed uint64) ([]rules.Position, error) {
	per := make([][][]rules.Move, len(boards))
	starts := make([]rules.Position, len(boards))
	for i, h := range boards {
		var err error
		if starts[i], err = rules.NewPosition(h, 4); err != nil {
			return nil, err
		}
		if per[i], err = arena.Openings(starts[i], r, (pairs+len(boards)-1)/len(boards), plies, seed+uint64(i), nil); err != nil {
			return nil, err
		}
	}
	out := make([]rules.Position, 0, pairs)
	for k := 0; len(out) < pairs; k++ {
		i := k % len(boards)
		p := starts[i]
		for _, m := range per[i][k/len(boards)] {
			p, _ = p.Play(m, r)
		}
		out = append(out, p)
	}
	return out, nil
}

// Play plays every opening twice, once with each side for a, at a fixed
// depth, and returns a's score fraction and the number of games.
func Play(ctx context.Context, r rules.Rules, a, b engine.Weights, depth int, openings []rules.Position, workers int) (float64, int, error) {
	workers = max(workers, 1)
	var mu sync.Mutex
	var points float64
	var firstErr error
	work := make(chan rules.Position)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ea, err1 := engine.New(engine.Config{Rules: r, HashMiB: 8, Weights: &a})
			eb, err2 := engine.New(engine.Config{Rules: r, HashMiB: 8, Weights: &b})
			for start := range work {
				var got float64
				var err error
				if err1 != nil || err2 != nil {
					err = fmt.Errorf("tune: %v %v", err1, err2)
				}
				for _, aSouth := range []bool{true, false} {
					if err != nil {
						break
					}
					var pts float64
					pts, err = game(ctx, r, ea, eb, depth, start, aSouth)
					got += pts
				}
				mu.Lock()
				points += got
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	for _, o := range openings {
		if ctx.Err() != nil {
			break
		}
		work <- o
	}
	close(work)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	games := 2 * len(openings)
	return points / float64(games), games, firstErr
}

// game plays one game and returns a's points: 1, 1/2 or 0.
func game(ctx context.Context, r rules.Rules, a, b *engine.Engine, depth int, start rules.Position, aSouth bool) (float64, error) {
	g, err := rules.NewGame(start, r)
	if err != nil {
		return 0, err
	}
	a.NewGame()
	b.NewGame()
	var history []rules.Position
	for !g.Over() {
		p := g.Position()
		e := a
		if (p.ToMove() == rules.South) != aSouth {
			e = b
		}
		res, err := e.Search(ctx, p, history, engine.Limits{Depth: depth}, nil)
		if err != nil {
			return 0, err
		}
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		if err := g.Play(res.Move); err != nil {
			return 0, fmt.Errorf("tune: engine played %s in %s: %w", res.Move, p, err)
		}
		history = append(history, p)
	}
	switch w, ok := g.Result().Winner(); {
	case !ok:
		return 0.5, nil
	case (w == rules.South) == aSouth:
		return 1, nil
	}
	return 0, nil
}
