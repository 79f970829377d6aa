package browsertest

// The review of a finished game: started from the game screen or from the
// list of games, its progress, the grades in the move list, the evaluation
// graph and the best line at a blunder.

import (
	"fmt"
	"strings"
	"testing"
	"time"
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
			if line := p.text("#review-line-1 .pv"); !strings.HasPrefix(line, "a") {
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
