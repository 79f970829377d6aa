package browsertest

// The game screen as players of a game site expect it: moves replayed from
// the server's sowings (the page has no rules of its own), the board turned
// to the player's side, resigning, a rematch and the game's link, move
// sounds, and an online game's result shown only after its last move's
// animation.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/endodoi/endodoi/rules"
)

// sowingView is a move's sowing in the API.
type sowingView struct {
	Move        string `json:"move"`
	Laps        []lap  `json:"laps"`
	CaptureFrom int    `json:"captureFrom"`
	Captured    int    `json:"captured"`
}

type lap struct {
	From, Seeds, To int
}

// gameWithSowings is a game with the sowings of its moves.
type gameWithSowings struct {
	gameView
	Sowings     []sowingView `json:"sowings"`
	SowingsFrom int          `json:"sowingsFrom"`
}

func (a *app) gameSowings(id string) gameWithSowings {
	a.t.Helper()
	var g gameWithSowings
	a.api("GET", "/api/games/"+id, "", http.StatusOK, &g)
	return g
}

// letterAt is the name of hole i (0..2h-1, in sowing order) of an h-hole board.
func letterAt(i, h int) string { return holeLetter(i < h, i%h) }

// playScreens are the window sizes and languages the features are checked
// in: a desktop in English, a phone in Urdu (right to left).
var playScreens = []struct {
	name string
	v    viewport
	lang string
}{{"desktop-en", desktop, "en"}, {"phone-ur", phone, "ur"}}

// TestReplayFromServerSowings: the page has no sowing simulation of its
// own; the explanation, the highlighted holes and a play-through of old
// moves come from the sowings in the game's view.
func TestReplayFromServerSowings(t *testing.T) {
	a := startApp(t)
	id := a.createGame(`{"holes": 6, "south": "Naserian", "north": "Lemayian"}`)
	for i := 0; i < 5; i++ {
		g := a.game(id)
		a.api("POST", "/api/games/"+id+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[len(g.LegalMoves)/2], len(g.Moves)), http.StatusOK, nil)
	}
	g := a.gameSowings(id)
	if len(g.Sowings) != len(g.Moves) || g.SowingsFrom != 0 {
		t.Fatalf("the API lists %d sowings from %d for %d moves", len(g.Sowings), g.SowingsFrom, len(g.Moves))
	}
	p := openPage(t, a, desktop)
	p.open("#/play/" + id)
	if got := p.app.status("/js/rules.js"); got != http.StatusNotFound {
		t.Errorf("/js/rules.js answers %d: the page's own sowing simulation is still served", got)
	}
	if n := eval[int](p, `performance.getEntriesByType("resource").filter(e => /rules\.js/.test(e.name)).length`); n != 0 {
		t.Errorf("the page loaded rules.js %d times", n)
	}

	for ply := len(g.Moves); ply >= 1; ply-- {
		p.click(fmt.Sprintf(`#moves [data-ply="%d"]`, ply))
		p.waitIdle()
		sw := g.Sowings[ply-1]
		laps := fmt.Sprintf("%d lap", len(sw.Laps))
		if got := p.text("#explain"); !strings.Contains(got, laps) || !strings.Contains(got, " "+sw.Move+":") {
			t.Errorf("move %d (%s, %d laps): the explanation says %q", ply, sw.Move, len(sw.Laps), got)
		}
		from, to := letterAt(sw.Laps[0].From, g.Holes), letterAt(sw.Laps[len(sw.Laps)-1].To, g.Holes)
		if got := p.attr("#board .hole.last-from", "data-hole"); got != from {
			t.Errorf("move %d: the hole marked as its start is %q, want %s", ply, got, from)
		}
		if got := p.attr("#board .hole.last-to", "data-hole"); got != to {
			t.Errorf("move %d: the hole marked as its end is %q, want %s", ply, got, to)
		}
	}

	// A play-through counts each move's laps as the server traced them.
	eval[chromedp.Void](p, `(() => {
		window.lapTotals = [];
		new MutationObserver(() => {
			const m = /of (\d+)/.exec(document.querySelector("#lap-info").textContent);
			if (m && window.lapTotals.at(-1) !== Number(m[1])) window.lapTotals.push(Number(m[1]));
		}).observe(document.querySelector("#lap-info"), {childList: true, characterData: true, subtree: true});
	})()`)
	p.setSpeed("fast")
	p.click(`#moves [data-ply="1"]`)
	p.click("#step-first")
	p.click("#play-through")
	p.waitFor("the play-through to end", `document.querySelector("#step-last").disabled && document.querySelector("#skip").disabled`)
	p.waitIdle()
	var want []int
	for _, sw := range g.Sowings {
		if n := len(sw.Laps); len(want) == 0 || want[len(want)-1] != n {
			want = append(want, n)
		}
	}
	if got := eval[[]int](p, `window.lapTotals`); !slices.Equal(got, want) {
		t.Errorf("the play-through counted the laps %v, the server's sowings have %v", got, want)
	}
	p.checkGameAgainstAPI(g.gameView)

	// A view that leaves the earliest sowings out (a very long game) still
	// shows those moves, without their laps.
	eval[chromedp.Void](p, `(() => {
		const real = window.fetch;
		window.fetch = async (...args) => {
			const res = await real(...args);
			if (!/\/api\/games\/[0-9a-f]+$/.test(String(args[0]))) return res;
			const g = await res.json();
			g.sowings = g.sowings.slice(3);
			g.sowingsFrom = 3;
			return new Response(JSON.stringify(g), {status: res.status, headers: res.headers});
		};
	})()`)
	p.open("#/play/" + id + "/2")
	if got := p.text("#explain"); got != "Lemayian sowed "+g.Moves[1]+"." {
		t.Errorf("a move without its sowing is explained as %q", got)
	}
	if got := p.attr("#board .hole.last-from", "data-hole"); got != g.Moves[1] {
		t.Errorf("a move without its sowing marks %q as its start, want %s", got, g.Moves[1])
	}
	p.click("#play-through")
	p.waitFor("the play-through to end", `document.querySelector("#step-last").disabled && document.querySelector("#skip").disabled`)
	p.waitIdle()
	p.checkGameAgainstAPI(g.gameView)
}

// status is the status of a GET of path.
func (a *app) status(path string) int {
	a.t.Helper()
	resp, err := http.Get(a.URL() + path)
	if err != nil {
		a.t.Fatalf("GET %s: %v", path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// centre is the centre of the first element matching css.
func (p *page) centre(css string) (x, y float64) {
	p.t.Helper()
	r := p.rectOf(css)
	return (r.Left + r.Right) / 2, (r.Top + r.Bottom) / 2
}

// checkOrientation fails the test unless the board is seen from side's
// row ("s": North's row on top, as usual; "n": turned, North's at the
// bottom), with every hole keeping its letter and the piles and names
// following their rows.
func (p *page) checkOrientation(what, side string, holes int) {
	p.t.Helper()
	turned := side == "n"
	if got := p.attr("#flip-board", "aria-pressed"); got != fmt.Sprint(turned) {
		p.t.Errorf("%s: #flip-board aria-pressed=%q, want %v", what, got, turned)
	}
	_, ya := p.centre(holeCSS("a"))
	_, yA := p.centre(holeCSS("A"))
	if northBelow := yA > ya; northBelow != turned {
		p.t.Errorf("%s: hole A at y=%.0f, hole a at y=%.0f: North's row below is %v, want %v", what, yA, ya, northBelow, turned)
	}
	last := string(rune('a' + holes - 1))
	xa, _ := p.centre(holeCSS("a"))
	xh, _ := p.centre(holeCSS(last))
	xA, _ := p.centre(holeCSS("A"))
	xH, _ := p.centre(holeCSS(strings.ToUpper(last)))
	// Counterclockwise from the bottom row's left: the bottom row runs
	// left to right, the top row right to left.
	if southLTR := xa < xh; southLTR == turned {
		p.t.Errorf("%s: South's row runs a..%s from x=%.0f to x=%.0f", what, last, xa, xh)
	}
	if northLTR := xA < xH; northLTR != turned {
		p.t.Errorf("%s: North's row runs A..%s from x=%.0f to x=%.0f", what, strings.ToUpper(last), xA, xH)
	}
	for _, l := range []string{"a", last, "A", strings.ToUpper(last)} {
		if got := p.text(holeCSS(l) + " .letter"); got != l {
			p.t.Errorf("%s: hole %s is lettered %q", what, l, got)
		}
	}
	_, ySouth := p.centre("#player-south")
	_, yNorth := p.centre("#player-north")
	if (yNorth > ySouth) != turned {
		p.t.Errorf("%s: North's name at y=%.0f, South's at y=%.0f", what, yNorth, ySouth)
	}
	_, yps := p.centre("#pile-south")
	_, ypn := p.centre("#pile-north")
	xps, _ := p.centre("#pile-south")
	xpn, _ := p.centre("#pile-north")
	// Beside the board the piles swap sides; on a phone they sit by the names.
	sameRow := yps-ypn < 2 && ypn-yps < 2
	if !sameRow && (ypn > yps) != turned {
		p.t.Errorf("%s: North's pile at y=%.0f, South's at y=%.0f", what, ypn, yps)
	}
	if sameRow && (xpn > xps) != turned {
		p.t.Errorf("%s: North's pile at x=%.0f, South's at x=%.0f", what, xpn, xps)
	}
}

// TestFlipBoard: a button turns the board so that North's row is at the
// bottom, remembered for that game; the holes keep their letters and the
// keyboard their meaning. Against the computer and online the player's own
// row is at the bottom from the start.
func TestFlipBoard(t *testing.T) {
	a := startApp(t)
	for _, sc := range playScreens {
		t.Run(sc.name, func(t *testing.T) {
			p := openPage(t, a, sc.v)
			id := a.createGame(`{"holes": 8, "south": "Naserian", "north": "Lemayian"}`)
			other := a.createGame(`{"holes": 8}`)
			p.open("#/play/" + id)
			p.setLanguage(sc.lang)
			p.setSpeed("instant")
			p.checkOrientation("a game between two people", "s", 8)
			if label := eval[string](p, `(() => { const b = document.querySelector("#flip-board"); return b.getAttribute("aria-label") || b.textContent.trim(); })()`); label == "" {
				t.Error("#flip-board has no accessible name")
			}
			p.click("#flip-board")
			p.checkOrientation("turned", "n", 8)
			p.noSideways("turned", sc.v)
			p.screenshot("flipped-" + sc.name + ".png")
			// The letters keep their meaning: "c" is South's c.
			p.blur()
			p.key("c")
			p.waitIdle()
			if g := a.game(id); len(g.Moves) != 1 || g.Moves[0] != "c" {
				t.Fatalf("typing c on the turned board played %v", g.Moves)
			}
			p.checkGameAgainstAPI(a.game(id))
			p.reload()
			p.checkOrientation("turned, after a reload", "n", 8)
			p.open("#/play/" + other)
			p.checkOrientation("another game", "s", 8)
			p.open("#/play/" + id)
			p.checkOrientation("the turned game again", "n", 8)
			p.click("#flip-board")
			p.checkOrientation("turned back", "s", 8)
			p.reload()
			p.checkOrientation("turned back, after a reload", "s", 8)
		})
	}

	// North against the computer, chosen in the dialog: the computer,
	// South, moves first; the person's row is at the bottom.
	for _, sc := range playScreens {
		t.Run("computer-"+sc.name, func(t *testing.T) {
			p := openPage(t, a, sc.v)
			p.open("#/play/" + a.createGame(`{"holes": 8}`))
			p.setLanguage(sc.lang)
			p.setSpeed("instant")
			p.click("#new-game")
			p.waitFor("the new-game dialog", `document.querySelector("#new-game-dialog")?.open === true`)
			p.setField("#ng-opponent", "computer")
			if !p.visible("#ng-side") {
				t.Fatal("the dialog does not offer a side against the computer")
			}
			p.setField("#ng-side", "n")
			p.setField("#ng-level", "1")
			p.setField("#ng-holes", "6")
			p.setField("#ng-mode", "single")
			p.setField("#ng-first", "s")
			p.setField("#ng-south", "Naserian")
			if sc.lang == "en" {
				if got := p.text(`#ng-first option[value="s"]`); got != "The computer (South)" {
					t.Errorf("who starts: South is %q", got)
				}
				if got := p.text("#ng-south-label"); got != "Your name (North)" {
					t.Errorf("the first name field is labelled %q", got)
				}
			}
			p.noSideways("the dialog", sc.v)
			p.click("#ng-start")
			p.waitFor("the new game", `/^#\/play\/[^\/]+$/.test(location.hash) && !document.querySelector("#new-game-dialog").open`)
			p.waitIdle()
			id := p.gameID()
			g := a.game(id)
			if g.Computer == nil || g.Computer.Side != "s" || g.North != "Naserian" || g.South != "" {
				t.Fatalf("the dialog made %+v (computer %+v), want the person North named Naserian", g, g.Computer)
			}
			if len(g.Moves) != 1 || g.ToMove != "n" {
				t.Fatalf("the computer, South, has not moved first: moves %v, %s to move", g.Moves, g.ToMove)
			}
			p.checkOrientation("playing North against the computer", "n", 6)
			p.checkGameAgainstAPI(g)
			p.play(p.legal("n")[0])
			p.checkGameAgainstAPI(a.game(id))
			p.noSideways("playing North", sc.v)
		})
	}

	// Online, each seat sees its own row at the bottom.
	id, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 6, "seeds": 3, "side": "n", "name": "Naserian"}`, true)
	for _, side := range []string{"n", "s"} {
		p := openPage(t, a, desktop)
		p.takeSeat(id, side, tokens[side])
		p.waitFor("the seat", `document.querySelector("#live-state").textContent.includes("You play")`)
		p.checkOrientation("the online seat "+side, side, 6)
	}
}

// takeSeat opens online game id in a browser that holds the seat of side.
func (p *page) takeSeat(id, side, token string) {
	p.t.Helper()
	p.open("#/play/" + id)
	evalf[chromedp.Void](p, `localStorage.setItem("endodoi.seats", JSON.stringify({[%q]: {side: %q, token: %q}}))`, id, side, token)
	p.reload()
}

// resign resigns game id, shown, as a person does: Resign, then Yes. It
// returns the game as the API has it once the page shows the result.
func (p *page) resign(id string) gameView {
	p.t.Helper()
	p.click("#resign")
	p.click("#resign-yes")
	p.waitFor("the result", `!document.querySelector("#result").hidden`)
	p.waitIdle()
	return p.app.game(id)
}

// TestResignDuringComputersMove: the person may resign while the computer
// is thinking and while its move is being shown, as soon as they decide:
// the game ends resigned, with no error, whatever the computer was doing.
func TestResignDuringComputersMove(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	for _, phase := range []struct {
		when, speed, wait string
	}{
		// The computer's move, shown slowly: its sowing on the board.
		{"its move is shown", "slow", `document.getElementById("status").textContent.startsWith("Computer (level 1) is sowing")`},
		// The computer thinking: its answer not yet come.
		{"it thinks", "instant", `!document.getElementById("thinking").hidden`},
	} {
		id := a.createGame(`{"holes": 8, "south": "Naserian", "computer": {"side": "n", "level": 1}}`)
		p.open("#/play/" + id)
		p.setSpeed(phase.speed)
		p.click(holeCSS(p.legal("s")[0]))
		p.waitFor("the computer's turn: "+phase.when, phase.wait)
		if eval[bool](p, `document.getElementById("resign").disabled`) {
			t.Fatalf("while %s, Resign is disabled", phase.when)
		}
		if g := p.resign(id); g.Status != "resigned" || g.Result != "0-1" {
			t.Errorf("resigning while %s: the API has %s %s after %d moves", phase.when, g.Status, g.Result, len(g.Moves))
		}
		if got := p.text("#result"); !strings.Contains(got, "Naserian resigned.") {
			t.Errorf("resigning while %s: the result says %q", phase.when, got)
		}
		if p.visible("#message") {
			t.Errorf("resigning while %s: the message %q", phase.when, p.text("#message"))
		}
		if len(p.legal("")) != 0 || p.visible("#resign") {
			t.Errorf("resigning while %s: the game still offers holes or a resignation", phase.when)
		}
	}
}

// TestResignRematchAndLink: a game against the computer or between two
// people is resigned after a confirmation; the result says who resigned
// and the record why. A rematch swaps the sides; the game's link is copied,
// or shown selected without a clipboard.
func TestResignRematchAndLink(t *testing.T) {
	a := startApp(t)
	for _, sc := range playScreens {
		t.Run(sc.name, func(t *testing.T) {
			p := openPage(t, a, sc.v)
			id := a.createGame(`{"holes": 6, "south": "Naserian", "computer": {"side": "n", "level": 2}}`)
			p.open("#/play/" + id)
			p.setLanguage(sc.lang)
			p.setSpeed("instant")
			p.play("c")
			if p.visible("#rematch") {
				t.Error("a rematch is offered during the game")
			}
			p.click("#resign")
			if !p.visible("#resign-confirm") || p.text("#resign-sure") == "" {
				t.Fatal("#resign asks no confirmation")
			}
			if focused := eval[string](p, `document.activeElement?.id ?? ""`); focused != "resign-yes" {
				t.Errorf("the confirmation has the focus on %q, want #resign-yes", focused)
			}
			p.noSideways("the resign confirmation", sc.v)
			p.click("#resign-no")
			if p.visible("#resign-confirm") || a.game(id).over() {
				t.Fatal("cancelling the resignation resigned")
			}
			g := p.resign(id)
			if g.Status != "resigned" || g.Result != "0-1" {
				t.Fatalf("after resigning the API has %s %s", g.Status, g.Result)
			}
			if sc.lang == "en" {
				if got := p.text("#result"); !strings.Contains(got, "Computer (level 2) wins.") || !strings.Contains(got, "Naserian resigned.") {
					t.Errorf("the result says %q", got)
				}
			}
			if p.visible("#resign") || len(p.legal("")) != 0 {
				t.Error("after resigning the game still offers a resignation or holes")
			}
			var rec string
			p.app.apiText("/api/games/"+id+"/record", &rec)
			if !strings.Contains(rec, `[Termination "resigned; North won"]`) {
				t.Errorf("the record does not say the game was resigned:\n%s", rec)
			}
			p.screenshot("resigned-" + sc.name + ".png")

			// The game's link: copied, with feedback.
			eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true,
				value: {writeText: async (s) => { window.copiedText = s; }}})`)
			p.click("#copy-link")
			p.waitFor("the feedback", `document.querySelector("#copy-feedback").textContent !== ""`)
			want := a.URL() + "/#/play/" + id
			if got := eval[string](p, `window.copiedText ?? ""`); got != want {
				t.Errorf("the link copied is %q, want %q", got, want)
			}
			if sc.lang == "en" {
				if got := p.text("#copy-feedback"); got != "Link copied" {
					t.Errorf("the feedback says %q", got)
				}
			}
			if p.attr("#copy-feedback", "role") != "status" {
				t.Error("the feedback is not announced (role=status)")
			}
			// Without a clipboard: the link shows, selected.
			eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true, value: undefined})`)
			p.click("#copy-link")
			p.waitFor("the link shown", `!document.querySelector("#game-link").hidden`)
			if got := p.value("#game-link"); got != want {
				t.Errorf("the link shown is %q, want %q", got, want)
			}
			if !eval[bool](p, `(() => { const f = document.querySelector("#game-link"); return document.activeElement === f && f.selectionStart === 0 && f.selectionEnd === f.value.length; })()`) {
				t.Error("without a clipboard the link is not focused and selected")
			}
			if p.attr("#game-link", "aria-label") == "" {
				t.Error("the link field has no label")
			}
			p.noSideways("the link shown", sc.v)

			// A rematch: the same settings, the sides swapped; the
			// computer, now South, moves first.
			p.click("#rematch")
			p.waitFor("the rematch", fmt.Sprintf(`/^#\/play\/[^\/]+$/.test(location.hash) && location.hash !== "#/play/%s"`, id))
			p.waitIdle()
			next := a.game(p.gameID())
			if next.Computer == nil || next.Computer.Side != "s" || next.Computer.Level != 2 || next.North != "Naserian" ||
				next.Holes != 6 || next.Start != g.Start || len(next.Moves) != 1 {
				t.Errorf("the rematch is %+v (computer %+v), want Naserian North against level 2, the computer's first move made", next, next.Computer)
			}
			p.checkOrientation("the rematch", "n", 6)
			if p.visible("#game-link") || p.text("#copy-feedback") != "" {
				t.Error("the previous game's link is still shown")
			}
		})
	}

	// Between two people the side to move resigns.
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 6, "south": "Naserian", "north": "Lemayian"}`)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	p.play("c")
	p.click("#resign")
	if got := p.text("#resign-sure"); got != "Resign this game for Lemayian?" {
		t.Errorf("the confirmation says %q", got)
	}
	p.click("#resign-yes")
	p.waitFor("the result", `!document.querySelector("#result").hidden`)
	if got := p.text("#result"); !strings.Contains(got, "Naserian wins.") || !strings.Contains(got, "Lemayian resigned.") {
		t.Errorf("the result says %q", got)
	}
	p.click("#rematch")
	p.waitFor("the rematch", fmt.Sprintf(`location.hash !== "#/play/%s"`, id))
	p.waitIdle()
	if g := a.game(p.gameID()); g.South != "Lemayian" || g.North != "Naserian" || g.Computer != nil {
		t.Errorf("the rematch of two people is %+v", g)
	}

	// A game of a series goes on with the next game, not a rematch; an
	// online game has its own resignation.
	id = a.createGame(`{"holes": 4, "seeds": 2, "series": 2}`)
	p.open("#/play/" + id)
	p.click("#resign")
	p.click("#resign-yes")
	p.waitFor("the result", `!document.querySelector("#result").hidden`)
	p.waitIdle()
	if p.visible("#rematch") || !p.visible("#next-game") {
		t.Errorf("a resigned series game: rematch shown %v, next game shown %v", p.visible("#rematch"), p.visible("#next-game"))
	}
	if p.count("#tally-north .pin") != 1 {
		t.Error("the resigned game is not counted in the tally")
	}
	online, _, _ := a.apiOnlineGame(`{"online": true, "holes": 5, "seeds": 2, "side": "s", "name": "Naserian"}`, true)
	p.open("#/play/" + online)
	if p.visible("#resign") || p.visible("#rematch") {
		t.Error("a spectator of an online game is offered a resignation or a rematch")
	}
}

// apiText GETs path and keeps its text.
func (a *app) apiText(path string, out *string) {
	a.t.Helper()
	resp, err := http.Get(a.URL() + path)
	if err != nil {
		a.t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	*out = b.String()
}

// sounds is the number of move sounds the page made.
func (p *page) sounds() int {
	p.t.Helper()
	return eval[int](p, `Number(document.documentElement.dataset.sounds ?? 0)`)
}

// TestMoveSounds: the sound toggle is off by default, one click turns it
// on for every game, and it is remembered; a move then makes a sound
// (through the page's WebAudio path), and none when it is off or the page
// is hidden.
func TestMoveSounds(t *testing.T) {
	a := startApp(t)
	for _, sc := range playScreens {
		t.Run(sc.name, func(t *testing.T) {
			p := openPage(t, a, sc.v)
			id := a.createGame(`{"holes": 6, "computer": {"side": "n", "level": 1}}`)
			p.open("#/play/" + id)
			p.setLanguage(sc.lang)
			p.setSpeed("fast")
			if eval[bool](p, `document.querySelector("#sound").checked`) {
				t.Fatal("the sound is on by default")
			}
			p.play("c")
			if n := p.sounds(); n != 0 {
				t.Fatalf("with the sound off a move made %d sounds", n)
			}
			p.click("#sound")
			if !eval[bool](p, `document.querySelector("#sound").checked`) {
				t.Fatal("one click did not turn the sound on")
			}
			if got := eval[string](p, `localStorage.getItem("endodoi.sound")`); got != "true" {
				t.Errorf("the sound is not remembered: %q", got)
			}
			p.play(p.legal("s")[0])
			// The person's move and the computer's reply.
			if n := p.sounds(); n < 2 {
				t.Errorf("with the sound on a move and its reply made %d sounds (state %s)", n, eval[string](p, `String(window.AudioContext ? "audio" : "none")`))
			}
			p.reload()
			if !eval[bool](p, `document.querySelector("#sound").checked`) {
				t.Error("the sound is off after a reload")
			}
			// A game between two people sounds too, once the page has been touched.
			other := a.createGame(`{"holes": 6}`)
			p.open("#/play/" + other)
			p.setSpeed("instant")
			p.play("c")
			if n := p.sounds(); n != 1 {
				t.Errorf("a move of a game between two people made %d sounds, want 1", n)
			}
			// Hidden, the page is silent.
			eval[chromedp.Void](p, `Object.defineProperty(document, "hidden", {configurable: true, get: () => true})`)
			p.play(p.legal("n")[0])
			if n := p.sounds(); n != 1 {
				t.Errorf("a move while the page is hidden made a sound (%d in all)", n)
			}
			eval[chromedp.Void](p, `delete document.hidden`)
			p.click("#sound")
			if got := eval[string](p, `localStorage.getItem("endodoi.sound")`); got != "false" {
				t.Errorf("turned off, the sound is remembered as %q", got)
			}
			p.play(p.legal("s")[0])
			if n := p.sounds(); n != 1 {
				t.Errorf("turned off, a move made a sound (%d in all)", n)
			}
		})
	}
}

// endsGame reports whether the game from start (the project's notation)
// is over after moves, by the default rules.
func endsGame(t *testing.T, start string, moves []string) bool {
	t.Helper()
	p, err := rules.ParsePosition(start)
	if err != nil {
		t.Fatal(err)
	}
	g, err := rules.NewGame(p, rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range moves {
		m, err := rules.ParseMove(text)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatalf("%s after %v: %v", text, moves, err)
		}
	}
	return g.Over()
}

// TestOnlineResultWaitsForAnimation: the last move of an online game,
// arriving over the live connection, is animated on every screen (both
// players' and a spectator's) before the result shows.
func TestOnlineResultWaitsForAnimation(t *testing.T) {
	a := startApp(t)
	id, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 4, "seeds": 2, "side": "s", "name": "Naserian"}`, true)
	// Play until the side to move has a move that ends the game. The
	// rules tell, here: the server does not analyse the positions of a
	// game being played.
	var last string
	for turn := 0; ; turn++ {
		if turn > maxMoves {
			t.Fatal("no game-ending move found")
		}
		g := a.onlineGame(id)
		var keep string
		for _, m := range g.LegalMoves {
			if endsGame(t, g.Start, append(slices.Clone(g.Moves), m)) {
				last = m
			} else if keep == "" {
				keep = m
			}
		}
		if last != "" {
			break
		}
		body := fmt.Sprintf(`{"move": %q, "ply": %d}`, keep, len(g.Moves))
		if code := a.seatAPI("POST", "/api/games/"+id+"/moves", tokens[g.ToMove], body); code != http.StatusOK {
			t.Fatalf("move %s: status %d", keep, code)
		}
	}
	g := a.onlineGame(id)

	pages := map[string]*page{}
	for _, who := range []string{"s", "n", ""} {
		p := openPage(t, a, desktop)
		if who != "" {
			p.takeSeat(id, who, tokens[who])
		} else {
			p.open("#/play/" + id)
		}
		p.setSpeed("normal")
		p.waitPlies("a screen", len(g.Moves))
		p.watchResultDuringAnimation()
		eval[chromedp.Void](p, `(() => {
			window.sawSowing = false;
			new MutationObserver(() => {
				if (/sowing/.test(document.querySelector("#status").textContent)) window.sawSowing = true;
			}).observe(document.querySelector("#status"), {childList: true, characterData: true, subtree: true});
		})()`)
		pages[who] = p
	}
	mover := pages[g.ToMove]
	mover.waitFor("the mover's turn", `document.querySelector("#status").textContent === "Your move"`)
	mover.click(holeCSS(last))
	for who, p := range pages {
		name := map[string]string{"s": "South", "n": "North", "": "the spectator"}[who]
		p.waitFor(name+" to show the result", `!document.querySelector("#result").hidden`)
		p.waitIdle()
		if early := eval[string](p, `window.resultTooEarly`); early != "" {
			t.Errorf("%s: the result showed during the animation: %s", name, early)
		}
		if !eval[bool](p, `window.sawSowing`) {
			t.Errorf("%s: the last move was not animated", name)
		}
		if got := p.text("#status"); strings.Contains(got, "sowing") {
			t.Errorf("%s: with the result shown the status says %q", name, got)
		}
	}
	if g := a.onlineGame(id); g.Result == "*" {
		t.Errorf("the API has the game still playing after %s", last)
	}
}
