package browsertest

// The first screens a newcomer sees: the ways to play, the menu on a
// phone, and the game screen's buttons during an online game.

import (
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// TestPhoneMenuEvenLines: on a 360-pixel phone the menu is in sight in
// every language, its lines even: no item left alone on a second line.
func TestPhoneMenuEvenLines(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, phone)
	p.open("#/rules")
	for _, lang := range languages {
		p.setLanguage(lang)
		links := eval[[]struct {
			Route string  `json:"route"`
			Top   float64 `json:"top"`
			Left  float64 `json:"left"`
			Right float64 `json:"right"`
			Clip  bool    `json:"clip"`
		}](p, `[...document.querySelectorAll(".site-nav a")].map(a => { const r = a.getBoundingClientRect();
			return {route: a.dataset.route, top: r.top, left: r.left, right: r.right, clip: a.scrollWidth > a.clientWidth}; })`)
		if len(links) != 7 {
			t.Fatalf("%s: the menu has %d items", lang, len(links))
		}
		lines := map[float64][]string{}
		for _, l := range links {
			lines[l.Top] = append(lines[l.Top], l.Route)
			if l.Left < 0 || l.Right > float64(phone.width) {
				t.Errorf("%s: the menu item %s spans %.0f..%.0f on a %d px screen", lang, l.Route, l.Left, l.Right, phone.width)
			}
			if l.Clip {
				t.Errorf("%s: the menu item %s (%q) is cut short", lang, l.Route, p.navText(l.Route))
			}
		}
		// Seven items cannot share lines equally: no line may be more than one item shorter than another.
		var desc []string
		for top, routes := range lines {
			desc = append(desc, fmt.Sprintf("at %.0f: %s", top, strings.Join(routes, " ")))
			if n := len(links) / len(lines); len(routes) < n || len(routes) > n+1 {
				t.Errorf("%s: the menu's lines are uneven: %d items on one of %d lines", lang, len(routes), len(lines))
			}
		}
		t.Logf("%s: %s", lang, strings.Join(desc, "; "))
	}
	p.setLanguage("en")
	p.screenshot("menu-phone.png")
}

// shownPosition is the position the game screen shows at the end of g:
// after a sweep (no legal move) the seeds left on the board are in the
// last mover's pile, and their holes empty.
func shownPosition(t *testing.T, g gameView) string {
	t.Helper()
	if g.Status != "no-legal-move" {
		return g.Position
	}
	pos := parsePosition(t, g.Position)
	empty := make([]int, len(pos.South))
	return fmt.Sprintf("%s %s %d %d", formatRows(empty, empty), pos.ToMove, pos.Captured.South, pos.Captured.North)
}

// TestSweptSeedsLeaveTheirHoles: when a side has no legal move, the seeds
// left go to the last mover's pile, and the holes they left show empty,
// at every speed and after a reload.
func TestSweptSeedsLeaveTheirHoles(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	for _, speed := range []string{"normal", "instant"} {
		id := a.createGame(`{"position": "1,0/0,0 s 5 4"}`)
		p.open("#/play/" + id)
		p.setSpeed(speed)
		p.play("a")
		g := a.game(id)
		if g.Status != "no-legal-move" || g.Score.South != 6 {
			t.Fatalf("the game is %s, score %+v; want no-legal-move, South 6 with the seed swept", g.Status, g.Score)
		}
		for _, when := range []string{"at the end", "after a reload"} {
			if got := p.boardRows(); got != "0,0/0,0" {
				t.Errorf("%s, %s: the board shows %s, want every hole empty: the seed left is in South's pile", speed, when, got)
			}
			if got := p.attr("#pile-south", "data-count"); got != "6" {
				t.Errorf("%s, %s: South's pile holds %s, want 6", speed, when, got)
			}
			if n := p.count("#board .pit .seed"); n != 0 {
				t.Errorf("%s, %s: %d seeds are drawn in the holes", speed, when, n)
			}
			p.reload()
		}
	}
}

// TestFirstVisitOffersTheWaysToPlay: a first-time visitor sees the three
// ways to play, on screen at once and before any setting: the computer, a
// friend on this device, a friend online. Each opens the new-game dialog
// set for it.
func TestFirstVisitOffersTheWaysToPlay(t *testing.T) {
	for _, sc := range []struct {
		name string
		v    viewport
		lang string
	}{{"desktop", desktop, "en"}, {"phone", phone, "en"}, {"phone-ur", phone, "ur"}} {
		t.Run(sc.name, func(t *testing.T) {
			// A server of its own: the page resumes any game in progress it lists.
			a := startApp(t)
			p := openPage(t, a, sc.v)
			p.open("")
			if sc.lang != "en" {
				p.setLanguage(sc.lang)
			}
			if eval[bool](p, `document.querySelector("#new-game-dialog").open`) {
				t.Fatal("a first visit opens the new-game dialog at once")
			}
			if !p.visible("#start-choice") {
				t.Fatal("a first visit shows no choice of how to play (#start-choice)")
			}
			if p.visible("#table") {
				t.Error("the empty board is shown beside the ways to play")
			}
			for _, opp := range []string{"computer", "friend", "online"} {
				css := fmt.Sprintf(`#start-choice [data-opponent=%q]`, opp)
				if !p.visible(css) || p.text(css) == "" {
					t.Fatalf("the way to play %q is not offered", opp)
				}
				// In view without scrolling: the first thing a newcomer sees.
				if r := p.rectOf(css); r.Top < 0 || r.Bottom > float64(sc.v.height) || r.Left < 0 || r.Right > float64(sc.v.width) {
					t.Errorf("the way to play %q is at x %.0f..%.0f, y %.0f..%.0f: off the %dx%d screen",
						opp, r.Left, r.Right, r.Top, r.Bottom, sc.v.width, sc.v.height)
				}
			}
			p.noSideways("the ways to play", sc.v)
			p.screenshot("first-visit-" + sc.name + ".png")

			// Online: the dialog asks the online settings.
			p.click(`#start-choice [data-opponent="online"]`)
			p.waitFor("the new-game dialog", `document.querySelector("#new-game-dialog").open`)
			if got := p.value("#ng-opponent"); got != "online" {
				t.Errorf("choosing to play a friend online opens the dialog set for %q", got)
			}
			for _, css := range []string{"#ng-clock", "#ng-name"} {
				if !p.visible(css) {
					t.Errorf("choosing to play a friend online does not ask %s", css)
				}
			}
			p.screenshot("first-visit-online-" + sc.name + ".png")
			p.click("#ng-cancel")
			p.waitFor("the dialog to close", `!document.querySelector("#new-game-dialog").open`)
			if !p.visible("#start-choice") {
				t.Error("after a cancelled dialog the ways to play are gone")
			}

			// The computer: the dialog asks its level; the game starts.
			p.click(`#start-choice [data-opponent="computer"]`)
			p.waitFor("the new-game dialog", `document.querySelector("#new-game-dialog").open`)
			if got := p.value("#ng-opponent"); got != "computer" || !p.visible("#ng-level") {
				t.Errorf("choosing the computer opens the dialog set for %q (level shown: %v)", got, p.visible("#ng-level"))
			}
			p.click("#ng-start")
			p.waitFor("the new game", `/^#\/play\/[^\/]+$/.test(location.hash) && !document.querySelector("#new-game-dialog").open`)
			p.waitIdle()
			if p.visible("#start-choice") || !p.visible("#table") {
				t.Error("with a game shown, the ways to play stay or the board is hidden")
			}
		})
	}
}

// TestNewGameStepsBackDuringOnlineGame: while an online game is being
// played, New game is a plain button, not the red one that calls for a
// click; once the game is over it is the main action again.
func TestNewGameStepsBackDuringOnlineGame(t *testing.T) {
	a := startApp(t)
	id, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 6, "seeds": 3, "name": "Naserian"}`, true)
	for _, v := range []viewport{desktop, phone} {
		p := openPage(t, a, v)
		p.takeSeat(id, "s", tokens["s"])
		p.waitFor("the seat", `document.querySelector("#live-state").textContent.includes("You play")`)
		const accent = "rgb(155, 44, 26)"
		bg := func() string {
			return eval[string](p, `getComputedStyle(document.querySelector("#new-game")).backgroundColor`)
		}
		if got := bg(); got == accent {
			t.Errorf("%dpx: during the online game New game is red (%s), as prominent as the game's own actions", v.width, got)
		}
		if v.width == phone.width {
			p.screenshot("online-game-phone.png")
		}
	}
	if code := a.seatAPI("POST", "/api/games/"+id+"/actions", tokens["s"], `{"action": "abort", "ply": 0}`); code != 200 {
		t.Fatalf("aborting the game: status %d", code)
	}
	p := openPage(t, a, desktop)
	p.takeSeat(id, "s", tokens["s"])
	p.waitFor("the end", `!document.querySelector("#result").hidden`)
	if got := eval[string](p, `getComputedStyle(document.querySelector("#new-game")).backgroundColor`); got != "rgb(155, 44, 26)" {
		t.Errorf("after the online game New game is %s, want the red of the main action", got)
	}
}

// TestListsSayHowGamesEnded: an aborted game reads as aborted in the games
// lists and on its screen, with nothing to continue; a finished game's
// result names the winner and says how the game ended.
func TestListsSayHowGamesEnded(t *testing.T) {
	a := startApp(t)
	aborted, abortTokens, _ := a.apiOnlineGame(`{"online": true, "holes": 6, "seeds": 3, "side": "s", "name": "Naserian"}`, true)
	if code := a.seatAPI("POST", "/api/games/"+aborted+"/actions", abortTokens["s"], `{"action": "abort", "ply": 0}`); code != 200 {
		t.Fatalf("aborting: status %d", code)
	}
	resigned, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 6, "seeds": 3, "side": "s", "name": "Naserian"}`, true)
	a.apiMove(resigned, tokens)
	a.apiMove(resigned, tokens)
	if code := a.seatAPI("POST", "/api/games/"+resigned+"/actions", tokens["s"], `{"action": "resign", "ply": 2}`); code != 200 {
		t.Fatalf("resigning: status %d", code)
	}
	r := a.game(resigned)
	swept := a.createGame(`{"position": "1,0/0,0 s 5 4", "south": "Lemayian", "north": "Sironka"}`)
	a.api("POST", "/api/games/"+swept+"/moves", `{"move": "a", "ply": 0}`, 200, nil)
	computer := a.createGame(`{"holes": 6, "computer": {"side": "n", "level": 2}}`)
	a.api("POST", "/api/games/"+computer+"/actions", `{"action": "resign", "ply": 0}`, 200, nil)

	p := openPage(t, a, desktop)
	p.open("")
	evalf[chromedp.Void](p, `localStorage.setItem("endodoi.seats", JSON.stringify({[%q]: {side: "s", token: %q}, [%q]: {side: "s", token: %q}}))`,
		aborted, abortTokens["s"], resigned, tokens["s"])
	p.open("#/history")
	row := func(id string) string { return fmt.Sprintf(`#history tr[data-game-id=%q]`, id) }
	item := func(id string) string { return fmt.Sprintf(`#my-online-list li[data-game-id=%q]`, id) }
	for _, c := range []struct{ css, want string }{
		{row(aborted) + " .result-cell", "Aborted, no result"},
		{row(aborted) + " .actions a", "View"},
		{item(aborted) + " .muted", "Aborted, no result"},
		{item(aborted) + " a", "View"},
		{row(resigned) + " .result-cell", fmt.Sprintf("Sironka won, %d to %d (by resignation)", r.Score.North, r.Score.South)},
		{item(resigned), fmt.Sprintf("Finished: Sironka won, %d to %d (by resignation)", r.Score.North, r.Score.South)},
		{row(swept) + " .result-cell", "Lemayian won, 6 to 4 (no legal move left)"},
		{row(computer) + " .result-cell", "Computer (level 2) won, 0 to 0 (by resignation)"},
	} {
		if got := p.text(c.css); !strings.Contains(got, c.want) {
			t.Errorf("%s says %q, want %q", c.css, got, c.want)
		}
	}
	if got := p.text(row(aborted) + " .actions"); strings.Contains(got, "Continue") || strings.Contains(got, "Review") {
		t.Errorf("the aborted game's actions are %q: nothing to continue or review", got)
	}
	p.screenshot("games-list-ended.png")

	// Its screen says it was aborted, and the play screen does not resume it.
	p.click(row(aborted) + " .actions a")
	p.waitFor("the aborted game", fmt.Sprintf(`location.hash === "#/play/%s"`, aborted))
	p.waitIdle()
	// Said once, in the result: the status line does not repeat it.
	if got := p.text("#status"); got != "Game over" {
		t.Errorf("the aborted game's status reads %q, want %q", got, "Game over")
	}
	if got := p.text("#result"); !strings.Contains(got, "Game aborted") {
		t.Errorf("the aborted game's result reads %q", got)
	}
	p.open("#/play")
	if h := p.hash(); h != "#/play" || !p.visible("#start-choice") {
		t.Errorf("with only finished and aborted games the play screen went to %s (ways to play shown: %v)", h, p.visible("#start-choice"))
	}
}
