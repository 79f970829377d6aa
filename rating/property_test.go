package rating

import (
	"math"
	"testing"
	"time"

	"pgregory.net/rapid"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// drawRating draws a rating as the site could store one: within the
// deviation bounds, with a volatility up to the maximum, last rated up to
// ten years before the epoch (or never).
func drawRating(t *rapid.T, p Params, label string) Rating {
	r := Rating{
		Rating:     rapid.Float64Range(0, 3000).Draw(t, label+" rating"),
		Deviation:  rapid.Float64Range(p.MinDeviation, p.MaxDeviation).Draw(t, label+" deviation"),
		Volatility: rapid.Float64Range(0.01, p.MaxVolatility).Draw(t, label+" volatility"),
	}
	if rapid.Bool().Draw(t, label+" rated before") {
		r.At = epoch.Add(-time.Duration(rapid.Int64Range(0, int64(10*365*24*time.Hour)).Draw(t, label+" absence")))
	}
	return r
}

func drawGames(t *rapid.T, p Params, score *rapid.Generator[float64]) []Game {
	n := rapid.IntRange(0, 6).Draw(t, "games")
	games := make([]Game, n)
	for i := range games {
		games[i] = Game{
			Opponent: drawRating(t, p, "opponent"),
			Side:     rapid.SampledFrom([]Side{Unsided, First, Second}).Draw(t, "side"),
			Score:    score.Draw(t, "score"),
		}
	}
	return games
}

var anyScore = rapid.SampledFrom([]float64{0, 0.5, 1})

func TestPropDeviationWithinBounds(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		r := drawRating(t, p, "player")
		games := drawGames(t, p, anyScore)
		periods := rapid.Float64Range(0, 5000).Draw(t, "periods")
		adv := rapid.Float64Range(-300, 300).Draw(t, "advantage")
		got, err := p.UpdatePeriod(r, games, periods, adv)
		if err != nil {
			t.Fatal(err)
		}
		if got.Deviation < p.MinDeviation || got.Deviation > p.MaxDeviation {
			t.Fatalf("deviation %v outside [%v, %v]", got.Deviation, p.MinDeviation, p.MaxDeviation)
		}
		if got.Volatility <= 0 || got.Volatility > p.MaxVolatility {
			t.Fatalf("volatility %v outside (0, %v]", got.Volatility, p.MaxVolatility)
		}
		o := drawRating(t, p, "opponent")
		now := epoch.Add(time.Duration(rapid.Int64Range(0, int64(20*365*24*time.Hour)).Draw(t, "now")))
		nf, ns, err := p.Rate(r, o, anyScore.Draw(t, "game score"), adv, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range []Rating{nf, ns, p.Current(nf, now.AddDate(50, 0, 0))} {
			if x.Deviation < p.MinDeviation || x.Deviation > p.MaxDeviation {
				t.Fatalf("deviation %v outside [%v, %v]", x.Deviation, p.MinDeviation, p.MaxDeviation)
			}
		}
	})
}

func TestPropWinNeverLowers(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		r := drawRating(t, p, "player")
		o := drawRating(t, p, "opponent")
		adv := rapid.Float64Range(-300, 300).Draw(t, "advantage")
		now := epoch.Add(time.Duration(rapid.Int64Range(0, int64(5*365*24*time.Hour)).Draw(t, "now")))
		nf, ns, err := p.Rate(r, o, 1, adv, now)
		if err != nil {
			t.Fatal(err)
		}
		if nf.Rating < r.Rating {
			t.Fatalf("the winner went from %v to %v", r.Rating, nf.Rating)
		}
		if ns.Rating > o.Rating {
			t.Fatalf("the loser went from %v to %v", o.Rating, ns.Rating)
		}
		// A period of wins only, on any sides.
		games := drawGames(t, p, rapid.Just(1.0))
		got, err := p.UpdatePeriod(r, games, rapid.Float64Range(0, 100).Draw(t, "periods"), adv)
		if err != nil {
			t.Fatal(err)
		}
		if got.Rating < r.Rating {
			t.Fatalf("%d wins took the rating from %v to %v", len(games), r.Rating, got.Rating)
		}
	})
}

func TestPropExpectationsSumToOne(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		a := drawRating(t, p, "a")
		b := drawRating(t, p, "b")
		adv := rapid.Float64Range(-300, 300).Draw(t, "advantage")
		for _, s := range [][2]Side{{First, Second}, {Second, First}, {Unsided, Unsided}} {
			ea, eb := Expected(a, b, s[0], adv), Expected(b, a, s[1], adv)
			if math.Abs(ea+eb-1) > 1e-12 {
				t.Fatalf("sides %v: %v + %v = %v", s, ea, eb, ea+eb)
			}
		}
		// In the update, each side's E uses the other's deviation; with
		// equal deviations they too sum to 1.
		b.Deviation = a.Deviation
		gd := g(a.Deviation / Scale)
		ea := expected(a.Rating/Scale, b.Rating/Scale, gd, First.offset(adv))
		eb := expected(b.Rating/Scale, a.Rating/Scale, gd, Second.offset(adv))
		if math.Abs(ea+eb-1) > 1e-12 {
			t.Fatalf("update: %v + %v = %v", ea, eb, ea+eb)
		}
	})
}

// TestPropZeroAdvantageIsPlain checks that an advantage of 0 is plain
// Glicko-2 bit for bit (the same games without sides, under any
// advantage), and that plain Glicko-2 here is the paper's: an independent
// transcription of its steps, without bounds, agrees to 1e-9.
func TestPropZeroAdvantageIsPlain(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		r := drawRating(t, p, "player")
		games := drawGames(t, p, anyScore)
		periods := rapid.Float64Range(0, 10).Draw(t, "periods")
		withSides, err := p.UpdatePeriod(r, games, periods, 0)
		if err != nil {
			t.Fatal(err)
		}
		unsided := make([]Game, len(games))
		for i, gm := range games {
			gm.Side = Unsided
			unsided[i] = gm
		}
		plain, err := p.UpdatePeriod(r, unsided, periods, rapid.Float64Range(-300, 300).Draw(t, "ignored advantage"))
		if err != nil {
			t.Fatal(err)
		}
		if withSides != plain {
			t.Fatalf("advantage 0: %+v, plain: %+v", withSides, plain)
		}
		o := drawRating(t, p, "opponent")
		now := epoch.Add(time.Duration(rapid.Int64Range(0, int64(365*24*time.Hour)).Draw(t, "now")))
		s := anyScore.Draw(t, "game score")
		nf, ns, err := p.Rate(r, o, s, 0, now)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := p.UpdatePeriod(r, []Game{{Opponent: p.Current(o, now), Score: s}}, p.elapsed(r.At, now), 0)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := p.UpdatePeriod(o, []Game{{Opponent: p.Current(r, now), Score: 1 - s}}, p.elapsed(o.At, now), 0)
		if err != nil {
			t.Fatal(err)
		}
		pf.At, ps.At = now, now
		if nf != pf || ns != ps {
			t.Fatalf("Rate with advantage 0: %+v %+v, plain: %+v %+v", nf, ns, pf, ps)
		}

		// Against the paper's steps, with the bounds out of the way.
		q := p
		q.MinDeviation, q.MaxDeviation, q.MaxVolatility = 1e-9, 1e9, 0
		got, err := q.UpdatePeriod(r, games, periods, 0)
		if err != nil {
			t.Fatal(err)
		}
		want := paperGlicko2(r, unsided, periods, q.Tau)
		if math.Abs(got.Rating-want.Rating) > 1e-9 || math.Abs(got.Deviation-want.Deviation) > 1e-9 ||
			math.Abs(got.Volatility-want.Volatility) > 1e-12 {
			t.Fatalf("got %+v, the paper's steps give %+v", got, want)
		}
	})
}

// paperGlicko2 transcribes the paper's eight steps, nothing more.
func paperGlicko2(r Rating, games []Game, periods, tau float64) Rating {
	const k = Scale // 400/ln 10, which the paper prints as 173.7178
	mu, phi, sigma := (r.Rating-1500)/k, r.Deviation/k, r.Volatility
	if len(games) == 0 {
		r.Deviation = k * math.Sqrt(phi*phi+periods*sigma*sigma)
		return r
	}
	gf := func(phi float64) float64 { return 1 / math.Sqrt(1+3*phi*phi/(math.Pi*math.Pi)) }
	var vinv, sum float64
	for _, gm := range games {
		muj, gj := (gm.Opponent.Rating-1500)/k, gf(gm.Opponent.Deviation/k)
		e := 1 / (1 + math.Exp(-gj*(mu-muj)))
		vinv += gj * gj * e * (1 - e)
		sum += gj * (gm.Score - e)
	}
	v := 1 / vinv
	delta := v * sum
	a := math.Log(sigma * sigma)
	f := func(x float64) float64 {
		return math.Exp(x)*(delta*delta-phi*phi-v-math.Exp(x))/(2*math.Pow(phi*phi+v+math.Exp(x), 2)) - (x-a)/(tau*tau)
	}
	A, B := a, 0.0
	if delta*delta > phi*phi+v {
		B = math.Log(delta*delta - phi*phi - v)
	} else {
		n := 1.0
		for f(a-n*tau) < 0 {
			n++
		}
		B = a - n*tau
	}
	fA, fB := f(A), f(B)
	for math.Abs(B-A) > 1e-6 {
		C := A + (A-B)*fA/(fB-fA)
		fC := f(C)
		if fC*fB <= 0 {
			A, fA = B, fB
		} else {
			fA /= 2
		}
		B, fB = C, fC
	}
	sigma = math.Exp(A / 2)
	phiStar := math.Sqrt(phi*phi + periods*sigma*sigma)
	phi = 1 / math.Sqrt(1/(phiStar*phiStar)+1/v)
	mu += phi * phi * sum
	return Rating{Rating: k*mu + 1500, Deviation: k * phi, Volatility: sigma, At: r.At}
}
