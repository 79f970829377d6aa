package browsertest

// Accessibility: axe-core (the npm package, installed by
// `npm ci --prefix internal/browsertest/axe`) is injected into the page and
// run on every screen, in every language on a desktop and in English and
// Urdu on a phone; no violation of impact "serious" or "critical" may be found.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// axeInstall is the command, run from the repository's root, that installs
// axe-core for these checks, at the version package-lock.json pins.
const axeInstall = "npm ci --prefix internal/browsertest/axe"

// axeScript is axe-core's browser bundle, relative to this package.
var axeScript = filepath.Join("axe", "node_modules", "axe-core", "axe.min.js")

// axeScreen is one screen to check: open brings the page to it (from any
// other screen) and waits until it is shown and idle.
type axeScreen struct {
	name string
	open func(p *page)
}

// accessibilityScreens are the screens the accessibility checks visit, in
// order, on one page. A new screen is one line here: screenAt("#/route")
// for a screen its route shows alone, or a function that sets it up.
var accessibilityScreens = []axeScreen{
	{"play: a game in progress", openGameInProgress},
	{"play: a finished game", openFinishedGame},
	{"play: an online game waiting for the friend", openOnlineGameWaiting},
	{"play: the new-game dialog", openNewGameDialog},
	{"the account dialog", openAccountDialog},
	{"analysis: variations and a link to copy", openAnalysisWithVariation},
	{"games list", openGamesList},
	{"rules", screenAt("#/rules")},
	{"about", screenAt("#/about")},
	{"learn: the menu", screenAt("#/learn")},
	{"learn: a lesson", screenAt("#/learn/lesson/3")},
	{"learn: a puzzle", screenAt("#/learn/puzzle/p01")},
	{"join: an invitation", openInvitation},
	{"lobby, signed out", screenAt("#/lobby")},
	{"a player's profile, with a rating graph", openProfile},
	{"leaderboard", screenAt("#/leaderboard/8-blitz")},
}

// screenAt opens a route whose screen needs nothing set up.
func screenAt(route string) func(p *page) {
	return func(p *page) {
		p.t.Helper()
		p.goTo(route)
	}
}

// goTo navigates to a route and waits until the page is idle, with no
// dialog left open by the screen before.
func (p *page) goTo(route string) {
	p.t.Helper()
	eval[chromedp.Void](p, `(() => { const d = document.querySelector("dialog[open]"); if (d) d.close(); })()`)
	p.do("opening "+route, chromedp.Navigate(p.app.URL()+"/"+route))
	p.waitIdle()
	eval[chromedp.Void](p, `(() => { const d = document.querySelector("dialog[open]"); if (d) d.close(); })()`)
}

func openGameInProgress(p *page) {
	p.t.Helper()
	id := p.app.createGame(`{"holes": 6, "south": "Naserian", "north": "Lemayian"}`)
	p.goTo("#/play/" + id)
	p.setSpeed("instant")
	p.play("c")
	p.play(p.legal("n")[0])
}

func openFinishedGame(p *page) {
	p.t.Helper()
	id := p.app.createGame(`{"position": "1,0/0,0 s 5 4"}`)
	p.goTo("#/play/" + id)
	p.setSpeed("instant")
	p.play("a")
	p.waitFor("the result", `!document.querySelector("#result").hidden`)
}

func openOnlineGameWaiting(p *page) {
	p.t.Helper()
	p.goTo("#/play")
	p.startOnline(6, 4, "s", "5+3", "Naserian")
	p.waitFor("the invitation", `!document.querySelector("#invite").hidden`)
}

func openNewGameDialog(p *page) {
	p.t.Helper()
	id := p.app.createGame(`{"holes": 8}`)
	p.goTo("#/play/" + id)
	p.click("#new-game")
	p.waitFor("the new-game dialog", `document.querySelector("#new-game-dialog").open`)
	p.setField("#ng-opponent", "computer")
	p.setField("#ng-mode", "series")
}

func openAnalysisWithVariation(p *page) {
	p.t.Helper()
	p.goTo("#/analysis")
	p.setField("#an-speed", "instant")
	p.setField("#an-input", "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	p.click("#an-load")
	p.waitIdle()
	p.playAnalysis("c")
	main := p.legalOf(analysisBoard, "")[0]
	p.playAnalysis(main)
	p.click(`#an-moves [data-ply="1"]`)
	p.waitIdle()
	p.playAnalysis(p.otherLegal(main))
	// Without a clipboard the link shows in a field to copy by hand.
	eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true, value: undefined})`)
	p.click("#an-copy-link")
	p.waitFor("the link to copy", `!document.querySelector("#an-link-fallback").hidden`)
	p.waitFor("the evaluation", `document.querySelector("#an-lines li") !== null`)
	p.waitIdle()
}

func openGamesList(p *page) {
	p.t.Helper()
	var g gameView
	p.app.api("POST", "/api/games", `{"holes": 6, "south": "Naserian", "north": "Lemayian"}`, 201, &g)
	p.app.api("POST", "/api/games/"+g.ID+"/moves", `{"move": "c"}`, 200, nil)
	p.app.createGame(`{"holes": 7, "seeds": 3, "variant": "cross", "series": 3}`)
	p.app.apiOnlineGame(`{"online": true, "holes": 5, "seeds": 2, "side": "s", "name": "Sironka"}`, true)
	p.goTo("#/history")
	p.waitFor("the games", `document.querySelector("#history [data-game-id]") !== null`)
}

func openInvitation(p *page) {
	p.t.Helper()
	_, _, code := p.app.apiOnlineGame(`{"online": true, "holes": 6, "seeds": 4, "side": "n", "name": "Lemayian"}`, false)
	p.goTo("#/join/" + code)
	p.waitFor("the join form", `!document.querySelector("#join-form").hidden`)
}

// axeSource reads axe-core's bundle. Without it the test is skipped with
// the command that installs it, or fails when the browser tests are
// required.
func axeSource(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(axeScript)
	if err != nil {
		why := fmt.Sprintf("axe-core is not installed (%v); install it from the repository's root with: %s", err, axeInstall)
		if os.Getenv(envRequire) == "require" {
			t.Fatalf("the accessibility checks are required (%s=require), but %s", envRequire, why)
		}
		t.Skipf("skipping the accessibility checks: %s", why)
	}
	return string(data)
}

// axeViolation is one rule axe-core found broken, with its elements.
type axeViolation struct {
	ID     string `json:"id"`
	Impact string `json:"impact"`
	Help   string `json:"help"`
	URL    string `json:"helpUrl"`
	Nodes  []struct {
		Target  []any  `json:"target"`
		HTML    string `json:"html"`
		Summary string `json:"failureSummary"`
	} `json:"nodes"`
}

func (v axeViolation) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): %s\n\t\t%s", v.ID, v.Impact, v.Help, v.URL)
	for _, n := range v.Nodes {
		fmt.Fprintf(&b, "\n\t\t- %v %s\n\t\t  %s", n.Target, n.HTML, strings.ReplaceAll(n.Summary, "\n", "\n\t\t  "))
	}
	return b.String()
}

// axeRun injects axe-core into the page (once a document) and runs it on
// the whole page; it returns the violations of impact serious or critical.
func (p *page) axeRun(source string) []axeViolation {
	p.t.Helper()
	if !eval[bool](p, `typeof window.axe === "object"`) {
		eval[chromedp.Void](p, source+"\n;0")
		if v := eval[string](p, `window.axe ? axe.version : ""`); !strings.HasPrefix(v, "4.") {
			p.t.Fatalf("axe-core did not load from %s (version %q); reinstall it with: %s", axeScript, v, axeInstall)
		}
	}
	// Fonts and the last frame settle first: contrast is read from what is drawn.
	eval[chromedp.Void](p, `document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))`)
	return eval[[]axeViolation](p, `axe.run(document, {resultTypes: ["violations"]}).then(r =>
		r.violations.filter(v => v.impact === "serious" || v.impact === "critical"))`)
}

// accessibilityRuns are the window sizes and the languages the
// accessibility checks visit every screen in: every language on a desktop,
// and on a phone English and Urdu (right to left), whose layouts the other
// languages share with only their words changed.
var accessibilityRuns = []struct {
	name  string
	v     viewport
	langs []string
}{
	{"desktop", desktop, languages},
	{"phone", phone, []string{"en", "ur"}},
}

// TestAccessibility runs axe-core on every screen of accessibilityScreens
// in each language of accessibilityRuns. One application and one page
// serve all the languages of a window size.
func TestAccessibility(t *testing.T) {
	source := axeSource(t)
	for _, run := range accessibilityRuns {
		t.Run(run.name, func(t *testing.T) {
			a := startApp(t)
			p := openPage(t, a, run.v)
			p.open("#/rules")
			for _, lang := range run.langs {
				p.setLanguage(lang)
				for _, s := range accessibilityScreens {
					t0 := time.Now()
					s.open(p)
					found := p.axeRun(source)
					t.Logf("%s, %s: %d serious or critical violations (%v)", lang, s.name, len(found), time.Since(t0).Round(time.Millisecond))
					for _, f := range found {
						t.Errorf("%s, %s, %s: %s", run.name, lang, s.name, f)
					}
				}
			}
		})
	}
}
