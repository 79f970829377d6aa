package bot

import (
	"strings"
	"testing"
)

func TestParseRanges(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // the ranges as String writes them, or the error's start
		ok   bool
	}{
		{"6,8", "6, 8", true},
		{"6-10", "6-10", true},
		{" 2 - 4 , 16", "", false},
		{"2-4, 16", "2-4, 16", true},
		{"7-7", "7", true},
		{"", `"": want a number`, false},
		{"6,,8", `"": want a number`, false},
		{"10-6", `"10-6": the range runs backwards`, false},
		{"1", `"1": out of range (2 to 16)`, false},
		{"17", `"17": out of range`, false},
		{"six", `"six": want a number`, false},
		{"-3", `"-3": want a number`, false},
		{strings.Repeat("6,", 64) + "6", "more than 64", false},
	} {
		got, err := ParseRanges(tc.in, 2, 16)
		switch {
		case tc.ok && err != nil:
			t.Errorf("ParseRanges(%q): %v", tc.in, err)
		case tc.ok && got.String() != tc.want:
			t.Errorf("ParseRanges(%q) = %s, want %s", tc.in, got, tc.want)
		case !tc.ok && err == nil:
			t.Errorf("ParseRanges(%q) = %s, want an error", tc.in, got)
		case !tc.ok && !strings.HasPrefix(err.Error(), tc.want):
			t.Errorf("ParseRanges(%q): error %q, want %q...", tc.in, err, tc.want)
		}
	}
}

func TestClockRules(t *testing.T) {
	rules, err := ParseClocks("none, blitz, 2-3d, 10-30+0-10, 1+0")
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(c *Clock) bool {
		for _, r := range rules {
			if r.Allows(c) {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		clock *Clock
		want  bool
	}{
		{nil, true},
		{&Clock{}, true},
		{&Clock{Minutes: 3, Increment: 2}, true},   // blitz: 260 s
		{&Clock{Minutes: 2, Increment: 0}, false},  // bullet: 120 s
		{&Clock{Minutes: 1, Increment: 0}, true},   // 1+0 by name
		{&Clock{Minutes: 1, Increment: 1}, false},  // bullet
		{&Clock{Minutes: 7, Increment: 2}, false},  // rapid: 500 s
		{&Clock{Minutes: 30, Increment: 10}, true}, // in the range
		{&Clock{Minutes: 31, Increment: 0}, false},
		{&Clock{Days: 1}, false},
		{&Clock{Days: 3}, true},
		{&Clock{Days: 7}, false},
	} {
		if got := allowed(tc.clock); got != tc.want {
			t.Errorf("clock %s: allowed %v, want %v", tc.clock, got, tc.want)
		}
	}
	for _, bad := range []string{"", "fast", "5", "5+", "+3", "0+0", "181+0", "5+61", "0d", "8d", "3-1d", "5+3+1", "blitz,"} {
		if _, err := ParseClocks(bad); err == nil {
			t.Errorf("ParseClocks(%q): no error", bad)
		}
	}
}

func TestSpeed(t *testing.T) {
	for _, tc := range []struct {
		clock Clock
		want  string
	}{
		{Clock{Minutes: 1}, "bullet"},
		{Clock{Minutes: 2, Increment: 1}, "bullet"}, // 160 s
		{Clock{Minutes: 3}, "blitz"},                // 180 s
		{Clock{Minutes: 7, Increment: 1}, "blitz"},  // 460 s
		{Clock{Minutes: 8}, "rapid"},                // 480 s
		{Clock{Minutes: 24, Increment: 1}, "rapid"}, // 1480 s
		{Clock{Minutes: 25}, "classical"},
	} {
		if got := Speed(&tc.clock); got != tc.want {
			t.Errorf("Speed(%s) = %s, want %s", &tc.clock, got, tc.want)
		}
	}
}

func TestDecide(t *testing.T) {
	p := DefaultPolicy()
	p.Holes = Ranges{{6, 6}, {8, 8}}
	p.Variants = []string{"standard"}
	p.Casual = false
	blitz := &Clock{Minutes: 3, Increment: 2}
	for _, tc := range []struct {
		name string
		ch   Challenge
		want string // "" to accept
	}{
		{"within", Challenge{Holes: 8, Seeds: 4, Variant: "standard", Clock: blitz, Rated: true}, ""},
		{"no variant named", Challenge{Holes: 6, Seeds: 4, Clock: blitz, Rated: true}, ""},
		{"holes", Challenge{Holes: 7, Seeds: 4, Variant: "standard", Clock: blitz, Rated: true}, "this bot plays boards of 6, 8 holes a row"},
		{"seeds", Challenge{Holes: 8, Seeds: 13, Variant: "standard", Clock: blitz, Rated: true}, "this bot plays 1-12 seeds a hole"},
		{"variant", Challenge{Holes: 8, Seeds: 4, Variant: "cross", Clock: blitz, Rated: true}, "this bot plays the standard rules"},
		{"casual", Challenge{Holes: 8, Seeds: 4, Variant: "standard", Clock: blitz}, "this bot plays rated games only"},
		{"untimed", Challenge{Holes: 8, Seeds: 4, Variant: "standard", Rated: true}, "this bot plays these clocks: bullet, blitz, rapid, classical"},
	} {
		ok, reason := p.Decide(&tc.ch)
		if ok != (tc.want == "") || reason != tc.want {
			t.Errorf("%s: Decide = %v %q, want %q", tc.name, ok, reason, tc.want)
		}
	}
}

// FuzzParseClocks: whatever the option says, the parser answers without
// panicking, and what it accepts it writes back in a form it reads again
// to the same rules.
func FuzzParseClocks(f *testing.F) {
	for _, s := range []string{DefaultClocks, "none,3d,1-7d,5+3,3-10+0-5", "correspondence", "1+0", "-1+-1", "5++3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		rules, err := ParseClocks(s)
		if err != nil {
			return
		}
		names := make([]string, len(rules))
		for i, r := range rules {
			names[i] = r.String()
		}
		again, err := ParseClocks(strings.Join(names, ","))
		if err != nil {
			t.Fatalf("ParseClocks(%q) gave %v, which does not read again: %v", s, names, err)
		}
		for i := range rules {
			if again[i] != rules[i] {
				t.Fatalf("ParseClocks(%q): rule %d is %+v, read again %+v", s, i, rules[i], again[i])
			}
		}
	})
}
