package browsertest

// The analysis board: a pasted position or game record, the engine's
// evaluation, and moves played on it.

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/egtb"
)

// TestAnalysisBoard loads a position into the analysis board, reads the
// evaluation, plays a move on it, then loads a whole game record.
func TestAnalysisBoard(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("#/analysis")
	p.setSpeed("instant")
	for _, hook := range []string{"#an-input", "#an-load", "#an-eval", "#an-lines", analysisBoard, "#an-moves"} {
		p.mustExist(hook)
	}

	const start = "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"
	p.setField("#an-input", start)
	p.click("#an-load")
	p.waitIdle()
	if got, want := formatRows(p.boardOf(analysisBoard)), parsePosition(t, start).rows(); got != want {
		t.Fatalf("after loading %q the analysis board shows %s", start, got)
	}
	p.waitFor("the evaluation", `document.querySelector("#an-eval").textContent.trim() !== ""`)
	p.waitIdle()
	if n := p.count("#an-lines li"); n == 0 {
		t.Errorf("#an-lines shows no line; #an-eval says %q", p.text("#an-eval"))
	}
	t.Logf("evaluation: %q; lines: %q", p.text("#an-eval"), p.text("#an-lines"))

	// A move on the analysis board: the board shows what the API plays.
	legal := p.legalOf(analysisBoard, "")
	if len(legal) != 6 {
		t.Fatalf("the analysis board offers %v at the start, want South's six holes", legal)
	}
	move := legal[2]
	p.click(holeOf(analysisBoard, move))
	p.waitIdle()
	var after struct {
		Position string `json:"position"`
	}
	a.api("POST", "/api/position", `{"position": "`+start+`", "moves": ["`+move+`"]}`, http.StatusOK, &after)
	if got, want := formatRows(p.boardOf(analysisBoard)), parsePosition(t, after.Position).rows(); got != want {
		t.Errorf("after playing %s the analysis board shows %s, want %s", move, got, want)
	}
	if n := p.count("#an-moves [data-ply]"); n != 1 {
		t.Errorf("after one move the analysis move list (#an-moves [data-ply]) has %d entries", n)
	}
	p.waitFor("the evaluation after the move", `document.querySelector("#an-eval").textContent.trim() !== ""`)
	p.waitIdle()
	p.screenshot("analysis-desktop.png")

	// A whole game record, in the text form, as the API exports it.
	rec, moves := recordOfPlayedGame(t, a, 7)
	p.setField("#an-input", rec)
	p.click("#an-load")
	p.waitIdle()
	if n := p.count("#an-moves [data-ply]"); n != len(moves) {
		t.Fatalf("after loading a record of %d moves the analysis move list has %d entries:\n%s", len(moves), n, rec)
	}
	list := p.text("#an-moves")
	for _, m := range moves {
		if !strings.Contains(list, m) {
			t.Errorf("the analysis move list %q lacks the record's move %s", list, m)
		}
	}
}

// recordOfPlayedGame plays n moves of a new 6-hole game through the API
// (the first legal move each time) and returns its text record and moves.
func recordOfPlayedGame(t *testing.T, a *app, n int) (string, []string) {
	t.Helper()
	var g gameView
	a.api("POST", "/api/games", `{"holes": 6, "seeds": 4, "south": "Naserian", "north": "Lemayian"}`, http.StatusCreated, &g)
	for i := 0; i < n && !g.over(); i++ {
		var r struct {
			Game gameView `json:"game"`
		}
		body, _ := json.Marshal(map[string]string{"move": g.LegalMoves[len(g.LegalMoves)/2]})
		a.api("POST", "/api/games/"+g.ID+"/moves", string(body), http.StatusOK, &r)
		g = r.Game
	}
	resp, err := http.Get(a.URL() + "/api/games/" + g.ID + "/record?format=text")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("exporting the record: status %d, %v: %s", resp.StatusCode, err, raw)
	}
	return string(raw), g.Moves
}

// TestAnalysisSolved: with endgame databases on the server, the analysis
// board states the outcome of best play, and after a move it still does.
func TestAnalysisSolved(t *testing.T) {
	tables := t.TempDir()
	if _, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 8, Dir: tables}); err != nil {
		t.Fatal(err)
	}
	a := &app{t: t, dbPath: filepath.Join(t.TempDir(), "games.db"), tables: tables}
	a.start()
	t.Cleanup(a.stop)
	p := openPage(t, a, desktop)
	p.open("#/analysis")
	p.setSpeed("instant")
	p.setField("#an-input", "1,1,1/1,1,1 s 0 0")
	p.click("#an-load")
	p.waitFor("the verdict", `document.querySelector("#an-eval").textContent.startsWith("Solved")`)
	var res struct {
		Solved struct{ Text string }
	}
	a.api("POST", "/api/analyze", `{"position": "1,1,1/1,1,1 s 0 0"}`, http.StatusOK, &res)
	got, want := p.text("#an-eval"), strings.TrimPrefix(res.Solved.Text, "solved: ")
	if !strings.Contains(got, want) {
		t.Errorf("#an-eval says %q; the databases say %q", got, res.Solved.Text)
	}
	// A move after which the game goes on.
	move := ""
	for _, m := range p.legalOf(analysisBoard, "") {
		var after struct{ Status string }
		a.api("POST", "/api/position", `{"position": "1,1,1/1,1,1 s 0 0", "moves": ["`+m+`"]}`, http.StatusOK, &after)
		if after.Status == "playing" {
			move = m
			break
		}
	}
	if move == "" {
		t.Fatal("every move ends the game")
	}
	p.click(holeOf(analysisBoard, move))
	p.waitIdle()
	p.waitFor("the verdict after a move", `document.querySelector("#an-eval").textContent.startsWith("Solved")`)
}
