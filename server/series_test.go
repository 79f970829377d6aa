package server

import (
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"testing"

	"github.com/endodoi/endodoi/api"
)

// finish plays random legal moves until the game is over.
func (ts *testServer) finish(g gameView, rng *rand.Rand) gameView {
	ts.t.Helper()
	for g.Status == "playing" {
		var mv moveView
		m := g.LegalMoves[rng.IntN(len(g.LegalMoves))]
		body := `{"move": "` + m + `", "ply": ` + strconv.Itoa(len(g.Moves)) + `}`
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", body, &mv); code != http.StatusOK {
			ts.t.Fatalf("move %s: %d %s", m, code, raw)
		}
		g = mv.Game
	}
	return g
}

func TestSeries(t *testing.T) {
	ts := newTestServer(t)
	rng := rand.New(rand.NewPCG(1, 2))
	g := ts.create(`{"holes": 3, "seeds": 2, "series": 2, "first": "n", "south": "Lemayian", "north": "Nkoitoi"}`)
	if g.Series == nil || g.Series.Target != 2 || len(g.Series.Results) != 1 || g.Series.Results[0] != "*" || g.ToMove != "n" {
		t.Fatalf("new series game: %+v series %+v", g, g.Series)
	}
	id := g.Series.ID
	next := "/api/series/" + id + "/next"
	if code, _ := ts.do("POST", next, "", nil); code != http.StatusConflict {
		t.Errorf("next game while one is played: %d, want 409", code)
	}
	wantFirst := "n"
	var south, north, draws int
	for games := 1; ; games++ {
		if games > 40 {
			t.Fatal("no player won the series in 40 games")
		}
		if g.ToMove != wantFirst || g.South != "Lemayian" || g.Start != g.Positions[0] || g.Holes != 3 {
			t.Fatalf("game %d: %+v, want %s first", games, g, wantFirst)
		}
		g = ts.finish(g, rng)
		switch g.Result {
		case "1-0":
			south++
		case "0-1":
			north++
		default:
			draws++
		}
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/takeback", fmt.Sprintf(`{"ply": %d}`, len(g.Moves)), nil); code != http.StatusConflict {
			t.Fatalf("takeback in a finished game of a series: %d %s, want 409", code, raw)
		}
		sv := g.Series
		if sv.Wins.South != south || sv.Wins.North != north || sv.Draws != draws || len(sv.Results) != games || sv.Results[games-1] != g.Result {
			t.Fatalf("after game %d (%s): series %+v", games, g.Result, sv)
		}
		if sv.Over {
			if want := map[bool]string{true: "s", false: "n"}[south == 2]; sv.Winner != want || (south != 2 && north != 2) {
				t.Fatalf("series over at %d-%d, winner %q", south, north, sv.Winner)
			}
			break
		}
		if code, raw := ts.do("POST", next, "", &g); code != http.StatusCreated {
			t.Fatalf("next game: %d %s", code, raw)
		}
		wantFirst = map[string]string{"s": "n", "n": "s"}[wantFirst]
	}
	if code, raw := ts.do("POST", next, "", nil); code != http.StatusConflict {
		t.Errorf("next game after the series: %d %s, want 409", code, raw)
	}
	ts.restart()
	var sv api.Series
	if code, raw := ts.do("GET", "/api/series/"+id, "", &sv); code != http.StatusOK || !sv.Over || len(sv.Games) != len(sv.Results) {
		t.Errorf("series after a restart: %d %s", code, raw)
	}
	for _, tc := range []struct{ method, path, body string }{
		{"GET", "/api/series/nosuch", ""},
		{"POST", "/api/series/nosuch/next", ""},
	} {
		if code, _ := ts.do(tc.method, tc.path, tc.body, nil); code != http.StatusNotFound {
			t.Errorf("%s %s: %d, want 404", tc.method, tc.path, code)
		}
	}
	for _, body := range []string{`{"series": 100}`, `{"series": -1}`, `{"series": 3, "position": "1,1/1,1 s 0 0"}`} {
		if code, _ := ts.do("POST", "/api/games", body, nil); code != http.StatusBadRequest {
			t.Errorf("create %s: %d, want 400", body, code)
		}
	}
}

func TestPositionEndpoint(t *testing.T) {
	ts := newTestServer(t)
	var v api.BoardView
	code, raw := ts.do("POST", "/api/position", `{"position": "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "moves": ["c"]}`, &v)
	if code != http.StatusOK || v.Position != "6,6,2,7,0,6/1,0,6,6,0,1 n 7 0" || len(v.Positions) != 2 ||
		v.Sowing == nil || len(v.Sowing.Laps) != 5 || v.Sowing.Captured != 7 || len(v.LegalMoves) != 4 || v.ToMove != "n" {
		t.Fatalf("after c: %d %s", code, raw)
	}
	v = api.BoardView{}
	code, raw = ts.do("POST", "/api/position", `{"position": "2,0/2,1 s 0 0"}`, &v)
	if code != http.StatusOK || v.Sowing != nil || v.Status != "no-legal-move" || v.Result != "0-1" || v.Score.North != 5 {
		t.Errorf("endless only: %d %s", code, raw)
	}
	for _, tc := range []struct {
		body string
		want int
	}{
		{`{"position": "4,4/4,4 s 0 0", "moves": ["A"]}`, 422},
		{`{"position": "4,4/4,4 s 0 0", "moves": ["a", "x"]}`, 422},
		{`{"position": "4,4/4 s 0 0"}`, 400},
		{`{"moves": ["a"]}`, 400},
		{`{"position": "4,4/4,4 s 0 0", "variant": "other"}`, 400},
		{`{"position": "4,4/4,4 s 0 0", "extra": 1}`, 400},
	} {
		if code, raw := ts.do("POST", "/api/position", tc.body, nil); code != tc.want {
			t.Errorf("%s: %d %s, want %d", tc.body, code, raw, tc.want)
		}
	}
}

func TestParseRecordEndpoint(t *testing.T) {
	ts := newTestServer(t)
	var v api.RecordView
	text := "[South \"Naserian\"]\n[Holes \"6\"]\n[Seeds \"4\"]\n\n1. c A 2. d *\n"
	code, raw := ts.do("POST", "/api/records/parse", recordBody(text), &v)
	if code != http.StatusOK || v.Start != "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0" || len(v.Moves) != 3 || v.South != "Naserian" || v.Result != "*" {
		t.Fatalf("parse: %d %s", code, raw)
	}
	if code, raw := ts.do("POST", "/api/records/parse", recordBody("[Holes \"6\"]\n\n1. c c\n"), nil); code != http.StatusUnprocessableEntity {
		t.Errorf("illegal record: %d %s", code, raw)
	}
	var list struct{ Games []api.Summary }
	if ts.do("GET", "/api/games", "", &list); len(list.Games) != 0 {
		t.Errorf("parsing a record stored %d games", len(list.Games))
	}
}
