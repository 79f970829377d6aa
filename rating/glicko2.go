// Package rating computes players' ratings with the Glicko-2 system of
// Mark Glickman ("Example of the Glicko-2 system"), extended with the
// advantage of the side that moves first.
//
// En Dodoi favours the first mover (2×6×4 is a South win by 8 with best
// play), so a win as the first mover says less about a player than a win as
// the second. The expected score of a game therefore raises the first
// mover's rating by an advantage A, in rating points, and lowers the
// second mover's by the same A when seen from their side. A is a property of
// a rating category (board size and speed) and is fitted from that
// category's rated games with FitAdvantage; with A = 0 every function here
// is plain Glicko-2, exactly.
//
// A rated game updates both players at once (Params.Rate): each game is a
// rating period of its own, and a player's deviation grows with the time
// since their last rated game rather than per period. Params.UpdatePeriod
// applies the paper's update for a period of any number of games.
//
// The package depends on nothing but the standard library and does no I/O.
// docs/ratings.md gives the formulas, the parameters and why.
package rating

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Scale converts between the Glicko scale (1500 ± a few hundred) and the
// Glicko-2 scale: μ = (r − 1500)/Scale. It is 400/ln 10 ≈ 173.7178, the
// paper's constant, so that a difference of 400 points means odds of 10 to
// 1, as with Elo; an advantage A in points is A/Scale on the Glicko-2 scale.
const Scale = 400 / math.Ln10

// center is the rating that maps to μ = 0.
const center = 1500

// epsilon is the convergence tolerance of the volatility iteration, the
// paper's value.
const epsilon = 1e-6

// maxIterations bounds the volatility iteration and its bracketing; the
// Illinois algorithm converges in well under 100 steps for any sane input,
// so reaching this means the input was not sane.
const maxIterations = 1000

// Rating is a player's rating in one category, on the Glicko scale.
type Rating struct {
	Rating     float64   // r: 1500 for a new player
	Deviation  float64   // RD: the uncertainty of Rating, in the same points
	Volatility float64   // σ: how erratic the player's results are (Glicko-2 scale)
	At         time.Time // when Deviation was last brought up to date; zero for a new player
}

func (r Rating) String() string {
	return fmt.Sprintf("%.0f±%.0f", r.Rating, r.Deviation)
}

// Params are the system's constants. DefaultParams gives the values
// docs/ratings.md justifies.
type Params struct {
	// Tau (τ) constrains how fast the volatility changes; Glickman
	// suggests 0.3 to 1.2, smaller for less erratic games.
	Tau float64
	// A new player's rating.
	InitialRating, InitialDeviation, InitialVolatility float64
	// The deviation is kept within [MinDeviation, MaxDeviation]: the
	// minimum keeps a very active player's rating responsive, the maximum
	// is a new player's uncertainty, which no absence exceeds.
	MinDeviation, MaxDeviation float64
	// MaxVolatility bounds σ so that a run of upsets cannot make a rating
	// swing without limit; 0 means no bound.
	MaxVolatility float64
	// A rating is provisional while its deviation is above this.
	ProvisionalDeviation float64
	// Period is the length of one rating period for the growth of the
	// deviation with inactivity: after an absence of t periods, φ² grows by
	// t·σ².
	Period time.Duration
}

// DefaultParams returns the parameters the site uses.
func DefaultParams() Params {
	return Params{
		Tau:                  0.5,
		InitialRating:        1500,
		InitialDeviation:     350,
		InitialVolatility:    0.06,
		MinDeviation:         45,
		MaxDeviation:         350,
		MaxVolatility:        0.1,
		ProvisionalDeviation: 110,
		Period:               4 * 24 * time.Hour,
	}
}

// Validate reports whether the parameters make sense.
func (p Params) Validate() error {
	switch {
	case !positive(p.Tau):
		return fmt.Errorf("rating: tau %v is not positive", p.Tau)
	case !finite(p.InitialRating):
		return fmt.Errorf("rating: initial rating %v is not finite", p.InitialRating)
	case !positive(p.InitialVolatility):
		return fmt.Errorf("rating: initial volatility %v is not positive", p.InitialVolatility)
	case !positive(p.MinDeviation) || !positive(p.MaxDeviation) || p.MinDeviation > p.MaxDeviation:
		return fmt.Errorf("rating: deviation bounds [%v, %v] are not positive and ordered", p.MinDeviation, p.MaxDeviation)
	case p.InitialDeviation < p.MinDeviation || p.InitialDeviation > p.MaxDeviation:
		return fmt.Errorf("rating: initial deviation %v is outside [%v, %v]", p.InitialDeviation, p.MinDeviation, p.MaxDeviation)
	case !finite(p.MaxVolatility) || p.MaxVolatility < 0 || (p.MaxVolatility > 0 && p.MaxVolatility < p.InitialVolatility):
		return fmt.Errorf("rating: volatility bound %v is below the initial volatility %v", p.MaxVolatility, p.InitialVolatility)
	case p.Period <= 0:
		return fmt.Errorf("rating: period %v is not positive", p.Period)
	}
	return nil
}

// Initial returns a new player's rating.
func (p Params) Initial() Rating {
	return Rating{Rating: p.InitialRating, Deviation: p.InitialDeviation, Volatility: p.InitialVolatility}
}

// Side is the side a player had in a game, for the first mover's advantage.
type Side int8

const (
	// Unsided games ignore the advantage: plain Glicko-2.
	Unsided Side = iota
	// First is the side that moves first (South).
	First
	// Second is the side that moves second (North).
	Second
)

// offset is the side's advantage on the Glicko-2 scale.
func (s Side) offset(advantage float64) float64 {
	switch s {
	case First:
		return advantage / Scale
	case Second:
		return -advantage / Scale
	}
	return 0
}

func (s Side) valid() bool { return s == Unsided || s == First || s == Second }

// Game is one game of a rating period, from the rated player's view.
type Game struct {
	Opponent Rating
	Side     Side    // the side the rated player had
	Score    float64 // the rated player's score: 1 a win, 0.5 a draw, 0 a loss
	// Weight is how much the game counts, in (0, 1]: a game of weight w
	// tells of the player as a w-th of a game does (its terms of v and Δ
	// are multiplied by w). 0 counts as 1, a whole game.
	Weight float64
}

// weight is the game's weight, 0 counting as 1.
func (gm Game) weight() float64 {
	if gm.Weight == 0 {
		return 1
	}
	return gm.Weight
}

// g is the paper's g(φ): how much an opponent's uncertainty flattens the
// expected score.
func g(phi float64) float64 {
	return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi))
}

// logistic is 1/(1+e^−x).
func logistic(x float64) float64 {
	return 1 / (1 + math.Exp(-x))
}

// expected is the paper's E(μ, μj, φj) with the side's offset added to the
// player's μ. The offset is added last so that an offset of 0 leaves the
// plain value bit for bit.
func expected(mu, muj, gj, off float64) float64 {
	return logistic(gj * ((mu - muj) + off))
}

// Expected returns the expected score of player against opponent, playing
// side, with the first mover's advantage in rating points. It predicts a
// game: the uncertainty of both ratings flattens it (g of the combined
// deviation, as in Glickman's formula for predicting a game), so that
// Expected(a, b, First, A) + Expected(b, a, Second, A) = 1.
func Expected(player, opponent Rating, side Side, advantage float64) float64 {
	phi := math.Hypot(player.Deviation, opponent.Deviation) / Scale
	return expected(player.Rating/Scale, opponent.Rating/Scale, g(phi), side.offset(advantage))
}

// elapsed returns the number of rating periods from then to now: 0 for a
// new player (zero then) and for a clock that went backwards.
func (p Params) elapsed(then, now time.Time) float64 {
	if then.IsZero() || !now.After(then) {
		return 0
	}
	return float64(now.Sub(then)) / float64(p.Period)
}

// Current returns the rating as it stands at now: its deviation grown by
// the absence since r.At (φ² + t·σ², at most MaxDeviation). Use it to show
// a rating or decide whether it is provisional.
func (p Params) Current(r Rating, now time.Time) Rating {
	t := p.elapsed(r.At, now)
	if t == 0 {
		return r
	}
	phi, sigma := r.Deviation/Scale, r.Volatility
	r.Deviation = math.Min(Scale*math.Sqrt(phi*phi+t*sigma*sigma), p.MaxDeviation)
	r.At = now
	return r
}

// Provisional reports whether the rating is provisional at now: too
// uncertain to be shown without a question mark or to enter a leaderboard.
func (p Params) Provisional(r Rating, now time.Time) bool {
	return p.Current(r, now).Deviation > p.ProvisionalDeviation
}

// steps holds the paper's intermediate quantities, for the tests.
type steps struct {
	v, delta, sigma, phiStar, phi, mu float64
}

// UpdatePeriod returns r after a rating period in which its player played
// games (in any order; the opponents' ratings are those before the
// period), periods rating periods after r's last update (1 for the paper's
// period-by-period use), with the first mover's advantage in rating points
// (0 for plain Glicko-2). With no games only the deviation grows. The
// result's At is r's.
func (p Params) UpdatePeriod(r Rating, games []Game, periods, advantage float64) (Rating, error) {
	out, _, err := p.update(r, games, periods, advantage)
	return out, err
}

func (p Params) update(r Rating, games []Game, periods, advantage float64) (Rating, steps, error) {
	var st steps
	if err := p.Validate(); err != nil {
		return r, st, err
	}
	if err := checkRating(r); err != nil {
		return r, st, err
	}
	if !finite(periods) || periods < 0 {
		return r, st, fmt.Errorf("rating: elapsed periods %v is not a finite non-negative number", periods)
	}
	if !finite(advantage) {
		return r, st, fmt.Errorf("rating: advantage %v is not finite", advantage)
	}
	for i, gm := range games {
		if err := checkRating(gm.Opponent); err != nil {
			return r, st, fmt.Errorf("game %d: opponent: %w", i, err)
		}
		if !(gm.Score >= 0 && gm.Score <= 1) {
			return r, st, fmt.Errorf("rating: game %d: score %v is outside [0, 1]", i, gm.Score)
		}
		if !gm.Side.valid() {
			return r, st, fmt.Errorf("rating: game %d: unknown side %d", i, gm.Side)
		}
		if w := gm.weight(); !(w > 0 && w <= 1) {
			return r, st, fmt.Errorf("rating: game %d: weight %v is outside (0, 1]", i, gm.Weight)
		}
	}

	// Step 2: to the Glicko-2 scale.
	mu := (r.Rating - center) / Scale
	phi := r.Deviation / Scale
	sigma := r.Volatility
	minPhi, maxPhi := p.MinDeviation/Scale, p.MaxDeviation/Scale

	if len(games) == 0 {
		// Step 6 alone: the rating stays, the deviation grows.
		phiStar := math.Min(math.Sqrt(phi*phi+periods*sigma*sigma), maxPhi)
		r.Deviation = clamp(Scale*phiStar, p.MinDeviation, p.MaxDeviation)
		return r, steps{sigma: sigma, phiStar: phiStar, phi: phiStar, mu: mu}, nil
	}

	// Steps 3 and 4: the estimated variance v of the rating from the games
	// alone, and the improvement Δ = v·Σ g(φj)(sj − Ej).
	var vInv, sum float64
	for _, gm := range games {
		muj := (gm.Opponent.Rating - center) / Scale
		gj := g(gm.Opponent.Deviation / Scale)
		e := expected(mu, muj, gj, gm.Side.offset(advantage))
		w := gm.weight()
		vInv += w * gj * gj * e * (1 - e)
		sum += w * gj * (gm.Score - e)
	}
	v := 1 / vInv
	delta := v * sum

	// Step 5: the new volatility.
	newSigma, err := volatility(sigma, phi, v, delta, p.Tau)
	if err != nil {
		return r, st, err
	}
	if p.MaxVolatility > 0 {
		newSigma = math.Min(newSigma, p.MaxVolatility)
	}

	// Step 6: the deviation grows by the time since the last update.
	phiStar := math.Min(math.Sqrt(phi*phi+periods*newSigma*newSigma), maxPhi)

	// Step 7: the new deviation and rating. The deviation is bounded before
	// it scales the rating change, so that at the minimum a rating still
	// moves as much as the minimum implies.
	newPhi := clamp(1/math.Sqrt(1/(phiStar*phiStar)+1/v), minPhi, maxPhi)
	newMu := mu + newPhi*newPhi*sum

	// Step 8: back to the Glicko scale, bounded again in points so that
	// rounding cannot take the deviation a hair outside its bounds.
	r.Rating = Scale*newMu + center
	r.Deviation = clamp(Scale*newPhi, p.MinDeviation, p.MaxDeviation)
	r.Volatility = newSigma
	return r, steps{v: v, delta: delta, sigma: newSigma, phiStar: phiStar, phi: newPhi, mu: newMu}, nil
}

// volatility is step 5 of the paper: σ' by the Illinois algorithm (a
// regula falsi that halves the retained end's value when it is kept twice).
func volatility(sigma, phi, v, delta, tau float64) (float64, error) {
	a := math.Log(sigma * sigma)
	phi2, delta2 := phi*phi, delta*delta
	f := func(x float64) float64 {
		ex := math.Exp(x)
		d := phi2 + v + ex
		return ex*(delta2-phi2-v-ex)/(2*d*d) - (x-a)/(tau*tau)
	}
	A := a
	var B float64
	if delta2 > phi2+v {
		B = math.Log(delta2 - phi2 - v)
	} else {
		k := 1
		for ; f(a-float64(k)*tau) < 0; k++ {
			if k >= maxIterations {
				return 0, errors.New("rating: volatility: no bracket found")
			}
		}
		B = a - float64(k)*tau
	}
	fA, fB := f(A), f(B)
	for i := 0; math.Abs(B-A) > epsilon; i++ {
		if i >= maxIterations {
			return 0, fmt.Errorf("rating: volatility: no convergence after %d steps", maxIterations)
		}
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	s := math.Exp(A / 2)
	if !positive(s) {
		return 0, fmt.Errorf("rating: volatility: result %v", s)
	}
	return s, nil
}

// Rate returns both players' ratings after one rated game that ended at
// now, in which first moved first and scored firstScore (1, 0.5 or 0),
// with the category's first-mover advantage in rating points. Each player
// is updated against the other's rating before the game, brought up to
// now; each rating's deviation first grows by the player's absence since
// their last rated game. Both results have At = now.
func (p Params) Rate(first, second Rating, firstScore, advantage float64, now time.Time) (Rating, Rating, error) {
	return p.RateWeighted(first, second, firstScore, advantage, 1, now)
}

// RateWeighted is Rate for a game that counts weight of a whole one, in
// (0, 1] (see Game.Weight): the ratings and deviations move less, and
// with a weight near 0 hardly at all.
func (p Params) RateWeighted(first, second Rating, firstScore, advantage, weight float64, now time.Time) (Rating, Rating, error) {
	if now.IsZero() {
		return first, second, errors.New("rating: rate: no time given")
	}
	cf, cs := p.Current(first, now), p.Current(second, now)
	nf, err := p.UpdatePeriod(first, []Game{{Opponent: cs, Side: First, Score: firstScore, Weight: weight}}, p.elapsed(first.At, now), advantage)
	if err != nil {
		return first, second, fmt.Errorf("first mover: %w", err)
	}
	ns, err := p.UpdatePeriod(second, []Game{{Opponent: cf, Side: Second, Score: 1 - firstScore, Weight: weight}}, p.elapsed(second.At, now), advantage)
	if err != nil {
		return first, second, fmt.Errorf("second mover: %w", err)
	}
	nf.At, ns.At = now, now
	return nf, ns, nil
}

// maxGamesToEstablish bounds GamesToEstablish's count.
const maxGamesToEstablish = 1000

// GamesToEstablish returns about how many more rated games a player
// rated r needs, from now, before the rating is no longer provisional: a
// game's information does not depend on its result, so this counts
// games, played one after the other, against opponents of the player's
// rating whose deviation is at the provisional bound (established
// players, at their least certain). It returns 0 for a rating not
// provisional at now.
func (p Params) GamesToEstablish(r Rating, now time.Time) int {
	r = p.Current(r, now)
	if r.Deviation <= p.ProvisionalDeviation {
		return 0
	}
	opponent := Rating{Rating: r.Rating, Deviation: p.ProvisionalDeviation, Volatility: p.InitialVolatility}
	for n := 1; n <= maxGamesToEstablish; n++ {
		next, err := p.UpdatePeriod(r, []Game{{Opponent: opponent, Score: 0.5}}, 0, 0)
		if err != nil {
			return maxGamesToEstablish
		}
		if r = next; r.Deviation <= p.ProvisionalDeviation {
			return n
		}
	}
	return maxGamesToEstablish
}

func checkRating(r Rating) error {
	switch {
	case !finite(r.Rating):
		return fmt.Errorf("rating: rating %v is not finite", r.Rating)
	case !positive(r.Deviation):
		return fmt.Errorf("rating: deviation %v is not positive", r.Deviation)
	case !positive(r.Volatility):
		return fmt.Errorf("rating: volatility %v is not positive", r.Volatility)
	}
	return nil
}

func finite(x float64) bool   { return !math.IsNaN(x) && !math.IsInf(x, 0) }
func positive(x float64) bool { return finite(x) && x > 0 }

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(x, hi)) }
