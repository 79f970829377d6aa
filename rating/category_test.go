package rating

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/endodoi/endodoi/rules"
)

func TestSpeedOf(t *testing.T) {
	min, sec := time.Minute, time.Second
	for _, tc := range []struct {
		total, inc time.Duration
		perMove    bool
		want       Speed
	}{
		{1 * min, 0, false, Bullet},
		{2 * min, 1 * sec, false, Bullet},                // 160 s
		{2 * min, 1500 * time.Millisecond, false, Blitz}, // 180 s: the bound is blitz's
		{3 * min, 2 * sec, false, Blitz},                 // 260 s
		{5 * min, 3 * sec, false, Blitz},                 // 420 s
		{7 * min, 2 * sec, false, Rapid},                 // 500 s
		{10 * min, 5 * sec, false, Rapid},                // 800 s
		{15 * min, 15 * sec, false, Classical},           // 1500 s
		{180 * min, 60 * sec, false, Classical},          // the largest clock
		{3 * 24 * time.Hour, 0, true, Correspondence},
		{0, 0, false, Correspondence}, // no clock
	} {
		if got := SpeedOf(tc.total, tc.inc, tc.perMove); got != tc.want {
			t.Errorf("SpeedOf(%v, %v, %v) = %s, want %s", tc.total, tc.inc, tc.perMove, got, tc.want)
		}
	}
}

func TestParseCategory(t *testing.T) {
	for _, text := range []string{"8-blitz", "2-bullet", "16-correspondence", "6-rapid", "12-classical"} {
		c, err := ParseCategory(text)
		if err != nil || c.String() != text || !c.Valid() {
			t.Errorf("ParseCategory(%q) = %v, %v", text, c, err)
		}
	}
	for _, text := range []string{"", "8", "8-", "-blitz", "8-Blitz", "08-blitz", "+8-blitz", "1-blitz", "17-blitz",
		"8-blitz-", "8-hyper", "8 -blitz", "99999999999999999999-blitz", "８-blitz"} {
		if c, err := ParseCategory(text); err == nil {
			t.Errorf("ParseCategory(%q) = %v, want an error", text, c)
		}
	}
	if MinHoles != rules.MinHoles || MaxHoles != rules.MaxHoles {
		t.Errorf("categories allow %d to %d holes, the rules %d to %d", MinHoles, MaxHoles, rules.MinHoles, rules.MaxHoles)
	}
}

func FuzzParseCategory(f *testing.F) {
	f.Add("8-blitz")
	f.Add("16-correspondence")
	f.Fuzz(func(t *testing.T, text string) {
		c, err := ParseCategory(text)
		if err != nil {
			return
		}
		if !c.Valid() || c.String() != text {
			t.Fatalf("ParseCategory(%q) = %+v, which writes as %q", text, c, c.String())
		}
	})
}

// ProvisionalFrom is the moment Provisional turns true.
func TestProvisionalFrom(t *testing.T) {
	p := DefaultParams()
	rapid.Check(t, func(t *rapid.T) {
		r := drawRating(t, p, "player")
		if r.At.IsZero() {
			r.At = epoch
		}
		from := p.ProvisionalFrom(r)
		if from.Before(r.At) {
			t.Fatalf("provisional from %v, before the rating's time %v", from, r.At)
		}
		if p.Provisional(r, from.Add(-time.Millisecond)) && from.After(r.At) {
			t.Fatalf("provisional before %v", from)
		}
		if from.Before(r.At.Add(99*365*24*time.Hour)) && !p.Provisional(r, from.Add(time.Millisecond)) {
			t.Fatalf("not provisional just after %v: %+v", from, p.Current(r, from.Add(time.Millisecond)))
		}
	})
	// A player at the minimum deviation with the usual volatility stays
	// established for about a year away.
	r := Rating{Rating: 1600, Deviation: 45, Volatility: 0.06, At: epoch}
	if d := p.ProvisionalFrom(r).Sub(epoch); d < 360*24*time.Hour || d > 380*24*time.Hour {
		t.Errorf("from RD 45: provisional after %v, want about 371 days", d)
	}
}
