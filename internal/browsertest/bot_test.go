package browsertest

// A bot plays a whole game: a player challenges it by name from the lobby,
// and plays in the browser to the end, the bot (package bot, its engine in
// this process) answering every move on its clock.

import "testing"

func TestBotPlaysAWholeGame(t *testing.T) {
	a := startApp(t)
	runBot(t, a, "Olorien", 3)

	p := openPage(t, a, desktop)
	p.visit(a.URL(), "#/lobby")
	p.signUp("Naserian", "kite-Umbrella-74-ledger")
	p.visit(a.URL(), "#/lobby/challenge/Olorien")
	p.waitFor("the challenge form", `document.getElementById("lobby-challenge")?.open && document.getElementById("challenge-name").value === "Olorien"`)
	p.setField("#challenge-holes", "6") // a short game
	p.setField("#challenge-seeds", "3")
	p.setField("#challenge-clock", "5+3")
	p.click("#challenge-send")
	id := p.waitGame("the bot's game, opened by itself", "")
	side := p.seat(id)
	if side != "s" && side != "n" {
		t.Fatalf("the player holds seat %q in the bot's game", side)
	}
	var mine string // a JavaScript test that the page offers the player a move
	if side == "s" {
		mine = `[...document.querySelectorAll("#board .hole[data-hole]")].some(b => b.dataset.legal === "true" && b.dataset.hole >= "a")`
	} else {
		mine = `[...document.querySelectorAll("#board .hole[data-hole]")].some(b => b.dataset.legal === "true" && b.dataset.hole < "a")`
	}
	rng := newRand(7)
	for moves := 0; ; moves++ {
		p.waitFor("the player's turn (the bot has moved) or the end", `document.getElementById("result") && !document.getElementById("result").hidden || `+mine)
		if p.gameOver() {
			break
		}
		if moves == maxMoves {
			t.Fatalf("the game has not ended after %d moves", maxMoves)
		}
		legal := p.legal(side)
		p.click(holeCSS(legal[rng.IntN(len(legal))]))
		p.waitIdle()
	}
	g := a.game(id)
	if g.Result == "*" || g.Status == "timeout" || g.Status == "aborted" {
		t.Errorf("the game ended %s %s: want a result by the rules of play", g.Status, g.Result)
	}
	p.checkGameAgainstAPI(g)
	t.Logf("%d moves, %s (%s)", len(g.Moves), g.Result, g.Status)
}
