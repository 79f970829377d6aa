package lobby

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/endodoi/endodoi/lobby/seek"
)

// The pools' pairs: each place at most once; rated with rated; never an
// account with itself nor players who block each other; every pair within
// the gap both players accept; and no two waiting players left unpaired
// who would accept each other (the choice is maximal).
func TestPoolPairsProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		now := time.Unix(1_800_000_000, 0)
		n := rapid.IntRange(0, 14).Draw(t, "places")
		accounts := rapid.IntRange(1, 10).Draw(t, "accounts")
		places := make([]seek.Seek, n)
		ratings := map[string]rated{}
		for a := range accounts {
			ratings[fmt.Sprint(a)] = rated{rating: float64(rapid.IntRange(800, 2400).Draw(t, "rating"))}
		}
		for i := range places {
			places[i] = seek.Seek{ID: fmt.Sprint("p", i), Owner: seek.Player{ID: fmt.Sprint(rapid.IntRange(0, accounts-1).Draw(t, "owner"))},
				Rated: rapid.Bool().Draw(t, "rated"), Created: now.Add(-time.Duration(rapid.IntRange(0, 40_000).Draw(t, "waited ms")) * time.Millisecond)}
		}
		blocks := map[[2]string]bool{}
		for range rapid.IntRange(0, 5).Draw(t, "blocks") {
			a, b := fmt.Sprint(rapid.IntRange(0, accounts-1).Draw(t, "a")), fmt.Sprint(rapid.IntRange(0, accounts-1).Draw(t, "b"))
			blocks[[2]string{a, b}] = true
		}
		blocked := func(a, b string) bool { return blocks[[2]string{a, b}] || blocks[[2]string{b, a}] }
		accepts := func(a, b seek.Seek) bool {
			gap := abs(ratings[a.Owner.ID].rating - ratings[b.Owner.ID].rating)
			return a.Rated == b.Rated && a.Owner.ID != b.Owner.ID && !blocked(a.Owner.ID, b.Owner.ID) &&
				gap <= poolGap(now.Sub(a.Created)) && gap <= poolGap(now.Sub(b.Created))
		}
		used := map[int]bool{}
		for _, p := range poolPairs(places, ratings, now, blocked) {
			for _, i := range p {
				if used[i] {
					t.Fatalf("place %d paired twice", i)
				}
				used[i] = true
			}
			if !accepts(places[p[0]], places[p[1]]) {
				t.Fatalf("pair %+v and %+v do not accept each other", places[p[0]], places[p[1]])
			}
		}
		for i := range places {
			for j := i + 1; j < len(places); j++ {
				if !used[i] && !used[j] && accepts(places[i], places[j]) {
					t.Fatalf("places %d and %d left waiting, though they accept each other", i, j)
				}
			}
		}
	})
}

// The longest waiting is paired first, with the nearest in rating.
func TestPoolPairsNearest(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	place := func(id string, waited time.Duration) seek.Seek {
		return seek.Seek{ID: id, Owner: seek.Player{ID: id}, Created: now.Add(-waited)}
	}
	places := []seek.Seek{place("new", 0), place("old", 10*time.Second), place("near", time.Second), place("far", 10*time.Second)}
	ratings := map[string]rated{"old": {rating: 1500}, "near": {rating: 1550}, "far": {rating: 1900}, "new": {rating: 1490}}
	got := poolPairs(places, ratings, now, func(a, b string) bool { return false })
	// old (1500) accepts 600 points; near (1550) and new (1490) are
	// nearest, new nearer (10). near then has far (350 > its 150): alone.
	if len(got) != 1 || places[got[0][0]].ID != "old" || places[got[0][1]].ID != "new" {
		t.Errorf("pairs %v, want old with new", got)
	}
}
