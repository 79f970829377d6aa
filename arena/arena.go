// Package arena plays matches between two En Dodoi players and measures
// their strength difference.
//
// A player is anything that implements Player: the project's engine at a
// level, depth, move time or node count, a plain alpha-beta "baseline", or
// an external program speaking the engine protocol (docs/engine-protocol.md),
// so that anyone can test a bot against the engine. ParseSpec reads the
// specification strings the endodoi arena command takes.
//
// Run plays the games: in pairs from the same opening (a few random plies
// from the start position), once with each player as South, concurrently
// if asked, and keeps the tally from player A's view. The statistics
// (score, Elo difference with a 95% interval, likelihood of superiority, a
// sequential probability ratio test) are plain functions of the win, draw
// and loss counts. docs/arena.md explains the numbers.
package arena

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

// Defaults and limits of a match.
const (
	DefaultOpeningPlies = 2
	MaxOpeningPlies     = 100
	DefaultMaxPlies     = 2000
	MaxGames            = 1_000_000
	MaxConcurrency      = 256
	// maxForfeitNotes bounds the forfeit descriptions kept in Stats.
	maxForfeitNotes = 5
	// openingTries bounds the random openings drawn for one pair.
	openingTries = 1000
)

// Config sets up a match.
type Config struct {
	Rules rules.Rules
	// Holes and Seeds choose the start position; zero means
	// rules.DefaultHoles and rules.DefaultStartSeeds.
	Holes, Seeds int
	// Games is the number of games to play, two per opening (an odd
	// number leaves the last opening played once).
	Games int
	// OpeningPlies is the number of random plies played from the start
	// position to make each opening (0: every game starts from the start
	// position; DefaultOpeningPlies is the usual choice).
	OpeningPlies int
	// Balanced, when not zero, keeps only openings whose expected final
	// margin, by a depth-BalanceDepth search of our engine, is at most this
	// many seeds either way: on small boards many random openings are won
	// for one side, and a pair of games from such an opening is 1-1
	// whoever plays better.
	Balanced int
	// Seed makes the openings; the same seed gives the same openings.
	Seed uint64
	// Concurrency is the number of games played at once, each worker with
	// its own players; zero means 1.
	Concurrency int
	// SPRT, if not nil, stops the match once the test decides.
	SPRT *SPRTConfig
	// MaxPlies caps a game's length (the opening included); a game that
	// reaches it is counted as a draw and reported in Stats.Capped. Zero
	// means DefaultMaxPlies. (The repetition rule ends every game, so the
	// cap is only a safety net.)
	MaxPlies int
}

// Stats is a match's tally from player A's view.
type Stats struct {
	Total  int // games planned
	Played int // games finished and counted

	Wins, Draws, Losses int

	ForfeitsA, ForfeitsB int      // games lost by forfeit, counted in Losses and Wins
	ForfeitNotes         []string // descriptions of the first few forfeits
	Capped               int      // games stopped at MaxPlies, counted as draws

	// Pairs counts the finished opening pairs by A's score in the pair:
	// Pairs[k] is the number of pairs where A scored k/2 (0, ½, 1, 1½, 2),
	// the pentanomial distribution.
	Pairs [5]int

	SPRT    *SPRTStatus // the test's state, when the match runs one
	Elapsed time.Duration
}

// Score returns A's score fraction.
func (s Stats) Score() float64 { return Score(s.Wins, s.Draws, s.Losses) }

// Elo returns the Elo difference (A minus B) and its 95% interval.
func (s Stats) Elo() (elo, lo, hi float64) { return EloInterval(s.Wins, s.Draws, s.Losses) }

// LOS returns the likelihood that A is the stronger.
func (s Stats) LOS() float64 { return LOS(s.Wins, s.Losses) }

func (s Stats) clone() Stats {
	s.ForfeitNotes = append([]string(nil), s.ForfeitNotes...)
	if s.SPRT != nil {
		st := *s.SPRT
		s.SPRT = &st
	}
	return s
}

// outcome is a game's result from A's view.
type outcome uint8

const (
	abandoned outcome = iota // interrupted: not counted
	win
	draw
	loss
)

type gameResult struct {
	index    int
	outcome  outcome
	forfeitA bool
	forfeitB bool
	capped   bool
	note     string // why a player forfeited
}

// validate checks cfg and fills in its defaults.
func (cfg *Config) validate() (rules.Position, error) {
	if err := cfg.Rules.Validate(); err != nil {
		return rules.Position{}, err
	}
	if cfg.Holes == 0 {
		cfg.Holes = rules.DefaultHoles
	}
	if cfg.Seeds == 0 {
		cfg.Seeds = rules.DefaultStartSeeds
	}
	start, err := rules.NewPosition(cfg.Holes, cfg.Seeds)
	if err != nil {
		return rules.Position{}, err
	}
	if cfg.Games < 1 || cfg.Games > MaxGames {
		return rules.Position{}, fmt.Errorf("games %d out of range (1 to %d)", cfg.Games, MaxGames)
	}
	if cfg.OpeningPlies < 0 || cfg.OpeningPlies > MaxOpeningPlies {
		return rules.Position{}, fmt.Errorf("opening plies %d out of range (0 to %d)", cfg.OpeningPlies, MaxOpeningPlies)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = 1
	}
	if cfg.Concurrency < 1 || cfg.Concurrency > MaxConcurrency {
		return rules.Position{}, fmt.Errorf("concurrency %d out of range (1 to %d)", cfg.Concurrency, MaxConcurrency)
	}
	if cfg.MaxPlies == 0 {
		cfg.MaxPlies = DefaultMaxPlies
	}
	if cfg.MaxPlies < 1 {
		return rules.Position{}, fmt.Errorf("max plies %d must be positive", cfg.MaxPlies)
	}
	if cfg.MaxPlies <= cfg.OpeningPlies {
		return rules.Position{}, fmt.Errorf("max plies %d leaves no room after %d opening plies", cfg.MaxPlies, cfg.OpeningPlies)
	}
	if cfg.SPRT != nil {
		if err := cfg.SPRT.Validate(); err != nil {
			return rules.Position{}, err
		}
	}
	return start, nil
}

// Openings returns the openings of a match: for each pair of games, the
// moves played from start before the players take over. Each is plies
// random legal moves, chosen with a generator seeded from seed; an opening
// in which the game ends is thrown away and another one chosen.
// accept, if not nil, further chooses which openings to keep.
func Openings(start rules.Position, r rules.Rules, pairs, plies int, seed uint64, accept func(*rules.Game) bool) ([][]rules.Move, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6f70656e696e6773))
	out := make([][]rules.Move, pairs)
	for i := range out {
		var err error
		out[i], err = randomOpening(rng, start, r, plies, accept)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// BalanceDepth is the search depth that judges an opening's balance.
const BalanceDepth = 10

// Balanced returns an opening filter that keeps the openings whose
// expected final margin, by a BalanceDepth search, is at most within seeds
// either way.
func Balanced(r rules.Rules, within int) (func(*rules.Game) bool, error) {
	e, err := engine.New(engine.Config{Rules: r, HashMiB: 16})
	if err != nil {
		return nil, err
	}
	return func(g *rules.Game) bool {
		p := g.Position()
		e.NewGame()
		res, err := e.Search(context.Background(), p, nil, engine.Limits{Depth: BalanceDepth}, nil)
		if err != nil {
			return false
		}
		mover := p.ToMove()
		final := res.Score + engine.Score(p.Captured(mover)-p.Captured(mover.Opponent()))*engine.Seed
		return final <= engine.Score(within)*engine.Seed && final >= -engine.Score(within)*engine.Seed
	}, nil
}

func randomOpening(rng *rand.Rand, start rules.Position, r rules.Rules, plies int, accept func(*rules.Game) bool) ([]rules.Move, error) {
	for range openingTries {
		g, err := rules.NewGame(start, r)
		if err != nil {
			return nil, err
		}
		for g.Ply() < plies && !g.Over() {
			moves := g.LegalMoves()
			if err := g.Play(moves[rng.IntN(len(moves))]); err != nil {
				return nil, err
			}
		}
		if !g.Over() && (accept == nil || accept(g)) {
			return g.Moves(), nil
		}
	}
	return nil, fmt.Errorf("no opening of %d plies that leaves the game going found in %d tries", plies, openingTries)
}

// Run plays a match between the players newA and newB make (each worker
// calls each once; Run closes them) and returns the tally from A's view.
// Game 2k and game 2k+1 start from the k-th opening, A playing South in the
// first and North in the second; South moves first. progress, if not nil,
// is called after each finished game, from Run's goroutine.
//
// A player that fails to start a game, returns an error or an illegal move
// loses that game by forfeit; the match goes on. When ctx is cancelled Run
// stops, drops the unfinished games and returns the tally so far with
// ctx's error. When the SPRT decides, Run stops early (games still running
// are dropped) and returns nil.
func Run(ctx context.Context, cfg Config, newA, newB func() (Player, error), progress func(Stats)) (Stats, error) {
	began := time.Now()
	start, err := cfg.validate()
	if err != nil {
		return Stats{}, err
	}
	stats := Stats{Total: cfg.Games}
	var accept func(*rules.Game) bool
	if cfg.Balanced > 0 {
		if accept, err = Balanced(cfg.Rules, cfg.Balanced); err != nil {
			return Stats{}, err
		}
	}
	openings, err := Openings(start, cfg.Rules, (cfg.Games+1)/2, cfg.OpeningPlies, cfg.Seed, accept)
	if err != nil {
		return stats, err
	}

	type pair struct{ a, b Player }
	workers := make([]pair, 0, cfg.Concurrency)
	defer func() {
		for _, w := range workers {
			w.a.Close()
			w.b.Close()
		}
	}()
	for range cfg.Concurrency {
		a, err := newA()
		if err != nil {
			return stats, fmt.Errorf("player A: %w", err)
		}
		b, err := newB()
		if err != nil {
			a.Close()
			return stats, fmt.Errorf("player B: %w", err)
		}
		workers = append(workers, pair{a, b})
	}

	matchCtx, stop := context.WithCancel(ctx)
	defer stop()
	jobs := make(chan int)
	results := make(chan gameResult)
	go func() {
		defer close(jobs)
		for i := range cfg.Games {
			select {
			case jobs <- i:
			case <-matchCtx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				results <- playGame(matchCtx, cfg, start, openings[i/2], i, w.a, w.b)
			}
		}()
	}
	go func() {
		wg.Wait()
		close(results)
	}()

	pairHalf := map[int]int{} // pair index → A's half-points in its first finished game
	decided := false          // the SPRT has decided: games still finishing are not counted
	for res := range results {
		// After a cancellation nothing more counts, not even a game that
		// finished before its player noticed.
		if res.outcome == abandoned || decided || ctx.Err() != nil {
			continue
		}
		stats.Played++
		half := 0
		switch res.outcome {
		case win:
			stats.Wins++
			half = 2
		case draw:
			stats.Draws++
			half = 1
		case loss:
			stats.Losses++
		}
		if res.forfeitA {
			stats.ForfeitsA++
		}
		if res.forfeitB {
			stats.ForfeitsB++
		}
		if res.capped {
			stats.Capped++
		}
		if res.note != "" && len(stats.ForfeitNotes) < maxForfeitNotes {
			stats.ForfeitNotes = append(stats.ForfeitNotes, res.note)
		}
		if first, ok := pairHalf[res.index/2]; ok {
			stats.Pairs[first+half]++
			delete(pairHalf, res.index/2)
		} else {
			pairHalf[res.index/2] = half
		}
		if cfg.SPRT != nil {
			st := cfg.SPRT.Test(stats.Wins, stats.Draws, stats.Losses)
			stats.SPRT = &st
			if st.Verdict != Continue {
				decided = true
				stop()
			}
		}
		stats.Elapsed = time.Since(began)
		if progress != nil {
			progress(stats.clone())
		}
	}
	if cfg.SPRT != nil && stats.SPRT == nil {
		st := cfg.SPRT.Test(0, 0, 0)
		stats.SPRT = &st
	}
	stats.Elapsed = time.Since(began)
	return stats, ctx.Err()
}

// playGame plays game number index of the match.
func playGame(ctx context.Context, cfg Config, start rules.Position, opening []rules.Move, index int, a, b Player) gameResult {
	res := gameResult{index: index}
	aSouth := index%2 == 0
	south, north := a, b
	if !aSouth {
		south, north = b, a
	}
	// forfeit returns the result of a game lost by p.
	forfeit := func(p Player, why string) gameResult {
		if ctx.Err() != nil {
			return gameResult{index: index, outcome: abandoned}
		}
		role := "A"
		res.outcome, res.forfeitA = loss, true
		if p == b {
			role = "B"
			res.outcome, res.forfeitA, res.forfeitB = win, false, true
		}
		res.note = fmt.Sprintf("game %d: %s (%s) forfeits: %s", index+1, role, p.Name(), why)
		return res
	}

	g, err := rules.NewGame(start, cfg.Rules)
	if err != nil {
		panic(err) // validated
	}
	for _, m := range opening {
		if err := g.Play(m); err != nil {
			panic(err) // the opening was played under the same rules
		}
	}
	errA := a.NewGame(ctx, cfg.Rules, start)
	errB := b.NewGame(ctx, cfg.Rules, start)
	switch {
	case ctx.Err() != nil:
		return gameResult{index: index, outcome: abandoned}
	case errA != nil && errB != nil:
		res.outcome, res.forfeitA, res.forfeitB = draw, true, true
		res.note = fmt.Sprintf("game %d: both players forfeit: A (%s): %v; B (%s): %v", index+1, a.Name(), errA, b.Name(), errB)
		return res
	case errA != nil:
		return forfeit(a, "starting the game: "+errA.Error())
	case errB != nil:
		return forfeit(b, "starting the game: "+errB.Error())
	}

	for !g.Over() {
		if g.Ply() >= cfg.MaxPlies {
			res.outcome, res.capped = draw, true
			return res
		}
		mover := south
		if g.Position().ToMove() == rules.North {
			mover = north
		}
		m, err := mover.Move(ctx, g)
		if ctx.Err() != nil {
			return gameResult{index: index, outcome: abandoned}
		}
		if err != nil {
			return forfeit(mover, fmt.Sprintf("ply %d: %v", g.Ply()+1, err))
		}
		if err := g.Play(m); err != nil {
			return forfeit(mover, fmt.Sprintf("ply %d: illegal move %s: %v", g.Ply()+1, m, err))
		}
	}
	switch w, ok := g.Result().Winner(); {
	case !ok:
		res.outcome = draw
	case (w == rules.South) == aSouth:
		res.outcome = win
	default:
		res.outcome = loss
	}
	return res
}
