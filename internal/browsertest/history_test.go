package browsertest

import (
	"encoding/json"
	"fmt"
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

// TestOwnOnlineGamesToPlay: an online game of the signed-in player's,
// opened on a device that holds no seat of it (a game paired in the lobby,
// or made on another device), is listed as their own with a way to play
// it, also among the games being played now, where it is not to watch;
// those games say their time control, correspondence included. On a phone.
func TestOwnOnlineGamesToPlay(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, phone)
	p.open("")
	p.signUp("Amina", "kite-Umbrella-74-ledger")
	// Her game, made with her session alone: this browser keeps no seat of it.
	var made struct {
		Game   struct{ ID string }
		Invite string
	}
	raw := eval[string](p, `fetch("/api/games", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({online: true, holes: 4, seeds: 2, side: "n", clock: {days: 3}})}).then(r => r.text())`)
	if err := json.Unmarshal([]byte(raw), &made); err != nil || made.Game.ID == "" {
		t.Fatalf("her game: %v %s", err, raw)
	}
	join := func(invite string) {
		t.Helper()
		a.api("POST", "/api/join/"+strings.TrimPrefix(invite, "/#/join/"), "{}", http.StatusOK, nil)
	}
	join(made.Invite)
	// Two strangers' games to watch: correspondence and blitz.
	var others []string
	for _, clock := range []string{`{"days": 7}`, `{"minutes": 5, "increment": 3}`} {
		var c struct {
			Game   struct{ ID string }
			Invite string
		}
		a.api("POST", "/api/games", `{"online": true, "holes": 4, "seeds": 2, "side": "s", "clock": `+clock+`}`, http.StatusCreated, &c)
		join(c.Invite)
		others = append(others, c.Game.ID)
	}
	p.goTo("#/history")
	p.waitIdle()
	mine := fmt.Sprintf(`#my-online-list [data-game-id=%q]`, made.Game.ID)
	p.waitFor("her game among hers", fmt.Sprintf(`document.querySelector(%q) !== null`, mine))
	if got := p.text(mine); !strings.Contains(got, "Waiting for your opponent") || !strings.Contains(got, "Continue") {
		t.Errorf("her own game is listed as %q", got)
	}
	if got := p.text(fmt.Sprintf(`#live-list [data-game-id=%q]`, made.Game.ID)); !strings.Contains(got, "3 days a move") ||
		!strings.Contains(got, "Waiting for your opponent") || !strings.Contains(got, "Continue") || strings.Contains(got, "Watch") {
		t.Errorf("among the games being played now, her own game is listed as %q", got)
	}
	for i, want := range []string{"7 days a move", "5+3"} {
		row := fmt.Sprintf(`#live-list [data-game-id=%q]`, others[i])
		if got := p.text(row); !strings.Contains(got, want) || !strings.Contains(got, "Watch") || strings.Contains(got, "No clock") {
			t.Errorf("a game to watch is listed as %q, want its clock %q and Watch", got, want)
		}
	}
	p.screenshot("history-own-online-phone.png")
	p.click(mine + " a")
	p.waitFor("her game", fmt.Sprintf(`location.hash === "#/play/%s"`, made.Game.ID))
	p.waitIdle()
	if p.seat(made.Game.ID) != "n" || !strings.Contains(p.text("#live-state"), "You play North") {
		t.Errorf("opened from the list, her game says %q", p.text("#live-state"))
	}
}
