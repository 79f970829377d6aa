package browsertest

// Playing games: against the computer, between two people on one device, a
// series, stepping through the moves, and coming back to a game after a
// reload or a server restart.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// maxMoves bounds the moves of one game played by a test: a game that goes
// on longer is taken for a page that does not end games.
const maxMoves = 300

// newRand is the tests' source of random choices: seeded, so that a run
// can be repeated.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 0x656e646f646f69)) }

// playToEnd plays the game shown by clicking random legal holes until the
// page shows a result. side is the row to play ("s" against the computer,
// "" for both rows in a game between two people). It returns the number of
// clicks.
func (p *page) playToEnd(rng *rand.Rand, side string) int {
	p.t.Helper()
	for clicks := 0; ; clicks++ {
		p.waitIdle()
		if p.gameOver() {
			return clicks
		}
		if clicks == maxMoves {
			p.t.Fatalf("the game has not ended after %d moves", maxMoves)
		}
		legal := p.legal(side)
		if len(legal) == 0 {
			p.t.Fatalf("after %d moves the game is not over (no #result shown) but no hole of row %q is offered (data-legal); status %q",
				clicks, side, p.text("#status"))
		}
		p.click(holeCSS(legal[rng.IntN(len(legal))]))
		p.waitIdle()
		p.checkGameAgainstAPI(p.app.game(p.gameID()))
	}
}

// checkGameAgainstAPI fails the test when the page's board, move list,
// playable holes and captured piles differ from the game in the API. The
// page must be showing the current position.
func (p *page) checkGameAgainstAPI(g gameView) {
	p.t.Helper()
	p.checkBoard("the current position", shownPosition(p.t, g))
	if got := p.plies(); got != len(g.Moves) {
		p.t.Errorf("the move list (#moves [data-ply]) has %d moves, the API %d (%v)", got, len(g.Moves), g.Moves)
	}
	// A person may play the legal moves when it is a person's turn.
	want := slices.Clone(g.LegalMoves)
	if g.over() || (g.Computer != nil && g.Computer.Side == g.ToMove) {
		want = nil
	}
	got := p.legal("")
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		p.t.Errorf("the page offers the holes %v (data-legal), the API's legal moves are %v (to move: %s, result %s)", got, want, g.ToMove, g.Result)
	}
	// The piles show the score: the captures, and at the end the sweep.
	for _, c := range []struct {
		css  string
		want int
	}{{"#pile-south", g.Score.South}, {"#pile-north", g.Score.North}} {
		if got := p.attr(c.css, "data-count"); got != strconv.Itoa(c.want) {
			p.t.Errorf("%s data-count=%q, want the score %d (position %q, status %s)", c.css, got, c.want, g.Position, g.Status)
		}
	}
}

// TestPlayWholeGameAgainstComputer plays a whole game against the computer
// by clicking holes with the mouse, then checks the end against the API.
func TestPlayWholeGameAgainstComputer(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "computer", Level: 1, First: "s", Mode: "single"})
	g := a.game(id)
	if g.Holes != 6 || g.Start != "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0" || g.Series != nil {
		t.Fatalf("the dialog made the game %+v, want 6 holes of 4 seeds, South to move, no series", g)
	}
	clicks := p.playToEnd(newRand(1), "s")
	t.Logf("the game ended after %d moves of South's", clicks)

	if p.text("#result") == "" {
		t.Error("#result is shown but empty")
	}
	g = a.game(id)
	if !g.over() {
		t.Fatalf("the page shows a result, but the API has the game still playing: %+v", g)
	}
	p.checkGameAgainstAPI(g)
	if legal := p.legal(""); len(legal) != 0 {
		t.Errorf("the game is over but holes %v are still offered", legal)
	}
}

// TestStepThroughMoveList steps through a game's positions with the
// buttons, the move list and the keyboard, and checks each against the
// API's positions.
func TestStepThroughMoveList(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})
	rng := newRand(2)
	for i := 0; i < 4; i++ {
		legal := p.legal("")
		if len(legal) == 0 {
			t.Fatalf("no legal hole after %d moves", i)
		}
		p.play(legal[rng.IntN(len(legal))])
	}
	g := a.game(id)
	if len(g.Moves) != 4 {
		t.Fatalf("after 4 clicks the API has the moves %v", g.Moves)
	}
	p.checkGameAgainstAPI(g)

	viewing := func(what string, ply int) {
		t.Helper()
		p.waitIdle()
		p.checkBoard(what, g.Positions[ply])
		if ply > 0 {
			if got := p.currentPly(); got != ply {
				t.Errorf("%s: the move list marks ply %d as viewed (aria-current=step), want %d", what, got, ply)
			}
		}
	}

	p.click("#step-first")
	viewing("after #step-first", 0)
	p.click("#step-forward")
	p.click("#step-forward")
	viewing("after #step-first and #step-forward twice", 2)
	p.click("#step-back")
	viewing("after #step-back", 1)
	p.click(`#moves [data-ply="3"]`)
	viewing(`after clicking [data-ply="3"]`, 3)
	p.click(`#moves [data-ply="1"]`)
	viewing(`after clicking [data-ply="1"]`, 1)
	if cur := p.attr(`#moves [data-ply="1"]`, "aria-current"); cur != "step" {
		t.Errorf(`the viewed move [data-ply="1"] has aria-current=%q, want "step"`, cur)
	}

	// A hole clicked while an old position is shown plays no move.
	south, north := p.board()
	letter := ""
	for i, n := range south {
		if n > 0 {
			letter = holeLetter(true, i)
			break
		}
	}
	if letter == "" {
		for i, n := range north {
			if n > 0 {
				letter = holeLetter(false, i)
				break
			}
		}
	}
	p.click(holeCSS(letter))
	p.waitIdle()
	if now := a.game(id); len(now.Moves) != 4 {
		t.Fatalf("clicking hole %s while viewing move 1 played a move: the API has %v", letter, now.Moves)
	}

	// The keyboard: arrows step, Home and End go to the start and to the
	// current position.
	p.blur()
	p.key(kb.ArrowRight)
	viewing("after ArrowRight from move 1", 2)
	p.key(kb.ArrowLeft)
	viewing("after ArrowLeft from move 2", 1)
	p.key(kb.Home)
	viewing("after Home", 0)
	p.key(kb.End)
	viewing("after End", 4)

	p.click("#step-first")
	viewing("after #step-first again", 0)
	p.click("#step-last")
	viewing("after #step-last", 4)
	p.checkGameAgainstAPI(g)

	// Back at the current position, the game goes on.
	legal := p.legal("")
	if len(legal) == 0 {
		t.Fatal("back at the current position no hole is offered")
	}
	p.play(legal[0])
	if now := a.game(id); len(now.Moves) != 5 {
		t.Fatalf("a move after stepping back to the end did not count: the API has %v", now.Moves)
	}
}

// TestSeriesTally plays a series between two people to its end and checks
// the tally pins against the API after every game.
func TestSeriesTally(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 4, Seeds: 2, Opponent: "friend", First: "s", Mode: "series", Target: 2,
		South: "Naserian", North: "Lemayian"})
	g := a.game(id)
	if g.Series == nil || g.Series.Target != 2 {
		t.Fatalf("the dialog made the game %+v, want a series to 2 wins", g)
	}
	seriesID := g.Series.ID
	rng := newRand(3)
	const maxGames = 12 // draws count for neither: allow a few
	for games := 1; ; games++ {
		if games > maxGames {
			t.Fatalf("the series to 2 wins is not over after %d games", maxGames)
		}
		p.playToEnd(rng, "")
		g = a.game(id)
		if !g.over() {
			t.Fatalf("game %d: the page shows a result, the API has the game playing", games)
		}
		p.checkGameAgainstAPI(g)
		s := a.series(seriesID)
		south, north := p.count("#tally-south .pin"), p.count("#tally-north .pin")
		if south != s.Wins.South || north != s.Wins.North {
			t.Fatalf("after game %d (%v) the pins show %d-%d, the API's tally is %d-%d",
				games, s.Results, south, north, s.Wins.South, s.Wins.North)
		}
		if s.Over {
			p.screenshot("series-desktop.png")
			// The page says the series is over: no next game, and the
			// winner's name in the result.
			if p.visible("#next-game") {
				t.Error("the series is over but #next-game is still offered")
			}
			winner := map[string]string{"s": "Naserian", "n": "Lemayian"}[s.Winner]
			text := p.text("#result") + " " + p.text("#series-info") + " " + p.text("#status")
			if !containsFold(text, winner) {
				t.Errorf("the series is over (%s won), but the page does not name the winner: %q", winner, text)
			}
			t.Logf("series over after %d games: %v", games, s.Results)
			return
		}
		if !p.visible("#next-game") {
			t.Fatalf("game %d of an unfinished series is over, but #next-game is not shown", games)
		}
		p.click("#next-game")
		p.waitIdle()
		next := p.gameID()
		if next == id {
			t.Fatalf("#next-game did not start a new game (still %s)", id)
		}
		id = next
		g = a.game(id)
		if g.Series == nil || g.Series.ID != seriesID || len(g.Moves) != 0 {
			t.Fatalf("#next-game opened %+v, want a fresh game of series %s", g, seriesID)
		}
		p.checkGameAgainstAPI(g)
		if s := a.series(seriesID); p.count("#tally-south .pin") != s.Wins.South || p.count("#tally-north .pin") != s.Wins.North {
			t.Fatalf("the new game of the series lost the tally pins")
		}
	}
}

// TestReloadMidGame comes back to a game against the computer after a
// reload, and after a restart of the server on the same database: the page
// shows the same game, and it goes on.
func TestReloadMidGame(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 8, Seeds: 4, Opponent: "computer", Level: 1, First: "s", Mode: "single"})
	rng := newRand(5)
	playSome := func(n int) {
		t.Helper()
		for i := 0; i < n && !p.gameOver(); i++ {
			legal := p.legal("s")
			if len(legal) == 0 {
				t.Fatalf("no hole of South's offered; status %q", p.text("#status"))
			}
			p.play(legal[rng.IntN(len(legal))])
		}
	}
	playSome(2)
	g := a.game(id)
	if len(g.Moves) < 2 {
		t.Fatalf("after two moves of South's the API has %v", g.Moves)
	}
	p.checkGameAgainstAPI(g)
	p.screenshot("game-desktop.png")

	check := func(what string) {
		t.Helper()
		if got := p.gameID(); got != id {
			t.Fatalf("%s: the page shows game %s, want %s", what, got, id)
		}
		now := a.game(id)
		if !slices.Equal(now.Moves, g.Moves) {
			t.Fatalf("%s: the moves changed from %v to %v", what, g.Moves, now.Moves)
		}
		p.checkGameAgainstAPI(now)
		if p.gameOver() {
			return
		}
		legal := p.legal("s")
		if len(legal) == 0 {
			t.Fatalf("%s: no hole of South's offered; status %q", what, p.text("#status"))
		}
		p.play(legal[rng.IntN(len(legal))])
		g = a.game(id)
		if len(g.Moves) <= len(now.Moves) {
			t.Fatalf("%s: a click on hole %s played no move", what, legal[0])
		}
		p.checkGameAgainstAPI(g)
	}

	p.reload()
	check("after a reload")

	// The server restarts on a new port: the page is opened afresh there.
	hash := p.hash()
	p.do("leaving the page", chromedp.Navigate("about:blank"))
	a.restart()
	p.open(hash)
	// The new port is a new origin, with its own storage: the speed
	// chosen before is not there.
	p.setSpeed("instant")
	check(fmt.Sprintf("after a server restart (%s)", a.URL()))
}
