package rating

import (
	"math"
	"strings"
	"testing"
	"time"
)

// paperGames are the three games of the paper's example, from the view of
// the 1500 / 200 / 0.06 player.
var paperGames = []Game{
	{Opponent: Rating{Rating: 1400, Deviation: 30, Volatility: 0.06}, Score: 1},
	{Opponent: Rating{Rating: 1550, Deviation: 100, Volatility: 0.06}, Score: 0},
	{Opponent: Rating{Rating: 1700, Deviation: 300, Volatility: 0.06}, Score: 0},
}

var paperPlayer = Rating{Rating: 1500, Deviation: 200, Volatility: 0.06}

func near(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.7f, want %.7f ± %g", what, got, want, tol)
	}
}

// TestPaperExample computes the paper's example at full precision. The
// paper rounds its intermediate g and E values to three or four digits, so
// its v and Δ differ in the fourth decimal and it prints r' = 1464.06 where
// the exact value is 1464.0507; every figure matches the paper to the digits
// it prints within that rounding, and the exact values to 1e-4.
func TestPaperExample(t *testing.T) {
	p := DefaultParams()
	got, st, err := p.update(paperPlayer, paperGames, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The paper's figures.
	near(t, "v", st.v, 1.7785, 0.001)
	near(t, "Δ", st.delta, -0.4834, 0.001)
	near(t, "σ'", st.sigma, 0.05999, 0.00001)
	near(t, "φ*", st.phiStar, 1.152862, 0.00001)
	near(t, "φ'", st.phi, 0.8722, 0.00005)
	near(t, "μ'", st.mu, -0.2069, 0.00005)
	near(t, "r'", got.Rating, 1464.06, 0.01)
	near(t, "RD'", got.Deviation, 151.52, 0.005)
	// The exact values (an independent double-precision computation).
	near(t, "r' exact", got.Rating, 1464.0507, 0.0001)
	near(t, "RD' exact", got.Deviation, 151.5165, 0.0001)
	near(t, "σ' exact", got.Volatility, 0.0599960, 0.0000001)
	if got.At != paperPlayer.At {
		t.Errorf("At changed to %v", got.At)
	}
}

// TestPaperChain follows the paper's arithmetic, which rounds as it goes:
// v and Δ from its three-digit E values feed the volatility iteration, and
// φ' and μ' are rounded to four decimals before the conversion back. Done
// that way, the results are the paper's digit for digit: 1464.06 / 151.52 /
// 0.05999.
func TestPaperChain(t *testing.T) {
	_, st, err := DefaultParams().update(paperPlayer, paperGames, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	phi := math.Round(200/173.7178*1e4) / 1e4 // the paper's 1.1513
	v, delta := 1.7785, -0.4834
	sigma, err := volatility(0.06, phi, v, delta, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	if s := math.Trunc(sigma*1e5) / 1e5; s != 0.05999 {
		t.Errorf("σ' = %.7f, the paper prints 0.05999", sigma)
	}
	sigma = 0.05999
	phiStar := math.Sqrt(phi*phi + sigma*sigma)
	near(t, "φ*", phiStar, 1.152862, 5e-7)
	newPhi := math.Round(1/math.Sqrt(1/(phiStar*phiStar)+1/v)*1e4) / 1e4
	if newPhi != 0.8722 {
		t.Errorf("φ' = %.4f, the paper prints 0.8722", newPhi)
	}
	// Σ g(φj)(sj − Ej) = Δ/v at full precision.
	newMu := math.Round(newPhi*newPhi*st.delta/st.v*1e4) / 1e4
	if newMu != -0.2069 {
		t.Errorf("μ' = %.4f, the paper prints -0.2069", newMu)
	}
	if r := math.Round((173.7178*newMu+1500)*100) / 100; r != 1464.06 {
		t.Errorf("r' = %.2f, the paper prints 1464.06", r)
	}
	if rd := math.Round(173.7178*newPhi*100) / 100; rd != 151.52 {
		t.Errorf("RD' = %.2f, the paper prints 151.52", rd)
	}
}

// TestOneGame checks a single-game period, the way the site rates: both
// sides of the paper's first game, against an independent double-precision
// computation of the paper's formulas.
func TestOneGame(t *testing.T) {
	p := DefaultParams()
	winner, err := p.UpdatePeriod(paperPlayer, paperGames[:1], 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "winner r'", winner.Rating, 1563.5642, 0.0001)
	near(t, "winner RD'", winner.Deviation, 175.4027, 0.0001)
	near(t, "winner σ'", winner.Volatility, 0.0599987, 0.0000001)
	loser, err := p.UpdatePeriod(paperGames[0].Opponent, []Game{{Opponent: paperPlayer, Score: 0}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	// 31.67 is below the site's minimum of 45: the paper has no minimum.
	q := p
	q.MinDeviation = 1
	loser2, err := q.UpdatePeriod(paperGames[0].Opponent, []Game{{Opponent: paperPlayer, Score: 0}}, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "loser r'", loser2.Rating, 1398.1436, 0.0001)
	near(t, "loser RD'", loser2.Deviation, 31.6702, 0.0001)
	near(t, "loser RD' at the minimum", loser.Deviation, 45, 1e-9)
	if loser.Rating >= loser2.Rating {
		t.Errorf("at the minimum deviation the loss cost %.4f, no more than the %.4f without it",
			1400-loser.Rating, 1400-loser2.Rating)
	}
}

// TestRate checks a game between two equal players: without the advantage
// the winner gains what the loser loses; with it, a first mover's win gains
// less and a second mover's win gains more.
func TestRate(t *testing.T) {
	p := DefaultParams()
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	a := Rating{Rating: 1600, Deviation: 80, Volatility: 0.06, At: now.Add(-24 * time.Hour)}
	b := a
	nf, ns, err := p.Rate(a, b, 1, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	gain := nf.Rating - a.Rating
	near(t, "loser's loss", a.Rating-ns.Rating, gain, 1e-9)
	if !nf.At.Equal(now) || !ns.At.Equal(now) {
		t.Errorf("At = %v, %v, want %v", nf.At, ns.At, now)
	}
	nfA, _, err := p.Rate(a, b, 1, 60, now)
	if err != nil {
		t.Fatal(err)
	}
	_, nsA, err := p.Rate(a, b, 0, 60, now)
	if err != nil {
		t.Fatal(err)
	}
	if g1, g2 := nfA.Rating-a.Rating, nsA.Rating-b.Rating; !(g1 < gain && gain < g2) {
		t.Errorf("gains: first mover %.2f, plain %.2f, second mover %.2f: want increasing", g1, gain, g2)
	}
	// A draw between equals with no advantage moves neither rating.
	df, ds, err := p.Rate(a, b, 0.5, 0, now)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "draw", df.Rating, a.Rating, 1e-9)
	near(t, "draw", ds.Rating, b.Rating, 1e-9)
	// With the advantage, a draw is a small loss for the first mover.
	df, ds, err = p.Rate(a, b, 0.5, 60, now)
	if err != nil {
		t.Fatal(err)
	}
	if !(df.Rating < a.Rating && ds.Rating > b.Rating) {
		t.Errorf("draw with advantage: first %.2f, second %.2f from %.2f", df.Rating, ds.Rating, a.Rating)
	}
}

// TestInactivity checks the growth of the deviation with time: a player at
// the minimum becomes provisional again after about a year away, and no
// absence takes the deviation past the maximum.
func TestInactivity(t *testing.T) {
	p := DefaultParams()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := Rating{Rating: 1800, Deviation: p.MinDeviation, Volatility: p.InitialVolatility, At: at}
	if p.Provisional(r, at) {
		t.Fatal("provisional at the minimum deviation")
	}
	if got := p.Current(r, at.Add(30*24*time.Hour)).Deviation; !(got > 45 && got < 60) {
		t.Errorf("after a month: RD %.1f, want a little above 45", got)
	}
	if p.Provisional(r, at.Add(330*24*time.Hour)) {
		t.Error("provisional after 330 days")
	}
	if !p.Provisional(r, at.Add(400*24*time.Hour)) {
		t.Error("not provisional after 400 days")
	}
	if got := p.Current(r, at.AddDate(100, 0, 0)).Deviation; got != p.MaxDeviation {
		t.Errorf("after a century: RD %.1f, want the maximum %v", got, p.MaxDeviation)
	}
	if got := p.Current(r, at.Add(-time.Hour)); got != r {
		t.Errorf("a clock gone backwards changed the rating to %v", got)
	}
	if !p.Provisional(p.Initial(), at) {
		t.Error("a new player is not provisional")
	}
	// Rating after the absence: the game counts more.
	opp := Rating{Rating: 1800, Deviation: 60, Volatility: 0.06, At: at}
	soon, _, err := p.Rate(r, opp, 1, 0, at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	late, _, err := p.Rate(r, opp, 1, 0, at.AddDate(1, 0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if !(late.Rating-r.Rating > soon.Rating-r.Rating) {
		t.Errorf("gain after a year %.2f, not above the gain after an hour %.2f", late.Rating-r.Rating, soon.Rating-r.Rating)
	}
}

// TestNoGames checks a period without games: the rating stays and only the
// deviation grows, by the paper's φ* = √(φ² + σ²).
func TestNoGames(t *testing.T) {
	p := DefaultParams()
	got, err := p.UpdatePeriod(paperPlayer, nil, 1, 0)
	if err != nil {
		t.Fatal(err)
	}
	near(t, "r", got.Rating, 1500, 0)
	near(t, "RD", got.Deviation, Scale*math.Sqrt(math.Pow(200/Scale, 2)+0.06*0.06), 1e-9)
	near(t, "σ", got.Volatility, 0.06, 0)
}

func TestInvalidInput(t *testing.T) {
	p := DefaultParams()
	ok := Game{Opponent: paperPlayer, Score: 1}
	bad := []struct {
		name    string
		p       Params
		r       Rating
		games   []Game
		periods float64
		adv     float64
		want    string
	}{
		{"score", p, paperPlayer, []Game{{Opponent: paperPlayer, Score: 2}}, 1, 0, "score"},
		{"NaN score", p, paperPlayer, []Game{{Opponent: paperPlayer, Score: math.NaN()}}, 1, 0, "score"},
		{"deviation", p, Rating{Rating: 1500, Volatility: 0.06}, []Game{ok}, 1, 0, "deviation"},
		{"opponent", p, paperPlayer, []Game{{Opponent: Rating{Rating: math.Inf(1), Deviation: 1, Volatility: 1}}}, 1, 0, "opponent"},
		{"side", p, paperPlayer, []Game{{Opponent: paperPlayer, Side: 7}}, 1, 0, "side"},
		{"periods", p, paperPlayer, []Game{ok}, -1, 0, "periods"},
		{"advantage", p, paperPlayer, []Game{ok}, 1, math.NaN(), "advantage"},
		{"params", Params{}, paperPlayer, []Game{ok}, 1, 0, "tau"},
	}
	for _, c := range bad {
		if _, err := c.p.UpdatePeriod(c.r, c.games, c.periods, c.adv); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one about %q", c.name, err, c.want)
		}
	}
	if _, _, err := p.Rate(paperPlayer, paperPlayer, 1, 0, time.Time{}); err == nil {
		t.Error("Rate without a time: no error")
	}
	if _, _, err := p.Rate(paperPlayer, paperPlayer, -1, 0, time.Now()); err == nil {
		t.Error("Rate with a score of -1: no error")
	}
}
