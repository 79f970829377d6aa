package server

// What the game screen replays and does beside moves: each move's sowing
// in the game's view, and resigning a game played on one device.

import (
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/internal/gameview"
)

// TestGameViewSowings: the view of a game lists every move's sowing, as the
// answers to the moves gave them, and follows a takeback.
func TestGameViewSowings(t *testing.T) {
	ts := newTestServer(t)
	g := ts.create(`{"holes": 6, "computer": {"side": "n", "level": 1}}`)
	if g.Sowings == nil || len(g.Sowings) != 0 || g.SowingsFrom != 0 {
		t.Fatalf("a new game has sowings %v from %d, want an empty list from 0", g.Sowings, g.SowingsFrom)
	}
	var answers []gameview.Sowing
	for i := 0; i < 3; i++ {
		var mv moveView
		cur := ts.get(g.ID)
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[0], len(cur.Moves)), &mv); code != http.StatusOK {
			t.Fatalf("move %s: %d %s", cur.LegalMoves[0], code, raw)
		}
		answers = append(answers, mv.Sowing)
		if !reflect.DeepEqual(mv.Game.Sowings, answers) {
			t.Fatalf("the answer to move %d lists the sowings %+v, want %+v", len(answers), mv.Game.Sowings, answers)
		}
		if mv.Game.Result != "*" {
			break
		}
		var reply moveView // decoded apart: the answers' laps are kept
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/computer", fmt.Sprintf(`{"ply": %d}`, len(mv.Game.Moves)), &reply); code != http.StatusOK {
			t.Fatalf("computer: %d %s", code, raw)
		}
		answers = append(answers, reply.Sowing)
	}
	got := ts.get(g.ID)
	if !reflect.DeepEqual(got.Sowings, answers) || got.SowingsFrom != 0 {
		t.Fatalf("GET lists the sowings %+v from %d, want the answers' %+v", got.Sowings, got.SowingsFrom, answers)
	}
	for i, sw := range got.Sowings {
		if sw.Move != got.Moves[i] || len(sw.Laps) == 0 {
			t.Errorf("sowing %d is %+v for the move %s", i+1, sw, got.Moves[i])
		}
	}
	// The JSON has the documented names.
	_, raw := ts.do("GET", "/api/games/"+g.ID, "", nil)
	for _, want := range []string{`"sowings":[{"move":"` + got.Moves[0] + `","laps":[{"from":`, `"sowingsFrom":0`} {
		if !strings.Contains(raw, want) {
			t.Errorf("the game's JSON lacks %s: %s", want, raw)
		}
	}
	var back gameView
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/takeback", fmt.Sprintf(`{"ply": %d}`, len(got.Moves)), &back); code != http.StatusOK {
		t.Fatalf("takeback: %d %s", code, raw)
	}
	if len(back.Sowings) != len(back.Moves) || !reflect.DeepEqual(back.Sowings, answers[:len(back.Moves)]) {
		t.Errorf("after a takeback to %d moves the sowings are %+v", len(back.Moves), back.Sowings)
	}

	// An imported game has them too.
	var imp gameView
	if code, raw := ts.do("POST", "/api/games/import", recordBody("[Holes \"6\"]\n[Seeds \"4\"]\n\n1. c A 2. d *\n"), &imp); code != http.StatusCreated {
		t.Fatalf("import: %d %s", code, raw)
	}
	if len(imp.Sowings) != 3 || imp.Sowings[2].Move != "d" {
		t.Errorf("the imported game's sowings are %+v", imp.Sowings)
	}
}

// TestMaxViewLaps: through the API a move has fewer than MaxLaps laps, so
// the latest move's sowing always fits a view (play.Game.Sowings).
func TestMaxViewLaps(t *testing.T) {
	if api.MaxViewLaps < MaxLaps {
		t.Errorf("api.MaxViewLaps %d is below the lap cap %d", api.MaxViewLaps, MaxLaps)
	}
}

// TestLocalResign: a game on one device can be resigned through the
// actions endpoint, by the person against the computer or by the side to
// move between two people; the result is kept and the record says why.
func TestLocalResign(t *testing.T) {
	ts := newTestServer(t)
	act := func(id, body string, want int) gameView {
		t.Helper()
		var v gameView
		if code, raw := ts.do("POST", "/api/games/"+id+"/actions", body, &v); code != want {
			t.Fatalf("actions %s: %d %s, want %d", body, code, raw, want)
		}
		return v
	}

	// Against the computer: the person resigns, whoever is to move.
	g := ts.create(`{"holes": 6, "south": "Naserian", "computer": {"side": "n", "level": 1}}`)
	act(g.ID, `{"action": "resign"}`, http.StatusBadRequest)
	act(g.ID, `{"action": "resign", "ply": 3}`, http.StatusConflict)
	act(g.ID, `{"action": "draw-offer", "ply": 0}`, http.StatusBadRequest)
	act(g.ID, `{"action": "resign", "ply": 0, "side": "n"}`, http.StatusBadRequest)
	v := act(g.ID, `{"action": "resign", "ply": 0}`, http.StatusOK)
	if v.Status != "resigned" || v.Result != "0-1" || len(v.LegalMoves) != 0 || v.Online != nil {
		t.Fatalf("after resigning: status %s, result %s, legal %v, online %v", v.Status, v.Result, v.LegalMoves, v.Online)
	}
	if again := ts.get(g.ID); again.Status != "resigned" || again.Result != "0-1" {
		t.Errorf("read again: %s %s", again.Status, again.Result)
	}
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/moves", `{"move": "c", "ply": 0}`},
		{"POST", "/computer", `{"ply": 0}`},
		{"POST", "/takeback", `{"ply": 0}`},
		{"GET", "/hint", ``},
		{"POST", "/actions", `{"action": "resign", "ply": 0}`},
	} {
		if code, raw := ts.do(c.method, "/api/games/"+g.ID+c.path, c.body, nil); code != http.StatusConflict {
			t.Errorf("%s %s after resigning: %d %s, want 409", c.method, c.path, code, raw)
		}
	}
	_, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil)
	if !strings.Contains(text, `[Termination "resigned; North won"]`) {
		t.Errorf("the record does not say the game was resigned:\n%s", text)
	}
	var list struct{ Games []api.Summary }
	ts.do("GET", "/api/games?ids="+g.ID, "", &list)
	if len(list.Games) != 1 || list.Games[0].Result != "0-1" {
		t.Errorf("the listing has %+v", list.Games)
	}

	// The person plays North: the computer, South, wins.
	g = ts.create(`{"holes": 6, "computer": {"side": "s", "level": 1}}`)
	if v := act(g.ID, `{"action": "resign", "ply": 0}`, http.StatusOK); v.Result != "1-0" {
		t.Errorf("North resigned against the computer: result %s", v.Result)
	}

	// Two people: the side to move resigns. Survives a restart.
	g = ts.create(`{"holes": 6}`)
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "c", "ply": 0}`, nil); code != http.StatusOK {
		t.Fatalf("move: %d %s", code, raw)
	}
	if v := act(g.ID, `{"action": "resign", "ply": 1}`, http.StatusOK); v.Result != "1-0" || v.Status != "resigned" {
		t.Errorf("North, to move, resigned: %s %s", v.Status, v.Result)
	}
	ts.restart()
	if v := ts.get(g.ID); v.Result != "1-0" || v.Status != "resigned" || len(v.Moves) != 1 || len(v.Sowings) != 1 {
		t.Errorf("after a restart: %s %s, %d moves", v.Status, v.Result, len(v.Moves))
	}

	// In a series the resigned game counts, and the next one may start.
	g = ts.create(`{"holes": 4, "seeds": 2, "series": 2}`)
	v = act(g.ID, `{"action": "resign", "ply": 0}`, http.StatusOK)
	if v.Series == nil || v.Series.Wins.North != 1 || v.Series.Over {
		t.Fatalf("a resigned series game: %+v", v.Series)
	}
	var next gameView
	if code, raw := ts.do("POST", "/api/series/"+g.SeriesID+"/next", "", &next); code != http.StatusCreated || next.Status != "playing" {
		t.Errorf("the next game after a resignation: %d %s", code, raw)
	}

	// A game over by the rules cannot be resigned.
	g = ts.create(`{"position": "1,0/0,0 s 5 4"}`)
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "a", "ply": 0}`, nil); code != http.StatusOK {
		t.Fatalf("the last move: %d %s", code, raw)
	}
	act(g.ID, `{"action": "resign", "ply": 1}`, http.StatusConflict)
}
