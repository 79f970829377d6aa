package browsertest

// Bengali and Urdu text drawn by the fonts the page ships: a machine
// without a system font for the script would otherwise show boxes. The
// DevTools protocol says which font drew each text node's glyphs, so the
// check holds on a machine that has system Noto fonts too.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/css"
	"github.com/chromedp/cdproto/dom"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// probeTextJS gathers the shown text nodes under the elements matching a
// selector into window.fontProbe and describes each: where it is, its
// text, how many of its characters are of the Bengali or Arabic script and
// how many are not (a run of white space counting as one).
const probeTextJS = `((sel) => {
	const shown = %s;
	const script = /[\u0980-\u09ff\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufeff]/u;
	const nodes = [];
	for (const root of document.querySelectorAll(sel)) {
		const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
		for (let n = walk.nextNode(); n; n = walk.nextNode()) {
			const parent = n.parentElement;
			// Text hidden but for screen readers (.visually-hidden) is not drawn to be read.
			if (!n.nodeValue.trim() || !parent || parent.closest("script, style, option, select, svg, .visually-hidden") || !shown(parent)) continue;
			if (!nodes.includes(n)) nodes.push(n);
		}
	}
	window.fontProbe = nodes;
	return nodes.map((n) => {
		const p = n.parentElement;
		let inScript = 0, other = 0;
		// A space is a glyph too, of whichever font comes after the
		// shipped one, whose range leaves spaces out.
		for (const c of n.nodeValue.replace(/\s+/g, " ")) {
			if (script.test(c)) inScript++;
			else other++;
		}
		const where = p.tagName.toLowerCase() + (p.id ? "#" + p.id : "") + (p.className && typeof p.className === "string" ? "." + p.className.trim().split(/\s+/).join(".") : "");
		return {where, text: n.nodeValue.trim().slice(0, 60), script: inScript, other};
	});
})(%q)`

// probedText is one text node of probeTextJS.
type probedText struct {
	Where  string `json:"where"`
	Text   string `json:"text"`
	Script int    `json:"script"` // characters of the Bengali or Arabic script
	Other  int    `json:"other"`  // other characters, a run of white space as one
}

// checkScriptFonts fails the test for every shown text node under sel
// (a CSS selector) whose Bengali or Urdu characters were drawn by a font
// other than the page's own web fonts: a system font, present here, that
// another machine may lack. It returns the number of text nodes with such
// characters that it checked.
func (p *page) checkScriptFonts(what, sel string) int {
	p.t.Helper()
	// The web fonts load when text needs them; then the page is laid out again.
	eval[chromedp.Void](p, `document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))`)
	texts := evalf[[]probedText](p, probeTextJS, visibleJS, sel)
	defer eval[chromedp.Void](p, `delete window.fontProbe`)
	checked := 0
	for i, tx := range texts {
		if tx.Script == 0 {
			continue
		}
		obj := run(p, "finding a text node", chromedp.Evaluate[*runtime.RemoteObject](fmt.Sprintf(`window.fontProbe[%d]`, i)))
		node, err := chromedp.Call(p.ctx, dom.RequestNode, dom.RequestNodeParams{ObjectID: obj.ObjectID})
		chromedp.Call(p.ctx, runtime.ReleaseObject, runtime.ReleaseObjectParams{ObjectID: obj.ObjectID})
		if err != nil {
			p.t.Fatalf("%s: the node of %s %q: %v", what, tx.Where, tx.Text, err)
		}
		fonts, err := chromedp.Call(p.ctx, css.GetPlatformFontsForNode, css.GetPlatformFontsForNodeParams{NodeID: node.NodeID})
		if err != nil {
			p.t.Fatalf("%s: the fonts of %s %q: %v", what, tx.Where, tx.Text, err)
		}
		var own, system float64
		var used []string
		for _, f := range fonts.Fonts {
			if f.IsCustomFont {
				own += f.GlyphCount
			} else {
				system += f.GlyphCount
			}
			used = append(used, fmt.Sprintf("%s (custom %v, %v glyphs)", f.FamilyName, f.IsCustomFont, f.GlyphCount))
		}
		checked++
		// Latin letters, digits and punctuation may come from a system
		// font; no glyph of the script may.
		if own == 0 || system > float64(tx.Other) {
			p.t.Errorf("%s: %s %q (%d characters of the script, %d others) is drawn with %s: its script needs the shipped font",
				what, tx.Where, tx.Text, tx.Script, tx.Other, strings.Join(used, ", "))
		}
	}
	return checked
}

// playUntilCaptures plays the first legal move at each turn through the
// API until both sides have captured, and returns the game.
func (a *app) playUntilCaptures(id string) gameView {
	a.t.Helper()
	g := a.game(id)
	for ply := 0; !g.over() && (g.Score.South == 0 || g.Score.North == 0 || ply < 6); ply++ {
		if ply == 200 {
			a.t.Fatalf("no capture of each side after %d moves: %v", ply, g.Moves)
		}
		move := g.LegalMoves[ply%len(g.LegalMoves)]
		a.api("POST", "/api/games/"+id+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, move, ply), 200, nil)
		g = a.game(id)
	}
	return g
}

// TestScriptTextUsesShippedFonts: in Bengali and in Urdu every shown text
// of the game screen (names, piles, the move list's rounds, the seeds in
// the hand during a sowing), of the games list and of the other screens
// is drawn with the page's own fonts.
func TestScriptTextUsesShippedFonts(t *testing.T) {
	a := startApp(t)
	finished := a.createGame(`{"position": "1,0/0,0 s 5 4"}`)
	a.api("POST", "/api/games/"+finished+"/moves", `{"move": "a", "ply": 0}`, 200, nil)
	id := a.createGame(`{"holes": 8}`)
	g := a.playUntilCaptures(id)
	if g.over() {
		t.Fatalf("the game ended before both sides captured: %v", g.Moves)
	}
	p := openPage(t, a, desktop)
	p.open("#/play/" + id)
	for _, lang := range []string{"bn", "ur"} {
		p.setLanguage(lang)
		p.open("#/play/" + id)
		if n := p.checkScriptFonts(lang+", the game", "body"); n < 10 {
			t.Errorf("%s: only %d texts of the game screen are in the script", lang, n)
		}

		// The seeds in the hand, during a slow sowing.
		p.setSpeed("slow")
		p.click(holeCSS(p.legal("")[0]))
		p.waitFor("the hand", `document.querySelector("#table .hand:not([hidden])") !== null`)
		if n := p.checkScriptFonts(lang+", the hand", "#table .hand, #lap-info"); n == 0 && lang == "bn" {
			t.Errorf("%s: the hand and the lap count show no digit of the script", lang)
		}
		p.click("#skip")
		p.waitIdle()
		id = p.gameID()

		p.open("#/history")
		if n := p.checkScriptFonts(lang+", the games list", "body"); n < 10 {
			t.Errorf("%s: only %d texts of the games list are in the script", lang, n)
		}

		// The other screens, the analysis board with the game loaded.
		for _, route := range []string{"#/analysis/" + id + "/3", "#/learn", "#/rules", "#/about", "#/play"} {
			p.open(route)
			if n := p.checkScriptFonts(lang+", "+route, "body"); n < 5 {
				t.Errorf("%s: only %d texts of %s are in the script", lang, n, route)
			}
		}
	}
}
