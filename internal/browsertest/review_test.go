package browsertest

// The review of a finished game: started from the game screen or from the
// list of games, its progress, the grades in the move list, the evaluation
// graph and the best line at a blunder.

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// reviewStart is a 4-hole position in which South's a captures and b
// throws the game away (proven: +9 against -5 for South); reviewMoves play
// b and then on to the end of the game.
const reviewStart = "1,2,0,3/2,0,0,1 s 0 0"

var reviewMoves = []string{"b", "A", "c", "B", "d", "A"}

// TestReview finishes a short game by clicking its holes, reviews it from
// the game screen and reads the grades in the move list, the players'
// accuracy and the graph; a click on the graph shows that move, and the
// blunder's best line is shown from the position before it. On a desktop
// and a phone, in English and in Urdu.
func TestReview(t *testing.T) {
	a := startApp(t)
	for _, c := range []struct {
		name string
		vp   viewport
		lang string
	}{
		{"desktop-en", desktop, "en"},
		{"phone-en", phone, "en"},
		{"desktop-ur", desktop, "ur"},
		{"phone-ur", phone, "ur"},
	} {
		t.Run(c.name, func(t *testing.T) {
			id := a.createGame(`{"position": "` + reviewStart + `", "south": "Naserian", "north": "Sironka"}`)
			p := openPage(t, a, c.vp)
			p.open("#/play/" + id)
			p.setSpeed("instant")
			if c.lang != "en" {
				p.setLanguage(c.lang)
			}
			if p.visible("#review") {
				t.Fatal("the review panel shows before the game is over")
			}
			for _, m := range reviewMoves {
				p.play(m)
			}
			if !p.gameOver() {
				t.Fatalf("the game is not over after %v", reviewMoves)
			}

			// Review it: a progress bar while the engine works, then the grades.
			p.click(`#review-body button[data-rv="start"]`)
			p.waitFor("the grades in the move list", fmt.Sprintf(`document.querySelectorAll("#moves button[data-grade]").length === %d`, len(reviewMoves)))
			p.waitIdle()
			first := `#moves button[data-ply="1"]`
			if g := p.attr(first, "data-grade"); g != "blunder" {
				t.Errorf("the blunder b is graded %q", g)
			}
			if mark := p.text(first + " .rv-mark"); mark != "??" {
				t.Errorf("the blunder is marked %q, want ??", mark)
			}
			if label, want := p.attr(first, "aria-label"), a.catalogText(c.lang, "review.label.blunder"); !strings.Contains(label, want) {
				t.Errorf("the blunder's label %q does not say %q", label, want)
			}
			if n := p.count("#review .review-players li"); n != 2 {
				t.Errorf("%d players' accuracies shown", n)
			}
			if acc := p.text(`#review .review-players li[data-side="s"]`); !strings.Contains(acc, "Naserian") {
				t.Errorf("South's accuracy reads %q", acc)
			}
			if role := p.attr("#review-graph", "role"); role != "img" || p.text("#review-summary") == "" {
				t.Errorf("the graph has role %q and summary %q", role, p.text("#review-summary"))
			}
			p.noSidewaysScroll("the review shown")
			p.screenshot("review-" + c.name + ".png")

			// The graph jumps to the move clicked.
			p.click(`#review-graph circle[data-ply="1"]`)
			p.waitIdle()
			if got := p.currentPly(); got != 1 {
				t.Errorf("after a click on the blunder in the graph the move list shows ply %d", got)
			}
			p.click(`#review-graph`)
			p.waitIdle()
			if got := p.currentPly(); got < 2 || got > 5 {
				t.Errorf("after a click in the middle of the graph the move list shows ply %d", got)
			}

			// The blunder's best line, from the position before it.
			p.click(`#review .review-mistakes li[data-ply="1"] button`)
			p.waitIdle()
			if !p.visible("#review-line-1") {
				t.Fatal("the best line is not shown")
			}
			if line := p.text(`#review-line-1 .review-pv button[data-step="0"]`); !strings.HasPrefix(line, "a") {
				t.Errorf("the best line reads %q, want it to start with a", line)
			}
			if exp := p.attr(`#review .review-mistakes li[data-ply="1"] button`, "aria-expanded"); exp != "true" {
				t.Errorf("the button's aria-expanded is %q", exp)
			}
			p.checkBoard("the position before the blunder", reviewStart)
			p.noSidewaysScroll("the best line shown")
			p.screenshot("review-line-" + c.name + ".png")
		})
	}
}

// TestReviewFromGamesList starts a review from the list of games: the game
// opens with its review under way, a progress bar counts the moves graded,
// and then the grades appear. A game in progress offers no review.
func TestReviewFromGamesList(t *testing.T) {
	a := startApp(t)
	// A 6-hole game played to its end: long enough for the progress to show.
	var g gameView
	a.api("POST", "/api/games", `{"holes": 6, "south": "Naserian", "north": "Sironka"}`, 201, &g)
	for !g.over() {
		var r struct {
			Game gameView `json:"game"`
		}
		a.api("POST", "/api/games/"+g.ID+"/moves", `{"move": "`+g.LegalMoves[len(g.LegalMoves)/2]+`"}`, 200, &r)
		g = r.Game
	}
	open := a.createGame(`{"holes": 6}`)
	p := openPage(t, a, phone)
	p.open("#/history")
	if p.exists(fmt.Sprintf(`#history [data-game-id="%s"] a[data-review]`, open)) {
		t.Error("a game in progress offers a review")
	}
	p.click(fmt.Sprintf(`#history [data-game-id="%s"] a[data-review]`, g.ID))
	p.waitFor("the game", fmt.Sprintf(`location.hash === "#/play/%s"`, g.ID))
	p.waitFor("the review's progress bar", `(() => {
		const bar = document.querySelector("#review-progress");
		return bar && bar.max > 0 && bar.value > 0;
	})()`)
	p.noSidewaysScroll("the review under way")
	p.screenshot("review-progress-phone.png")
	// A whole game's review, searched move by move, takes minutes under
	// the race detector on a busy machine.
	p.poll("the grades in the move list", fmt.Sprintf(`document.querySelectorAll("#moves button[data-grade]").length === %d`, len(g.Moves)), 1, 5*time.Minute, busyJS)
	p.waitIdle()
	if !p.visible("#review-graph") || p.exists("#review-progress") {
		t.Error("the finished review shows no graph, or still a progress bar")
	}
}

// reviewedGame makes a finished game on the traditional 6-hole board and
// returns it: South's e, North's A and South's a are blunders that the
// opening book proves at once, and the game goes on a few moves before
// North resigns, so that its review is quick to make.
func reviewedGame(a *app) gameView {
	a.t.Helper()
	var g gameView
	a.api("POST", "/api/games", `{"holes": 6, "seeds": 4, "south": "Naserian", "north": "Sironka"}`, 201, &g)
	for _, m := range []string{"e", "A", "a", "", "", "", "", ""} {
		if m == "" {
			m = g.LegalMoves[len(g.LegalMoves)/2]
		}
		var r struct {
			Game gameView `json:"game"`
		}
		a.api("POST", "/api/games/"+g.ID+"/moves", `{"move": "`+m+`"}`, 200, &r)
		g = r.Game
		if g.over() {
			a.t.Fatalf("the game ended after %v", g.Moves)
		}
	}
	a.api("POST", "/api/games/"+g.ID+"/actions", fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), 200, &g)
	return g
}

// inViewJS tells whether the whole of the first element matching a
// selector is inside the viewport (give or take a pixel's rounding).
const inViewJS = `((sel) => {
	const el = document.querySelector(sel);
	if (!el) return false;
	const r = el.getBoundingClientRect();
	return r.width > 0 && r.height > 0 && r.top >= -1 && r.left >= -1 &&
		r.bottom <= innerHeight + 1 && r.right <= innerWidth + 1;
})(%q)`

// inView reports whether the whole of the first element matching css is
// in the viewport.
func (p *page) inView(css string) bool {
	p.t.Helper()
	return evalf[bool](p, inViewJS, css)
}

// mustBeInView fails the test for each selector whose element is not
// wholly in the viewport.
func (p *page) mustBeInView(when string, css ...string) {
	p.t.Helper()
	for _, c := range css {
		if !p.inView(c) {
			rect := evalf[string](p, `JSON.stringify(document.querySelector(%q)?.getBoundingClientRect() ?? null) + " in " + innerWidth + "x" + innerHeight + ", scrolled " + scrollY`, c)
			p.t.Errorf("%s: %s is not wholly in view: %s", when, c, rect)
		}
	}
}

// TestReviewLayout reviews a finished game on a 1280×800 desktop and on a
// 360×740 phone. On the desktop the board, the graph and the graded move
// list are in view together without scrolling, and a click on the graph or
// on a move of a best line changes the board in view. The review names
// moves by round, as the move list numbers them; a best line goes on for
// several moves and steps through on the board. On the phone the board is
// in view whenever a move of the review is chosen.
func TestReviewLayout(t *testing.T) {
	a := startApp(t)
	g := reviewedGame(a)
	var review struct {
		Status string `json:"status"`
		Review struct {
			Plies []struct {
				Ply         int      `json:"ply"`
				PV          []string `json:"pv"`
				PVPositions []string `json:"pvPositions"`
			} `json:"plies"`
		} `json:"review"`
	}
	// Started here, so that both screens open a review made: 202 while it
	// runs, 200 if it is done already.
	resp, err := http.Post(a.URL()+"/api/games/"+g.ID+"/review", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		t.Fatalf("starting the review: %s", resp.Status)
	}
	for deadline := time.Now().Add(2 * time.Minute); review.Status != "done"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the review is not done in time: %q", review.Status)
		}
		a.api("GET", "/api/games/"+g.ID+"/review", "", 200, &review)
	}
	const blunder = 3 // South's a, the first move of round 2
	line := fmt.Sprintf(`#review .review-mistakes li[data-ply="%d"]`, blunder)

	t.Run("desktop", func(t *testing.T) {
		p := openPage(t, a, desktop)
		p.open("#/play/" + g.ID)
		p.waitFor("the grades in the move list", fmt.Sprintf(`document.querySelectorAll("#moves button[data-grade]").length === %d`, len(g.Moves)))
		p.waitIdle()

		// As a person comes to it: the top of the page, nothing scrolled.
		eval[chromedp.Void](p, `window.scrollTo(0, 0)`)
		p.mustBeInView("the review shown", "#board", "#review-graph", "#moves")
		p.noSidewaysScroll("the review shown")

		// The review names a move by its round, as the move list does.
		round := strings.TrimSuffix(p.text(fmt.Sprintf(`#moves li:has(button[data-ply="%d"]) .pair-no`, blunder)), ".")
		if round != "2" {
			t.Fatalf("the move list numbers ply %d as round %q, want 2", blunder, round)
		}
		if item := p.text(line + " > p"); !strings.HasPrefix(item, "Round 2, Naserian: a") {
			t.Errorf("the review names the move list's 2. a as %q", item)
		}
		if item := p.text(`#review .review-mistakes li[data-ply="2"] > p`); !strings.HasPrefix(item, "Round 1, Sironka: A") {
			t.Errorf("the review names the move list's 1. … A as %q", item)
		}

		// A click on the graph shows that move, on the board in view.
		p.click(fmt.Sprintf(`#review-graph circle[data-ply="%d"]`, blunder))
		p.waitIdle()
		if got := p.currentPly(); got != blunder {
			t.Errorf("after a click on the blunder in the graph the move list shows ply %d", got)
		}
		p.checkBoard("after a click on the graph", g.Positions[blunder])
		if v := p.text("#viewing-text"); v != "Viewing round 2, Naserian: a" {
			t.Errorf("the board is said to show %q", v)
		}
		p.mustBeInView("after a click on the graph", "#board", "#review-graph", "#moves")

		// The best line, shown from the position before the blunder, goes
		// on for several moves numbered as the move list numbers them, each
		// shown on the board in view.
		p.click(line + ` button[data-rv="line-3"]`)
		p.waitIdle()
		p.checkBoard("the position before the blunder", g.Positions[blunder-1])
		pv := review.Review.Plies[blunder-1]
		steps := p.count(line + " .review-pv button[data-step]")
		if steps < 4 || steps != len(pv.PV) || len(pv.PVPositions) != len(pv.PV) {
			t.Fatalf("the best line has %d moves shown, %d in the review (%v), %d positions; want 4 or more", steps, len(pv.PV), pv.PV, len(pv.PVPositions))
		}
		if no := p.text(line + " .review-pv .pair-no"); no != "2." {
			t.Errorf("the best line starts at %q, want round 2's first move, 2.", no)
		}
		for k := range min(steps, 3) {
			p.click(fmt.Sprintf(`%s .review-pv button[data-step="%d"]`, line, k))
			p.waitIdle()
			p.checkBoard(fmt.Sprintf("move %d of the best line", k+1), pv.PVPositions[k])
			p.mustBeInView(fmt.Sprintf("move %d of the best line", k+1), "#board", fmt.Sprintf(`%s .review-pv button[data-step="%d"]`, line, k))
			if cur := p.attr(fmt.Sprintf(`%s .review-pv button[data-step="%d"]`, line, k), "aria-current"); cur != "step" {
				t.Errorf("move %d of the best line is not marked as shown", k+1)
			}
		}
		if v := p.text("#viewing-text"); !strings.HasPrefix(v, "Best line instead of a: round 3,") {
			t.Errorf("the board is said to show %q", v)
		}
		// Forward and back step through the line.
		p.click(line + ` button[data-rv="forward-3"]`)
		p.waitIdle()
		p.checkBoard("forward in the best line", pv.PVPositions[3])
		p.click(line + ` button[data-rv="back-3"]`)
		p.waitIdle()
		p.checkBoard("back in the best line", pv.PVPositions[2])
		// In the line the arrow keys step through it.
		p.key(kb.ArrowRight)
		p.waitIdle()
		p.checkBoard("the right arrow in the best line", pv.PVPositions[3])
		p.key(kb.ArrowLeft)
		p.waitIdle()
		p.checkBoard("the left arrow in the best line", pv.PVPositions[2])
		p.mustBeInView("stepping through the best line", "#board", "#review-graph")
		p.noSidewaysScroll("the best line shown")
		p.screenshot("review-desktop.png")
		t.Run("accessibility", func(t *testing.T) {
			for _, v := range p.axeRun(axeSource(t)) {
				t.Errorf("the review with a best line shown: %s", v)
			}
		})
		// Back to the game leaves the line.
		p.click("#back-to-game")
		p.waitIdle()
		p.checkBoard("back to the game", g.Position)
	})

	t.Run("phone", func(t *testing.T) {
		p := openPage(t, a, phone)
		p.open("#/play/" + g.ID)
		p.waitFor("the review", `document.querySelector("#review-graph") !== null`)
		p.waitIdle()
		eval[chromedp.Void](p, `window.scrollTo(0, 0)`)
		p.mustBeInView("the review shown", "#board")
		p.noSidewaysScroll("the review shown")
		p.screenshot("review-phone.png")
		p.click(fmt.Sprintf(`#review-graph circle[data-ply="%d"]`, blunder))
		p.waitIdle()
		p.checkBoard("after a tap on the graph", g.Positions[blunder])
		p.mustBeInView("after a tap on the graph", "#board")
		p.click(line + ` button[data-rv="line-3"]`)
		p.waitIdle()
		p.checkBoard("the position before the blunder", g.Positions[blunder-1])
		p.mustBeInView("the best line shown", "#board")
		p.click(line + ` .review-pv button[data-step="1"]`)
		p.waitIdle()
		p.checkBoard("move 2 of the best line", review.Review.Plies[blunder-1].PVPositions[1])
		p.mustBeInView("move 2 of the best line", "#board", line+` .review-pv button[data-step="1"]`)
		p.noSidewaysScroll("the best line shown")
		p.screenshot("review-line-phone.png")
	})
}
