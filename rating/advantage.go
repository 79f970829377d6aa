package rating

import (
	"errors"
	"fmt"
	"math"
)

// DefaultAdvantagePrior is the standard deviation, in rating points, of the
// normal prior on the first mover's advantage that FitAdvantage shrinks
// toward 0. Between equal players its weight equals that of about 50 games,
// so a category with a few dozen rated games gets a cautious advantage and
// one with thousands gets what its games say.
const DefaultAdvantagePrior = 50

// SidedGame is a rated game for fitting the advantage: both players'
// ratings before the game and the first mover's score.
type SidedGame struct {
	First, Second Rating
	Score         float64 // the first mover's score: 1, 0.5 or 0
}

// Fit is a fitted first-mover advantage.
type Fit struct {
	Advantage float64 // A in rating points
	StdErr    float64 // its standard error (from the curvature at the maximum)
	Games     int     // the games it was fitted from
}

func (f Fit) String() string {
	return fmt.Sprintf("%+.1f ± %.1f points (%d games)", f.Advantage, f.StdErr, f.Games)
}

// FitAdvantage returns the first mover's advantage A that maximises the
// likelihood of games' results, each predicted by Expected(first, second,
// First, A), times a normal prior on A with mean 0 and standard deviation
// prior points (the maximum a posteriori estimate; prior = +Inf gives the
// plain maximum likelihood). A draw counts as half a win and half a loss,
// as Glicko-2 counts it: the log-likelihood of a game is
// s·ln E + (1−s)·ln(1−E). The games should all be of one category.
func FitAdvantage(games []SidedGame, prior float64) (Fit, error) {
	if math.IsNaN(prior) || prior <= 0 {
		return Fit{}, fmt.Errorf("rating: fit advantage: prior %v is not positive", prior)
	}
	if math.IsInf(prior, 1) && len(games) == 0 {
		return Fit{}, errors.New("rating: fit advantage: no games and no prior")
	}
	type point struct{ d, g, s float64 }
	pts := make([]point, len(games))
	for i, gm := range games {
		if err := checkRating(gm.First); err != nil {
			return Fit{}, fmt.Errorf("fit advantage: game %d: first mover: %w", i, err)
		}
		if err := checkRating(gm.Second); err != nil {
			return Fit{}, fmt.Errorf("fit advantage: game %d: second mover: %w", i, err)
		}
		if !(gm.Score >= 0 && gm.Score <= 1) {
			return Fit{}, fmt.Errorf("rating: fit advantage: game %d: score %v is outside [0, 1]", i, gm.Score)
		}
		pts[i] = point{
			d: gm.First.Rating/Scale - gm.Second.Rating/Scale,
			g: g(math.Hypot(gm.First.Deviation, gm.Second.Deviation) / Scale),
			s: gm.Score,
		}
	}
	precision := 1 / ((prior / Scale) * (prior / Scale)) // 0 for no prior

	// The log-posterior of a (Glicko-2 scale) and its first two
	// derivatives. It is strictly concave, so Newton's method with step
	// halving finds its one maximum.
	eval := func(a float64) (l, d1, d2 float64) {
		l = -a * a * precision / 2
		d1 = -a * precision
		d2 = -precision
		for _, p := range pts {
			x := p.g * (p.d + a)
			// ln E and ln(1−E) without overflow for large |x|.
			lnE, ln1E := -softplus(-x), -softplus(x)
			e := logistic(x)
			l += p.s*lnE + (1-p.s)*ln1E
			d1 += p.g * (p.s - e)
			d2 -= p.g * p.g * e * (1 - e)
		}
		return l, d1, d2
	}
	a := 0.0
	l, d1, d2 := eval(a)
	for i := 0; ; i++ {
		if i >= 200 {
			return Fit{}, errors.New("rating: fit advantage: no convergence")
		}
		if d2 >= 0 {
			// Only when every game's curvature underflows and there is no
			// prior: all results lie far beyond what any A explains.
			return Fit{}, errors.New("rating: fit advantage: the likelihood has no maximum")
		}
		step := -d1 / d2
		// Step halving keeps each step an ascent; near the maximum, where
		// the likelihood's change drowns in rounding, a smaller slope is
		// progress enough.
		for h := 0; ; h++ {
			nl, nd1, nd2 := eval(a + step)
			if nl >= l || math.Abs(nd1) < math.Abs(d1) || h >= 60 {
				a, l, d1, d2 = a+step, nl, nd1, nd2
				break
			}
			step /= 2
		}
		if math.Abs(step) < 1e-10 {
			break
		}
	}
	return Fit{Advantage: a * Scale, StdErr: Scale / math.Sqrt(-d2), Games: len(games)}, nil
}

// softplus is ln(1+e^x), accurate for any x.
func softplus(x float64) float64 {
	if x > 30 {
		return x + math.Exp(-x)
	}
	return math.Log1p(math.Exp(x))
}
