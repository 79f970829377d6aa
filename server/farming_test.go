package server

import (
	"math"
	"net/http"
	"testing"
	"time"
)

// An alt account resigning rated games before making a move gives its
// owner nothing: each such game ends aborted and unrated, and no rating
// changes, however many there are.
func TestResignedAtStartNotRated(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	farmer, alt := ls.player("Farmer"), ls.player("Alt")
	const games = 449
	for i := range games {
		id := challengeGame(t, alt, farmer, `"minutes": 1, "rated": true`)
		if i%2 == 1 {
			// The farmer has moved; the alt, never.
			g := gameOf(t, farmer, id)
			if g["toMove"] == g["you"] {
				playPlies(t, id, farmer, alt, 1)
			}
		}
		if code, raw := act(t, alt, id, "resign"); code != http.StatusOK {
			t.Fatalf("resign: %d %s", code, raw)
		}
		if i == 0 || i == 1 || i == games-1 {
			g := gameOf(t, farmer, id)
			if g["status"] != "aborted" || g["result"] != "*" || g["rated"] != false || g["rating_change"] != nil {
				t.Errorf("game %d resigned before both moved: status %v, result %v, rated %v, change %v",
					i, g["status"], g["result"], g["rated"], g["rating_change"])
			}
		}
	}
	if r := ratingsOf(t, farmer, "Farmer"); len(r) != 0 {
		t.Errorf("the farmer's ratings after %d resignations at the start: %v", games, pretty(r))
	}
	var board struct{ Players []jsonMap }
	if code, raw := farmer.local("GET", "/api/leaderboard?category=8-bullet", "", &board); code != http.StatusOK || len(board.Players) != 0 {
		t.Errorf("leaderboard: %d %s", code, raw)
	}
}

// Rated games between the same two accounts in one day count fully for
// the first few, then less and less, then not at all (docs/ratings.md).
func TestRepeatedOpponentsWeighed(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka := ls.player("Amina"), ls.player("Baraka")
	var diffs []float64
	rated := 0
	for i := range 9 {
		id := challengeGame(t, baraka, amina, `"minutes": 5, "increment": 3, "rated": true, "side": "s"`)
		playPlies(t, id, amina, baraka, 4)
		// Baraka (South) resigns: Amina wins every game.
		if code, raw := act(t, baraka, id, "resign"); code != http.StatusOK {
			t.Fatalf("resign: %d %s", code, raw)
		}
		g := gameOf(t, amina, id)
		if g["rated"] == true {
			rated++
			ch := g["rating_change"].(jsonMap)["n"].(jsonMap)
			diffs = append(diffs, ch["diff"].(float64))
		} else if g["rating_change"] != nil {
			t.Errorf("game %d: a change of an unrated game %v", i, g["rating_change"])
		}
	}
	if rated != 6 {
		t.Fatalf("%d of 9 games between the same players in a day rated (changes %v), want 6", rated, diffs)
	}
	// The fourth, fifth and sixth count half, a quarter and an eighth: each
	// change is smaller than the one before, and about as the weights say.
	for i := 3; i < 6; i++ {
		if diffs[i] <= 0 || diffs[i] >= diffs[i-1] {
			t.Errorf("changes %v: game %d's should be smaller than the one before", diffs, i+1)
		}
	}
	if math.Abs(diffs[5]) > math.Abs(diffs[2])/4 {
		t.Errorf("changes %v: the sixth game's should count an eighth", diffs)
	}
	if r := ratingsOf(t, amina, "Amina")["8-blitz"]; r == nil || r["games"] != 6.0 {
		t.Errorf("Amina's rating %v: want 6 games", r)
	}
}
