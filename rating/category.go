package rating

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// A player has one rating per category: the board's size (holes a row)
// and the game's speed, given by its clock.

// Speed is how fast a game is played.
type Speed string

// The speeds, fastest first.
const (
	Bullet         Speed = "bullet"
	Blitz          Speed = "blitz"
	Rapid          Speed = "rapid"
	Classical      Speed = "classical"
	Correspondence Speed = "correspondence"
)

// Speeds lists the speeds, fastest first.
var Speeds = []Speed{Bullet, Blitz, Rapid, Classical, Correspondence}

// The holes a row a category may have: the rules' bounds.
const (
	MinHoles = 2
	MaxHoles = 16
)

// movesPerGame is the number of moves by which an increment counts in a
// game's estimated duration: time + 40 × increment.
const movesPerGame = 40

// SpeedOf returns the speed of a clock of total time for the game plus
// increment a move; perMove (days a move) and no clock at all (total 0)
// are correspondence, since nothing then hurries a player. Otherwise the
// estimated duration total + 40 × increment decides: bullet under 3
// minutes, blitz under 8, rapid under 25, classical from 25.
func SpeedOf(total, increment time.Duration, perMove bool) Speed {
	if perMove || total <= 0 {
		return Correspondence
	}
	switch est := total + movesPerGame*increment; {
	case est < 3*time.Minute:
		return Bullet
	case est < 8*time.Minute:
		return Blitz
	case est < 25*time.Minute:
		return Rapid
	}
	return Classical
}

// Category is a rating category: a board size and a speed, written
// "<holes>-<speed>", as "8-blitz".
type Category struct {
	Holes int
	Speed Speed
}

// CategoryOf returns the category of a game on holes holes a row with
// the given clock (see SpeedOf).
func CategoryOf(holes int, total, increment time.Duration, perMove bool) Category {
	return Category{Holes: holes, Speed: SpeedOf(total, increment, perMove)}
}

func (c Category) String() string { return strconv.Itoa(c.Holes) + "-" + string(c.Speed) }

// Valid reports whether c is a category a game can have.
func (c Category) Valid() bool {
	if c.Holes < MinHoles || c.Holes > MaxHoles {
		return false
	}
	for _, s := range Speeds {
		if c.Speed == s {
			return true
		}
	}
	return false
}

// ParseCategory reads a category written as String writes it, and refuses
// any other text.
func ParseCategory(text string) (Category, error) {
	holes, speed, ok := strings.Cut(text, "-")
	n, err := strconv.Atoi(holes)
	if !ok || err != nil || strconv.Itoa(n) != holes {
		return Category{}, fmt.Errorf("category %q: want <holes>-<speed>, as 8-blitz", clip(text))
	}
	c := Category{Holes: n, Speed: Speed(speed)}
	if !c.Valid() {
		return Category{}, fmt.Errorf("category %q: want %d to %d holes and a speed of bullet, blitz, rapid, classical or correspondence",
			clip(text), MinHoles, MaxHoles)
	}
	return c, nil
}

// clip shortens text for a message.
func clip(text string) string {
	if len(text) > 40 {
		return text[:40] + "..."
	}
	return text
}

// ProvisionalFrom returns when r becomes provisional as its deviation
// grows with the time since r.At (see Current): r.At itself when it is
// provisional already, and at most a century later, which stands for
// never.
func (p Params) ProvisionalFrom(r Rating) time.Time {
	const never = 100 * 365 * 24 * time.Hour
	if r.Deviation > p.ProvisionalDeviation {
		return r.At
	}
	// φ² + t·σ² = φp² gives t periods.
	phi, limit, sigma := r.Deviation/Scale, p.ProvisionalDeviation/Scale, r.Volatility
	t := (limit*limit - phi*phi) / (sigma * sigma)
	d := t * float64(p.Period)
	if !(d < float64(never)) {
		return r.At.Add(never)
	}
	return r.At.Add(time.Duration(math.Floor(d)))
}
