package browsertest

// The Learn screen: every lesson's task done on the board (some after a
// wrong try), a puzzle failed and its solution shown, another solved, the
// progress kept across a reload and reset; on a desktop and a phone, in
// English and in Urdu.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/internal/puzzles"
)

// learnBoard is the Learn screen's board.
const learnBoard = "#learn-board"

// readPuzzles reads the puzzle file the page loads.
func readPuzzles(t *testing.T) []puzzles.Puzzle {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "web", "static", "learn", "puzzles.json"))
	if err != nil {
		t.Fatal(err)
	}
	ps, err := puzzles.Unmarshal(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) < 2 {
		t.Fatalf("only %d puzzles", len(ps))
	}
	return ps
}

// learnMove plays hole letter on the Learn board, with a tap on a phone,
// and waits until the move (and any reply of the computer) is done.
func (p *page) learnMove(letter string, touch bool) {
	p.t.Helper()
	css := holeOf(learnBoard, letter)
	p.waitFor("hole "+letter+" to be playable", fmt.Sprintf(`document.querySelector(%q)?.dataset.legal === "true"`, css))
	if touch {
		p.tap(css)
	} else {
		p.click(css)
	}
	p.waitIdle()
}

// learnState is the state of the task shown: playing, done, wrong or solution.
func (p *page) learnState() string {
	p.t.Helper()
	return p.attr("#learn-stage", "data-state")
}

// wantLearnState fails the test unless the task shown is in state want.
func (p *page) wantLearnState(when, want string) {
	p.t.Helper()
	if got := p.learnState(); got != want {
		p.t.Fatalf("%s: the task is %q, want %q; it says %q", when, got, want, p.text("#learn-feedback"))
	}
}

// learnFits fails the test when the page scrolls sideways or a part of
// the Learn screen sticks out of the window.
func (p *page) learnFits(when string) {
	p.t.Helper()
	if bad := eval[string](p, `(() => {
		const w = document.documentElement.clientWidth;
		if (document.documentElement.scrollWidth > w) return "the page is " + document.documentElement.scrollWidth + " px wide on a " + w + " px screen";
		for (const el of document.querySelectorAll("#view-learn *")) {
			const r = el.getBoundingClientRect();
			if (r.width && !el.closest("[hidden]") && (r.left < -0.5 || r.right > w + 0.5)) return (el.id || el.className || el.tagName) + " spans " + Math.round(r.left) + ".." + Math.round(r.right);
		}
		return "";
	})()`); bad != "" {
		p.t.Errorf("%s: %s", when, bad)
	}
}

func TestLearn(t *testing.T) {
	ps := readPuzzles(t)
	a := startApp(t)
	for _, c := range []struct {
		name  string
		view  viewport
		lang  string
		speed string
	}{
		{"desktop-en", desktop, "en", "fast"},
		{"phone-ur", phone, "ur", "instant"},
		{"phone-en", phone, "en", "instant"},
		{"desktop-ur", desktop, "ur", "instant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := openPage(t, a, c.view)
			touch := c.view.phone
			p.open("#/learn")
			p.setLanguage(c.lang)
			if c.lang == "ur" && p.attr("html", "dir") != "rtl" {
				t.Fatalf("html dir=%q in Urdu", p.attr("html", "dir"))
			}
			if got := p.attr(`.site-nav a[data-route="learn"]`, "aria-current"); got != "page" {
				t.Errorf("the Learn link is not marked as the page shown (aria-current=%q)", got)
			}
			if n := p.count("#learn-lessons [data-lesson]"); n != 7 {
				t.Fatalf("the menu lists %d lessons, want 7", n)
			}
			if n := p.count("#learn-puzzles [data-puzzle]"); n != len(ps) {
				t.Fatalf("the menu lists %d puzzles, the file has %d", n, len(ps))
			}
			p.learnFits("the Learn menu")
			p.screenshot("learn-menu-" + c.name + ".png")

			// Lesson 1, with a wrong try first.
			p.click(`#learn-lessons [data-lesson="1"]`)
			p.waitIdle()
			p.waitFor("lesson 1", `document.querySelector("#learn-stage").dataset.kind === "lesson-1"`)
			p.setField("#learn-speed", c.speed)
			p.learnFits("lesson 1")
			if c.lang == "ur" {
				if d := eval[string](p, `getComputedStyle(document.querySelector("#learn-text")).direction`); d != "rtl" {
					t.Errorf("the lesson's text runs %q in Urdu, want rtl", d)
				}
				if d := eval[string](p, `getComputedStyle(document.querySelector("#learn-board")).direction`); d != "ltr" {
					t.Errorf("the lesson's board runs %q in Urdu, want ltr", d)
				}
			}
			p.learnMove("a", touch)
			p.wantLearnState("lesson 1 after a", "wrong")
			if c.lang == "en" && !strings.Contains(p.text("#learn-feedback"), "fell into b") {
				t.Errorf("lesson 1's feedback after a says %q", p.text("#learn-feedback"))
			}
			p.click("#learn-again")
			p.waitIdle()
			p.wantLearnState("lesson 1 started again", "playing")
			p.learnMove("c", touch)
			p.wantLearnState("lesson 1 after c", "done")
			p.screenshot("learn-lesson1-" + c.name + ".png")

			// Lessons 2 to 6, each reached with Next.
			for _, l := range []struct {
				n     int
				moves []string
				wrong []string // a wrong try first
			}{
				{2, []string{"a"}, []string{"d"}},
				{3, []string{"a"}, nil},
				{4, []string{"a"}, []string{"c"}},
				{5, []string{"a"}, []string{"c"}},
				{6, []string{"a", "A", "a", "A"}, nil},
			} {
				p.click("#learn-next")
				p.waitIdle()
				p.waitFor(fmt.Sprintf("lesson %d", l.n), fmt.Sprintf(`document.querySelector("#learn-stage").dataset.kind === "lesson-%d"`, l.n))
				if l.wrong != nil {
					for _, m := range l.wrong {
						p.learnMove(m, touch)
					}
					p.wantLearnState(fmt.Sprintf("lesson %d after %v", l.n, l.wrong), "wrong")
					p.click("#learn-again")
					p.waitIdle()
				}
				for i, m := range l.moves {
					p.learnMove(m, touch)
					if i < len(l.moves)-1 {
						p.wantLearnState(fmt.Sprintf("lesson %d after %v", l.n, l.moves[:i+1]), "playing")
					}
				}
				p.wantLearnState(fmt.Sprintf("lesson %d after %v", l.n, l.moves), "done")
				if l.n == 6 && c.lang == "en" && !strings.Contains(p.text("#learn-feedback"), "third time") {
					t.Errorf("lesson 6 ends with %q", p.text("#learn-feedback"))
				}
			}

			// Lesson 7: a series to two wins against the computer. South
			// starts and wins at once; North starts the second game and
			// wins it; South starts the third and wins the series.
			p.click("#learn-next")
			p.waitIdle()
			p.waitFor("lesson 7", `document.querySelector("#learn-stage").dataset.kind === "lesson-7"`)
			p.learnMove("a", touch)
			p.wantLearnState("lesson 7 after the first game", "playing")
			if n := p.count("#learn-tally-south .pin"); n != 1 {
				t.Errorf("after the first game South has %d tally pins, want 1", n)
			}
			p.click("#learn-next-game")
			p.waitIdle()
			p.waitFor("the computer to win the second game", `document.querySelectorAll("#learn-tally-north .pin").length === 1`)
			p.click("#learn-next-game")
			p.waitIdle()
			p.learnMove("a", touch)
			p.wantLearnState("lesson 7 after the third game", "done")
			if s, n := p.count("#learn-tally-south .pin"), p.count("#learn-tally-north .pin"); s != 2 || n != 1 {
				t.Errorf("after the series the tally is %d to %d, want 2 to 1", s, n)
			}
			p.learnFits("lesson 7")
			p.screenshot("learn-series-" + c.name + ".png")

			// Next leads to the first puzzle. Fail it, then see its solution.
			p.click("#learn-next")
			p.waitIdle()
			first, second := ps[0], ps[1]
			p.waitFor("the first puzzle", fmt.Sprintf(`document.querySelector("#learn-stage").dataset.kind === "puzzle-%s"`, first.ID))
			wrong := ""
			for m := range first.Values {
				if m != first.Answer && (wrong == "" || m < wrong) {
					wrong = m
				}
			}
			p.learnMove(wrong, touch)
			p.wantLearnState("the first puzzle after a wrong move", "wrong")
			if !p.visible("#learn-solution") {
				t.Fatal("after a wrong answer no solution is offered")
			}
			p.click("#learn-solution")
			p.waitIdle()
			p.wantLearnState("the first puzzle's solution", "solution")
			if got := p.text("#learn-feedback"); !strings.Contains(got, first.Answer) {
				t.Errorf("the solution's text %q does not name %s", got, first.Answer)
			}
			if got := p.attr(holeOf(learnBoard, first.Answer), "class"); !strings.Contains(got, "last-from") {
				t.Errorf("after the solution hole %s is not marked as the move played (class %q)", first.Answer, got)
			}

			// The next puzzle, solved.
			p.click("#learn-next")
			p.waitIdle()
			p.waitFor("the second puzzle", fmt.Sprintf(`document.querySelector("#learn-stage").dataset.kind === "puzzle-%s"`, second.ID))
			p.learnMove(second.Answer, touch)
			p.wantLearnState("the second puzzle after its answer", "done")
			p.learnFits("a puzzle")
			p.screenshot("learn-puzzle-" + c.name + ".png")

			// The progress survives a reload.
			p.open("#/learn")
			p.reload()
			checkMenu := func(when string, lessons int, solved map[string]bool) {
				t.Helper()
				for n := 1; n <= 7; n++ {
					want := fmt.Sprint(n <= lessons)
					if got := p.attr(fmt.Sprintf(`#learn-lessons [data-lesson="%d"]`, n), "data-done"); got != want {
						t.Errorf("%s: lesson %d done=%q, want %s", when, n, got, want)
					}
				}
				for _, pz := range ps {
					want := fmt.Sprint(solved[pz.ID])
					if got := p.attr(fmt.Sprintf(`#learn-puzzles [data-puzzle="%s"]`, pz.ID), "data-solved"); got != want {
						t.Errorf("%s: puzzle %s solved=%q, want %s", when, pz.ID, got, want)
					}
				}
				if c.lang == "en" {
					want := fmt.Sprintf("Lessons done: %d of 7. Puzzles solved: %d of %d.", lessons, len(solved), len(ps))
					if got := p.text("#learn-progress"); got != want {
						t.Errorf("%s: the progress says %q, want %q", when, got, want)
					}
				}
			}
			checkMenu("after a reload", 7, map[string]bool{second.ID: true})

			// Reset, and it stays reset.
			p.click("#learn-reset")
			p.click("#learn-reset-yes")
			p.waitIdle()
			checkMenu("after the reset", 0, nil)
			p.reload()
			checkMenu("after the reset and a reload", 0, nil)
		})
	}
}

// TestLearnEveryLanguage shows the Learn screen's menu, a lesson's
// feedback, the series and a puzzle's verdict on a phone in every
// language: every text is translated (no catalog key shows) and nothing
// sticks out of the screen.
func TestLearnEveryLanguage(t *testing.T) {
	ps := readPuzzles(t)
	save := ps[len(ps)-1]
	for _, pz := range ps {
		if pz.Kind == puzzles.Save {
			save = pz
		}
	}
	a := startApp(t)
	p := openPage(t, a, phone)
	p.open("#/learn")
	for _, lang := range languages {
		p.setLanguage(lang)
		check := func(what string) {
			t.Helper()
			if raw := eval[string](p, `(document.querySelector("#view-learn").innerText.match(/\blearn\.[a-z0-9.]+/i) || [""])[0]`); raw != "" {
				t.Errorf("%s, %s: the key %q shows untranslated", lang, what, raw)
			}
			p.learnFits(lang + ", " + what)
		}
		p.open("#/learn")
		check("the menu")
		p.open("#/learn/lesson/4")
		p.setField("#learn-speed", "instant")
		p.learnMove("c", true)
		p.wantLearnState(lang+", lesson 4 after c", "wrong")
		check("lesson 4's feedback")
		p.open("#/learn/lesson/7")
		p.learnMove("a", true)
		check("the series")
		p.open("#/learn/puzzle/" + save.ID)
		wrong := ""
		for m := range save.Values {
			if m != save.Answer {
				wrong = m
				break
			}
		}
		p.learnMove(wrong, true)
		p.wantLearnState(lang+", a puzzle after a wrong move", "wrong")
		check("a puzzle's verdict")
	}
}
