package arena

import (
	"errors"
	"fmt"
	"math"
)

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959964

// Score returns the score fraction of w wins, d draws and l losses:
// (w + d/2) / (w + d + l), and 0.5 when no game has been played.
func Score(w, d, l int) float64 {
	n := w + d + l
	if n == 0 {
		return 0.5
	}
	return (float64(w) + float64(d)/2) / float64(n)
}

// EloDiff converts a score fraction into an Elo difference with the
// logistic model: -400·log10(1/score − 1). A score of 1 gives +Inf and a
// score of 0 gives -Inf.
func EloDiff(score float64) float64 {
	switch {
	case score >= 1:
		return math.Inf(1)
	case score <= 0:
		return math.Inf(-1)
	}
	return -400 * math.Log10(1/score-1)
}

// ScoreOfElo is EloDiff's inverse: the expected score of a player rated
// elo points above its opponent, 1 / (1 + 10^(−elo/400)).
func ScoreOfElo(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// trinomial returns the number of games, the mean and the variance of the
// per-game score (1 for a win, ½ for a draw, 0 for a loss) of counts that
// may be fractional.
func trinomial(w, d, l float64) (n, mean, variance float64) {
	n = w + d + l
	if n == 0 {
		return 0, 0.5, 0
	}
	mean = (w + d/2) / n
	variance = (w*(1-mean)*(1-mean) + d*(0.5-mean)*(0.5-mean) + l*mean*mean) / n
	return n, mean, variance
}

// EloInterval returns the Elo difference of w wins, d draws and l losses
// and its 95% confidence interval. The interval comes from the trinomial
// variance of the per-game score: the mean's standard deviation is
// sqrt(variance/n), the score interval is score ± 1.959964 standard
// deviations, and its ends are converted to Elo. Ends at or beyond a score
// of 0 or 1 are -Inf or +Inf.
func EloInterval(w, d, l int) (elo, lo, hi float64) {
	n, mean, variance := trinomial(float64(w), float64(d), float64(l))
	if n == 0 {
		return 0, math.Inf(-1), math.Inf(1)
	}
	sd := math.Sqrt(variance / n)
	return EloDiff(mean), EloDiff(mean - z95*sd), EloDiff(mean + z95*sd)
}

// LOS returns the likelihood of superiority: the probability that the
// player with w wins and l losses is the stronger, in the normal
// approximation 0.5·(1 + erf((w − l) / sqrt(2(w + l)))). Draws do not
// count. It is 0.5 when no game was decisive.
func LOS(w, l int) float64 {
	if w+l == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(w-l)/math.Sqrt(2*float64(w+l))))
}

// FormatElo formats an Elo difference with a sign and one decimal:
// "+147.2", "-35.0", "0.0", "+inf", "-inf".
func FormatElo(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "+inf"
	case math.IsInf(x, -1):
		return "-inf"
	case math.IsNaN(x):
		return "nan"
	}
	s := fmt.Sprintf("%+.1f", x)
	if s == "+0.0" || s == "-0.0" {
		return "0.0"
	}
	return s
}

// LLR returns the log-likelihood ratio of the hypotheses "the Elo
// difference is elo1" against "it is elo0" for w wins, d draws and l
// losses (counts may be fractional), with the generalised SPRT
// approximation that fishtest and cutechess use for the trinomial model:
//
//	LLR = n·(s1 − s0)·(2·mean − s0 − s1) / (2·variance)
//
// where s0 and s1 are the expected scores of elo0 and elo1 (ScoreOfElo) and
// mean and variance are those of the per-game score. It returns 0 when the
// variance is 0 (no game, or every game the same result): see
// SPRTConfig.Test for the regularisation that handles that.
func LLR(w, d, l, elo0, elo1 float64) float64 {
	n, mean, variance := trinomial(w, d, l)
	if n == 0 || variance == 0 {
		return 0
	}
	s0, s1 := ScoreOfElo(elo0), ScoreOfElo(elo1)
	return n * (s1 - s0) * (2*mean - s0 - s1) / (2 * variance)
}

// SPRTConfig sets up a sequential probability ratio test: H0 says the
// Elo difference (player A minus player B) is Elo0, H1 that it is Elo1.
// Alpha is the chance of accepting H1 when H0 holds, Beta of accepting H0
// when H1 holds; zero means 0.05.
type SPRTConfig struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
}

// withDefaults returns c with zero error rates replaced by 0.05.
func (c SPRTConfig) withDefaults() SPRTConfig {
	if c.Alpha == 0 {
		c.Alpha = 0.05
	}
	if c.Beta == 0 {
		c.Beta = 0.05
	}
	return c
}

// Validate reports whether the test is usable: Elo0 < Elo1, both finite,
// and error rates between 0 and 0.5 (exclusive; zero means 0.05).
func (c SPRTConfig) Validate() error {
	c = c.withDefaults()
	switch {
	case math.IsNaN(c.Elo0) || math.IsNaN(c.Elo1) || math.IsInf(c.Elo0, 0) || math.IsInf(c.Elo1, 0):
		return errors.New("sprt: elo0 and elo1 must be finite numbers")
	case c.Elo0 >= c.Elo1:
		return fmt.Errorf("sprt: elo0 (%g) must be below elo1 (%g)", c.Elo0, c.Elo1)
	case !(c.Alpha > 0 && c.Alpha < 0.5):
		return fmt.Errorf("sprt: alpha %g out of range (above 0, below 0.5)", c.Alpha)
	case !(c.Beta > 0 && c.Beta < 0.5):
		return fmt.Errorf("sprt: beta %g out of range (above 0, below 0.5)", c.Beta)
	}
	return nil
}

// Bounds returns the test's stopping bounds: H0 is accepted once the LLR
// falls to lower = log(β/(1−α)), H1 once it reaches upper = log((1−β)/α).
func (c SPRTConfig) Bounds() (lower, upper float64) {
	c = c.withDefaults()
	return math.Log(c.Beta / (1 - c.Alpha)), math.Log((1 - c.Beta) / c.Alpha)
}

// Verdict is the state of an SPRT.
type Verdict uint8

const (
	Continue Verdict = iota // no decision yet
	AcceptH0                // the LLR reached the lower bound
	AcceptH1                // the LLR reached the upper bound
)

func (v Verdict) String() string {
	switch v {
	case AcceptH0:
		return "H0 accepted"
	case AcceptH1:
		return "H1 accepted"
	}
	return "continue"
}

// SPRTStatus is an SPRT's state after some games.
type SPRTStatus struct {
	Config       SPRTConfig // with defaults applied
	LLR          float64
	Lower, Upper float64
	Verdict      Verdict
}

// sprtPrior is the pseudo-count added to each of wins, draws and losses
// before the LLR is computed (a Jeffreys prior).
const sprtPrior = 0.5

// Test runs the test on w wins, d draws and l losses. Half a game is added
// to each count first (a Jeffreys prior), so that the per-game variance is
// never zero: without it the first few games, if they all end the same way,
// would make the LLR infinite and stop the test at once. With hundreds of
// games the prior's effect is negligible.
func (c SPRTConfig) Test(w, d, l int) SPRTStatus {
	c = c.withDefaults()
	st := SPRTStatus{Config: c}
	st.Lower, st.Upper = c.Bounds()
	if w+d+l == 0 {
		return st
	}
	st.LLR = LLR(float64(w)+sprtPrior, float64(d)+sprtPrior, float64(l)+sprtPrior, c.Elo0, c.Elo1)
	switch {
	case st.LLR >= st.Upper:
		st.Verdict = AcceptH1
	case st.LLR <= st.Lower:
		st.Verdict = AcceptH0
	}
	return st
}
