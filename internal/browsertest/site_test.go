package browsertest

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// shownText is the text of the first element matching css as it is
// shown: without what is hidden.
func (p *page) shownText(css string) string {
	p.t.Helper()
	return evalf[string](p, `document.querySelector(%q)?.innerText ?? ""`, css)
}

// siteNote is what the static site says on a screen that needs a server.
const siteNote = "need an En Dodoi server"

// TestStaticSiteNeedsServer: on the static site, a direct link to a screen
// that needs a server (the lobby, a challenge, a leaderboard, a profile, an
// invitation) shows a plain explanation, and asks nothing of a server; what
// needs one elsewhere (a series, the games being played now, an import,
// the databases' news, a game of the server's, a record to analyse) is
// hidden or says so, on a desktop and on a phone.
func TestStaticSiteNeedsServer(t *testing.T) {
	site, apiCalls := serveSite(t)
	for _, v := range []viewport{desktop, phone} {
		p := openPage(t, nil, v)
		open := func(hash string) {
			t.Helper()
			// A link followed from elsewhere: the page loads afresh.
			p.do("leaving the site", chromedp.Navigate("about:blank"))
			p.do("opening "+hash, chromedp.Navigate(site+"/"+hash))
			p.waitIdle()
		}
		name := "desktop"
		if v.phone {
			name = "phone"
		}
		for _, hash := range []string{"#/lobby", "#/lobby/challenge/Amina", "#/leaderboard", "#/leaderboard/8-blitz", "#/profile/Amina", "#/join/0123456789abcdef"} {
			open(hash)
			p.waitFor("the explanation of "+hash, `!!document.getElementById("view-noserver") && !document.getElementById("view-noserver").hidden`)
			if got := p.text("#view-noserver"); !strings.Contains(got, siteNote) || !strings.Contains(got, "Not on this site") {
				t.Errorf("%s %s: the page says %q", name, hash, got)
			}
			for _, other := range []string{"#view-lobby", "#view-leaderboard", "#view-profile", "#view-join", "#view-play"} {
				if p.visible(other) {
					t.Errorf("%s %s: %s is shown beside the explanation", name, hash, other)
				}
			}
			if p.visible("#message") {
				t.Errorf("%s %s: the message %q", name, hash, p.text("#message"))
			}
			if hash == "#/lobby" {
				p.screenshot("static-site-lobby-" + name + ".png")
			}
			// Its way out: the games that play here.
			if !p.visible(`#view-noserver a[href="#/play"]`) {
				t.Errorf("%s %s: no way to the games that play here", name, hash)
			}
		}
		// The explanation goes with the screen.
		p.click(`#view-noserver a[href="#/play"]`)
		p.waitIdle()
		if p.visible("#view-noserver") || !p.visible("#view-play") {
			t.Errorf("%s: after Play the explanation stays", name)
		}

		// A game of a server's: said plainly.
		open("#/play/0123456789abcdef")
		if got := p.text("#message"); !strings.Contains(got, "does not have") {
			t.Errorf("%s: a server's game on the static site says %q", name, got)
		}

		// A series is not offered, even when it was the last choice.
		eval[bool](p, `localStorage.setItem("endodoi.newgame", JSON.stringify({"ng-mode": "series", "ng-opponent": "computer"})) || true`)
		open("")
		p.newGameDialog("computer")
		if p.visible("#ng-mode") || p.visible("#ng-target") {
			t.Errorf("%s: the static site offers a series", name)
		}
		p.screenshot("static-site-new-game-" + name + ".png")
		p.click("#ng-cancel")

		// The games list: neither the games being played online nor an import.
		open("#/history")
		for _, css := range []string{"#live-list", "#live-empty", "#import-text", "#import-go"} {
			if p.visible(css) {
				t.Errorf("%s: the games list shows %s, which needs a server", name, css)
			}
		}
		if strings.Contains(p.shownText("#view-history"), "being played now") {
			t.Errorf("%s: the games list speaks of the games being played online", name)
		}
		p.screenshot("static-site-history-" + name + ".png")

		// About: no news of the server's databases.
		open("#/about")
		if p.visible("#about-tablebases") || strings.Contains(p.shownText("#view-about"), "What is proven") {
			t.Errorf("%s: About speaks of the server's databases", name)
		}

		// A record to analyse needs the server's reader: said so.
		open("#/analysis")
		p.setField("#an-input", "[Holes \"6\"]\n[Seeds \"4\"]\n\n1. c *\n")
		p.click("#an-load")
		p.waitIdle()
		if got := p.text("#message"); !strings.Contains(got, "does not have") {
			t.Errorf("%s: loading a record on the static site says %q", name, got)
		}
	}
	for _, c := range apiCalls() {
		t.Errorf("the static site asked %s of a server", c)
	}
}
