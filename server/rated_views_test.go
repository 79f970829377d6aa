package server

import (
	"net/http"
	"testing"
	"time"
)

// The rematch of a rated game is rated too; an aborted rated game says it
// is not rated; the change at a rated game's end says whether the new
// rating is provisional; a new player's lobby rating is the initial one,
// provisional; the leaderboard says how many games a player needs to
// appear on it.
func TestRatedViews(t *testing.T) {
	ls := newLobbySite(t, time.Minute)
	amina, baraka := ls.player("Amina"), ls.player("Baraka")

	// A new player's rating in the lobby.
	var sk seekAnswer
	if code, raw := amina.local("POST", "/api/lobby/seeks", `{"minutes": 5, "rated": true}`, &sk); code != http.StatusCreated {
		t.Fatalf("seek: %d %s", code, raw)
	}
	if by := sk.Seek.By; by.Rating == nil || *by.Rating != 1500 || !by.Provisional {
		t.Errorf("a new player in the lobby: %+v, want 1500, provisional", by)
	}

	// Aborted: not rated.
	id := challengeGame(t, amina, baraka, `"minutes": 5, "rated": true`)
	if g := gameOf(t, amina, id); g["rated"] != true {
		t.Fatalf("a rated game's view: rated %v", g["rated"])
	}
	if code, raw := act(t, amina, id, "abort"); code != http.StatusOK {
		t.Fatalf("abort: %d %s", code, raw)
	}
	if g := gameOf(t, amina, id); g["rated"] != false || g["status"] != "aborted" {
		t.Errorf("an aborted rated game: rated %v (want false), status %v", g["rated"], g["status"])
	}

	// Ended, rated: the change says the new ratings are provisional.
	id = challengeGame(t, amina, baraka, `"minutes": 5, "rated": true`)
	playPlies(t, id, amina, baraka, 4)
	if code, raw := act(t, amina, id, "resign"); code != http.StatusOK {
		t.Fatalf("resign: %d %s", code, raw)
	}
	g := gameOf(t, amina, id)
	change, _ := g["rating_change"].(jsonMap)
	if change == nil {
		t.Fatalf("no rating change: %v", pretty(g))
	}
	for _, side := range []string{"s", "n"} {
		if c := change[side].(jsonMap); c["provisional"] != true {
			t.Errorf("the change of %s: %v, want the new rating provisional", side, c)
		}
	}

	// The rematch: both ask, and it is rated.
	if code, raw := act(t, baraka, id, "rematch"); code != http.StatusOK {
		t.Fatalf("rematch offer: %d %s", code, raw)
	}
	if code, raw := act(t, amina, id, "rematch"); code != http.StatusOK {
		t.Fatalf("rematch: %d %s", code, raw)
	}
	next := gameOf(t, amina, id)["online"].(jsonMap)["next"].(string)
	if r := gameOf(t, amina, next); r["rated"] != true {
		t.Errorf("the rematch of a rated game: rated %v", r["rated"])
	}

	// The leaderboard: how many games a new player needs, and how many
	// more the asker does.
	var board struct {
		GamesToAppear int `json:"games_to_appear"`
		You           *struct {
			Provisional bool
			Needed      int
		}
	}
	if code, raw := amina.local("GET", "/api/leaderboard?category=8-blitz", "", &board); code != http.StatusOK ||
		board.GamesToAppear < 5 || board.You == nil || !board.You.Provisional || board.You.Needed <= 0 ||
		board.You.Needed >= board.GamesToAppear {
		t.Errorf("the leaderboard as a provisional player: %d %s", code, raw)
	}
}
