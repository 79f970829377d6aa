package browsertest

// The page with no server: after one visit the service worker answers the
// page's files, the games on this device are played by the engine in
// WebAssembly and kept in IndexedDB, and sent to the server once when it is
// back; the static site of `endodoi site`; the app's installability; a new
// version never swapped in under a game being played.

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/web"
)

// The browser's own lines when a request finds no server: expected while it
// is stopped.
const refusedLoads = `net::ERR_CONNECTION_REFUSED|Failed to load resource|Failed to fetch`

// waitOffline waits until the service worker controls the page and keeps
// every file of the page's version.
func (p *page) waitOffline() {
	p.t.Helper()
	p.waitFor("the service worker to control the page", `!!navigator.serviceWorker.controller`)
	ok := eval[bool](p, `(async () => {
		const { build } = await import("./js/build.js");
		const cache = await caches.open("endodoi-" + build.version);
		return !!(await cache.match(build.wasm)) && !!(await cache.match("./")) && !!(await cache.match("js/offline.js"));
	})()`)
	if !ok {
		p.t.Fatal("the service worker controls the page but its cache lacks the page, offline.js or the module")
	}
}

// localMoves plays the game shown by clicking random legal holes until the
// page shows a result, as playToEnd, with no server to compare against. It
// returns the moves of the game's list and the score the piles show.
func (p *page) localGame(rng *rand.Rand, side string) (moves int, score string) {
	p.t.Helper()
	for clicks := 0; !p.gameOver(); clicks++ {
		if clicks == maxMoves {
			p.t.Fatalf("the game has not ended after %d moves", maxMoves)
		}
		legal := p.legal(side)
		if len(legal) == 0 {
			p.t.Fatalf("after %d moves the game is not over but no hole of row %q is offered; status %q", clicks, side, p.text("#status"))
		}
		p.click(holeCSS(legal[rng.IntN(len(legal))]))
		p.waitIdle()
	}
	return p.plies(), p.attr("#pile-south", "data-count") + "-" + p.attr("#pile-north", "data-count")
}

// route shows another screen of the page loaded, by its address's hash:
// with no server to load the page from.
func (p *page) route(hash string) {
	p.t.Helper()
	evalf[chromedp.Void](p, `location.hash = %q`, hash)
	p.waitIdle()
}

// serverGames is the server's list of games.
func (a *app) serverGames() []struct {
	ID, South, North string
	Moves            int
	Result           string
	Score            sides
} {
	a.t.Helper()
	var list struct {
		Games []struct {
			ID, South, North string
			Moves            int
			Result           string
			Score            sides
		}
	}
	a.api("GET", "/api/games?limit=200&offset=0", "", http.StatusOK, &list)
	return list.Games
}

// TestOfflineGames visits once, stops the server, reloads, plays a whole
// game against the computer and a whole game between two people, then
// starts the server again: the page sends both games, and the server's list
// has each once, also after the page sends them again.
func TestOfflineGames(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.waitOffline()
	p.setSpeed("instant")

	type played struct {
		moves int
		score string
	}
	var games []played
	a.restartInPlace(func() {
		p.allowConsole(refusedLoads)
		p.reload()
		if !p.visible("#start-choice") {
			t.Fatal("with the server stopped, the reloaded page does not offer the ways to play")
		}
		id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "computer", Level: 4, First: "s", Mode: "single"})
		if !strings.HasPrefix(id, "local-") {
			t.Fatalf("with no server the game's id is %q, want a game of this browser (local-...)", id)
		}
		m, s := p.localGame(newRand(11), "s")
		games = append(games, played{m, s})
		t.Logf("against the computer, offline: %d moves, %s", m, s)

		id2 := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "friend", First: "s", Mode: "single"})
		if id2 == id || !strings.HasPrefix(id2, "local-") {
			t.Fatalf("the second game's id is %q (the first's %q)", id2, id)
		}
		m, s = p.localGame(newRand(12), "")
		games = append(games, played{m, s})
		t.Logf("between two people, offline: %d moves, %s", m, s)

		// The list of games shows both, from this browser.
		p.route("#/history")
		if n := p.count(`#history [data-game-id^="local-"]`); n != 2 {
			t.Errorf("offline, the list of games shows %d games of this browser, want 2", n)
		}
		p.screenshot("offline-history-desktop.png")

		// A game of this browser has its record written by the page: in
		// the text form, the JSON one being the server's.
		const exportLink = `#history [data-game-id^="local-"] a[download$=".txt"]`
		if n := p.count(`#history [data-game-id^="local-"] a[download$=".json"]`); n != 0 {
			t.Errorf("offline, %d links to a JSON record the page cannot write", n)
		}
		rec := p.download(exportLink)
		if _, err := record.Parse(rec); err != nil || !strings.Contains(rec, `[Holes "6"]`) || !strings.Contains(rec, `[Offline "`) {
			t.Errorf("the record exported offline does not read back (%v):\n%s", err, rec)
		}
	})

	// The server is back: the next visit sends the games.
	p.reload()
	for deadline := time.Now().Add(waitTimeout); len(a.serverGames()) < 2; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for the page to send the two games: the server has %d", waitTimeout, len(a.serverGames()))
		}
	}
	check := func(when string) {
		t.Helper()
		list := a.serverGames()
		if len(list) != 2 {
			t.Fatalf("%s: the server lists %d games, want the 2 played offline: %+v", when, len(list), list)
		}
		var got []played
		for _, g := range list {
			got = append(got, played{g.Moves, fmt.Sprintf("%d-%d", g.Score.South, g.Score.North)})
			if g.Result == "*" {
				t.Errorf("%s: the server has game %s unfinished", when, g.ID)
			}
		}
		slices.SortFunc(got, func(x, y played) int { return x.moves - y.moves })
		want := slices.Clone(games)
		slices.SortFunc(want, func(x, y played) int { return x.moves - y.moves })
		if !slices.Equal(got, want) {
			t.Errorf("%s: the server holds %v (moves, score), the page played %v", when, got, want)
		}
	}
	check("after reconnecting")
	computer := false
	for _, g := range a.serverGames() {
		computer = computer || strings.Contains(g.North, "level 4")
	}
	if !computer {
		t.Error("the game against the computer does not name the computer and its level in the server's list")
	}

	// Sent again (a page closed before it heard the server's answer): still once.
	p.waitFor("the page to know both games sent", `localStorage.getItem("endodoi.offlineGames") === null`)
	sent := p.resendAll()
	if sent != 2 {
		t.Errorf("sent again, %d games were answered, want 2", sent)
	}
	check("after sending them again")
	// The page's list shows each game once.
	p.reload()
	p.goTo("#/history")
	p.waitIdle()
	if n, local := p.count(`#history [data-game-id]`), p.count(`#history [data-game-id^="local-"]`); n != 2 || local != 0 {
		t.Errorf("the list of games shows %d games, %d of them this browser's; want the server's 2 only", n, local)
	}
}

// TestOfflineAnalysisAndLearn: with the server stopped after a visit, the
// analysis board plays and evaluates moves, and a lesson of Learn plays,
// through the worker; online play says plainly that it needs the server.
func TestOfflineAnalysisAndLearn(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.waitOffline()
	a.restartInPlace(func() {
		p.allowConsole(refusedLoads)
		p.reload()
		p.route("#/analysis")
		legal := p.legalOf(analysisBoard, "")
		if len(legal) == 0 {
			t.Fatalf("offline, the analysis board offers no move; the message: %q", p.text("#message"))
		}
		p.playAnalysis(legal[0])
		p.waitFor("an evaluation of the move", `document.querySelectorAll("#an-lines li").length > 0`)
		if !eval[bool](p, `document.getElementById("message").hidden`) {
			t.Errorf("offline, the analysis board shows the message %q", p.text("#message"))
		}

		p.route("#/learn/lesson/1")
		p.waitFor("lesson 1", `document.querySelector("#learn-stage").dataset.kind === "lesson-1"`)
		p.learnMove("c", false)
		p.wantLearnState("offline, lesson 1 after c", "done")
		puzzle := readPuzzles(t)[1]
		p.route("#/learn/puzzle/" + puzzle.ID)
		p.waitFor("the puzzle", fmt.Sprintf(`document.querySelector("#learn-stage").dataset.kind === "puzzle-%s"`, puzzle.ID))
		p.learnMove(puzzle.Answer, false)
		p.wantLearnState("offline, a puzzle after its answer", "done")

		p.route("#/play")
		p.newGameDialog("online")
		p.click("#ng-start")
		p.waitFor("the plain sentence", `!document.getElementById("ng-error").hidden`)
		if got := p.text("#ng-error"); !strings.Contains(got, "needs the server") {
			t.Errorf("an online game offline: the dialog says %q, want that online play needs the server", got)
		}
	})
}

// TestStaticSite serves the output of `endodoi site` from a plain static
// file server and plays a game against the computer: no request reaches an
// endodoi API, online play is hidden with a sentence that says why.
func TestStaticSite(t *testing.T) {
	site, apiCalls := serveSite(t)
	p := openPage(t, nil, desktop)
	p.do("opening the static site", chromedp.Navigate(site+"/"))
	p.waitIdle()
	p.waitFor("the static site's note", `document.querySelector("#start-choice .site-note") !== null`)
	if p.visible(`#start-choice [data-opponent="online"]`) {
		t.Error("the static site offers online play")
	}
	if note := p.text("#start-choice .site-note"); !strings.Contains(note, "no server") {
		t.Errorf("the static site's note says %q", note)
	}
	p.setSpeed("instant")
	id := p.startGame(newGame{Holes: 6, Seeds: 4, Opponent: "computer", Level: 2, First: "s", Mode: "single"})
	if !strings.HasPrefix(id, "local-") {
		t.Fatalf("the static site's game has the id %q", id)
	}
	m, s := p.localGame(newRand(21), "s")
	t.Logf("on the static site: %d moves, %s", m, s)
	p.waitFor("the review's sentence", `document.getElementById("review-body").textContent.includes("needs the server")`)
	if p.visible("#message") {
		t.Errorf("after a game on the static site the page raises the message %q", p.text("#message"))
	}
	p.screenshot("static-site-desktop.png")
	for _, c := range apiCalls() {
		t.Errorf("the static site asked %s of a server", c)
	}
	p.waitOffline()
}

// serveSite writes the static site of `endodoi site` and serves it from a
// plain static file server. It returns the site's address, and calls, the
// paths under /api/ asked of it so far (none should be).
func serveSite(t *testing.T) (url string, calls func() []string) {
	t.Helper()
	dir := t.TempDir()
	if _, err := web.WriteSite(dir); err != nil {
		t.Fatal(err)
	}
	var (
		mu       sync.Mutex
		apiCalls []string
	)
	files := http.FileServer(http.Dir(dir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			mu.Lock()
			apiCalls = append(apiCalls, r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(apiCalls)
	}
}

// openProfilePage opens a tab in the browser's own profile, not in a
// browser context of its own as openPage does: Chromium installs no app
// from such a context, which it counts as incognito. No other test uses the
// profile, and each test's server has a port, so an origin, of its own.
func openProfilePage(t *testing.T, a *app) *page {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browserContext(t))
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	p := &page{t: t, ctx: ctx, app: a}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			p.record(m)
		}
	}()
	t.Cleanup(p.finish)
	p.do("setting the viewport", chromedp.EmulateViewport(desktop.width, desktop.height))
	return p
}

// TestInstallable: Chromium finds nothing that keeps the page from being
// installed (Page.getInstallabilityErrors).
func TestInstallable(t *testing.T) {
	a := startApp(t)
	p := openProfilePage(t, a)
	p.open("")
	p.waitOffline()
	res, err := chromedp.Call(p.ctx, cdppage.GetInstallabilityErrors, cdp.Empty{})
	if err != nil {
		t.Fatalf("Page.getInstallabilityErrors: %v", err)
	}
	for _, e := range res.InstallabilityErrors {
		var args []string
		for _, a := range e.ErrorArguments {
			args = append(args, a.Name+"="+a.Value)
		}
		t.Errorf("installability error %s %v", e.ErrorID, args)
	}
	manifest := eval[string](p, `fetch("manifest.webmanifest").then(r => r.headers.get("Content-Type"))`)
	if !strings.HasPrefix(manifest, "application/manifest+json") {
		t.Errorf("the manifest is served as %q", manifest)
	}
}

// countingProxy stands before an app: it counts the bytes of the page's
// files it passes on (not the API's), and, once newVersion is set, serves
// a service worker of another version, as after an upgrade of the server.
type countingProxy struct {
	mu         sync.Mutex
	bytes      int64
	requests   int
	newVersion string
}

func (c *countingProxy) take() (int64, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	b, n := c.bytes, c.requests
	c.bytes, c.requests = 0, 0
	return b, n
}

func startCountingProxy(t *testing.T, a *app) (*countingProxy, string) {
	t.Helper()
	c := &countingProxy{}
	target, err := url.Parse(a.URL())
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(target)
	director := rp.Director
	rp.Director = func(r *http.Request) {
		director(r)
		if r.URL.Path == "/sw.js" {
			// Read whole and plain, to rewrite.
			r.Header.Del("Accept-Encoding")
			r.Header.Del("If-None-Match")
		}
	}
	rp.ModifyResponse = func(res *http.Response) error {
		if strings.HasPrefix(res.Request.URL.Path, "/api/") {
			return nil
		}
		body, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return err
		}
		c.mu.Lock()
		if res.Request.URL.Path == "/sw.js" && c.newVersion != "" {
			body = regexp.MustCompile(`"version":"[0-9a-f]+"`).ReplaceAll(body, []byte(`"version":"`+c.newVersion+`"`))
			res.Header.Del("ETag")
		}
		c.bytes += int64(len(body))
		c.requests++
		c.mu.Unlock()
		res.Body = io.NopCloser(bytes.NewReader(body))
		res.ContentLength = int64(len(body))
		res.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return c, srv.URL
}

// waitAsync waits until a JavaScript promise resolves to true.
func (p *page) waitAsync(what, js string) {
	p.t.Helper()
	for deadline := time.Now().Add(waitTimeout); !eval[bool](p, js); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			p.t.Fatalf("waited %v for %s", waitTimeout, what)
		}
	}
}

// swVersion is the version of the service worker controlling the page.
const swVersionJS = `new Promise((ok) => {
	const ch = new MessageChannel();
	ch.port1.onmessage = (e) => ok(e.data);
	navigator.serviceWorker.controller.postMessage("version", [ch.port2]);
})`

// TestOfflineUpdateBetweenGames: a new version of the page, found while a
// game is played, waits: the page keeps its scripts and does not offer it
// until the game is over; then "Reload" brings it. It also measures what
// the first visit, with the service worker keeping every file, and the
// update cost (docs/benchmarks.md).
func TestOfflineUpdateBetweenGames(t *testing.T) {
	a := startApp(t)
	proxy, origin := startCountingProxy(t, a)
	p := openPage(t, a, desktop)
	p.do("opening the page", chromedp.Navigate(origin+"/"))
	p.waitIdle()
	p.waitOffline()
	p.waitFor("the network to be quiet", `true`)
	time.Sleep(500 * time.Millisecond)
	first, n := proxy.take()
	t.Logf("a first visit, the service worker's copy included: %d bytes in %d answers", first, n)
	v1 := eval[string](p, swVersionJS)

	p.setSpeed("instant")
	p.newGameDialog("friend")
	p.setField("#ng-holes", "4")
	p.setField("#ng-seeds", "2")
	p.click("#ng-start")
	p.waitFor("the game", `/^#\/play\/[0-9a-f]{16}$/.test(location.hash)`)
	p.waitIdle()
	p.play(p.legal("")[0])

	// The server is upgraded; the browser finds the new version.
	proxy.take()
	proxy.mu.Lock()
	proxy.newVersion = "0123456789abcdef"
	proxy.mu.Unlock()
	eval[chromedp.Void](p, `navigator.serviceWorker.getRegistration().then((r) => r.update())`)
	p.waitAsync("the new version to be installed and wait", `navigator.serviceWorker.getRegistration().then((r) => !!r.waiting && r.waiting.state === "installed")`)
	update, n := proxy.take()
	t.Logf("an update that changes no file but the service worker: %d bytes in %d answers", update, n)

	time.Sleep(2500 * time.Millisecond) // the page looks for it every 2 s
	if p.visible("#update") {
		t.Error("a new version is offered while a game is being played")
	}
	if got := eval[string](p, swVersionJS); got != v1 {
		t.Errorf("while a game is played the page's files come from version %s, not %s", got, v1)
	}
	for !p.gameOver() {
		p.play(p.legal("")[0])
	}
	p.waitFor("the offer of the new version", `!!document.getElementById("update") && !document.getElementById("update").hidden`)
	p.screenshot("update-offer-desktop.png")
	eval[chromedp.Void](p, `window.oldVersion = true`)
	p.click("#update-reload")
	p.waitFor("the page of the new version", `!window.oldVersion && !!navigator.serviceWorker.controller && document.readyState === "complete"`)
	p.waitIdle()
	if got := eval[string](p, swVersionJS); got != "0123456789abcdef" {
		t.Errorf("after Reload the page's files come from version %s, want the new one", got)
	}
	if p.visible("#update") {
		t.Error("after Reload the new version is still offered")
	}
}

// TestOfflineLevelTimes plays each level's move in the page's worker, on a
// CPU throttled 4× (a slow phone, as Chromium emulates it), on positions of
// the 8-hole board from the start to the middle game, and logs the slowest
// answer of each level (docs/benchmarks.md). It checks the answers, not
// their times: speed goals live in the benchmarks.
func TestOfflineLevelTimes(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	start := "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0"
	// The positions: a game of level 3 against itself, at 0, 8, 16 and 24 plies.
	lines := eval[[][]string](p, fmt.Sprintf(`import("./js/offline.js").then(async (m) => {
		const moves = [], out = [];
		for (let ply = 0; ply <= 24; ply++) {
			if (ply %% 8 === 0) out.push([...moves]);
			const s = await m.engine({ op: "search", position: %q, moves, level: 3, seed: 1 });
			if (!s.move) break;
			moves.push(s.move);
		}
		return out;
	})`, start))
	slowest := func(level int) float64 {
		t.Helper()
		worst := 0.0
		for _, moves := range lines {
			quoted := make([]string, len(moves))
			for i, m := range moves {
				quoted[i] = strconv.Quote(m)
			}
			res := evalf[struct {
				Move string
				Ms   float64
			}](p, `import("./js/offline.js").then(async (m) => {
				const req = { op: "game", position: %q, moves: [%s] };
				const g = await m.engine(req);
				const t0 = performance.now();
				const s = await m.engine({ ...req, op: "search", level: %d });
				return { move: g.legalMoves.includes(s.move) ? s.move : "illegal " + s.move, ms: performance.now() - t0 };
			})`, start, strings.Join(quoted, ","), level)
			if strings.HasPrefix(res.Move, "illegal") || res.Move == "" {
				t.Errorf("level %d after %v: the worker answers %q", level, moves, res.Move)
			}
			worst = max(worst, res.Ms)
		}
		return worst
	}
	unthrottled := map[int]float64{}
	for _, level := range []int{8, 9, 10} {
		unthrottled[level] = slowest(level)
	}
	if _, err := chromedp.Call(p.ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 4}); err != nil {
		t.Fatalf("throttling the CPU: %v", err)
	}
	defer chromedp.Call(p.ctx, emulation.SetCPUThrottlingRate, emulation.SetCPUThrottlingRateParams{Rate: 1})
	for level := 1; level <= 10; level++ {
		worst := slowest(level)
		if u, ok := unthrottled[level]; ok {
			t.Logf("level %2d: slowest answer %6.0f ms unthrottled", level, u)
		}
		t.Logf("level %2d: slowest answer %6.0f ms (CPU throttled 4×, %d positions)", level, worst, len(lines))
	}
}

// download clicks the link css as a person would and returns the file the
// browser saved.
func (p *page) download(css string) string {
	p.t.Helper()
	dir := p.t.TempDir()
	if _, err := chromedp.Call(p.ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
		Behavior: browser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir,
		BrowserContextID: chromedp.FromContext(p.ctx).BrowserContextID,
	}); err != nil {
		p.t.Fatalf("allowing downloads: %v", err)
	}
	p.click(css)
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(50 * time.Millisecond) {
		files, _ := os.ReadDir(dir)
		if len(files) == 1 && !strings.HasSuffix(files[0].Name(), ".crdownload") {
			data, err := os.ReadFile(filepath.Join(dir, files[0].Name()))
			if err != nil {
				p.t.Fatal(err)
			}
			return string(data)
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("clicking %s: no file downloaded in %v (%d in the folder)", css, waitTimeout, len(files))
		}
	}
}

// resendAll marks every game this browser keeps as not yet sent, as a page
// closed before it heard the server's answer leaves them, and sends them;
// it returns how many the server answered.
func (p *page) resendAll() int {
	p.t.Helper()
	return eval[int](p, `(async () => {
		const req = indexedDB.open("endodoi", 1);
		const db = await new Promise((ok, ko) => { req.onsuccess = () => ok(req.result); req.onerror = () => ko(req.error); });
		const all = await new Promise((ok) => { const r = db.transaction("games").objectStore("games").getAll(); r.onsuccess = () => ok(r.result); });
		const x = db.transaction("games", "readwrite");
		for (const g of all) { g.sent = ""; x.objectStore("games").put(g); }
		await new Promise((ok) => (x.oncomplete = ok));
		localStorage.setItem("endodoi.offlineGames", "1");
		const m = await import("./js/offline.js");
		return m.sync();
	})()`)
}
