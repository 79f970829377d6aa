package browsertest

// The players' scenario: two people on a desktop and a phone and a
// spectator, from the invitation to a rematch lost on time, through
// offers, a takeback, a reload and a server restart, in one run.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// scenario is an online game between two pages, with a spectator's.
type scenario struct {
	t     *testing.T
	a     *app
	id    string
	rng   *rand.Rand
	pages map[string]*page  // by side: "s", "n", and "" for the spectator
	who   map[string]string // each page's name, for messages
	phone *page             // the page driven by touch
}

// press clicks an element as the page's user would: a tap on the phone.
func (sc *scenario) press(p *page, css string) {
	sc.t.Helper()
	if p == sc.phone {
		p.tap(css)
	} else {
		p.click(css)
	}
}

// pick chooses a legal move after which the game goes on, preferring
// moves of few laps (so that the animations are short).
func (sc *scenario) pick(g onlineGame) string {
	sc.t.Helper()
	r := rules.DefaultRules()
	pos, err := rules.ParsePosition(g.Position)
	if err != nil {
		sc.t.Fatalf("the API's position %q: %v", g.Position, err)
	}
	var alive, short []string
	for _, letter := range g.LegalMoves {
		m, err := rules.ParseMove(letter)
		if err != nil {
			sc.t.Fatalf("the API's legal move %q: %v", letter, err)
		}
		q, sw, err := pos.Trace(m, r)
		if err != nil || !q.HasLegalMove(r) {
			continue
		}
		alive = append(alive, letter)
		if len(sw.Laps) <= 3 {
			short = append(short, letter)
		}
	}
	if len(short) > 0 {
		alive = short
	}
	if len(alive) == 0 {
		sc.t.Fatalf("every legal move of %s ends the game", g.Position)
	}
	return alive[sc.rng.IntN(len(alive))]
}

// move has the player to move click (or tap) a hole, waits until every
// page shows the move, and checks every page's board against the API.
func (sc *scenario) move() onlineGame {
	t := sc.t
	t.Helper()
	g := sc.a.onlineGame(sc.id)
	p, other := sc.pages[g.ToMove], sc.pages[map[string]string{"s": "n", "n": "s"}[g.ToMove]]
	if got, want := p.legal(g.ToMove), g.LegalMoves; !slices.Equal(sortedLetters(got), sortedLetters(want)) {
		t.Fatalf("%s is offered the holes %v, the API allows %v", sc.who[g.ToMove], got, want)
	}
	if got := other.legal(""); len(got) != 0 {
		t.Fatalf("%s is offered the holes %v while it is the other's move", sc.who[g.ToMove], got)
	}
	letter := sc.pick(g)
	sc.press(p, holeCSS(letter))
	sc.waitPlies(len(g.Moves) + 1)
	now := sc.a.onlineGame(sc.id)
	if len(now.Moves) != len(g.Moves)+1 || now.Moves[len(g.Moves)] != letter {
		t.Fatalf("after a click on %s the API has the moves %v", letter, now.Moves)
	}
	sc.checkBoards(fmt.Sprintf("after move %d", len(now.Moves)), now)
	return now
}

// waitPlies waits until every page shows n moves and is idle.
func (sc *scenario) waitPlies(n int) {
	sc.t.Helper()
	for side, p := range sc.pages {
		p.waitPlies(sc.who[side], n)
	}
}

// checkBoards checks every page's move list and board against g.
func (sc *scenario) checkBoards(when string, g onlineGame) {
	sc.t.Helper()
	for side, p := range sc.pages {
		if n := p.plies(); n != len(g.Moves) {
			sc.t.Fatalf("%s, %s shows %d moves, the API has %d", when, sc.who[side], n, len(g.Moves))
		}
		p.checkBoard(fmt.Sprintf("%s, %s", when, sc.who[side]), g.Position)
	}
}

// news checks the word on an answer to an offer on every page, each from
// its viewer's side, with the pages' own check.
func (sc *scenario) news(what string, want map[string]string) {
	sc.t.Helper()
	(&liveTable{a: sc.a, id: sc.id, pages: sc.pages}).checkNews(what, want)
}

// waitResult waits until every page shows the end of the game and checks
// that its result reads each of want.
func (sc *scenario) waitResult(what string, want ...string) {
	sc.t.Helper()
	for side, p := range sc.pages {
		p.waitFor(sc.who[side]+" to show "+what, `!document.querySelector("#result").hidden`)
		p.waitIdle()
		got := p.text("#result")
		for _, w := range want {
			if !strings.Contains(got, w) {
				sc.t.Errorf("%s: %s shows the result %q, want it to say %q", what, sc.who[side], got, w)
			}
		}
	}
}

// sortedLetters is a sorted copy of s.
func sortedLetters(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestPlayersScenario: Alice on a desktop invites Bob, who joins on a
// phone; a spectator watches. They play twelve moves each, clicking the
// holes, while Alice's draw offer is declined, Bob's takeback is
// accepted, Bob reloads his page and the server restarts; then Alice
// resigns, they play a rematch and the spectator follows them to it, and
// Bob loses it on time. Every screen shows every move, says each event
// from its viewer's side, and ends each game with the names and how it
// ended; no screen shows a seat's token, and the phone never scrolls
// sideways.
func TestPlayersScenario(t *testing.T) {
	began := time.Now()
	phase := began
	lap := func(what string) {
		t.Logf("%s: %v", what, time.Since(phase).Round(10*time.Millisecond))
		phase = time.Now()
	}
	a := startApp(t)

	// Alice makes a timed online game and reads the invitation.
	alice := openPage(t, a, desktop)
	alice.open("")
	alice.setSpeed("fast")
	id := alice.startOnline(8, 4, "s", "2+1", "Alice")
	alice.waitFor("the invitation link", `document.querySelector("#invite-link")?.value.includes("/#/join/")`)
	link := alice.value("#invite-link")
	if !alice.visible("#clock-note") {
		t.Errorf("a timed game does not say that the first moves are untimed: %q", alice.text("#online"))
	}
	alice.screenshot("scenario-invite-desktop.png")

	// Bob joins on his phone.
	bob := openPage(t, a, phone)
	bob.joinLink(link, "Bob")
	if got := bob.gameID(); got != id {
		t.Fatalf("the invitation opened game %s, want %s", got, id)
	}
	bob.setSpeed("fast")
	bob.noSideways("the phone after joining", phone)

	// The spectator opens the game's link.
	watcher := openPage(t, a, desktop)
	watcher.open("#/play/" + id)
	watcher.setSpeed("fast")
	watcher.waitFor("the spectator told they watch", `document.querySelector("#live-state").textContent.includes("You are watching")`)
	if watcher.visible("#online-actions") || watcher.count("#offers button") != 0 {
		t.Error("the spectator is offered the players' actions")
	}

	sc := &scenario{t: t, a: a, id: id, rng: newRand(21), phone: bob,
		pages: map[string]*page{"s": alice, "n": bob, "": watcher},
		who:   map[string]string{"s": "Alice's desktop", "n": "Bob's phone", "": "the spectator"}}
	for side, p := range sc.pages {
		// A server restart is part of the scenario.
		p.allowConsole(`WebSocket connection to .* failed`)
		if side != "" {
			p.waitFor(sc.who[side]+" to hold its seat", `document.querySelector("#live-state").textContent.includes("You play")`)
		}
	}
	alice.waitFor("Bob shown online", `document.querySelector("#presence-north").classList.contains("here")`)
	bob.waitFor("Alice shown online", `document.querySelector("#presence-south").classList.contains("here")`)
	tokens := []string{alice.heldToken(id), bob.heldToken(id)}
	if tokens[0] == "" || tokens[1] == "" {
		t.Fatalf("the players' browsers hold the seats %q and %q", tokens[0], tokens[1])
	}
	if got := watcher.heldToken(id); got != "" {
		t.Error("the spectator's browser holds a seat")
	}
	lap("invitation, joining and watching")

	g := sc.move()
	for len(g.Moves) < 6 {
		g = sc.move()
	}
	if g.Online.Running != "s" {
		t.Errorf("after six moves of a 2+1 game the running clock is %q, want South's", g.Online.Running)
	}
	for side, p := range sc.pages {
		if !p.visible("#clock-south.running") {
			t.Errorf("%s does not show Alice's clock running", sc.who[side])
		}
	}
	bob.screenshot("scenario-game-phone.png")
	lap("six moves")

	// Alice offers a draw; Bob declines it.
	sc.press(alice, "#act-draw")
	bob.waitFor("the draw offer", `!!document.querySelector('#offers button[data-action="draw-decline"]')`)
	if got := watcher.text("#offers"); got != "Alice offers a draw." {
		t.Errorf("the spectator reads %q about the draw offer", got)
	}
	if watcher.count("#offers button") != 0 {
		t.Error("the spectator is offered to answer the draw offer")
	}
	sc.press(bob, `#offers button[data-action="draw-decline"]`)
	sc.news("a declined draw offer", map[string]string{
		"s": "Bob declined your draw offer.",
		"n": "You declined Alice's draw offer.",
		"":  "Bob declined Alice's draw offer.",
	})
	if got := bob.text("main") + " " + bob.text("#message"); strings.Contains(got, "Alice declined") {
		t.Errorf("Bob's screen says that Alice declined: %q", got)
	}
	watcher.screenshot("scenario-declined-spectator.png")

	// Bob asks to take his move back; Alice accepts: the word before is
	// replaced on every screen.
	sc.press(bob, "#act-takeback")
	alice.waitFor("the takeback request", `!!document.querySelector('#offers button[data-action="takeback-accept"]')`)
	sc.press(alice, `#offers button[data-action="takeback-accept"]`)
	sc.news("an accepted takeback", map[string]string{
		"s": "You accepted Bob's request to take back a move.",
		"n": "Alice accepted your request to take back a move.",
		"":  "Alice accepted Bob's request to take back a move.",
	})
	sc.waitPlies(5)
	g = a.onlineGame(id)
	if len(g.Moves) != 5 || g.ToMove != "n" {
		t.Fatalf("after Bob's move was taken back the API has %v, %s to move", g.Moves, g.ToMove)
	}
	sc.checkBoards("after the takeback", g)
	for side, p := range sc.pages {
		if got := p.text("main") + " " + p.text("#message"); strings.Contains(got, "declined") {
			t.Errorf("after the accepted takeback %s still shows a refusal: %q", sc.who[side], got)
		}
	}
	lap("draw offer declined, takeback accepted")

	// Bob reloads his page in the middle of the game and carries on.
	for g = sc.move(); len(g.Moves) < 9; {
		g = sc.move()
	}
	bob.reload()
	bob.waitFor("Bob's seat after a reload", `document.querySelector("#live-state").textContent.includes("You play")`)
	bob.waitPlies("Bob's phone after a reload", 9)
	bob.checkBoard("Bob's phone after a reload", g.Position)
	bob.waitFor("Bob's move after a reload", `document.querySelector("#status").textContent === "Your move"`)
	alice.waitFor("Bob back online", `document.querySelector("#presence-north").classList.contains("here")`)
	for g = sc.move(); len(g.Moves) < 16; {
		g = sc.move()
	}
	lap("a reload and moves to 16")

	// The server stops and starts again: every page says it is
	// reconnecting, shows nobody online meanwhile, and comes back.
	played := g.Moves
	a.restartInPlace(func() {
		for side, p := range sc.pages {
			p.waitFor(sc.who[side]+" to say it is reconnecting", `document.querySelector("#live-state").textContent.includes("Reconnecting")`)
		}
		for side, css := range map[string]string{"s": "#presence-north", "n": "#presence-south"} {
			if p := sc.pages[side]; p.visible(css) && p.text(css) == "online" {
				t.Errorf("with the server down %s shows the opponent online", sc.who[side])
			}
		}
	})
	for side, p := range sc.pages {
		p.waitFor(sc.who[side]+" to reconnect", `!document.querySelector("#live-state").textContent.includes("Reconnecting")`)
	}
	alice.waitFor("Bob online again", `document.querySelector("#presence-north").classList.contains("here")`)
	bob.waitFor("Alice online again", `document.querySelector("#presence-south").classList.contains("here")`)
	for side, p := range map[string]*page{"s": alice, "n": bob} {
		p.waitFor(sc.who[side]+" to count the spectator again", `document.querySelector("#live-state").textContent.includes("1 watching")`)
	}
	if g = a.onlineGame(id); !slices.Equal(g.Moves, played) {
		t.Fatalf("after the restart the API has the moves %v, want %v", g.Moves, played)
	}
	sc.checkBoards("after the restart", g)
	for g = sc.move(); len(g.Moves) < 24; {
		g = sc.move()
	}
	alice.screenshot("scenario-24-moves-desktop.png")
	lap("a restart and moves to 24")

	// Alice resigns, after a confirmation.
	sc.press(alice, "#act-resign")
	alice.waitFor("the confirmation", `!document.querySelector("#resign-confirm").hidden`)
	sc.press(alice, "#resign-yes")
	sc.waitResult("the resignation", "Bob wins", "Alice resigned")
	if g = a.onlineGame(id); g.Status != "resigned" || g.Result != "0-1" || len(g.Moves) != 24 {
		t.Errorf("the API has the game %s %s after %d moves, want resigned 0-1 after 24", g.Status, g.Result, len(g.Moves))
	}
	bob.noSideways("the phone at the result", phone)
	bob.screenshot("scenario-resigned-phone.png")

	// A rematch: Alice offers, Bob accepts; the spectator is shown the
	// way to the next game and takes it.
	if watcher.visible("#act-rematch") {
		t.Error("the spectator is offered a rematch")
	}
	sc.press(alice, "#act-rematch")
	bob.waitFor("the rematch offer", `!!document.querySelector('#offers button[data-action="rematch"]')`)
	sc.press(bob, `#offers button[data-action="rematch"]`)
	for side, p := range map[string]*page{"s": alice, "n": bob} {
		p.waitFor(sc.who[side]+" to go to the rematch", fmt.Sprintf(`/^#\/play\/[^\/]+$/.test(location.hash) && location.hash !== "#/play/%s"`, id))
		p.waitIdle()
	}
	next := alice.gameID()
	if bob.gameID() != next {
		t.Fatalf("the players went to different games: %s and %s", next, bob.gameID())
	}
	watcher.waitFor("the spectator shown the next game", `!document.querySelector("#next-game").hidden`)
	if !eval[bool](watcher, `((r) => r.top >= 0 && r.bottom <= innerHeight)(document.querySelector("#next-game").getBoundingClientRect())`) {
		t.Error("the spectator's way to the next game is out of view")
	}
	watcher.screenshot("scenario-next-game-spectator.png")
	watcher.click("#next-game")
	watcher.waitFor("the spectator at the rematch", fmt.Sprintf(`location.hash === "#/play/%s"`, next))
	watcher.waitIdle()
	lap("resignation and rematch")

	// The rematch: Bob moves first and, once the clocks run, lets his run
	// out. His time is cut to seconds (in the store, before the first move,
	// the server stopped a moment) so that the test need not wait minutes.
	sc.id = next
	a.changeOnline(next, func(o *game.Online) { o.Left[rules.North] = 6 * time.Second }, alice, bob, watcher)
	for side, p := range sc.pages {
		p.waitFor(sc.who[side]+" to reconnect to the rematch", `!document.querySelector("#live-state").textContent.includes("Reconnecting")`)
	}
	g = sc.move()
	if g.Moves[0] < "A" || g.Moves[0] > "Z" {
		t.Errorf("the rematch began with %s: North, Bob, should move first", g.Moves[0])
	}
	// (On a slow machine Bob's flag may have fallen already.)
	if g = sc.move(); g.Online.Running != "n" && g.Status != "timeout" {
		t.Fatalf("after two moves of the rematch the running clock is %q, want Bob's", g.Online.Running)
	}
	for side, p := range sc.pages {
		p.waitFor(sc.who[side]+" to show Bob's time low", `document.querySelector("#clock-north").classList.contains("low")`)
	}
	sc.waitResult("the loss on time", "Alice wins", "Bob lost on time")
	if g = a.onlineGame(next); g.Status != "timeout" || g.Result != "1-0" {
		t.Errorf("the API has the rematch %s %s, want a timeout won by South", g.Status, g.Result)
	}
	for side, p := range sc.pages {
		if got := p.text("#clock-north"); got != "0:00" {
			t.Errorf("%s shows Bob's clock at %q after his flag fell", sc.who[side], got)
		}
	}
	bob.noSideways("the phone after the loss on time", phone)
	bob.screenshot("scenario-timeout-phone.png")
	watcher.screenshot("scenario-timeout-spectator.png")
	lap("the rematch lost on time")

	// No screen shows a seat's token; Alice's games list says how both
	// games ended, with the names.
	tokens = append(tokens, alice.heldToken(next), bob.heldToken(next))
	for _, p := range sc.pages {
		for _, tok := range tokens {
			if tok != "" {
				p.checkNoToken(tok)
			}
		}
	}
	alice.click(`nav a[href="#/history"]`)
	alice.waitIdle()
	for gid, want := range map[string][]string{id: {"Bob won", "by resignation"}, next: {"Alice won", "on time"}} {
		got := alice.text(fmt.Sprintf(`#my-online-list li[data-game-id=%q]`, gid))
		for _, w := range want {
			if !strings.Contains(got, w) {
				t.Errorf("Alice's online games show %q, want it to say %q", got, w)
			}
		}
	}
	lap("tokens and the games list")
	t.Logf("the scenario took %v", time.Since(began).Round(10*time.Millisecond))
}
