package ratings

import (
	"errors"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// fakeTx is a store's transaction as the ratings' step sees it.
type fakeTx struct {
	pending   bool
	seats     [2]*game.SeatAccount
	advantage float64
	between   int // rated games between the two accounts in the window
	since     time.Time
	ratings   map[string]game.Rating

	unrated bool
	saved   *[2]game.RatingChange
	locked  bool
	fail    error
}

func (f *fakeTx) Seats() (bool, [2]*game.SeatAccount, error) { return f.pending, f.seats, f.fail }
func (f *fakeTx) Advantage(string) (float64, error)          { return f.advantage, nil }
func (f *fakeTx) RatedBetween(_, _, _ string, since time.Time) (int, error) {
	f.since = since
	return f.between, nil
}

func (f *fakeTx) LockRatings(_ string, ids [2]string, initial game.Rating) ([2]game.Rating, error) {
	f.locked = true
	var out [2]game.Rating
	for side, id := range ids {
		r, ok := f.ratings[id]
		if !ok {
			r = initial
		}
		out[side] = r
	}
	return out, nil
}
func (f *fakeTx) Unrate() error { f.unrated = true; return nil }
func (f *fakeTx) SaveRatings(ch [2]game.RatingChange, _ [2]time.Time) error {
	f.saved = &ch
	return nil
}

func seats(a, b string) [2]*game.SeatAccount {
	var out [2]*game.SeatAccount
	if a != "" {
		out[0] = &game.SeatAccount{ID: a, Name: a}
	}
	if b != "" {
		out[1] = &game.SeatAccount{ID: b, Name: b}
	}
	return out
}

// Which ends are rated: a decided game between two accounts in which both
// sides moved, within the day's weights; every other end of a game made
// rated leaves it casual, and a game not pending (casual, or rated
// already) is left alone.
func TestStep(t *testing.T) {
	at := time.Unix(1_800_000_000, 0).UTC()
	end := End{Category: "8-blitz", First: rules.South, Result: "1-0", Moved: [2]bool{true, true}, At: at}
	for _, c := range []struct {
		name    string
		change  func(e *End, f *fakeTx)
		rated   bool
		unrated bool
	}{
		{"rated", func(*End, *fakeTx) {}, true, false},
		{"a draw", func(e *End, _ *fakeTx) { e.Result = "1/2-1/2" }, true, false},
		{"not pending", func(_ *End, f *fakeTx) { f.pending = false }, false, false},
		{"aborted", func(e *End, _ *fakeTx) { e.Aborted, e.Result = true, "*" }, false, true},
		{"no result", func(e *End, _ *fakeTx) { e.Result = "*" }, false, true},
		{"North never moved", func(e *End, _ *fakeTx) { e.Moved[rules.North] = false }, false, true},
		{"South never moved", func(e *End, _ *fakeTx) { e.Moved[rules.South] = false }, false, true},
		{"a guest", func(_ *End, f *fakeTx) { f.seats = seats("a", "") }, false, true},
		{"oneself", func(_ *End, f *fakeTx) { f.seats = seats("a", "a") }, false, true},
		{"no category", func(e *End, _ *fakeTx) { e.Category = "" }, false, true},
		{"the sixth today", func(_ *End, f *fakeTx) { f.between = 5 }, true, false},
		{"the seventh today", func(_ *End, f *fakeTx) { f.between = 6 }, false, true},
	} {
		e := end
		f := &fakeTx{pending: true, seats: seats("a", "b"), ratings: map[string]game.Rating{}}
		c.change(&e, f)
		if err := e.Step()(f); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if (f.saved != nil) != c.rated || f.unrated != c.unrated {
			t.Errorf("%s: saved %t, unrated %t; want %t, %t", c.name, f.saved != nil, f.unrated, c.rated, c.unrated)
		}
		if !c.rated && f.locked {
			t.Errorf("%s: ratings locked for a game not rated", c.name)
		}
		if c.rated && !f.since.Equal(at.Add(-FarmWindow)) {
			t.Errorf("%s: counted from %v", c.name, f.since)
		}
	}
	f := &fakeTx{pending: true, seats: seats("a", "b"), fail: errors.New("cut")}
	if err := end.Step()(f); err == nil {
		t.Error("a store's failure not returned")
	}
}

// A rated game's changes: each side's before, after, score, side, and
// the category's advantage; the first mover from the end; a new player's
// clock starting at the game.
func TestStepChanges(t *testing.T) {
	at := time.Unix(1_800_000_000, 0).UTC()
	p := Params()
	old := game.Rating{Rating: 1700, Deviation: 90, Volatility: 0.06, At: at.Add(-10 * 24 * time.Hour)}
	f := &fakeTx{pending: true, seats: seats("a", "b"), advantage: 30, ratings: map[string]game.Rating{"b": old}}
	e := End{Category: "8-blitz", First: rules.North, Result: "0-1", Moved: [2]bool{true, true}, At: at}
	if err := e.Step()(f); err != nil {
		t.Fatal(err)
	}
	ch := f.saved
	if ch == nil {
		t.Fatal("not rated")
	}
	initial := p.Initial()
	initial.At = at
	wantN, wantS, err := p.Rate(old, initial, 1, 30, at)
	if err != nil {
		t.Fatal(err)
	}
	s, n := ch[rules.South], ch[rules.North]
	if s.AccountID != "a" || n.AccountID != "b" || s.Score != 0 || n.Score != 1 || !n.MovedFirst || s.MovedFirst ||
		s.Side != rules.South || n.Side != rules.North || s.Advantage != 30 || !s.At.Equal(at) || s.Category != "8-blitz" {
		t.Errorf("changes %+v %+v", s, n)
	}
	if s.After != wantS || n.After != wantN {
		t.Errorf("after %v %v, want %v %v", s.After, n.After, wantS, wantN)
	}
	if n.Before.Rating != 1700 || n.Before.Deviation != p.Current(old, at).Deviation || s.Before.Rating != 1500 {
		t.Errorf("before %+v %+v", s.Before, n.Before)
	}
}

// The policy's weights.
func TestWeight(t *testing.T) {
	want := []float64{1, 1, 1, 0.5, 0.25, 0.125, 0, 0, 0}
	for i, w := range want {
		if got := Weight(i + 1); got != w {
			t.Errorf("game %d of a day: weight %v, want %v", i+1, got, w)
		}
	}
}

// A game's category, as package rating names it.
func TestCategory(t *testing.T) {
	for _, c := range []struct {
		holes int
		clock game.Clock
		want  string
	}{
		{8, game.Clock{Time: time.Minute}, "8-bullet"},
		{8, game.Clock{Time: 5 * time.Minute, Increment: 3 * time.Second}, "8-blitz"},
		{6, game.Clock{Time: 72 * time.Hour, PerMove: true}, "6-correspondence"},
		{8, game.Clock{}, "8-correspondence"},
	} {
		if got := Category(c.holes, c.clock); got != c.want {
			t.Errorf("%d holes, %+v: %s, want %s", c.holes, c.clock, got, c.want)
		}
	}
}
