package arena

import (
	"math"
	"testing"
)

func near(a, b, tol float64) bool {
	if math.IsInf(b, 0) || math.IsNaN(b) {
		return a == b || (math.IsNaN(a) && math.IsNaN(b))
	}
	return math.Abs(a-b) <= tol
}

func TestScore(t *testing.T) {
	for _, tc := range []struct {
		w, d, l int
		want    float64
	}{
		{60, 20, 20, 0.7},
		{20, 20, 60, 0.3},
		{10, 0, 10, 0.5},
		{0, 10, 0, 0.5},
		{10, 0, 0, 1},
		{0, 0, 7, 0},
		{1, 1, 0, 0.75},
		{0, 0, 0, 0.5}, // no games: even
	} {
		if got := Score(tc.w, tc.d, tc.l); !near(got, tc.want, 1e-12) {
			t.Errorf("Score(%d, %d, %d) = %v, want %v", tc.w, tc.d, tc.l, got, tc.want)
		}
	}
}

func TestEloDiff(t *testing.T) {
	for _, tc := range []struct {
		score, want float64
	}{
		{0.5, 0},
		{0.7, 147.1907141},  // -400·log10(3/7)
		{0.3, -147.1907141}, // symmetric
		{0.75, 190.8485019}, // -400·log10(1/3)
		{10.0 / 11, 400},    // 1/s − 1 = 0.1
		{1.0 / 11, -400},
		{1, math.Inf(1)},
		{0, math.Inf(-1)},
	} {
		if got := EloDiff(tc.score); !near(got, tc.want, 1e-6) {
			t.Errorf("EloDiff(%v) = %v, want %v", tc.score, got, tc.want)
		}
		if !math.IsInf(tc.want, 0) {
			if back := ScoreOfElo(tc.want); !near(back, tc.score, 1e-9) {
				t.Errorf("ScoreOfElo(%v) = %v, want %v", tc.want, back, tc.score)
			}
		}
	}
}

// The intervals were computed by hand: for 60-20-20 the per-game score has
// mean 0.7 and variance (60·0.3² + 20·0.2² + 20·0.7²)/100 = 0.16, so the
// mean's standard deviation is sqrt(0.16/100) = 0.04 and the score interval
// 0.7 ± 0.0784 = [0.6216, 0.7784], which is [+86.2, +218.3] in Elo.
func TestEloInterval(t *testing.T) {
	inf := math.Inf(1)
	for _, tc := range []struct {
		w, d, l       int
		elo, lo, hi   float64
		wantFormatted [3]string
	}{
		{60, 20, 20, 147.190714, 86.225015, 218.251778, [3]string{"+147.2", "+86.2", "+218.3"}},
		{20, 20, 60, -147.190714, -218.251778, -86.225015, [3]string{"-147.2", "-218.3", "-86.2"}},
		// 10-0-10: variance 0.25, sd 0.1118, score interval 0.5 ± 0.2191.
		{10, 0, 10, 0, -163.321369, 163.321369, [3]string{"0.0", "-163.3", "+163.3"}},
		// 120-30-50: score 0.675, variance 0.199375.
		{120, 30, 50, 126.968165, 82.023149, 176.418645, [3]string{"+127.0", "+82.0", "+176.4"}},
		// All draws: no variance, the interval shrinks to the point.
		{0, 10, 0, 0, 0, 0, [3]string{"0.0", "0.0", "0.0"}},
		// All wins: +inf throughout.
		{10, 0, 0, inf, inf, inf, [3]string{"+inf", "+inf", "+inf"}},
		// The interval's upper end passes a score of 1.
		{9, 1, 0, 511.501440, 311.101498, inf, [3]string{"+511.5", "+311.1", "+inf"}},
		// And the lower end passes 0.
		{1, 0, 9, -381.697004, -inf, -158.985184, [3]string{"-381.7", "-inf", "-159.0"}},
	} {
		elo, lo, hi := EloInterval(tc.w, tc.d, tc.l)
		if !near(elo, tc.elo, 1e-5) || !near(lo, tc.lo, 1e-5) || !near(hi, tc.hi, 1e-5) {
			t.Errorf("EloInterval(%d, %d, %d) = %v [%v, %v], want %v [%v, %v]", tc.w, tc.d, tc.l, elo, lo, hi, tc.elo, tc.lo, tc.hi)
		}
		got := [3]string{FormatElo(elo), FormatElo(lo), FormatElo(hi)}
		if got != tc.wantFormatted {
			t.Errorf("EloInterval(%d, %d, %d) formatted %q, want %q", tc.w, tc.d, tc.l, got, tc.wantFormatted)
		}
	}
	if elo, lo, hi := EloInterval(0, 0, 0); elo != 0 || !math.IsInf(lo, -1) || !math.IsInf(hi, 1) {
		t.Errorf("EloInterval with no games = %v [%v, %v], want 0 [-inf, +inf]", elo, lo, hi)
	}
}

func TestLOS(t *testing.T) {
	for _, tc := range []struct {
		w, l int
		want float64
	}{
		{0, 0, 0.5},
		{10, 10, 0.5},
		{60, 20, 0.9999961279}, // 0.5·(1 + erf(40/sqrt(160)))
		{3, 5, 0.2397500611},   // 0.5·(1 + erf(−2/4))
		{5, 3, 0.7602499389},
	} {
		if got := LOS(tc.w, tc.l); !near(got, tc.want, 1e-9) {
			t.Errorf("LOS(%d, %d) = %v, want %v", tc.w, tc.l, got, tc.want)
		}
	}
}

// The LLR values were computed by hand from the formula
// n·(s1 − s0)·(2·mean − s0 − s1) / (2·variance), with s0 = 0.5 and
// s1 = 1/(1 + 10^(−10/400)) = 0.5143868 for elo0 = 0, elo1 = 10.
func TestLLR(t *testing.T) {
	for _, tc := range []struct {
		w, d, l, elo0, elo1 float64
		want                float64
	}{
		{60, 20, 20, 0, 10, 1.733713},
		{20, 20, 60, 0, 10, -1.863083},
		{50, 0, 50, 0, 10, -0.041398}, // an even score leans to H0 = 0
		{100.5, 20.5, 90.5, -5, 5, 0.319484},
		{0, 0, 0, 0, 10, 0},  // no games
		{0, 10, 0, 0, 10, 0}, // no variance
	} {
		if got := LLR(tc.w, tc.d, tc.l, tc.elo0, tc.elo1); !near(got, tc.want, 1e-5) {
			t.Errorf("LLR(%v, %v, %v, %v, %v) = %v, want %v", tc.w, tc.d, tc.l, tc.elo0, tc.elo1, got, tc.want)
		}
	}
}

func TestSPRTBounds(t *testing.T) {
	for _, tc := range []struct {
		cfg          SPRTConfig
		lower, upper float64
	}{
		{SPRTConfig{Elo0: 0, Elo1: 10}, -2.944439, 2.944439}, // log(0.05/0.95), log(0.95/0.05)
		{SPRTConfig{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05}, -2.944439, 2.944439},
		{SPRTConfig{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.1}, -2.251292, 2.890372},
	} {
		lo, hi := tc.cfg.Bounds()
		if !near(lo, tc.lower, 1e-6) || !near(hi, tc.upper, 1e-6) {
			t.Errorf("%+v: bounds %v, %v, want %v, %v", tc.cfg, lo, hi, tc.lower, tc.upper)
		}
	}
}

func TestSPRTTest(t *testing.T) {
	cfg := SPRTConfig{Elo0: 0, Elo1: 10}
	// The test adds half a game to each count: 100.5-20.5-90.5 at ±5.
	if st := (SPRTConfig{Elo0: -5, Elo1: 5}).Test(100, 20, 90); !near(st.LLR, 0.319484, 1e-5) || st.Verdict != Continue {
		t.Errorf("100-20-90 at [-5, 5]: %+v, want LLR 0.319484 and continue", st)
	}
	if st := cfg.Test(0, 0, 0); st.LLR != 0 || st.Verdict != Continue {
		t.Errorf("no games: %+v", st)
	}
	// One lost game must not end the test (without the prior the variance
	// would be zero).
	if st := cfg.Test(0, 0, 1); st.Verdict != Continue {
		t.Errorf("one loss: %+v, want continue", st)
	}
	// A long run of losses accepts H0, of wins H1.
	if st := cfg.Test(0, 0, 40); st.Verdict != AcceptH0 {
		t.Errorf("40 losses: %+v, want H0", st)
	}
	if st := cfg.Test(40, 0, 0); st.Verdict != AcceptH1 {
		t.Errorf("40 wins: %+v, want H1", st)
	}
	// 600-200-200 is far beyond 10 Elo: H1.
	if st := cfg.Test(600, 200, 200); st.Verdict != AcceptH1 {
		t.Errorf("600-200-200: %+v, want H1", st)
	}
	// An even match of many games accepts H0 = 0 against H1 = 10.
	if st := cfg.Test(5000, 2000, 5000); st.Verdict != AcceptH0 {
		t.Errorf("5000-2000-5000: %+v, want H0", st)
	}
	for _, bad := range []SPRTConfig{
		{Elo0: 10, Elo1: 0},
		{Elo0: 5, Elo1: 5},
		{Elo0: 0, Elo1: 10, Alpha: 0.5},
		{Elo0: 0, Elo1: 10, Beta: -0.1},
		{Elo0: math.NaN(), Elo1: 10},
		{Elo0: 0, Elo1: math.Inf(1)},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
	if err := cfg.Validate(); err != nil {
		t.Errorf("%+v: %v", cfg, err)
	}
}

func TestFormatElo(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "0.0"}, {-0.04, "0.0"}, {0.05, "+0.1"}, {147.19, "+147.2"},
		{-35, "-35.0"}, {math.Inf(1), "+inf"}, {math.Inf(-1), "-inf"},
	} {
		if got := FormatElo(tc.x); got != tc.want {
			t.Errorf("FormatElo(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}
