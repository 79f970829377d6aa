package store

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// A game's review is stored once, read back as it was, replaced by a newer
// one, and kept across a restart; a review of no game is refused.
func TestReviews(t *testing.T) { forEachStore(t, testReviews) }

func testReviews(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	g := newGame(t, s, nil)
	if _, err := s.Review(ctx, g.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("review of a game never reviewed: %v, want ErrNotFound", err)
	}
	r := &Review{GameID: g.ID, Key: "k1", Data: []byte(`{"plies": [{"label": "best"}], "text": "ñ \u0000"}`)}
	before := time.Now().Add(-time.Second)
	if err := s.SaveReview(ctx, r); err != nil {
		t.Fatal(err)
	}
	if r.Created.Before(before) || r.Created.After(time.Now().Add(time.Second)) {
		t.Errorf("created %v, want now", r.Created)
	}
	check := func(s Store, want *Review) {
		t.Helper()
		got, err := s.Review(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.GameID != want.GameID || got.Key != want.Key || string(got.Data) != string(want.Data) || !got.Created.Equal(want.Created) {
			t.Errorf("read back %+v (%s), want %+v (%s)", got, got.Data, want, want.Data)
		}
	}
	check(s, r)

	// A newer review replaces it, with the time given.
	r2 := &Review{GameID: g.ID, Key: "k2", Data: []byte(`{"plies": []}`), Created: time.Date(2025, 3, 4, 5, 6, 7, 8_000_000, time.UTC)}
	if err := s.SaveReview(ctx, r2); err != nil {
		t.Fatal(err)
	}
	check(s, r2)

	// No such game: nothing stored.
	if err := s.SaveReview(ctx, &Review{GameID: "0123456789abcdef", Key: "k", Data: []byte(`{}`)}); !errors.Is(err, ErrNotFound) {
		t.Errorf("review of no game: %v, want ErrNotFound", err)
	}
	if err := s.SaveReview(ctx, &Review{GameID: g.ID, Key: "k"}); err == nil {
		t.Error("a review without data was stored")
	}
	if s.WriteFailures() != 0 {
		t.Errorf("%d write failures", s.WriteFailures())
	}

	// Other games have none; the review survives a restart.
	other := newGame(t, s, nil)
	if _, err := s.Review(ctx, other.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("review of another game: %v, want ErrNotFound", err)
	}
	s.Close()
	check(open(), r2)
}

// Reviews saved at once for many games are all kept, and two saves of the
// same game leave one of them whole.
func TestConcurrentReviews(t *testing.T) { forEachStore(t, testConcurrentReviews) }

func testConcurrentReviews(t *testing.T, open func() Store) {
	ctx := context.Background()
	s := open()
	var games []*game.Game
	for range 8 {
		games = append(games, newGame(t, s, nil))
	}
	var wg sync.WaitGroup
	for i, g := range games {
		for k := range 2 {
			wg.Go(func() {
				data := []byte(`{"game": "` + g.ID + `", "save": ` + string(rune('0'+k)) + `}`)
				if err := s.SaveReview(ctx, &Review{GameID: g.ID, Key: "key", Data: data}); err != nil {
					t.Errorf("game %d save %d: %v", i, k, err)
				}
			})
		}
	}
	wg.Wait()
	for _, g := range games {
		r, err := s.Review(ctx, g.ID)
		if err != nil {
			t.Fatal(err)
		}
		if d := string(r.Data); d != `{"game": "`+g.ID+`", "save": 0}` && d != `{"game": "`+g.ID+`", "save": 1}` {
			t.Errorf("game %s: review %s", g.ID, d)
		}
	}
}
