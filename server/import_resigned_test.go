package server

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestImportResigned: a game resigned on the server, exported in either
// form and imported, is stored exactly as the resigned game is, shows as
// resigned, exports its resignation again, and is one game however often
// and in whichever form it is sent.
func TestImportResigned(t *testing.T) {
	ts := newTestServer(t)
	ctx := context.Background()
	g := ts.create(`{"holes": 6, "south": "Naserian", "north": "Sironka"}`)
	for i, m := range []string{"c", "C"} {
		if code, raw := ts.do("POST", "/api/games/"+g.ID+"/moves", `{"move": "`+m+`", "ply": `+string(rune('0'+i))+`}`, nil); code != http.StatusOK {
			t.Fatalf("move %s: %d %s", m, code, raw)
		}
	}
	// South is to move and resigns: North won.
	if code, raw := ts.do("POST", "/api/games/"+g.ID+"/actions", `{"action": "resign", "ply": 2}`, nil); code != http.StatusOK {
		t.Fatalf("resign: %d %s", code, raw)
	}
	code, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil)
	if code != http.StatusOK || !strings.Contains(text, `[Termination "resigned; North won"]`) {
		t.Fatalf("text record: %d\n%s", code, text)
	}
	code, js := ts.do("GET", "/api/games/"+g.ID+"/record?format=json", "", nil)
	if code != http.StatusOK || !strings.Contains(js, `"Termination":"resigned; North won"`) {
		t.Fatalf("JSON record: %d\n%s", code, js)
	}
	orig, err := ts.st.Game(ctx, g.ID)
	if err != nil {
		t.Fatal(err)
	}

	var first gameView
	for i, body := range []string{text, js, text} {
		want := http.StatusOK
		if i == 0 {
			want = http.StatusCreated
		}
		var imp gameView
		if code, raw := ts.do("POST", "/api/games/import", recordBody(body), &imp); code != want {
			t.Fatalf("import %d: %d %s, want %d", i, code, raw, want)
		}
		if i == 0 {
			first = imp
		} else if imp.ID != first.ID {
			t.Fatalf("import %d made game %s, the first made %s", i, imp.ID, first.ID)
		}
		if imp.ID == g.ID || imp.Status != "resigned" || imp.Result != "0-1" || len(imp.Moves) != 2 {
			t.Fatalf("import %d: status %q, result %q, %d moves; want resigned, 0-1, 2 moves", i, imp.Status, imp.Result, len(imp.Moves))
		}
	}
	stored, err := ts.st.Game(ctx, first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.Result != orig.Result || stored.Online != nil || stored.Computer != nil ||
		stored.South != orig.South || stored.North != orig.North || stored.Start != orig.Start ||
		stored.Rules != orig.Rules || len(stored.Moves) != len(orig.Moves) {
		t.Fatalf("stored as %+v, want as the resigned game %+v", stored, orig)
	}
	for i := range orig.Moves {
		if stored.Moves[i] != orig.Moves[i] {
			t.Fatalf("move %d: stored %s, want %s", i+1, stored.Moves[i], orig.Moves[i])
		}
	}

	// The import is over as the resigned game is: no move, no takeback.
	if code, raw := ts.do("POST", "/api/games/"+first.ID+"/moves", `{"move": "a", "ply": 2}`, nil); code != http.StatusConflict {
		t.Errorf("move after the imported resignation: %d %s, want 409", code, raw)
	}
	if code, raw := ts.do("POST", "/api/games/"+first.ID+"/takeback", `{"ply": 2}`, nil); code != http.StatusConflict {
		t.Errorf("takeback of the imported resignation: %d %s, want 409", code, raw)
	}
	// Its record says so again, and the moves' result stays "*".
	if code, back := ts.do("GET", "/api/games/"+first.ID+"/record", "", nil); code != http.StatusOK ||
		!strings.Contains(back, `[Termination "resigned; North won"]`) || !strings.Contains(back, `[Result "*"]`) {
		t.Errorf("record of the import: %d\n%s", code, back)
	}

	// The same moves unfinished are another game.
	unfinished := strings.Replace(text, "[Termination \"resigned; North won\"]\n", "", 1)
	var other gameView
	if code, raw := ts.do("POST", "/api/games/import", recordBody(unfinished), &other); code != http.StatusCreated ||
		other.ID == first.ID || other.Status != "playing" {
		t.Errorf("import without the resignation: %d %s", code, raw)
	}
}

// TestImportBadTermination: a Termination tag that claims a resignation it
// cannot be is refused, naming the tag; another ending (on time, by
// agreement), which a game on one device cannot have, is kept as words and
// the game imported as its moves leave it, as before resignations were read.
func TestImportBadTermination(t *testing.T) {
	ts := newTestServer(t)
	for _, rec := range []string{
		"[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned\"]\n\n1. c *\n",
		"[Holes \"2\"]\n[Seeds \"1\"]\n[Termination \"resigned; South won\"]\n\n1. a\n",
		`{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigned; nobody won"}}`,
	} {
		if code, raw := ts.do("POST", "/api/games/import", recordBody(rec), nil); code != http.StatusUnprocessableEntity ||
			!strings.Contains(raw, "Termination tag") {
			t.Errorf("import of %q: %d %s, want 422 naming the Termination tag", rec, code, raw)
		}
	}
	for _, rec := range []string{
		"[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"lost on time; South won\"]\n\n1. c *\n",
		`{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"drawn by agreement"}}`,
	} {
		var g gameView
		if code, raw := ts.do("POST", "/api/games/import", recordBody(rec), &g); code != http.StatusCreated || g.Status != "playing" {
			t.Errorf("import of %q: %d %s, want 201 and the game as its moves leave it", rec, code, raw)
		}
	}
}
