package rating

import (
	"math"
	"testing"
	"time"
)

// A game of weight 1 is a whole game, bit for bit; lighter games move
// ratings and deviations less, in order, and a weight near 0 hardly at
// all. Between two equal new players, a game of weight w moves the
// rating about w times as far as a whole game.
func TestWeightedGames(t *testing.T) {
	p := DefaultParams()
	now := time.Unix(1_800_000_000, 0)
	a := Rating{Rating: 1620, Deviation: 80, Volatility: 0.06, At: now.Add(-48 * time.Hour)}
	b := Rating{Rating: 1480, Deviation: 140, Volatility: 0.07, At: now.Add(-time.Hour)}
	wf, ws, err := p.Rate(a, b, 0, 35, now)
	if err != nil {
		t.Fatal(err)
	}
	gf, gs, err := p.RateWeighted(a, b, 0, 35, 1, now)
	if err != nil {
		t.Fatal(err)
	}
	if wf != gf || ws != gs {
		t.Errorf("weight 1: %v %v, want %v %v", gf, gs, wf, ws)
	}
	prev := math.Inf(1)
	for _, w := range []float64{1, 0.5, 0.25, 0.125, 1e-9} {
		f, _, err := p.RateWeighted(a, b, 0, 35, w, now)
		if err != nil {
			t.Fatal(err)
		}
		moved := a.Rating - f.Rating
		if moved <= 0 || moved >= prev {
			t.Errorf("weight %v: the loser's rating moved %v, want less than %v", w, moved, prev)
		}
		prev = moved
		if w == 1e-9 && (moved > 1e-6 || math.Abs(f.Deviation-p.Current(a, now).Deviation) > 1e-6) {
			t.Errorf("weight %v: %v from %v", w, f, p.Current(a, now))
		}
	}
	n := p.Initial()
	whole, _, _ := p.Rate(n, n, 1, 0, now)
	for _, w := range []float64{0.5, 0.25, 0.125} {
		f, _, _ := p.RateWeighted(n, n, 1, 0, w, now)
		ratio := (f.Rating - n.Rating) / (whole.Rating - n.Rating)
		if ratio < w || ratio > 1.6*w {
			t.Errorf("weight %v moves a new player %.3f of a whole game", w, ratio)
		}
	}
	for _, w := range []float64{-0.5, 1.5, math.NaN()} {
		if _, _, err := p.RateWeighted(a, b, 0, 35, w, now); err == nil {
			t.Errorf("weight %v accepted", w)
		}
	}
}

// GamesToEstablish counts the games that take a rating under the
// provisional bound, as rating them says.
func TestGamesToEstablish(t *testing.T) {
	p := DefaultParams()
	now := time.Unix(1_800_000_000, 0)
	n := p.GamesToEstablish(p.Initial(), now)
	if n < 5 || n > 40 {
		t.Fatalf("a new player needs %d games", n)
	}
	// Played out against such opponents, n games do it and n−1 do not.
	r := p.Initial()
	opp := Rating{Rating: 1500, Deviation: p.ProvisionalDeviation, Volatility: p.InitialVolatility}
	for i := 1; i <= n; i++ {
		r, _ = p.UpdatePeriod(r, []Game{{Opponent: opp, Score: 0.5}}, 0, 0)
		if got := p.Provisional(r, now); got != (i < n) {
			t.Errorf("after %d of %d games: provisional %t", i, n, got)
		}
		if left := p.GamesToEstablish(r, now); left != n-i {
			t.Errorf("after %d games: %d left, want %d", i, left, n-i)
		}
	}
	established := Rating{Rating: 1700, Deviation: 60, Volatility: 0.06, At: now}
	if got := p.GamesToEstablish(established, now); got != 0 {
		t.Errorf("an established player needs %d games", got)
	}
	// A year away makes a player provisional again, for fewer games than
	// a new one.
	if got := p.GamesToEstablish(Rating{Rating: 1700, Deviation: 60, Volatility: 0.06, At: now.Add(-3 * 365 * 24 * time.Hour)}, now); got < 1 || got >= n {
		t.Errorf("after three years away: %d games, a new player %d", got, n)
	}
}
