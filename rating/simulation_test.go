package rating

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// simConfig describes a simulated population and its games.
type simConfig struct {
	players   int
	games     int
	spread    float64 // standard deviation of the true strengths, in points
	advantage float64 // the true first-mover advantage, in points
	drawParam float64 // ν of the Davidson model: draws between equals are ν/(2+ν)
	refit     int     // refit the advantage every this many games
	seed      uint64
}

// simScores are one rating system's figures over the second half of the
// games.
type simScores struct {
	logLoss, brier float64
	rmse           float64 // of the ratings against the true strengths
}

type simResult struct {
	plain, withAdv, oracle simScores
	fit                    Fit
	firstScore, draws      float64
}

// davidson draws a result under Davidson's model: win, draw and loss in
// proportion π1 : ν√(π1π2) : π2, with π = 10^(strength/400). The first
// mover's strength includes the true advantage. It returns the first
// mover's score and its expectation.
func davidson(rng *rand.Rand, diff, nu float64) (score, expected float64) {
	// Divide through by √(π1π2): win ∝ 10^(d/800), loss ∝ 10^(−d/800).
	w, l := math.Pow(10, diff/800), math.Pow(10, -diff/800)
	total := w + l + nu
	pw, pd := w/total, nu/total
	expected = pw + pd/2
	switch u := rng.Float64(); {
	case u < pw:
		return 1, expected
	case u < pw+pd:
		return 0.5, expected
	}
	return 0, expected
}

// simulate plays random pairings among players of known strength and rates
// them twice, with plain Glicko-2 and with the first-mover advantage
// (refitted from the games so far), scoring each system's prediction made
// before each game.
func simulate(t testing.TB, c simConfig) simResult {
	p := DefaultParams()
	rng := rand.New(rand.NewPCG(c.seed, 0x5eed))
	truth := make([]float64, c.players)
	for i := range truth {
		truth[i] = 1500 + c.spread*rng.NormFloat64()
	}
	plain := make([]Rating, c.players)
	adv := make([]Rating, c.players)
	for i := range plain {
		plain[i], adv[i] = p.Initial(), p.Initial()
	}
	var (
		res     simResult
		history []SidedGame
		fit     Fit
		scored  int
		now     = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	)
	score := func(s *simScores, pred, result float64) {
		s.logLoss -= result*math.Log(pred) + (1-result)*math.Log(1-pred)
		s.brier += (result - pred) * (result - pred)
	}
	rmse := func(r []Rating) float64 {
		// Ratings have no fixed origin: compare after removing the mean
		// offset.
		var mean float64
		for i := range r {
			mean += r[i].Rating - truth[i]
		}
		mean /= float64(len(r))
		var ss float64
		for i := range r {
			d := r[i].Rating - truth[i] - mean
			ss += d * d
		}
		return math.Sqrt(ss / float64(len(r)))
	}
	var checkpoints int
	for n := range c.games {
		now = now.Add(5 * time.Minute)
		f := rng.IntN(c.players)
		s := rng.IntN(c.players - 1)
		if s >= f {
			s++
		}
		result, expect := davidson(rng, truth[f]+c.advantage-truth[s], c.drawParam)
		if n >= c.games/2 {
			scored++
			score(&res.plain, Expected(p.Current(plain[f], now), p.Current(plain[s], now), First, 0), result)
			score(&res.withAdv, Expected(p.Current(adv[f], now), p.Current(adv[s], now), First, fit.Advantage), result)
			score(&res.oracle, expect, result)
			res.firstScore += result
			if result == 0.5 {
				res.draws++
			}
		}
		history = append(history, SidedGame{First: p.Current(adv[f], now), Second: p.Current(adv[s], now), Score: result})
		var err error
		if plain[f], plain[s], err = p.Rate(plain[f], plain[s], result, 0, now); err != nil {
			t.Fatal(err)
		}
		if adv[f], adv[s], err = p.Rate(adv[f], adv[s], result, fit.Advantage, now); err != nil {
			t.Fatal(err)
		}
		if (n+1)%c.refit == 0 {
			if fit, err = FitAdvantage(history, DefaultAdvantagePrior); err != nil {
				t.Fatal(err)
			}
		}
		if n >= c.games/2 && (n+1)%1000 == 0 {
			checkpoints++
			res.plain.rmse += rmse(plain)
			res.withAdv.rmse += rmse(adv)
		}
	}
	for _, s := range []*simScores{&res.plain, &res.withAdv, &res.oracle} {
		s.logLoss /= float64(scored)
		s.brier /= float64(scored)
		s.rmse /= float64(checkpoints)
	}
	res.firstScore /= float64(scored)
	res.draws /= float64(scored)
	res.fit = fit
	return res
}

// logisticEquivalent returns the advantage that gives, in the logistic
// model the ratings use, the same expected score between equal players as
// an advantage of a in Davidson's model with draw parameter nu. Draws
// flatten Davidson's curve, so the equivalent is smaller; it is what a fit
// can recover.
func logisticEquivalent(a, nu float64) float64 {
	w, l := math.Pow(10, a/800), math.Pow(10, -a/800)
	e := (w + nu/2) / (w + l + nu)
	return 400 * math.Log10(e/(1-e))
}

// TestSimulation shows that counting the first mover's advantage predicts
// results better than plain Glicko-2: 200 players of known strength (spread
// 250 points), 20,000 random pairings with random sides, results drawn
// with a true advantage and draws; the advantage is refitted every 500
// games from the games so far. Each system's prediction before each game
// is scored over the second half of the games, and its ratings compared
// with the true strengths every 1,000 games of that half. With no true
// advantage the fitted one stays near 0 and costs nothing.
func TestSimulation(t *testing.T) {
	var table strings.Builder
	table.WriteString("| true A | its logistic equivalent | first mover's score | draws | fitted A | log-loss plain / with A (oracle) | Brier plain / with A (oracle) | rating RMSE plain / with A |\n")
	table.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, trueA := range []float64{0, 50, 100, 150} {
		r := simulate(t, simConfig{players: 200, games: 20000, spread: 250, advantage: trueA, drawParam: 0.3, refit: 500, seed: 1})
		equiv := logisticEquivalent(trueA, 0.3)
		fmt.Fprintf(&table, "| %.0f | %.1f | %.3f | %.1f%% | %+.1f ± %.1f | %.4f / %.4f (%.4f) | %.4f / %.4f (%.4f) | %.1f / %.1f |\n",
			trueA, equiv, r.firstScore, 100*r.draws, r.fit.Advantage, r.fit.StdErr,
			r.plain.logLoss, r.withAdv.logLoss, r.oracle.logLoss,
			r.plain.brier, r.withAdv.brier, r.oracle.brier,
			r.plain.rmse, r.withAdv.rmse)
		if math.Abs(r.fit.Advantage-equiv) > 3*r.fit.StdErr {
			t.Errorf("true A %v (logistic equivalent %.1f): fitted %v", trueA, equiv, r.fit)
		}
		if trueA == 0 {
			// Nothing to gain; the fitted advantage must cost next to nothing.
			if r.withAdv.logLoss > r.plain.logLoss+0.001 || r.withAdv.brier > r.plain.brier+0.0005 {
				t.Errorf("no true advantage: with A %+v, plain %+v", r.withAdv, r.plain)
			}
			continue
		}
		if !(r.withAdv.logLoss < r.plain.logLoss) || !(r.withAdv.brier < r.plain.brier) {
			t.Errorf("true A %v: predictions with A %+v are not better than plain %+v", trueA, r.withAdv, r.plain)
		}
		if !(r.withAdv.rmse < r.plain.rmse) {
			t.Errorf("true A %v: rating error with A %.1f is not below plain %.1f", trueA, r.withAdv.rmse, r.plain.rmse)
		}
	}
	t.Logf("\n%s", table.String())
}
