package browsertest

// The defects a newcomer met: the result before the animation's end,
// messages outliving their screen, a phone's sideways scroll and hidden
// menu, slow animation, the computer's name, a doubled conflict message,
// "move" meaning two things, unmirrored steps in Urdu, faint hole labels
// and missing fonts.

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// createGame starts a game through the API and returns its id.
func (a *app) createGame(body string) string {
	a.t.Helper()
	var g gameView
	a.api("POST", "/api/games", body, 201, &g)
	return g.ID
}

// watchResultDuringAnimation records, from now on, whether the result ever
// shows while a move is still animated (Skip offered, a lap counted, or the
// status saying someone is sowing).
func (p *page) watchResultDuringAnimation() {
	p.t.Helper()
	eval[chromedp.Void](p, `(() => {
		window.resultTooEarly = "";
		const check = () => {
			const r = document.querySelector("#result");
			if (r.hidden) return;
			const lap = document.querySelector("#lap-info").textContent.trim();
			const status = document.querySelector("#status").textContent;
			if (lap || !document.querySelector("#skip").disabled || /sowing/.test(status)) {
				window.resultTooEarly ||= "result " + JSON.stringify(r.textContent) + " while lap " + JSON.stringify(lap) + ", status " + JSON.stringify(status);
			}
		};
		new MutationObserver(check).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
	})()`)
}

// TestResultWaitsForAnimation plays the last move of a game at normal
// speed, hot-seat and against the computer: the result shows only once the
// move's animation (and the sweep) is over.
func TestResultWaitsForAnimation(t *testing.T) {
	a := startApp(t)
	for _, c := range []struct{ name, body, winner string }{
		{"hot-seat", `{"position": "1,0/0,0 s 5 4"}`, "South wins, 6 to 4"},
		{"computer", `{"position": "1,0/0,0 s 3 9", "computer": {"side": "n", "level": 1}}`, "Computer (level 1) wins, 9 to 4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, a, desktop)
			id := a.createGame(c.body)
			p.open("#/play/" + id)
			p.setSpeed("normal")
			p.watchResultDuringAnimation()
			p.click(holeCSS("a"))
			p.waitFor("the result", `!document.querySelector("#result").hidden`)
			p.waitIdle()
			if early := eval[string](p, `window.resultTooEarly`); early != "" {
				t.Errorf("the result showed during the animation: %s", early)
			}
			if got := p.text("#result"); !strings.Contains(got, c.winner) {
				t.Errorf("#result says %q, want %q", got, c.winner)
			}
		})
	}
}

// TestMessagesBelongToTheirScreen: an error of the analysis board goes when
// a later load succeeds, and a game's message goes when another page opens.
func TestMessagesBelongToTheirScreen(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.allowConsole(`status of 4\d\d`)
	p.open("#/analysis")
	p.setField("#an-input", "[Holes \"x\"]\n1. a")
	p.click("#an-load")
	p.waitIdle()
	if !p.visible("#message") {
		t.Fatal("loading a broken record shows no message")
	}
	p.setField("#an-input", "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 c")
	p.click("#an-load")
	p.waitIdle()
	if p.visible("#message") {
		t.Errorf("after a load that succeeded, the earlier error stays: %q", p.text("#message"))
	}

	id := a.createGame(`{"holes": 6}`)
	p.open("#/play/" + id)
	p.click(holeCSS("A"))
	if !strings.Contains(p.text("#message"), "belongs to") {
		t.Fatalf("clicking North's hole on South's turn says %q", p.text("#message"))
	}
	p.click(`.site-nav a[data-route="about"]`)
	p.waitIdle()
	if p.visible("#message") {
		t.Errorf("the game's message stays on the About page: %q", p.text("#message"))
	}
}

// TestConflictSaidOnce: a move on a game that changed elsewhere says one
// plain sentence, not the server's words as well.
func TestConflictSaidOnce(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.allowConsole(`status of 409`)
	id := a.createGame(`{"holes": 6}`)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	a.api("POST", "/api/games/"+id+"/moves", `{"move": "c", "ply": 0}`, 200, nil)
	p.click(holeCSS("a"))
	p.waitIdle()
	want := "The game had changed elsewhere, so it has been reloaded."
	if got := p.text("#message"); got != want {
		t.Errorf("after a conflict the message is %q, want %q", got, want)
	}
	if got := p.plies(); got != 1 {
		t.Errorf("after the reload the move list has %d moves, want 1", got)
	}
}

// TestPhoneEveryPageEveryLanguage: on a 360-pixel phone, in every language
// and on every page, nothing scrolls sideways and every menu item is on
// screen; the games list is cards with every action on screen.
func TestPhoneEveryPageEveryLanguage(t *testing.T) {
	a := startApp(t)
	a.createGame(`{"holes": 8, "south": "Naserian", "north": "Lemayian"}`)
	p := openPage(t, a, phone)
	p.open("#/rules")
	for _, lang := range []string{"en", "sw", "vi", "bn", "ur", "cs"} {
		p.setLanguage(lang)
		for _, route := range []string{"play", "analysis", "history", "rules", "about", "learn"} {
			p.do("opening "+route, chromedp.Navigate(p.app.URL()+"/#/"+route))
			p.waitIdle()
			eval[chromedp.Void](p, `(() => { const d = document.querySelector("#new-game-dialog"); if (d && d.open) d.close(); })()`)
			bad := eval[string](p, `(() => {
				const w = document.documentElement.clientWidth;
				const out = [];
				if (document.documentElement.scrollWidth > w) out.push("the page is " + document.documentElement.scrollWidth + " px wide");
				const check = (el, what) => {
					const r = el.getBoundingClientRect();
					if (r.width && (r.left < -0.5 || r.right > w + 0.5)) out.push(what + " spans " + Math.round(r.left) + ".." + Math.round(r.right));
				};
				document.querySelectorAll(".site-nav a").forEach(a => check(a, "menu item " + a.dataset.route));
				document.querySelectorAll("#history td.actions, #history td.date, #import-file").forEach(el => check(el, el.className || el.id));
				return out.join("; ");
			})()`)
			if bad != "" {
				t.Errorf("%s, #/%s at 360 px: %s", lang, route, bad)
			}
			if route == "history" {
				if d := eval[string](p, `getComputedStyle(document.querySelector("#history tr")).display`); d != "block" {
					t.Errorf("%s: the games list's rows are display %q on a phone, want cards (block)", lang, d)
				}
			}
		}
	}
}

// TestAnimationIsBrisk: a relay move at normal speed takes well under a
// second a lap; the analysis board has its own speed, and a click during
// its animation finishes it.
func TestAnimationIsBrisk(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 8}`)
	p.open("#/play/" + id)
	p.setSpeed("normal")
	var sown struct {
		Sowing struct {
			Laps []struct{} `json:"laps"`
		} `json:"sowing"`
	}
	a.api("POST", "/api/position", `{"position": "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", "moves": ["a"]}`, 200, &sown)
	laps := len(sown.Sowing.Laps)
	t0 := time.Now()
	p.play("a")
	d := time.Since(t0)
	t.Logf("a %d-lap move took %v at normal speed", laps, d)
	if per := d / time.Duration(laps); per > 700*time.Millisecond {
		t.Errorf("a %d-lap move took %v at normal speed: %v a lap, want well under a second", laps, d, per)
	}

	p.open("#/analysis")
	p.mustExist("#an-speed")
	p.setField("#an-speed", "slow")
	p.click(holeOf("#an-board", "a"))
	p.waitFor("the analysis animation", `document.querySelector("#an-board .hole.sowing") !== null`)
	t1 := time.Now()
	p.click("#an-table .player.north")
	// Only the animation is timed: the evaluation that follows it may take
	// long on a slow machine.
	p.waitFor("the analysis animation to end", `document.querySelector("#an-board .hole.sowing") === null`)
	if d := time.Since(t1); d > 2*time.Second {
		t.Errorf("a click during the analysis board's animation left it running %v", d)
	}
	p.waitIdle()
	if got := eval[string](p, `localStorage.getItem("endodoi.analysisSpeed")`); got != "slow" {
		t.Errorf("the analysis speed is not remembered apart: %q", got)
	}
	if got := eval[string](p, `localStorage.getItem("endodoi.speed")`); got != "normal" {
		t.Errorf("the game's speed changed to %q with the analysis board's", got)
	}
}

// TestComputerNamed: the computer is named with its level on the board and
// in the move list's labels.
func TestComputerNamed(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 6, "computer": {"side": "n", "level": 5}}`)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	if got := p.text("#name-north"); got != "Computer (level 5)" {
		t.Errorf("North's name is %q, want %q", got, "Computer (level 5)")
	}
	p.play(p.legal("s")[0])
	if got := p.attr(`#moves [data-ply="2"]`, "aria-label"); !strings.Contains(got, "Computer (level 5)") {
		t.Errorf("the computer's move is labelled %q", got)
	}
}

// TestComputerNotNamedAfterFriend: the names given to two friends in the
// new-game dialog stay theirs: a game against the computer, started next
// from the same dialog, shows the computer as the computer; the friends'
// names come back with the next game between two people.
func TestComputerNotNamedAfterFriend(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	p.startGame(newGame{Holes: 4, Seeds: 2, Opponent: "friend", First: "s", Mode: "single", South: "Amina", North: "Baraka"})
	if s, n := p.text("#name-south"), p.text("#name-north"); s != "Amina" || n != "Baraka" {
		t.Fatalf("the friends' game shows %q and %q", s, n)
	}
	p.startGame(newGame{Holes: 4, Seeds: 2, Opponent: "computer", Level: 3, First: "s", Mode: "single"})
	if s, n := p.text("#name-south"), p.text("#name-north"); n != "Computer (level 3)" || s == "Baraka" {
		t.Errorf("the game against the computer shows South %q and North %q, want North %q", s, n, "Computer (level 3)")
	}
	if got := a.game(p.gameID()); got.North != "" || got.Computer == nil {
		t.Errorf("the server has the computer's side named %q (computer %+v)", got.North, got.Computer)
	}
	p.newGameDialog("friend")
	p.setField("#ng-opponent", "friend")
	if s, n := eval[string](p, `document.getElementById("ng-south").value`), eval[string](p, `document.getElementById("ng-north").value`); s != "Amina" || n != "Baraka" {
		t.Errorf("for the next game between friends the dialog has %q and %q, want Amina and Baraka", s, n)
	}
	p.click("#ng-cancel")
}

// TestMoveMeansOneMove: "move" is one player's move everywhere; the move
// list's numbers are rounds and say so, in every language.
func TestMoveMeansOneMove(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 6}`)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	p.play("a")
	p.play(p.legal("n")[0])
	p.play(p.legal("s")[0])
	p.click(`#moves [data-ply="2"]`)
	// Moves are named by the move list's round numbers, not counted one by one.
	if got, want := p.text("#viewing-text"), "Viewing round 1, North: "+p.text(`#moves [data-ply="2"]`); got != want {
		t.Errorf("#viewing-text %q, want %q", got, want)
	}
	if got := p.attr(`#moves [data-ply="3"]`, "aria-label"); !strings.HasPrefix(got, "Round 2, South: ") {
		t.Errorf("the third move is labelled %q, want it named as round 2's", got)
	}
	if got := p.attr("#moves .pair-no", "title"); got != "Round 1" {
		t.Errorf("the first number of the move list is titled %q, want %q", got, "Round 1")
	}
	for _, lang := range []string{"en", "sw", "vi", "bn", "ur", "cs"} {
		p.setLanguage(lang)
		if !p.visible("#view-play .moves-note") || p.text("#view-play .moves-note") == "" {
			t.Errorf("%s: the move list does not say its numbers are rounds", lang)
		}
	}
}

// TestUrduStepsPointTheReadingDirection: in Urdu the step buttons run
// right to left and their arrows point that way; in English left to right.
func TestUrduStepsPointTheReadingDirection(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 6}`)
	p.open("#/play/" + id)
	for _, c := range []struct {
		lang string
		rtl  bool
	}{{"en", false}, {"ur", true}} {
		p.setLanguage(c.lang)
		back, fwd := p.rectOf("#step-back"), p.rectOf("#step-forward")
		if forwardLeft := fwd.Left < back.Left; forwardLeft != c.rtl {
			t.Errorf("%s: forward at x=%v, back at x=%v", c.lang, fwd.Left, back.Left)
		}
		m := eval[string](p, `getComputedStyle(document.querySelector("#step-forward svg")).transform`)
		mirrored := strings.HasPrefix(m, "matrix(-1")
		if mirrored != c.rtl {
			t.Errorf("%s: the forward arrow's transform is %q (mirrored %v, want %v)", c.lang, m, mirrored, c.rtl)
		}
	}
}

// relLum is the relative luminance of an sRGB colour (WCAG 2).
func relLum(c [3]float64) float64 {
	lin := func(v float64) float64 {
		v /= 255
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c[0]) + 0.7152*lin(c[1]) + 0.0722*lin(c[2])
}

// TestHoleLabelContrast computes the contrast of the hole letters and
// counts from the computed colours: the tag's background composited over
// the lightest wood of the board (its top edge under the highlight).
func TestHoleLabelContrast(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 8}`)
	p.open("#/play/" + id)
	raw := eval[string](p, `JSON.stringify((() => {
		const s = getComputedStyle(document.querySelector('#board .row.north .tag'));
		const parse = (c) => (c.match(/[\d.]+/g) || []).map(Number);
		return {color: parse(s.color), bg: parse(s.backgroundColor), size: parseFloat(s.fontSize)};
	})())`)
	var st struct {
		Color, Bg []float64
		Size      float64
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil || len(st.Color) < 3 {
		t.Fatalf("computed style %s: %v", raw, err)
	}
	// The lightest wood: --wood-1 (#b0713f) under the board's highlight
	// (rgba(255, 220, 170, .25)), lightened further for the grain.
	wood := [3]float64{0xd6, 0xa2, 0x6e}
	bg := wood
	if len(st.Bg) == 4 {
		for i := range 3 {
			bg[i] = st.Bg[3]*st.Bg[i] + (1-st.Bg[3])*wood[i]
		}
	} else if len(st.Bg) == 3 {
		bg = [3]float64{st.Bg[0], st.Bg[1], st.Bg[2]}
	}
	fg := [3]float64{st.Color[0], st.Color[1], st.Color[2]}
	l1, l2 := relLum(fg), relLum(bg)
	if l1 < l2 {
		l1, l2 = l2, l1
	}
	ratio := (l1 + 0.05) / (l2 + 0.05)
	t.Logf("hole labels: %v on %v, %.2f:1 at %v px", fg, bg, ratio, st.Size)
	if ratio < 4.5 {
		t.Errorf("the hole labels' contrast is %.2f:1, want at least 4.5:1", ratio)
	}
}

// TestShippedFonts: Bengali and Urdu pages use the fonts the page ships,
// and the step buttons are drawn, not characters of a system font.
func TestShippedFonts(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	id := a.createGame(`{"holes": 6}`)
	p.open("#/play/" + id)
	for _, css := range []string{"#step-first", "#step-back", "#step-forward", "#step-last", "#an-first", "#an-last"} {
		if got := p.text(css); got != "" || !p.exists(css+" svg") {
			t.Errorf("%s shows the text %q instead of an SVG icon", css, got)
		}
	}
	if got := eval[string](p, `[...document.querySelectorAll("body *:not(script)")].filter(e => e.children.length === 0 && /[⏮⏭◀▶↺]/.test(e.textContent)).map(e => e.id || e.className).join(",")`); got != "" {
		t.Errorf("glyphs that need a system font are still shown in: %s", got)
	}
	for _, c := range []struct{ lang, family string }{{"bn", "Endodoi Bengali"}, {"ur", "Endodoi Urdu"}} {
		p.setLanguage(c.lang)
		status := eval[string](p, fmt.Sprintf(`document.fonts.ready.then(() => [...document.fonts].filter(f => f.family.replace(/"/g, "") === %q).map(f => f.status).join(","))`, c.family))
		if status != "loaded" {
			t.Errorf("%s: the shipped font %s is %q, want loaded", c.lang, c.family, status)
		}
		if fam := eval[string](p, `getComputedStyle(document.querySelector(".site-nav a")).fontFamily`); !strings.Contains(fam, c.family) {
			t.Errorf("%s: the menu's font is %s, without %s", c.lang, fam, c.family)
		}
	}
}
