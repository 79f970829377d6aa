package rating

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sidedGames draws n games between players rated around 1500 whose results
// follow Expected with the given advantage, draws counted as half.
func sidedGames(rng *rand.Rand, n int, advantage float64) []SidedGame {
	games := make([]SidedGame, n)
	for i := range games {
		a := Rating{Rating: 1500 + 200*rng.NormFloat64(), Deviation: 60, Volatility: 0.06}
		b := Rating{Rating: 1500 + 200*rng.NormFloat64(), Deviation: 60, Volatility: 0.06}
		e := Expected(a, b, First, advantage)
		s := 0.0
		if rng.Float64() < e {
			s = 1
		}
		games[i] = SidedGame{First: a, Second: b, Score: s}
	}
	return games
}

func TestFitAdvantageRecovers(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, want := range []float64{-40, 0, 80, 200} {
		games := sidedGames(rng, 20000, want)
		fit, err := FitAdvantage(games, math.Inf(1))
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(fit.Advantage-want) > 3*fit.StdErr || fit.StdErr > 6 || fit.Games != len(games) {
			t.Errorf("true %v: fitted %v", want, fit)
		}
		// The maximum: the log-likelihood's slope is 0 there.
		if d := slope(games, fit.Advantage); math.Abs(d) > 1e-9*float64(len(games)) {
			t.Errorf("true %v: slope %v at the fit", want, d)
		}
	}
}

// slope is the derivative of the plain log-likelihood in A (Glicko-2
// scale), computed independently of FitAdvantage.
func slope(games []SidedGame, advantage float64) float64 {
	var d float64
	for _, gm := range games {
		gc := g(math.Hypot(gm.First.Deviation, gm.Second.Deviation) / Scale)
		d += gc * (gm.Score - Expected(gm.First, gm.Second, First, advantage))
	}
	return d
}

// TestFitAdvantageShrinks checks the prior: no games give 0, few games are
// pulled toward 0, many games are not.
func TestFitAdvantageShrinks(t *testing.T) {
	fit, err := FitAdvantage(nil, DefaultAdvantagePrior)
	if err != nil || fit.Advantage != 0 || math.Abs(fit.StdErr-DefaultAdvantagePrior) > 1e-9 {
		t.Errorf("no games: %v, %v; want 0 ± %v", fit, err, DefaultAdvantagePrior)
	}
	if _, err := FitAdvantage(nil, math.Inf(1)); err == nil {
		t.Error("no games and no prior: no error")
	}
	// Ten first-mover wins between equals: the maximum likelihood is
	// infinite; the prior keeps it finite and modest.
	var games []SidedGame
	eq := Rating{Rating: 1500, Deviation: 50, Volatility: 0.06}
	for range 10 {
		games = append(games, SidedGame{First: eq, Second: eq, Score: 1})
	}
	fit, err = FitAdvantage(games, DefaultAdvantagePrior)
	if err != nil || !(fit.Advantage > 0 && fit.Advantage < 2*DefaultAdvantagePrior) {
		t.Errorf("ten wins: %v, %v; want between 0 and %v", fit, err, 2*DefaultAdvantagePrior)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	many := sidedGames(rng, 20000, 100)
	few := many[:40]
	fewMAP, err1 := FitAdvantage(few, DefaultAdvantagePrior)
	fewML, err2 := FitAdvantage(few, math.Inf(1))
	manyMAP, err3 := FitAdvantage(many, DefaultAdvantagePrior)
	manyML, err4 := FitAdvantage(many, math.Inf(1))
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !(math.Abs(fewMAP.Advantage) < math.Abs(fewML.Advantage)) {
		t.Errorf("40 games: with the prior %v, without %v: not shrunk", fewMAP, fewML)
	}
	if math.Abs(manyMAP.Advantage-manyML.Advantage) > 1 {
		t.Errorf("20,000 games: with the prior %v, without %v: shrunk too much", manyMAP, manyML)
	}
}

func TestFitAdvantageInvalid(t *testing.T) {
	ok := Rating{Rating: 1500, Deviation: 50, Volatility: 0.06}
	for _, c := range []struct {
		name  string
		games []SidedGame
		prior float64
	}{
		{"prior", nil, 0},
		{"NaN prior", nil, math.NaN()},
		{"score", []SidedGame{{First: ok, Second: ok, Score: 1.5}}, 50},
		{"rating", []SidedGame{{First: ok, Second: Rating{Rating: math.NaN(), Deviation: 50, Volatility: 0.06}}}, 50},
	} {
		if _, err := FitAdvantage(c.games, c.prior); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}
