package browsertest

// The page on a phone, with the keyboard alone, its animation, and its
// weight.

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// TestPhoneLayout plays on a 360 px wide touch screen: nothing scrolls
// sideways, a 10-hole board fits with holes big enough to tap, the move
// list can be reached, and a tap plays a move.
func TestPhoneLayout(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, phone)
	p.open("")
	p.setSpeed("instant")
	noSideways := func(when string) {
		t.Helper()
		if w := eval[int](p, `document.documentElement.scrollWidth`); w > int(phone.width) {
			t.Errorf("%s: the page is %d px wide on a %d px screen: it scrolls sideways", when, w, phone.width)
		}
	}

	// The ways to play, shown to a first-time visitor, and the new-game
	// dialog fit the width.
	noSideways("the ways to play")
	p.newGameDialog("computer")
	if r := p.rectOf("#new-game-dialog"); r.Left < 0 || r.Right > float64(phone.width) {
		t.Errorf("the new-game dialog (x %.0f..%.0f) does not fit the %d px screen", r.Left, r.Right, phone.width)
	}
	noSideways("the new-game dialog")
	p.click("#ng-cancel")
	p.waitFor("the new-game dialog to close", `!document.querySelector("#new-game-dialog").open`)

	// So does every screen.
	for _, route := range routes {
		p.click(fmt.Sprintf(`nav a[href="#/%s"]`, route))
		p.waitFor("the route #/"+route, fmt.Sprintf(`location.hash.startsWith("#/%s")`, route))
		p.waitIdle()
		noSideways("#/" + route)
		// With no game yet, the play screen offers a new one.
		if eval[bool](p, `document.querySelector("#new-game-dialog").open`) {
			p.click("#ng-cancel")
			p.waitFor("the new-game dialog to close", `!document.querySelector("#new-game-dialog").open`)
		}
	}

	p.click(`nav a[href="#/play"]`)
	p.waitIdle()
	id := p.startGame(newGame{Holes: 10, Seeds: 4, Opponent: "computer", Level: 1, First: "s", Mode: "single"})
	noSideways("a 10-hole game")
	hs := p.holes()
	if len(hs) != 20 {
		t.Fatalf("a 10-hole game shows %d holes, want 20", len(hs))
	}
	for _, h := range hs {
		r := p.rectOf(holeCSS(h.Letter))
		if r.Left < 0 || r.Right > float64(phone.width) {
			t.Errorf("hole %s (x %.0f..%.0f) is outside the %d px screen", h.Letter, r.Left, r.Right, phone.width)
		}
		if r.Width < 28 || r.Height < 28 {
			t.Errorf("hole %s is %.0f x %.0f px, too small to tap (want at least 28 x 28)", h.Letter, r.Width, r.Height)
		}
	}

	legal := p.legal("s")
	if len(legal) == 0 {
		t.Fatal("no hole of South's offered")
	}
	p.tap(holeCSS(legal[0]))
	p.waitIdle()
	g := a.game(id)
	if len(g.Moves) == 0 || g.Moves[0] != legal[0] {
		t.Fatalf("a tap on hole %s gave the moves %v", legal[0], g.Moves)
	}
	p.checkGameAgainstAPI(g)
	noSideways("after a move")
	p.do("scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
	p.screenshot("game-phone.png")

	// The move list: scrolled to, it is on the screen, and its entries can
	// be tapped.
	p.do("scrolling to the move list", chromedp.ScrollIntoView(chromedp.CSS("#moves")))
	if r := p.rectOf("#moves"); r.Width <= 0 || r.Left < 0 || r.Right > float64(phone.width) {
		t.Errorf("the move list is not on the screen: x %.0f..%.0f, width %.0f", r.Left, r.Right, r.Width)
	}
	p.tap(`#moves [data-ply="1"]`)
	p.waitIdle()
	if cur := p.currentPly(); cur != 1 {
		t.Errorf(`after tapping [data-ply="1"] the viewed move is %d`, cur)
	}
	p.checkBoard("after tapping the first move", g.Positions[1])
}

// TestKeyboardOnly plays with the keyboard: a letter plays its hole, Tab
// reaches a playable hole and Enter plays it, Enter on #new-game opens the
// dialog and Escape closes it; the holes are labelled for a screen reader,
// and a live region announces the move.
func TestKeyboardOnly(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})

	// Every hole's label names its letter and its seeds.
	south, north := p.board()
	for _, h := range p.holes() {
		n := south
		i := int(h.Letter[0] - 'a')
		if h.Letter < "a" {
			n, i = north, int(h.Letter[0]-'A')
		}
		letter := regexp.MustCompile(`(^|[^\p{L}])` + h.Letter + `($|[^\p{L}])`)
		count := regexp.MustCompile(fmt.Sprintf(`(^|\D)%d(\D|$)`, n[i]))
		if !letter.MatchString(h.Label) || !count.MatchString(h.Label) {
			t.Errorf("hole %s (%d seeds) has aria-label %q: want its letter and its count", h.Letter, n[i], h.Label)
		}
	}

	// A letter plays that hole.
	p.blur()
	p.key("c")
	p.waitIdle()
	g := a.game(id)
	if len(g.Moves) != 1 || g.Moves[0] != "c" {
		t.Fatalf(`typing "c" gave the moves %v, want [c]`, g.Moves)
	}
	p.checkGameAgainstAPI(g)
	live := eval[[]string](p, `[...document.querySelectorAll("[aria-live]")].map(e => e.textContent.trim())`)
	said := regexp.MustCompile(`(^|[^\p{L}])c($|[^\p{L}])`)
	found := false
	for _, s := range live {
		found = found || said.MatchString(s)
	}
	if !found {
		t.Errorf("no aria-live region announces the move c: %q", live)
	}

	// Tab reaches a playable hole, and Enter plays it.
	p.blur()
	tabbed := false
	for i := 0; i < 80 && !tabbed; i++ {
		p.key(kb.Tab)
		tabbed = eval[bool](p, `document.activeElement?.matches('#board .hole[data-legal="true"]') ?? false`)
	}
	if !tabbed {
		t.Fatal("80 presses of Tab never reached a playable hole")
	}
	hole := eval[string](p, `document.activeElement.dataset.hole`)
	p.key(kb.Enter)
	p.waitIdle()
	g = a.game(id)
	if len(g.Moves) != 2 || g.Moves[1] != hole {
		t.Fatalf("Enter on the focused hole %s gave the moves %v", hole, g.Moves)
	}
	p.checkGameAgainstAPI(g)

	// The new-game dialog by the keyboard.
	p.do("focusing #new-game", chromedp.Focus(chromedp.CSS("#new-game")))
	p.key(kb.Enter)
	p.waitFor("the new-game dialog to open on Enter", `document.querySelector("#new-game-dialog").open === true`)
	if inside := eval[bool](p, `document.querySelector("#new-game-dialog").contains(document.activeElement)`); !inside {
		t.Error("the new-game dialog opened, but the focus is not in it")
	}
	p.key(kb.Escape)
	p.waitFor("the new-game dialog to close on Escape", `document.querySelector("#new-game-dialog").open === false`)
	p.waitIdle()
	if now := p.gameID(); now != id {
		t.Errorf("closing the dialog with Escape left game %s for %s", id, now)
	}
	if g := a.game(id); len(g.Moves) != 2 {
		t.Errorf("the keys typed in the dialog changed the game: %v", g.Moves)
	}
}

// TestAnimationShowsLaps plays a relay move animated: the page stays busy
// while the seeds are sown and tells every lap; then Skip cuts a slow
// animation short. Both end at the position the API has.
func TestAnimationShowsLaps(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 8, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})
	const start = "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0"
	var sown struct {
		Sowing struct {
			Laps []struct{} `json:"laps"`
		} `json:"sowing"`
	}
	a.api("POST", "/api/position", `{"position": "`+start+`", "moves": ["a"]}`, http.StatusOK, &sown)
	laps := len(sown.Sowing.Laps)
	if laps < 2 {
		t.Fatalf("move a of %s sows %d laps; the test wants a relay", start, laps)
	}

	// Every text #lap-info shows is kept, and whether the page said busy
	// meanwhile.
	eval[chromedp.Void](p, `(() => {
		window.lapTexts = [];
		window.busyWhileLaps = true;
		const el = document.querySelector("#lap-info");
		new MutationObserver(() => {
			const s = el.textContent.trim();
			if (!s) return;
			window.lapTexts.push(s);
			if (document.documentElement.dataset.busy !== "true") window.busyWhileLaps = false;
		}).observe(el, {childList: true, characterData: true, subtree: true});
	})()`)
	p.setSpeed("fast")
	p.play("a")
	texts := eval[[]string](p, `window.lapTexts`)
	for lap := 1; lap <= laps; lap++ {
		want := fmt.Sprintf("Lap %d of %d", lap, laps)
		if !slices.ContainsFunc(texts, func(s string) bool { return strings.HasPrefix(s, want) }) {
			t.Errorf("the animation of a %d-lap move never showed %q; it showed %q", laps, want, texts)
		}
	}
	if !eval[bool](p, `window.busyWhileLaps`) {
		t.Error(`the page showed laps while html data-busy was not "true"`)
	}
	p.checkGameAgainstAPI(a.game(id))

	// At normal speed, Skip ends the animation at once.
	p.setSpeed("normal")
	legal := p.legal("n")
	if len(legal) == 0 {
		t.Fatal("no hole of North's offered")
	}
	p.click(holeCSS(legal[0]))
	p.waitFor("the animation or its end", `!document.querySelector("#skip").disabled || document.documentElement.dataset.busy === "false"`)
	if eval[bool](p, `!document.querySelector("#skip").disabled`) {
		p.click("#skip")
		t0 := time.Now()
		p.waitIdle()
		if d := time.Since(t0); d > 3*time.Second {
			t.Errorf("after Skip the page stayed busy for %v", d)
		}
	} else {
		t.Log("the move's animation ended before Skip could be clicked")
	}
	g := a.game(id)
	if len(g.Moves) != 2 {
		t.Fatalf("after two animated moves the API has %v", g.Moves)
	}
	p.checkGameAgainstAPI(g)
}

// pageWeightLimit is a sanity bound on what loading the page transfers.
const pageWeightLimit = 300 << 10

// TestPageWeight loads the start page with the cache off and sums the bytes
// transferred for it and its assets (not the API's answers).
func TestPageWeight(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	if _, err := chromedp.Call(p.ctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	urls := map[network.RequestID]string{}
	sizes := map[network.RequestID]float64{}
	pending := map[network.RequestID]bool{}
	last := time.Now()
	err := chromedp.Listen(p.ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			urls[ev.RequestID] = ev.Request.URL
			pending[ev.RequestID] = true
		case *network.EventLoadingFinished:
			sizes[ev.RequestID] = ev.EncodedDataLength
			delete(pending, ev.RequestID)
		case *network.EventLoadingFailed:
			delete(pending, ev.RequestID)
		default:
			return
		}
		last = time.Now()
	})
	if err != nil {
		t.Fatal(err)
	}
	p.open("")
	// Wait for the network to be quiet: no request open for half a second.
	deadline := time.Now().Add(waitTimeout)
	for {
		mu.Lock()
		quiet := len(pending) == 0 && time.Since(last) > 500*time.Millisecond
		mu.Unlock()
		if quiet {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the network did not go quiet: %d requests open", len(pending))
		}
		time.Sleep(50 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	total, requests := 0.0, 0
	var lines []string
	for id, size := range sizes {
		u := urls[id]
		if strings.Contains(u, "/api/") || !strings.HasPrefix(u, a.URL()) {
			continue
		}
		total += size
		requests++
		lines = append(lines, fmt.Sprintf("%8.0f %s", size, strings.TrimPrefix(u, a.URL())))
	}
	slices.Sort(lines)
	t.Logf("requests:\n%s", strings.Join(lines, "\n"))
	t.Logf("page transfer: %.0f bytes (%d requests)", total, requests)
	if requests == 0 {
		t.Fatal("no request was seen")
	}
	if total > pageWeightLimit {
		t.Errorf("the page transfers %.0f bytes, over the %d-byte bound", total, pageWeightLimit)
	}
	if n := len(sizes) - requests; n > 0 {
		t.Logf("the API answered %d requests during the load", n)
	}
}

// TestPhoneResultFirst: on a phone, where the side panel goes under the
// board, a finished game's result comes first: right under the board, above
// its review, on the first screen; on a desktop it heads the side panel.
func TestPhoneResultFirst(t *testing.T) {
	a := startApp(t)
	for _, v := range []viewport{phone, desktop} {
		p := openPage(t, a, v)
		id := a.createGame(`{"holes": 4, "seeds": 2, "computer": {"side": "n", "level": 1}}`)
		p.open("#/play/" + id)
		p.setSpeed("instant")
		p.localGame(newRand(41), "s")
		p.waitFor("the review", `!document.getElementById("review").hidden`)
		eval[chromedp.Void](p, `window.scrollTo(0, 0)`)
		res, rev, board, panel := p.rectOf("#result"), p.rectOf("#review"), p.rectOf("#board"), p.rectOf(".side-panel")
		if v.phone {
			if res.Top < board.Bottom || res.Bottom > rev.Top || res.Bottom > float64(v.height) {
				t.Errorf("on a phone the result is at y %.0f..%.0f, the board ends at %.0f, the review starts at %.0f: want it between them, on the first screen",
					res.Top, res.Bottom, board.Bottom, rev.Top)
			}
			p.screenshot("result-first-phone.png")
		} else if res.Left < panel.Left || res.Top > panel.Top+120 {
			t.Errorf("on a desktop the result is at (%.0f, %.0f), not at the head of the side panel (%.0f, %.0f)", res.Left, res.Top, panel.Left, panel.Top)
		}
	}
}
