package server

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/rules"
)

// TestListingSaysHowGamesEnded: every summary, in the listing, by ids and
// in a series, has the status its game shows: playing, how the rules ended
// it, or a resignation, an abort, a loss on time...
func TestListingSaysHowGamesEnded(t *testing.T) {
	ts := newTestServer(t)
	move := func(id, m string, ply int, token string) {
		t.Helper()
		if code, raw := ts.seat("POST", "/api/games/"+id+"/moves", token, fmt.Sprintf(`{"move": %q, "ply": %d}`, m, ply), nil); code != http.StatusOK {
			t.Fatalf("move %s in %s: %d %s", m, id, code, raw)
		}
	}
	act := func(id, action string, ply int, token string) {
		t.Helper()
		if code, raw := ts.seat("POST", "/api/games/"+id+"/actions", token, fmt.Sprintf(`{"action": %q, "ply": %d}`, action, ply), nil); code != http.StatusOK {
			t.Fatalf("%s in %s: %d %s", action, id, code, raw)
		}
	}

	playing := ts.create(`{"holes": 6}`).ID
	swept := ts.create(`{"position": "1,0/0,0 s 5 4"}`)
	move(swept.ID, "a", 0, "")
	series := ts.create(`{"holes": 3, "seeds": 1, "series": 2}`)
	for g := series; g.Status == "playing"; g = ts.get(series.ID) {
		move(series.ID, g.LegalMoves[0], len(g.Moves), "")
	}
	ended := ts.get(series.ID)
	resigned := ts.create(`{"holes": 6, "computer": {"side": "n", "level": 1}}`).ID
	act(resigned, "resign", 0, "")
	aborted, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 3}`)
	act(aborted.ID, "abort", 0, tokens[rules.South])
	online, tokens2 := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 3}`)
	for ply := range 2 {
		g := ts.get(online.ID)
		move(online.ID, g.LegalMoves[0], ply, tokenOf(g, tokens2))
	}
	act(online.ID, "resign", 2, tokens2[rules.North])

	want := map[string]struct{ status, result string }{
		playing:    {"playing", "*"},
		swept.ID:   {"no-legal-move", "1-0"},
		resigned:   {"resigned", "0-1"},
		aborted.ID: {"aborted", "*"},
		online.ID:  {"resigned", "1-0"},
		series.ID:  {ended.Status, ended.Result},
	}
	check := func(where string, games []api.Summary) {
		t.Helper()
		for _, sm := range games {
			w, ok := want[sm.ID]
			if !ok {
				continue
			}
			if sm.Status != w.status || sm.Result != w.result {
				t.Errorf("%s: game %s has status %q, result %q; want %q, %q", where, sm.ID, sm.Status, sm.Result, w.status, w.result)
			}
			// The summary agrees with the game's own view.
			if g := ts.get(sm.ID); g.Status != sm.Status {
				t.Errorf("%s: game %s: summary status %q, game status %q", where, sm.ID, sm.Status, g.Status)
			}
		}
	}
	var list struct{ Games []api.Summary }
	if code, raw := ts.do("GET", "/api/games", "", &list); code != http.StatusOK || len(list.Games) != len(want) {
		t.Fatalf("listing: %d %s", code, raw)
	}
	check("the listing", list.Games)
	ids := playing + "," + swept.ID + "," + resigned + "," + aborted.ID + "," + online.ID + "," + series.ID
	var byID struct{ Games []api.Summary }
	if code, raw := ts.do("GET", "/api/games?ids="+ids, "", &byID); code != http.StatusOK || len(byID.Games) != len(want) {
		t.Fatalf("by ids: %d %s", code, raw)
	}
	check("by ids", byID.Games)
	var sr api.Series
	if code, raw := ts.do("GET", "/api/series/"+series.SeriesID, "", &sr); code != http.StatusOK || len(sr.Games) != 1 {
		t.Fatalf("series: %d %s", code, raw)
	}
	check("the series", sr.Games)
	if sc := sr.Games[0].Score; sc == nil || sc.South != ended.Score.South || sc.North != ended.Score.North {
		t.Errorf("the series' game has the score %+v, want %+v", sc, ended.Score)
	}
}
