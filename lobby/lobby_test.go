package lobby_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/store"
)

// clock is a test's time, moved on by hand.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// site is a lobby over a new SQLite store on a test clock, and the events
// it told.
type site struct {
	t     *testing.T
	st    store.Store
	l     *lobby.Lobby
	clock *clock

	mu     sync.Mutex
	events []lobby.Event
}

// ratedStore is a store whose players have the ratings given, in every
// category.
type ratedStore struct {
	store.Store
	ratings map[string]float64
}

func (r ratedStore) RatingsOf(_ context.Context, _ string, ids []string) (map[string]game.Rating, error) {
	out := map[string]game.Rating{}
	for _, id := range ids {
		if v, ok := r.ratings[id]; ok {
			out[id] = game.Rating{Rating: v, Deviation: 60, Volatility: 0.06}
		}
	}
	return out, nil
}

func newSite(t *testing.T) *site { return newRatedSite(t, nil) }

// newRatedSite is a site whose players have the ratings given.
func newRatedSite(t *testing.T, ratings map[string]float64) *site {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	s := &site{t: t, st: st, clock: &clock{now: time.Now().UTC().Truncate(time.Millisecond)}}
	s.l = lobby.New(lobby.Config{Store: ratedStore{st, ratings}, Now: s.clock.Now, Deliver: func(events []lobby.Event) {
		s.mu.Lock()
		defer s.mu.Unlock()
		s.events = append(s.events, events...)
	}})
	return s
}

// player makes an account named name.
func (s *site) player(name string) seek.Player {
	s.t.Helper()
	a := &store.Account{Name: name, Key: name}
	if err := s.st.CreateAccount(context.Background(), a, nil, nil); err != nil {
		s.t.Fatal(err)
	}
	return seek.Player{ID: a.ID, Name: name}
}

// told returns the events told since the last call, as "kind to why".
func (s *site) told() []lobby.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.events
	s.events = nil
	return out
}

func kinds(events []lobby.Event) []string {
	var out []string
	for _, e := range events {
		out = append(out, e.Kind+" "+e.Why)
	}
	slices.Sort(out)
	return out
}

// Challenges expire when their life has passed on the lobby's clock, a
// correspondence one days later, and both players are told.
func TestChallengesExpire(t *testing.T) {
	ctx := context.Background()
	s := newSite(t)
	amina, baraka := s.player("amina"), s.player("baraka")
	live, err := s.l.Challenge(ctx, amina, lobby.ChallengeRequest{To: "baraka", Settings: lobby.Settings{Minutes: 5}})
	if err != nil {
		t.Fatal(err)
	}
	corr, err := s.l.Challenge(ctx, amina, lobby.ChallengeRequest{To: "baraka", Settings: lobby.Settings{Days: 3}})
	if err != nil {
		t.Fatal(err)
	}
	if !live.Expires.Equal(s.clock.Now().Add(lobby.ChallengeLife)) || !corr.Expires.Equal(s.clock.Now().Add(lobby.CorrespondenceChallengeLife)) {
		t.Errorf("expiries %v and %v", live.Expires, corr.Expires)
	}
	s.told()
	s.clock.advance(lobby.ChallengeLife - time.Second)
	s.l.Sweep(ctx)
	if got := s.told(); len(got) != 0 {
		t.Errorf("before its time: %v", kinds(got))
	}
	s.clock.advance(2 * time.Second)
	// Answered at its end, it has expired.
	if _, err := s.l.AcceptChallenge(ctx, baraka, live.ID); !errors.Is(err, lobby.ErrNotFound) {
		t.Errorf("accepting an expired challenge: %v", err)
	}
	s.l.Sweep(ctx)
	got := s.told()
	if fmt.Sprint(kinds(got)) != "[challenge-gone expired challenge-gone expired]" || got[0].ID != live.ID {
		t.Errorf("told %v", got)
	}
	s.clock.advance(lobby.CorrespondenceChallengeLife)
	s.l.Sweep(ctx)
	if got := s.told(); len(got) != 2 || got[0].ID != corr.ID {
		t.Errorf("the correspondence challenge: %v", got)
	}
	in, _, _ := s.st.LobbyChallenges(ctx, baraka.ID)
	if len(in) != 0 {
		t.Errorf("left %+v", in)
	}
}

// A real-time seek lives while its owner is seen in the lobby, and goes
// the grace after they were last seen; a correspondence seek stays.
func TestSeeksExpire(t *testing.T) {
	ctx := context.Background()
	s := newSite(t)
	amina := s.player("amina")
	rt, err := s.l.PostSeek(ctx, amina, lobby.SeekRequest{Settings: lobby.Settings{Minutes: 3, Increment: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.l.PostSeek(ctx, amina, lobby.SeekRequest{Settings: lobby.Settings{Days: 3}}); err != nil {
		t.Fatal(err)
	}
	if err := s.l.JoinPool(ctx, amina, "8-1+0", true); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		s.clock.advance(lobby.Grace / 2)
		if err := s.l.Touch(ctx, []string{amina.ID}); err != nil {
			t.Fatal(err)
		}
		s.l.Sweep(ctx)
	}
	if all, _ := s.st.Seeks(ctx); len(all) != 3 {
		t.Fatalf("%d seeks and places of a player in the lobby, want 3", len(all))
	}
	s.told()
	s.clock.advance(lobby.Grace + time.Millisecond)
	s.l.Sweep(ctx)
	if got := s.told(); fmt.Sprint(kinds(got)) != "[pools  unseek ]" || got[0].ID != rt.ID {
		t.Errorf("told %v", got)
	}
	if all, _ := s.st.Seeks(ctx); len(all) != 1 || !all[0].Clock.PerMove {
		t.Errorf("left %+v", all)
	}
}

// The pools pair in waves: two players far apart in rating wait until
// the gap each accepts, growing with the time waited on the lobby's
// clock, takes in the other; then one game is made, both are told.
func TestPoolWaves(t *testing.T) {
	ctx := context.Background()
	ratings := map[string]float64{}
	s := newRatedSite(t, ratings)
	amina, baraka, cheku := s.player("amina"), s.player("baraka"), s.player("cheku")
	// Baraka is rated 1,900: 400 above the others.
	ratings[baraka.ID] = 1900
	for _, p := range []seek.Player{amina, baraka} {
		if err := s.l.JoinPool(ctx, p, "8-1+0", true); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.l.JoinPool(ctx, cheku, "8-1+0", false); err != nil {
		t.Fatal(err)
	}
	s.told()
	// 400 points: 100 at once and 50 a second, so after 6 s each.
	for range 5 {
		s.l.Match(ctx)
		s.clock.advance(time.Second)
	}
	if got := s.told(); len(got) != 0 {
		t.Fatalf("paired too soon: %v", got)
	}
	s.clock.advance(time.Second)
	s.l.Match(ctx)
	got := s.told()
	var paired []lobby.Event
	for _, e := range got {
		if e.Kind == "paired" {
			paired = append(paired, e)
		}
	}
	if len(paired) != 2 || paired[0].Game != paired[1].Game || paired[0].Side == paired[1].Side ||
		!slices.Contains([]string{paired[0].To, paired[1].To}, amina.ID) || !slices.Contains([]string{paired[0].To, paired[1].To}, baraka.ID) {
		t.Fatalf("pairings %+v", got)
	}
	g, err := s.st.Game(ctx, paired[0].Game)
	if err != nil || !g.Rated || g.Category != "8-bullet" || g.Online.Clock.Time != time.Minute {
		t.Errorf("the game %+v, %v", g, err)
	}
	// Cheku, casual, waits on.
	if all, _ := s.st.Seeks(ctx); len(all) != 1 || all[0].Owner.ID != cheku.ID {
		t.Errorf("left %+v", all)
	}
}

// Withdrawing an account takes away all it has open and tells both
// players of each challenge; declining all declines only the asker's.
func TestWithdrawAndDeclineAll(t *testing.T) {
	ctx := context.Background()
	s := newSite(t)
	amina, baraka, cheku := s.player("amina"), s.player("baraka"), s.player("cheku")
	for _, p := range []seek.Player{baraka, cheku} {
		if _, err := s.l.Challenge(ctx, amina, lobby.ChallengeRequest{To: p.Name, Settings: lobby.Settings{Days: 1}}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.l.Challenge(ctx, cheku, lobby.ChallengeRequest{To: "baraka", Settings: lobby.Settings{Minutes: 1}}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.l.PostSeek(ctx, amina, lobby.SeekRequest{Settings: lobby.Settings{Days: 7}}); err != nil {
		t.Fatal(err)
	}
	s.told()
	if err := s.l.Withdraw(ctx, amina.ID); err != nil {
		t.Fatal(err)
	}
	got := s.told()
	if fmt.Sprint(kinds(got)) != "[challenge-gone withdrawn challenge-gone withdrawn challenge-gone withdrawn challenge-gone withdrawn unseek ]" {
		t.Errorf("told %v", kinds(got))
	}
	n, err := s.l.DeclineAll(ctx, baraka)
	if err != nil || n != 1 {
		t.Errorf("DeclineAll: %d, %v", n, err)
	}
	if got := s.told(); len(got) != 2 || got[0].To != cheku.ID || got[0].Why != lobby.GoneDeclined {
		t.Errorf("told %+v", got)
	}
	// A challenge gone is cancelled all the same; another's is not the
	// asker's to cancel.
	ch, err := s.l.Challenge(ctx, baraka, lobby.ChallengeRequest{To: "cheku", Settings: lobby.Settings{Minutes: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.l.CancelChallenge(ctx, cheku, ch.ID); !errors.Is(err, lobby.ErrForbidden) {
		t.Errorf("cancelling another's challenge: %v", err)
	}
	if err := s.l.DeclineChallenge(ctx, cheku, ch.ID, "not now"); err != nil {
		t.Fatal(err)
	}
	if err := s.l.CancelChallenge(ctx, baraka, ch.ID); err != nil {
		t.Errorf("cancelling a challenge declined: %v", err)
	}
}
