package browsertest

// Languages: a right-to-left language keeps the board's geometry, and no
// screen in any language shows an error or an untranslated catalog key.

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// languages are the values of #lang.
var languages = []string{"en", "sw", "vi", "bn", "ur", "cs"}

// routes are the screens reachable from the navigation.
var routes = []string{"play", "lobby", "analysis", "history", "rules", "about", "learn"}

// rect is an element's box in the viewport.
type rect struct {
	Left   float64 `json:"left"`
	Right  float64 `json:"right"`
	Top    float64 `json:"top"`
	Bottom float64 `json:"bottom"`
	Width  float64 `json:"width"`
	Height float64 `json:"height"`
}

// rectOf is the bounding box of the first element matching css.
func (p *page) rectOf(css string) rect {
	p.t.Helper()
	if !p.exists(css) {
		p.t.Fatalf("the page has no %s", css)
	}
	return evalf[rect](p, `(() => { const r = document.querySelector(%q).getBoundingClientRect();
		return {left: r.left, right: r.right, top: r.top, bottom: r.bottom, width: r.width, height: r.height}; })()`, css)
}

// navText is the text of the navigation link to a route.
func (p *page) navText(route string) string {
	p.t.Helper()
	return p.text(fmt.Sprintf(`nav a[href="#/%s"]`, route))
}

// TestUrduRightToLeft switches the page to Urdu: the page turns right to
// left, but the board keeps its geometry (South's a.. left to right at the
// bottom, North's A.. right to left at the top), and the choice survives a
// reload.
func TestUrduRightToLeft(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})
	english := p.navText("play")
	if english == "" {
		t.Fatal(`the navigation link a[href="#/play"] has no text`)
	}

	checkRTL := func(when string) {
		t.Helper()
		if dir := p.attr("html", "dir"); dir != "rtl" {
			t.Errorf("%s: html dir=%q, want rtl", when, dir)
		}
		if lang := p.attr("html", "lang"); lang != "ur" {
			t.Errorf("%s: html lang=%q, want ur", when, lang)
		}
		if got := p.navText("play"); got == english || got == "" {
			t.Errorf("%s: the navigation still says %q, not Urdu", when, got)
		}
		if dir := eval[string](p, `getComputedStyle(document.querySelector("#board")).direction`); dir != "ltr" {
			t.Errorf("%s: #board's direction is %q, want ltr", when, dir)
		}
		ra, rb := p.rectOf(holeCSS("a")), p.rectOf(holeCSS("b"))
		rA, rB := p.rectOf(holeCSS("A")), p.rectOf(holeCSS("B"))
		if !(ra.Right <= rb.Left+1) {
			t.Errorf("%s: South's hole a (x %.0f..%.0f) is not left of b (x %.0f..%.0f)", when, ra.Left, ra.Right, rb.Left, rb.Right)
		}
		if !(rA.Left+1 >= rB.Right) {
			t.Errorf("%s: North's hole A (x %.0f..%.0f) is not right of B (x %.0f..%.0f)", when, rA.Left, rA.Right, rB.Left, rB.Right)
		}
		if !(ra.Top >= rA.Bottom-1) {
			t.Errorf("%s: South's row (hole a at y %.0f) is not below North's (hole A at y %.0f..%.0f)", when, ra.Top, rA.Top, rA.Bottom)
		}
	}

	p.setLanguage("ur")
	checkRTL("in Urdu")
	p.play("c")
	if g := a.game(id); len(g.Moves) != 1 || g.Moves[0] != "c" {
		t.Fatalf("clicking hole c in Urdu gave the moves %v", g.Moves)
	}
	p.screenshot("game-urdu-desktop.png")

	p.reload()
	if got := p.value("#lang"); got != "ur" {
		t.Errorf("after a reload #lang is %q, want ur", got)
	}
	checkRTL("in Urdu after a reload")
	p.checkGameAgainstAPI(a.game(id))

	// The games list dates the game in Urdu's words: no Latin "AM" to read
	// backwards in right-to-left text.
	p.goTo("#/history")
	p.waitIdle()
	if date := p.text(`#history [data-game-id] .date`); date == "" || regexp.MustCompile(`[A-Za-z]`).MatchString(date) {
		t.Errorf("in Urdu the games list dates the game %q", date)
	}
	p.screenshot("history-urdu-desktop.png")

	p.setLanguage("en")
	if dir := p.attr("html", "dir"); dir != "ltr" {
		t.Errorf("back in English: html dir=%q, want ltr", dir)
	}
	if got := p.navText("play"); got != english {
		t.Errorf("back in English the navigation says %q, want %q", got, english)
	}
}

// value is the value of a form field.
func (p *page) value(css string) string {
	p.t.Helper()
	return evalf[string](p, `document.querySelector(%q)?.value ?? ""`, css)
}

// untranslatedJS lists what the user can see or hear that is a raw catalog
// key ("nav.play"), and the translatable elements (data-i18n) that are
// shown empty. Text in code, kbd and pre is notation, not prose.
const untranslatedJS = `(() => {
	const key = /^[a-z]+(\.[a-zA-Z0-9]+)+$/;
	const shown = el => !!el && !el.closest("[hidden]") && el.getClientRects().length > 0 &&
		getComputedStyle(el).visibility !== "hidden";
	const where = el => el.id ? "#" + el.id : el.tagName.toLowerCase() + (el.className ? "." + String(el.className).split(" ")[0] : "");
	const found = [];
	const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	for (let n = walker.nextNode(); n; n = walker.nextNode()) {
		const text = n.nodeValue.trim();
		const el = n.parentElement;
		if (!text || !el || el.closest("script, style, code, kbd, pre, textarea")) continue;
		if (key.test(text) && shown(el)) found.push("text " + JSON.stringify(text) + " in " + where(el));
	}
	for (const el of document.querySelectorAll("[aria-label], [title], [placeholder], [alt]")) {
		if (el.closest("[hidden]")) continue;
		for (const a of ["aria-label", "title", "placeholder", "alt"]) {
			const v = (el.getAttribute(a) ?? "").trim();
			if (key.test(v)) found.push(a + " " + JSON.stringify(v) + " of " + where(el));
		}
	}
	if (document.title && key.test(document.title.trim())) found.push("the title " + JSON.stringify(document.title));
	for (const el of document.querySelectorAll("[data-i18n]")) {
		if (shown(el) && el.textContent.trim() === "") found.push("empty " + where(el) + " (data-i18n=" + el.dataset.i18n + ")");
	}
	return found;
})()`

// TestNoConsoleErrorsOnEveryPage visits every screen in every language,
// through the navigation links: no console error, and no catalog key or
// empty translatable text on show.
func TestNoConsoleErrorsOnEveryPage(t *testing.T) {
	a := startApp(t)
	// Some games, so that the history lists rows.
	var g gameView
	a.api("POST", "/api/games", `{"holes": 6, "seeds": 4, "south": "Naserian", "north": "Lemayian"}`, http.StatusCreated, &g)
	a.api("POST", "/api/games/"+g.ID+"/moves", `{"move": "c"}`, http.StatusOK, nil)
	a.api("POST", "/api/games", `{"holes": 8, "computer": {"side": "n", "level": 1}}`, http.StatusCreated, nil)
	a.api("POST", "/api/games", `{"holes": 7, "seeds": 3, "variant": "cross", "series": 3}`, http.StatusCreated, nil)

	p := openPage(t, a, desktop)
	p.open("#/play")
	p.setSpeed("instant")
	problems := map[string][]string{} // by language and route
	nav := func() string {
		var s []string
		for _, r := range routes {
			s = append(s, p.navText(r))
		}
		return strings.Join(s, " | ")
	}
	english := nav()
	for _, lang := range languages {
		p.setLanguage(lang)
		if got := nav(); lang != "en" && got == english {
			t.Errorf("in %s the navigation is still in English: %s", lang, got)
		}
		for _, route := range routes {
			p.click(fmt.Sprintf(`nav a[href="#/%s"]`, route))
			p.waitFor("the route #/"+route, fmt.Sprintf(`location.hash.startsWith("#/%s")`, route))
			p.waitIdle()
			if got := p.attr("html", "lang"); got != lang {
				t.Errorf("on #/%s the page's lang is %q, want %q", route, got, lang)
			}
			if route == "history" && p.count("#history [data-game-id]") < 3 {
				t.Errorf("in %s the history lists %d games, want the 3 made", lang, p.count("#history [data-game-id]"))
			}
			if lang == "en" && (route == "history" || route == "rules") {
				p.screenshot(route + "-desktop.png")
			}
			if found := eval[[]string](p, untranslatedJS); len(found) > 0 {
				problems[lang+" #/"+route] = found
			}
		}
	}
	for where, found := range problems {
		t.Errorf("%s shows untranslated text:\n\t%s", where, strings.Join(found, "\n\t"))
	}
}

// TestBrowserLanguageIsTheDefault: a browser that prefers a language the
// page has (after one it has not) opens the page in it; without a
// supported one the page is in English.
func TestBrowserLanguageIsTheDefault(t *testing.T) {
	a := startApp(t)
	for _, tc := range []struct{ accept, want string }{
		{"de-DE,sw-TZ;q=0.9,en;q=0.8", "sw"},
		{"cs", "cs"},
		{"de,fr", "en"},
	} {
		p := openPage(t, a, desktop)
		ua := eval[string](p, `navigator.userAgent`)
		if _, err := chromedp.Call(p.ctx, emulation.SetUserAgentOverride, emulation.SetUserAgentOverrideParams{UserAgent: ua, AcceptLanguage: tc.accept}); err != nil {
			t.Fatal(err)
		}
		p.open("#/rules")
		if got := p.attr("html", "lang"); got != tc.want {
			t.Errorf("browser languages %q: the page is in %q, want %q", tc.accept, got, tc.want)
		}
		if got := p.value("#lang"); got != tc.want {
			t.Errorf("browser languages %q: the picker shows %q, want %q", tc.accept, got, tc.want)
		}
	}
}
