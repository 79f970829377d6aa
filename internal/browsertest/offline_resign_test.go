package browsertest

import (
	"strings"
	"testing"
	"time"
)

// TestOfflineResigned: a game resigned in the browser with the server
// stopped reaches the server, once the page can send it, as a resigned
// game: won by the other side while its moves leave it going; sent again,
// it is still one game.
func TestOfflineResigned(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.waitOffline()
	p.setSpeed("instant")

	a.restartInPlace(func() {
		p.allowConsole(refusedLoads)
		p.reload()
		id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})
		if !strings.HasPrefix(id, "local-") {
			t.Fatalf("with no server the game's id is %q, want a game of this browser (local-...)", id)
		}
		legal := p.legal("s")
		if len(legal) == 0 {
			t.Fatal("South is offered no move")
		}
		p.click(holeCSS(legal[0]))
		p.waitIdle()
		// North is to move and resigns.
		p.click("#resign")
		p.click("#resign-yes")
		p.waitIdle()
		if !p.gameOver() {
			t.Fatalf("after the resignation the game is not shown over; status %q", p.text("#status"))
		}
	})

	p.reload()
	for deadline := time.Now().Add(waitTimeout); len(a.serverGames()) < 1; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for the page to send the resigned game", waitTimeout)
		}
	}
	check := func(when string) string {
		t.Helper()
		list := a.serverGames()
		if len(list) != 1 {
			t.Fatalf("%s: the server lists %d games, want the 1 played offline: %+v", when, len(list), list)
		}
		// One move cannot end the game: only the resignation gives South the win.
		if g := list[0]; g.Moves != 1 || g.Result != "1-0" {
			t.Fatalf("%s: the server has %d moves, result %q; want 1 move, 1-0 (North resigned)", when, g.Moves, g.Result)
		}
		return list[0].ID
	}
	id := check("after reconnecting")
	var rec struct{ Tags map[string]string }
	a.api("GET", "/api/games/"+id+"/record?format=json", "", 200, &rec)
	if got := rec.Tags["Termination"]; got != "resigned; South won" {
		t.Errorf("the record of the game sent has Termination %q, want %q", got, "resigned; South won")
	}

	// Sent again (a page closed before it heard the server's answer): still once.
	p.waitFor("the page to know the game sent", `localStorage.getItem("endodoi.offlineGames") === null`)
	sent := p.resendAll()
	if sent != 1 {
		t.Errorf("sent again, %d games were answered, want 1", sent)
	}
	if again := check("after sending it again"); again != id {
		t.Errorf("sent again, the game is %s, first %s", again, id)
	}
}
