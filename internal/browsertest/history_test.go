package browsertest

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestHistoryExportAndImport lists a played game, exports its record
// through the page's link, imports that record by pasting it, and finds
// the same game again; a broken record is refused with its error shown.
func TestHistoryExportAndImport(t *testing.T) {
	a := startApp(t)
	rec, moves := recordOfPlayedGame(t, a, 5)
	p := openPage(t, a, desktop)
	p.open("#/history")
	p.waitIdle()
	if n := p.count("#history [data-game-id]"); n != 1 {
		t.Fatalf("the history lists %d games, want 1", n)
	}

	// The export link downloads the game's record.
	href := eval[string](p, `document.querySelector('#history [data-game-id] a[href*="format=text"]').href`)
	resp, err := http.Get(href)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || string(raw) != rec {
		t.Fatalf("export link %s: %d\n%s\nwant\n%s", href, resp.StatusCode, raw, rec)
	}

	// Importing it makes a second game with the same moves, opened at once.
	p.setField("#import-text", rec)
	p.click("#import-go")
	p.waitFor("the imported game", `location.hash.startsWith("#/play/")`)
	p.waitIdle()
	id := p.gameID()
	g := a.game(id)
	if strings.Join(g.Moves, " ") != strings.Join(moves, " ") || g.South != "Naserian" {
		t.Fatalf("imported game %+v, want the moves %v", g, moves)
	}
	if p.plies() != len(moves) {
		t.Errorf("the imported game's move list has %d moves, want %d", p.plies(), len(moves))
	}
	p.checkBoard("the imported game", g.Position)

	p.open("#/history")
	p.waitIdle()
	if n := p.count("#history [data-game-id]"); n != 2 {
		t.Errorf("after the import the history lists %d games, want 2", n)
	}

	// A record with an illegal move: the page shows the server's reason.
	p.allowConsole(`status of 422`)
	p.setField("#import-text", "[Holes \"6\"]\n[Seeds \"4\"]\n\n1. c c *\n")
	p.click("#import-go")
	p.waitFor("the import error", `document.querySelector("#message").textContent.trim() !== ""`)
	p.waitIdle()
	if msg := p.text("#message"); !strings.Contains(msg, "line 4, column 6") {
		t.Errorf("the import error says %q, want the place of the illegal move (line 4, column 6)", msg)
	}
	if n := p.count("#history [data-game-id]"); n != 2 {
		t.Errorf("a refused import changed the list: %d games", n)
	}
}
