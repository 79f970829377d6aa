package bot

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/endodoi/endodoi/rules"
)

// Policy says which challenges the bot accepts; it declines the others,
// saying why.
type Policy struct {
	Holes    Ranges   // holes a row
	Seeds    Ranges   // seeds a hole at the start
	Variants []string // rules variants by name
	Clocks   []ClockRule
	Rated    bool // accept rated challenges
	Casual   bool // accept casual challenges
}

// DefaultPolicy accepts the traditional boards (6 to 10 holes) with any
// number of seeds, both variants, real-time clocks from bullet to
// classical, rated or not.
func DefaultPolicy() Policy {
	p := Policy{Rated: true, Casual: true}
	p.Holes, _ = ParseRanges("6-10", rules.MinHoles, rules.MaxHoles)
	p.Seeds, _ = ParseRanges("1-12", 1, 12)
	for _, v := range rules.Variants() {
		p.Variants = append(p.Variants, v.String())
	}
	p.Clocks, _ = ParseClocks(DefaultClocks)
	return p
}

// DefaultClocks are the clocks the bot accepts unless told otherwise: the
// real-time ones. Correspondence and untimed games hold a game slot for
// days, so they are accepted only when asked for.
const DefaultClocks = "bullet,blitz,rapid,classical"

// Decide says whether to accept ch and, if not, why (for the challenger).
func (p *Policy) Decide(ch *Challenge) (bool, string) {
	if !p.Holes.Has(ch.Holes) {
		return false, fmt.Sprintf("this bot plays boards of %s holes a row", p.Holes)
	}
	if !p.Seeds.Has(ch.Seeds) {
		return false, fmt.Sprintf("this bot plays %s seeds a hole", p.Seeds)
	}
	variant := ch.Variant
	if variant == "" {
		variant = rules.Standard.String()
	}
	known := false
	for _, v := range p.Variants {
		known = known || v == variant
	}
	if !known {
		return false, "this bot plays the " + strings.Join(p.Variants, " or ") + " rules"
	}
	if ch.Rated && !p.Rated {
		return false, "this bot plays casual games only"
	}
	if !ch.Rated && !p.Casual {
		return false, "this bot plays rated games only"
	}
	for _, r := range p.Clocks {
		if r.Allows(ch.Clock) {
			return true, ""
		}
	}
	names := make([]string, len(p.Clocks))
	for i, r := range p.Clocks {
		names[i] = r.String()
	}
	return false, "this bot plays these clocks: " + strings.Join(names, ", ")
}

// Range is the whole numbers from Lo to Hi.
type Range struct{ Lo, Hi int }

// Ranges is a set of whole numbers, as "6,8" or "6-10" read.
type Ranges []Range

// Has reports whether n is in the set.
func (rs Ranges) Has(n int) bool {
	for _, r := range rs {
		if r.Lo <= n && n <= r.Hi {
			return true
		}
	}
	return false
}

func (rs Ranges) String() string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, ", ")
}

func (r Range) String() string {
	if r.Lo == r.Hi {
		return strconv.Itoa(r.Lo)
	}
	return strconv.Itoa(r.Lo) + "-" + strconv.Itoa(r.Hi)
}

// ParseRanges reads a comma-separated list of numbers and ranges "a-b",
// each within lo to hi.
func ParseRanges(s string, lo, hi int) (Ranges, error) {
	var rs Ranges
	items := strings.Split(s, ",")
	if len(items) > maxListItems {
		return nil, fmt.Errorf("more than %d numbers or ranges", maxListItems)
	}
	for _, item := range items {
		r, err := parseRange(strings.TrimSpace(item), lo, hi)
		if err != nil {
			return nil, err
		}
		rs = append(rs, r)
	}
	return rs, nil
}

// maxListItems bounds the items of an option's list.
const maxListItems = 64

func parseRange(s string, lo, hi int) (Range, error) {
	a, b, isRange := strings.Cut(s, "-")
	x, err := strconv.Atoi(a)
	if err != nil {
		return Range{}, fmt.Errorf("%q: want a number or a range such as 6-10", s)
	}
	y := x
	if isRange {
		if y, err = strconv.Atoi(b); err != nil {
			return Range{}, fmt.Errorf("%q: want a number or a range such as 6-10", s)
		}
	}
	if x > y {
		return Range{}, fmt.Errorf("%q: the range runs backwards", s)
	}
	if x < lo || y > hi {
		return Range{}, fmt.Errorf("%q: out of range (%d to %d)", s, lo, hi)
	}
	return Range{x, y}, nil
}

// A ClockRule accepts a family of time controls: games without a clock,
// correspondence clocks of some days, real-time clocks of a speed, or
// real-time clocks with minutes and increment in ranges.
type ClockRule struct {
	Kind      ClockKind
	Speed     string // for SpeedClocks: bullet, blitz, rapid or classical
	Minutes   Range  // for LiveClocks
	Increment Range  // for LiveClocks
	Days      Range  // for DayClocks
}

// ClockKind is what a ClockRule is about.
type ClockKind uint8

// The kinds of clock rules.
const (
	NoClock ClockKind = iota
	DayClocks
	SpeedClocks
	LiveClocks
)

// The server's bounds on clocks (docs/api.md: making an online game).
const (
	maxMinutes   = 180
	maxIncrement = 60
	maxDays      = 7
)

// Allows reports whether the rule accepts clock c (nil: no clock).
func (r ClockRule) Allows(c *Clock) bool {
	untimed := c == nil || *c == Clock{}
	switch r.Kind {
	case NoClock:
		return untimed
	case DayClocks:
		return !untimed && c.Days > 0 && r.Days.Lo <= c.Days && c.Days <= r.Days.Hi
	case SpeedClocks:
		return !untimed && c.Days == 0 && Speed(c) == r.Speed
	case LiveClocks:
		return !untimed && c.Days == 0 && r.Minutes.Lo <= c.Minutes && c.Minutes <= r.Minutes.Hi &&
			r.Increment.Lo <= c.Increment && c.Increment <= r.Increment.Hi
	}
	return false
}

func (r ClockRule) String() string {
	switch r.Kind {
	case NoClock:
		return "none"
	case DayClocks:
		return r.Days.String() + "d"
	case SpeedClocks:
		return r.Speed
	}
	return r.Minutes.String() + "+" + r.Increment.String()
}

// Speed is a real-time clock's speed as the ratings count it: from the
// estimated time of a game, minutes*60 + 40*increment seconds, bullet
// under 3 minutes, blitz under 8, rapid under 25, classical beyond.
func Speed(c *Clock) string {
	switch t := c.Minutes*60 + 40*c.Increment; {
	case t < 180:
		return "bullet"
	case t < 480:
		return "blitz"
	case t < 1500:
		return "rapid"
	}
	return "classical"
}

// ParseClocks reads a comma-separated list of clock rules: "none" (no
// clock), a speed (bullet, blitz, rapid, classical), "correspondence" (any
// days), days "3d" or "1-7d", or a real-time clock "M+I" whose minutes and
// increment may each be a range: "5+3", "3-10+0-5".
func ParseClocks(s string) ([]ClockRule, error) {
	var out []ClockRule
	items := strings.Split(s, ",")
	if len(items) > maxListItems {
		return nil, fmt.Errorf("more than %d clocks", maxListItems)
	}
	for _, item := range items {
		item = strings.TrimSpace(item)
		r, err := parseClockRule(item)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

var errClockSyntax = errors.New("want none, bullet, blitz, rapid, classical, correspondence, days such as 3d, or minutes+increment such as 5+3 or 3-10+0-5")

func parseClockRule(s string) (ClockRule, error) {
	switch s {
	case "none", "untimed":
		return ClockRule{Kind: NoClock}, nil
	case "bullet", "blitz", "rapid", "classical":
		return ClockRule{Kind: SpeedClocks, Speed: s}, nil
	case "correspondence":
		return ClockRule{Kind: DayClocks, Days: Range{1, maxDays}}, nil
	}
	if d, ok := strings.CutSuffix(s, "d"); ok {
		r, err := parseRange(d, 1, maxDays)
		if err != nil {
			return ClockRule{}, fmt.Errorf("clock %q: days: %w", s, err)
		}
		return ClockRule{Kind: DayClocks, Days: r}, nil
	}
	m, i, ok := strings.Cut(s, "+")
	if !ok {
		return ClockRule{}, fmt.Errorf("clock %q: %w", s, errClockSyntax)
	}
	minutes, err := parseRange(m, 1, maxMinutes)
	if err != nil {
		return ClockRule{}, fmt.Errorf("clock %q: minutes: %w", s, err)
	}
	inc, err := parseRange(i, 0, maxIncrement)
	if err != nil {
		return ClockRule{}, fmt.Errorf("clock %q: increment: %w", s, err)
	}
	return ClockRule{Kind: LiveClocks, Minutes: minutes, Increment: inc}, nil
}
