package browsertest

// The analysis board's tree of moves: a move played at an earlier point
// starts a variation; variations are shown in parentheses, promoted and
// deleted; the last move is marked on the board; a link opens the board on
// the position shown; and the board's own animation is finished by a click.
// On a desktop and a phone, in English and in Urdu.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// analysisCases are the screens and languages the analysis board is
// checked in.
var analysisCases = []struct {
	name string
	v    viewport
	lang string
}{
	{"desktop-en", desktop, "en"},
	{"desktop-ur", desktop, "ur"},
	{"phone-en", phone, "en"},
	{"phone-ur", phone, "ur"},
}

// catalogText is a message of a language's catalog, as the server sends it.
func (a *app) catalogText(lang, key string) string {
	a.t.Helper()
	resp, err := http.Get(a.URL() + "/i18n/" + lang + ".json")
	if err != nil {
		a.t.Fatalf("fetching the %s catalog: %v", lang, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("reading the %s catalog: %v", lang, err)
	}
	var cat map[string]string
	if err := json.Unmarshal(raw, &cat); err != nil {
		a.t.Fatalf("decoding the %s catalog: %v", lang, err)
	}
	s, ok := cat[key]
	if !ok {
		a.t.Fatalf("the %s catalog has no %q", lang, key)
	}
	return s
}

// positionAnswer is the part of POST /api/position's answer the tests
// check.
type positionAnswer struct {
	Position   string   `json:"position"`
	LegalMoves []string `json:"legalMoves"`
	Status     string   `json:"status"`
	Sowing     *struct {
		Laps []struct {
			From int `json:"from"`
			To   int `json:"to"`
		} `json:"laps"`
	} `json:"sowing"`
}

// position plays moves on a position through the API.
func (a *app) position(start, variant string, moves []string) positionAnswer {
	a.t.Helper()
	body, err := json.Marshal(map[string]any{"position": start, "moves": moves, "variant": variant})
	if err != nil {
		a.t.Fatal(err)
	}
	var out positionAnswer
	a.api("POST", "/api/position", string(body), http.StatusOK, &out)
	return out
}

// analysisTree is the analysis move list as shown: the main line's moves,
// the text of each variation block under it (nested ones included), the
// move shown and whether it lies in a variation.
type analysisTree struct {
	Main        []string `json:"main"`
	Variations  []string `json:"variations"`
	Nested      int      `json:"nested"`
	Parens      int      `json:"parens"`
	Current     string   `json:"current"`
	CurrentPly  int      `json:"currentPly"`
	InVariation bool     `json:"inVariation"`
}

func (p *page) analysisTree() analysisTree {
	p.t.Helper()
	return eval[analysisTree](p, `(() => {
		const list = document.querySelector("#an-moves");
		const letters = (root) => [...root.querySelectorAll("button.move")].map(b => b.textContent.trim());
		const cur = list.querySelector('[aria-current="step"]');
		return {
			main: [...list.querySelectorAll(":scope > li.pair > button.move")].map(b => b.textContent.trim()),
			variations: [...list.querySelectorAll(":scope > li.variation")].map(v => letters(v).join(" ")),
			nested: list.querySelectorAll(".variation .variation").length,
			parens: list.querySelectorAll(".paren").length,
			current: cur ? cur.textContent.trim() : "",
			currentPly: cur ? Number(cur.dataset.ply) : 0,
			inVariation: !!(cur && cur.closest(".variation")),
		};
	})()`)
}

// checkAnalysisShows fails the test unless the analysis board shows the
// position after moves from start, as the API plays them: the counts, the
// playable holes and the marks of the last move's first and last holes.
func (p *page) checkAnalysisShows(what, start, variant string, moves []string) positionAnswer {
	p.t.Helper()
	want := p.app.position(start, variant, moves)
	if got := formatRows(p.boardOf(analysisBoard)); got != parsePosition(p.t, want.Position).rows() {
		p.t.Fatalf("%s: the analysis board shows %s, want %s", what, got, want.Position)
	}
	legal := p.legalOf(analysisBoard, "")
	slices.Sort(legal)
	wantLegal := slices.Clone(want.LegalMoves)
	slices.Sort(wantLegal)
	if want.Status == "playing" && !slices.Equal(legal, wantLegal) {
		p.t.Errorf("%s: the board offers %v, the API's legal moves are %v", what, legal, wantLegal)
	}
	holes := len(parsePosition(p.t, want.Position).South)
	letter := func(i int) string {
		if i < holes {
			return holeLetter(true, i)
		}
		return holeLetter(false, i-holes)
	}
	marks := eval[[]string](p, `[".last-from", ".last-to"].map(c => [...document.querySelectorAll("#an-board .hole" + c)].map(b => b.dataset.hole).join(","))`)
	wantMarks := []string{"", ""}
	if len(moves) > 0 && want.Sowing != nil && len(want.Sowing.Laps) > 0 {
		laps := want.Sowing.Laps
		wantMarks = []string{letter(laps[0].From), letter(laps[len(laps)-1].To)}
	}
	if !slices.Equal(marks, wantMarks) {
		p.t.Errorf("%s: the last move is marked from %q to %q, want from %q to %q", what, marks[0], marks[1], wantMarks[0], wantMarks[1])
	}
	return want
}

// playAnalysis clicks a hole of the analysis board and waits for the move.
func (p *page) playAnalysis(letter string) {
	p.t.Helper()
	p.click(holeOf(analysisBoard, letter))
	p.waitIdle()
}

// otherLegal is a hole the analysis board offers other than not.
func (p *page) otherLegal(not string) string {
	p.t.Helper()
	for _, m := range p.legalOf(analysisBoard, "") {
		if m != not {
			return m
		}
	}
	p.t.Fatalf("the analysis board offers no move but %q", not)
	return ""
}

// openAnalysisIn opens the analysis board in a language at the instant
// speed, on start in a variant.
func (p *page) openAnalysisIn(lang, start, variant string) {
	p.t.Helper()
	p.open("#/analysis")
	if lang != "en" {
		p.setLanguage(lang)
	}
	p.setField("#an-speed", "instant")
	p.setField("#an-variant", variant)
	p.setField("#an-input", start)
	p.click("#an-load")
	p.waitIdle()
}

// noSidewaysScroll fails the test when the page is wider than its window.
func (p *page) noSidewaysScroll(when string) {
	p.t.Helper()
	if w, cw := eval[int](p, `document.documentElement.scrollWidth`), eval[int](p, `document.documentElement.clientWidth`); w > cw {
		p.t.Errorf("%s: the page is %d px wide in a %d px window: it scrolls sideways", when, w, cw)
	}
}

// TestAnalysisVariations plays a main line, goes back and plays other
// moves: they form variations (one nested), shown in parentheses on lines
// of their own, each move a button reached by the keyboard; a variation is
// made the main line, and another deleted. The board always shows the
// API's position, with the last move marked.
func TestAnalysisVariations(t *testing.T) {
	const start = "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"
	for _, c := range analysisCases {
		t.Run(c.name, func(t *testing.T) {
			a := startApp(t)
			p := openPage(t, a, c.v)
			p.openAnalysisIn(c.lang, start, "standard")
			if tr := p.analysisTree(); len(tr.Main) != 0 {
				t.Fatalf("a loaded start position lists the moves %v", tr.Main)
			}
			p.checkAnalysisShows("the start", start, "standard", nil)

			// The main line: three moves.
			var main []string
			for range 3 {
				legal := p.legalOf(analysisBoard, "")
				main = append(main, legal[len(legal)/2])
				p.playAnalysis(main[len(main)-1])
			}
			if tr := p.analysisTree(); !slices.Equal(tr.Main, main) || len(tr.Variations) != 0 || tr.CurrentPly != 3 {
				t.Fatalf("after playing %v the list shows %+v", main, tr)
			}
			p.checkAnalysisShows("the main line's end", start, "standard", main)

			// Back to the first move and another second move: a variation;
			// the main line stays whole.
			p.click(`#an-moves [data-ply="1"]`)
			p.waitIdle()
			p.checkAnalysisShows("the first move", start, "standard", main[:1])
			alt := p.otherLegal(main[1])
			p.playAnalysis(alt)
			tr := p.analysisTree()
			if !slices.Equal(tr.Main, main) || !slices.Equal(tr.Variations, []string{alt}) || tr.Current != alt || !tr.InVariation {
				t.Fatalf("after %s instead of %s the list shows %+v, want the main line %v and the variation %s, shown", alt, main[1], tr, main, alt)
			}
			if tr.Parens != 2 {
				t.Errorf("a variation is drawn with %d parentheses, want 2", tr.Parens)
			}
			if !p.visible("#an-promote") || !p.visible("#an-delete") {
				t.Error("a move of a variation is shown, but #an-promote or #an-delete is not")
			}
			p.checkAnalysisShows("the variation's move", start, "standard", []string{main[0], alt})

			// The variation goes on; at its first move another one branches.
			cont := p.legalOf(analysisBoard, "")[0]
			p.playAnalysis(cont)
			p.click(`#an-moves li.variation button[data-ply="2"]`)
			p.waitIdle()
			nested := p.otherLegal(cont)
			p.playAnalysis(nested)
			tr = p.analysisTree()
			want := alt + " " + cont + " " + nested
			if !slices.Equal(tr.Main, main) || len(tr.Variations) != 1 || tr.Variations[0] != want || tr.Nested != 1 || tr.Current != nested {
				t.Fatalf("after a variation in the variation the list shows %+v, want the main line %v and the variation %q with one nested", tr, main, want)
			}
			p.checkAnalysisShows("the nested variation", start, "standard", []string{main[0], alt, nested})

			// Variations are indented under the main line; nothing scrolls
			// sideways, in any language.
			indent := eval[float64](p, `document.querySelector("#an-moves > li.variation .variation-line").getBoundingClientRect().left -
				document.querySelector("#an-moves > li.pair").getBoundingClientRect().left`)
			if indent < 8 {
				t.Errorf("a variation starts %.0f px right of the main line, want it indented", indent)
			}
			p.noSidewaysScroll("the analysis board with variations")
			if c.lang == "ur" && p.attr("html", "dir") != "rtl" {
				t.Errorf("in Urdu html dir=%q", p.attr("html", "dir"))
			}
			p.do("scrolling to the moves", chromedp.ScrollIntoView(chromedp.CSS("#an-moves")))
			p.screenshot("analysis-variations-" + c.name + ".png")

			// The keyboard: each move is a button; Enter on the main line's
			// first move shows it, Tab goes on to the next move, Enter shows
			// that, an arrow steps back along the line.
			p.do("focusing the main line's first move", chromedp.Focus(chromedp.CSS(`#an-moves > li.pair button[data-ply="1"]`)))
			p.key(kb.Enter)
			p.waitIdle()
			p.checkAnalysisShows("Enter on the first move", start, "standard", main[:1])
			p.key(kb.Tab)
			if got := eval[string](p, `document.activeElement.matches("#an-moves > li.pair button.move") ? document.activeElement.dataset.ply : document.activeElement.id || document.activeElement.tagName`); got != "2" {
				t.Errorf("Tab from the first move went to %q, not to the second move", got)
			}
			p.key(kb.Enter)
			p.waitIdle()
			p.checkAnalysisShows("Enter on the second move", start, "standard", main[:2])
			p.blur()
			back := kb.ArrowLeft
			if c.lang == "ur" {
				back = kb.ArrowRight // the arrows follow the reading direction
			}
			p.key(back)
			p.waitIdle()
			p.checkAnalysisShows("a step back by the keyboard", start, "standard", main[:1])

			// The nested variation made the main line: the old main line
			// and the variation's own continuation become variations.
			p.click(`#an-moves .variation .variation button[data-ply="3"]`)
			p.waitIdle()
			if p.analysisTree().Current != nested {
				t.Fatalf("clicking the nested variation's move shows %q", p.analysisTree().Current)
			}
			p.click("#an-promote")
			p.waitIdle()
			tr = p.analysisTree()
			if !slices.Equal(tr.Main, []string{main[0], alt, nested}) || !slices.Equal(tr.Variations, []string{main[1] + " " + main[2], cont}) || tr.InVariation {
				t.Fatalf("after promoting %s the list shows %+v, want the main line %v and the variations %q, %q",
					nested, tr, []string{main[0], alt, nested}, main[1]+" "+main[2], cont)
			}
			if p.visible("#an-promote") {
				t.Error("the main line's move is shown, but #an-promote still is")
			}
			if !eval[bool](p, `document.activeElement.getAttribute("aria-current") === "step"`) {
				t.Error("after promoting, the focus is not on the move shown")
			}
			p.checkAnalysisShows("after promoting", start, "standard", []string{main[0], alt, nested})

			// A variation deleted: the position before it is shown.
			p.click(`#an-moves > li.variation ~ li.variation button[data-ply="3"]`)
			p.waitIdle()
			if tr := p.analysisTree(); tr.Current != cont || !tr.InVariation {
				t.Fatalf("clicking the variation %s shows %+v", cont, tr)
			}
			p.click("#an-delete")
			p.waitIdle()
			tr = p.analysisTree()
			if !slices.Equal(tr.Main, []string{main[0], alt, nested}) || !slices.Equal(tr.Variations, []string{main[1] + " " + main[2]}) || tr.Current != alt {
				t.Fatalf("after deleting the variation %s the list shows %+v", cont, tr)
			}
			if !eval[bool](p, `document.activeElement.getAttribute("aria-current") === "step"`) {
				t.Error("after deleting, the focus is not on the move shown")
			}
			p.checkAnalysisShows("after deleting", start, "standard", []string{main[0], alt})
			p.noSidewaysScroll("after deleting")
		})
	}
}

// TestAnalysisPositionLink copies a link to the position shown and opens
// it in another browser: the board shows exactly that position and its
// variant. Without a clipboard the link is shown selected; a link whose
// position is wrong says so on a working page.
func TestAnalysisPositionLink(t *testing.T) {
	const start = "5,5,5,5,5/5,5,5,5,5 s 0 0"
	for _, c := range analysisCases {
		t.Run(c.name, func(t *testing.T) {
			a := startApp(t)
			p := openPage(t, a, c.v)
			p.openAnalysisIn(c.lang, start, "cross")
			legal := p.legalOf(analysisBoard, "")
			first := legal[0]
			p.playAnalysis(first)
			second := p.legalOf(analysisBoard, "")[0]
			p.playAnalysis(second)
			want := p.checkAnalysisShows("two moves", start, "cross", []string{first, second})

			// A clipboard that takes the link.
			eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true,
				value: {writeText: async (s) => { window.copiedLink = s; }}})`)
			p.click("#an-copy-link")
			copied := a.catalogText(c.lang, "analysis.linkCopied")
			p.waitFor("the copy feedback", fmt.Sprintf(`document.querySelector("#an-link-status").textContent === %q`, copied))
			if p.visible("#an-link-fallback") {
				t.Error("the link was copied, but the copy-by-hand field shows")
			}
			link := eval[string](p, `window.copiedLink`)
			prefix := a.URL() + "/#/analysis/position/"
			if !strings.HasPrefix(link, prefix) || !strings.HasSuffix(link, "/cross") {
				t.Fatalf("the link copied is %q, want %s{position}/cross", link, prefix)
			}
			p.noSidewaysScroll("after copying the link")

			// The link, opened in another browser, shows that position in
			// that variant, and a move there is the API's.
			q := openPage(t, a, c.v)
			q.open(strings.TrimPrefix(link, a.URL()+"/"))
			if q.value("#an-variant") != "cross" {
				t.Errorf("the link opened the variant %q, want cross", q.value("#an-variant"))
			}
			if got := formatRows(q.boardOf(analysisBoard)); got != parsePosition(t, want.Position).rows() {
				t.Fatalf("the link %s shows %s, want %s", link, got, want.Position)
			}
			if got := q.text("#an-position"); !strings.Contains(got, want.Position) {
				t.Errorf("the link's board says %q, want the position %q", got, want.Position)
			}
			if n := q.count("#an-moves [data-ply]"); n != 0 {
				t.Errorf("the link's board lists %d moves, want none", n)
			}
			for _, side := range []struct{ css, want string }{
				{"#an-pile-south", fmt.Sprint(parsePosition(t, want.Position).Captured.South)},
				{"#an-pile-north", fmt.Sprint(parsePosition(t, want.Position).Captured.North)},
			} {
				if got := q.attr(side.css, "data-count"); got != side.want {
					t.Errorf("the link's board: %s data-count=%q, want %s", side.css, got, side.want)
				}
			}
			q.setField("#an-speed", "instant")
			third := q.legalOf(analysisBoard, "")[0]
			q.playAnalysis(third)
			after := a.position(want.Position, "cross", []string{third})
			if got := formatRows(q.boardOf(analysisBoard)); got != parsePosition(t, after.Position).rows() {
				t.Errorf("a move on the link's board shows %s, want the cross variant's %s", got, after.Position)
			}

			// No clipboard: the link shows, selected, to copy by hand.
			eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true, value: undefined})`)
			p.click("#an-copy-link")
			selectText := a.catalogText(c.lang, "analysis.linkSelect")
			p.waitFor("the copy-by-hand note", fmt.Sprintf(`document.querySelector("#an-link-status").textContent === %q`, selectText))
			if !p.visible("#an-link") || p.value("#an-link") != link {
				t.Errorf("without a clipboard the field #an-link shows %q (visible %v), want %q", p.value("#an-link"), p.visible("#an-link"), link)
			}
			if !eval[bool](p, `document.activeElement.id === "an-link" && document.activeElement.selectionStart === 0 &&
				document.activeElement.selectionEnd === document.activeElement.value.length`) {
				t.Error("without a clipboard the link is not focused and selected")
			}
			p.noSidewaysScroll("with the link to copy by hand")
			p.screenshot("analysis-link-" + c.name + ".png")

			// A clipboard that refuses does the same.
			eval[chromedp.Void](p, `Object.defineProperty(navigator, "clipboard", {configurable: true,
				value: {writeText: () => Promise.reject(new DOMException("denied", "NotAllowedError"))}})`)
			p.click(`#an-moves [data-ply="1"]`)
			p.waitIdle()
			if p.visible("#an-link-fallback") || p.text("#an-link-status") != "" {
				t.Error("the copy note of another position stays after stepping")
			}
			p.click("#an-copy-link")
			p.waitFor("the copy-by-hand note after a refusal", fmt.Sprintf(`document.querySelector("#an-link-status").textContent === %q`, selectText))
			if got := p.value("#an-link"); !strings.Contains(got, "/#/analysis/position/") || got == link {
				t.Errorf("after stepping back the link is %q, want the first move's", got)
			}
		})
	}
}

// TestAnalysisBadLinks opens position links that hold no position: each
// says so in the message area, the analysis board stays usable, and the
// console stays clean.
func TestAnalysisBadLinks(t *testing.T) {
	for _, c := range analysisCases {
		t.Run(c.name, func(t *testing.T) {
			a := startApp(t)
			p := openPage(t, a, c.v)
			p.allowConsole(`status of 400`) // the server's verdict on a position it refuses
			p.open("#/rules")
			if c.lang != "en" {
				p.setLanguage(c.lang)
			}
			bad := a.catalogText(c.lang, "analysis.badLink")
			badStart := bad[:strings.Index(bad, "{position}")]
			for _, link := range []string{
				"4,4%2F4",                          // rows of different lengths
				"%E0%A4%A",                         // cut short in the middle of a character
				"04,4%2F4,4%20s%200%200",           // the server refuses a leading zero
				"4,4%2F4,4%20s%200%200/chess",      // no such variant
				"4,4%2F4,4%20s%200%200/standard/0", // no such lap limit
				"",                                 // nothing at all
			} {
				p.do("opening "+link, chromedp.Navigate(a.URL()+"/#/analysis/position/"+link))
				p.waitIdle()
				p.waitFor("the message about "+link, `!document.querySelector("#message").hidden`)
				if got := p.text("#message"); !strings.HasPrefix(got, strings.TrimSpace(badStart)) {
					t.Errorf("the link %q: the message says %q, want %q...", link, got, badStart)
				}
				if !p.visible("#view-analysis") || p.count("#an-board .hole[data-hole]") == 0 || len(p.legalOf(analysisBoard, "")) == 0 {
					t.Errorf("the link %q: the analysis board is not shown ready to play", link)
				}
				p.noSidewaysScroll("the message about " + link)
				if link == "" {
					p.do("scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
					p.screenshot("analysis-bad-link-" + c.name + ".png")
				}
				// A good link after a bad one shows its position and clears the message.
				p.do("opening a good link", chromedp.Navigate(a.URL()+"/#/analysis/position/3,3%2F3,3%20n%201%202"))
				p.waitIdle()
				if !p.visible("#message") && formatRows(p.boardOf(analysisBoard)) == "3,3/3,3" {
					continue
				}
				t.Errorf("a good link after %q: message %q, board %s", link, p.text("#message"), formatRows(p.boardOf(analysisBoard)))
			}
		})
	}
}

// TestAnalysisOwnSpeedAndSkip: the analysis board animates at its own
// speed, apart from the game's; a click on the board during the animation
// of a variation's move finishes it at once, with the API's position.
func TestAnalysisOwnSpeedAndSkip(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("#/play")
	eval[chromedp.Void](p, `(() => { const d = document.querySelector("#new-game-dialog"); if (d && d.open) d.close(); })()`)
	p.setSpeed("instant")
	const start = "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0"
	p.openAnalysisIn("en", start, "standard")
	p.playAnalysis("c")
	p.playAnalysis(p.legalOf(analysisBoard, "")[0])
	p.click(`#an-moves [data-ply="1"]`)
	p.waitIdle()
	p.setField("#an-speed", "slow")
	move := p.otherLegal(p.analysisTree().Main[1])
	p.click(holeOf(analysisBoard, move))
	p.waitFor("the analysis animation", `document.querySelector("#an-board .hole.sowing") !== null`)
	t0 := time.Now()
	p.click("#an-table .player.north")
	// The move is done when the list shows it; the engine's evaluation
	// that follows is not the animation's.
	p.waitFor("the move after the animation", fmt.Sprintf(`document.querySelector("#an-board .hole.sowing") === null &&
		document.querySelector('#an-moves [aria-current="step"]')?.textContent === %q`, move))
	if d := time.Since(t0); d > 2*time.Second {
		t.Errorf("a click during the analysis board's animation left it running %v", d)
	}
	p.waitIdle()
	p.checkAnalysisShows("the animation finished by a click", start, "standard", []string{"c", move})
	if tr := p.analysisTree(); !tr.InVariation || tr.Current != move {
		t.Errorf("the move animated is not shown as a variation: %+v", tr)
	}
	if got := eval[string](p, `localStorage.getItem("endodoi.analysisSpeed")`); got != "slow" {
		t.Errorf("the analysis speed is remembered as %q, want slow", got)
	}
	if got := eval[string](p, `localStorage.getItem("endodoi.speed")`); got != "instant" {
		t.Errorf("the game's speed became %q with the analysis board's", got)
	}
	p.reload()
	if got := p.value("#an-speed"); got != "slow" {
		t.Errorf("after a reload the analysis speed is %q, want slow", got)
	}
	if got := p.value("#speed"); got != "instant" {
		t.Errorf("after a reload the game's speed is %q, want instant", got)
	}
}
