package browsertest

// The harness: the application under test, the shared browser, one page
// (tab) per test with its console watched, and the helpers that read and
// drive the page through the hooks it promises (data-hole, data-busy, ...).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
	"github.com/endodoi/endodoi/web"
)

// waitTimeout bounds one wait or one browser action. It is generous for a
// loaded CI machine; a passing test never comes near it.
const waitTimeout = 60 * time.Second

// Environment variables of the tests.
const (
	envChromium    = "ENDODOI_CHROMIUM"      // path of the browser to use
	envRequire     = "ENDODOI_BROWSER_TESTS" // "require": fail, not skip, without a browser
	envScreenshots = "ENDODOI_SCREENSHOTS"   // folder for the screenshots, if any
)

func TestMain(m *testing.M) {
	code := m.Run()
	closeBrowser()
	os.Exit(code)
}

// ---------------------------------------------------------------------------
// The application under test.

// app is the real application, in process: the API over a store on a
// database file, and the page, behind one HTTP test server.
type app struct {
	t      *testing.T
	dbPath string
	st     *store.SQLite
	server *server.Server
	srv    *httptest.Server
	cancel func() // ends the server's own work (clocks, live connections)
	tables string // endgame databases' folder, if any
	addr   string // the address to listen on again at a restart, or "" for any
}

// startApp starts the application on a fresh database; it is stopped when
// the test ends.
func startApp(t *testing.T) *app {
	t.Helper()
	a := &app{t: t, dbPath: filepath.Join(t.TempDir(), "games.db")}
	a.start()
	t.Cleanup(a.stop)
	return a
}

func (a *app) start() {
	a.t.Helper()
	st, err := store.Open(context.Background(), a.dbPath)
	if err != nil {
		a.t.Fatalf("opening the store %s: %v", a.dbPath, err)
	}
	log := slog.New(slog.NewTextHandler(testWriter{a.t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	mux := http.NewServeMux()
	api := server.New(st, log)
	if a.tables != "" {
		lib := egtb.NewLibrary(a.tables, egtb.LibraryOptions{})
		a.t.Cleanup(lib.Close)
		api.UseTablebases(lib)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := api.Start(ctx); err != nil {
		cancel()
		st.Close()
		a.t.Fatalf("starting the server: %v", err)
	}
	mux.Handle("/api/", api)
	mux.Handle("/", web.Handler())
	srv := httptest.NewUnstartedServer(mux)
	if a.addr != "" {
		srv.Listener.Close()
		ln, err := net.Listen("tcp", a.addr)
		if err != nil {
			cancel()
			api.Close()
			st.Close()
			a.t.Fatalf("listening on %s again: %v", a.addr, err)
		}
		srv.Listener = ln
	}
	srv.Start()
	a.st, a.server, a.srv, a.cancel = st, api, srv, cancel
}

func (a *app) stop() {
	if a.cancel != nil {
		a.cancel() // the live connections end: their pages reconnect
		a.cancel = nil
	}
	if a.srv != nil {
		a.srv.Close()
		a.srv = nil
	}
	if a.server != nil {
		a.server.Close()
		a.server = nil
	}
	if a.st != nil {
		a.st.Close()
		a.st = nil
	}
}

// restart stops the server and starts a new one, on a new port, over the
// same database file.
func (a *app) restart() {
	a.t.Helper()
	a.stop()
	a.start()
}

// restartInPlace stops the server and starts a new one on the same
// address over the same database file, calling whileDown (if not nil) in
// between: the pages open on it stay on their origin, and reconnect.
func (a *app) restartInPlace(whileDown func()) {
	a.t.Helper()
	a.addr = a.srv.Listener.Addr().String()
	defer func() { a.addr = "" }()
	a.stop()
	if whileDown != nil {
		whileDown()
	}
	a.start()
}

// URL is the server's address, with no slash at the end.
func (a *app) URL() string { return a.srv.URL }

// api sends a request to the API and decodes its JSON answer into out (if
// not nil); any status but want fails the test.
func (a *app) api(method, path, body string, want int, out any) {
	a.t.Helper()
	req, err := http.NewRequest(method, a.URL()+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		a.t.Fatalf("%s %s: reading the answer: %v", method, path, err)
	}
	if resp.StatusCode != want {
		a.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			a.t.Fatalf("%s %s: decoding %q: %v", method, path, raw, err)
		}
	}
}

// game is GET /api/games/{id}.
func (a *app) game(id string) gameView {
	a.t.Helper()
	var g gameView
	a.api("GET", "/api/games/"+id, "", http.StatusOK, &g)
	return g
}

// series is GET /api/series/{id}.
func (a *app) series(id string) seriesView {
	a.t.Helper()
	var s seriesView
	a.api("GET", "/api/series/"+id, "", http.StatusOK, &s)
	return s
}

// gameView and seriesView are the parts of the API's answers (docs/api.md)
// that the tests check.
type gameView struct {
	ID         string   `json:"id"`
	South      string   `json:"south"`
	North      string   `json:"north"`
	Holes      int      `json:"holes"`
	Start      string   `json:"start"`
	Position   string   `json:"position"`
	Positions  []string `json:"positions"`
	Moves      []string `json:"moves"`
	ToMove     string   `json:"toMove"`
	LegalMoves []string `json:"legalMoves"`
	Status     string   `json:"status"`
	Result     string   `json:"result"`
	Score      sides    `json:"score"`
	Computer   *struct {
		Side  string `json:"side"`
		Level int    `json:"level"`
	} `json:"computer"`
	SeriesID string      `json:"seriesId"`
	Series   *seriesView `json:"series"`
}

// over reports whether the game has ended.
func (g gameView) over() bool { return g.Result != "*" }

type seriesView struct {
	ID      string   `json:"id"`
	Target  int      `json:"target"`
	Wins    sides    `json:"wins"`
	Draws   int      `json:"draws"`
	Results []string `json:"results"`
	Over    bool     `json:"over"`
	Winner  string   `json:"winner"`
}

type sides struct {
	South int `json:"south"`
	North int `json:"north"`
}

// testWriter sends the server's log to the test's log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// ---------------------------------------------------------------------------
// Positions.

// position is a position in the project's notation (docs/rules.md):
// "a,b,c/A,B,C s 0 0".
type position struct {
	South, North []int // holes a.. and A.., in sowing order
	ToMove       string
	Captured     sides
}

func parsePosition(t *testing.T, s string) position {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 4 {
		t.Fatalf("position %q: want 4 fields", s)
	}
	rows := strings.Split(f[0], "/")
	if len(rows) != 2 {
		t.Fatalf("position %q: want two rows", s)
	}
	row := func(r string) []int {
		var out []int
		for _, c := range strings.Split(r, ",") {
			n, err := strconv.Atoi(c)
			if err != nil {
				t.Fatalf("position %q: count %q: %v", s, c, err)
			}
			out = append(out, n)
		}
		return out
	}
	p := position{South: row(rows[0]), North: row(rows[1]), ToMove: f[1]}
	var err1, err2 error
	p.Captured.South, err1 = strconv.Atoi(f[2])
	p.Captured.North, err2 = strconv.Atoi(f[3])
	if err := errors.Join(err1, err2); err != nil {
		t.Fatalf("position %q: %v", s, err)
	}
	return p
}

// rows formats the board part of a position, "4,4,4/4,4,4", for messages
// and comparisons.
func (p position) rows() string { return formatRows(p.South, p.North) }

func formatRows(south, north []int) string {
	join := func(r []int) string {
		s := make([]string, len(r))
		for i, n := range r {
			s[i] = strconv.Itoa(n)
		}
		return strings.Join(s, ",")
	}
	return join(south) + "/" + join(north)
}

// holeLetter is the name of hole i (from 0) of a side's row: a.. for South,
// A.. for North.
func holeLetter(south bool, i int) string {
	if south {
		return string(rune('a' + i))
	}
	return string(rune('A' + i))
}

// ---------------------------------------------------------------------------
// The browser.

// shared is the browser of the package's tests, started by the first test
// that needs it and closed by TestMain. Each test has its own browser
// context in it (a fresh profile: no storage, no cookies, no cache) and its
// own tab.
var shared struct {
	once    sync.Once
	ctx     context.Context // the browser's chromedp context
	cancel  func()
	missing bool  // no browser was found
	err     error // why there is no browser
	dir     string
}

// findChromium returns the browser to use: $ENDODOI_CHROMIUM, or the first
// of chromium, chromium-browser and google-chrome on the PATH. missing
// tells that none is installed, as opposed to a wrong $ENDODOI_CHROMIUM.
func findChromium() (path string, missing bool, err error) {
	if p := os.Getenv(envChromium); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", false, fmt.Errorf("%s=%s: %w", envChromium, p, err)
		}
		return path, false, nil
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if path, err := exec.LookPath(name); err == nil {
			return path, false, nil
		}
	}
	return "", true, fmt.Errorf("no Chromium: none of chromium, chromium-browser, google-chrome is on the PATH and %s is not set", envChromium)
}

func startBrowser() {
	path, missing, err := findChromium()
	if err != nil {
		shared.missing, shared.err = missing, err
		return
	}
	dir, err := os.MkdirTemp("", "endodoi-chromium-")
	if err != nil {
		shared.err = err
		return
	}
	shared.dir = dir
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.Headless, // Chromium's new headless mode, the only one left
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		// The machines have no network but the loopback: nothing may try.
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(int(desktop.width), int(desktop.height)),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelBrowser := chromedp.NewContext(allocCtx)
	shared.ctx = ctx
	shared.cancel = func() { cancelBrowser(); cancelAlloc() }
	// The first Do starts the browser and binds it to ctx, which has no
	// deadline; a watchdog bounds the start instead.
	done := make(chan error, 1)
	go func() { done <- chromedp.Do(ctx) }()
	select {
	case err = <-done:
	case <-time.After(waitTimeout):
		err = fmt.Errorf("%s did not start within %v", path, waitTimeout)
	}
	if err != nil {
		shared.err = fmt.Errorf("starting %s: %w", path, err)
	}
}

func closeBrowser() {
	if shared.cancel != nil {
		shared.cancel()
	}
	if shared.dir != "" {
		os.RemoveAll(shared.dir)
	}
}

// browserContext returns the shared browser's context, starting the
// browser if need be. Without a browser the test is skipped, or fails when
// the environment requires the browser tests (CI does).
func browserContext(t *testing.T) context.Context {
	t.Helper()
	shared.once.Do(startBrowser)
	if shared.missing {
		if os.Getenv(envRequire) == "require" {
			t.Fatalf("the browser tests are required (%s=require), but there is no browser: %v; install it with: apt-get install chromium", envRequire, shared.err)
		}
		t.Skipf("skipping the browser test: %v; install Chromium (apt-get install chromium) or set %s", shared.err, envChromium)
	}
	if shared.err != nil {
		t.Fatalf("no browser: %v", shared.err)
	}
	return shared.ctx
}

// ---------------------------------------------------------------------------
// Pages.

// viewport is a window size, with device emulation for a phone.
type viewport struct {
	width, height int64
	phone         bool // a mobile device with a touch screen
}

var (
	desktop = viewport{width: 1280, height: 800}
	phone   = viewport{width: 360, height: 740, phone: true}
)

// page is one tab of the shared browser, in a browser context of its own,
// showing the application of one test. Everything the page writes to the
// console is kept; errors, warnings, uncaught exceptions and failed loads
// fail the test when it ends.
type page struct {
	t   *testing.T
	ctx context.Context
	app *app

	mu       sync.Mutex
	console  []string // every message, for the log
	problems []string // the messages that fail the test
	allowed  []*regexp.Regexp
}

// openPage opens a tab for app with the given viewport. It opens no URL:
// use open.
func openPage(t *testing.T, a *app, v viewport) *page {
	t.Helper()
	bctx := browserContext(t)
	ctx, cancel := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext())
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
	t.Cleanup(p.finish) // runs before cancel: cleanups run last first
	var opts []chromedp.EmulateViewportOption
	if v.phone {
		opts = append(opts, chromedp.EmulateMobile, chromedp.EmulateTouch, chromedp.EmulateScale(2))
	}
	p.do("setting the viewport", chromedp.EmulateViewport(v.width, v.height, opts...))
	return p
}

// record keeps a console message; it runs on the console's goroutine.
func (p *page) record(m chromedp.ConsoleMessage) {
	where := ""
	if m.URL != "" {
		where = fmt.Sprintf(" (%s:%d)", m.URL, m.Line+1)
	}
	line := fmt.Sprintf("console %s%s", m, where)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.console = append(p.console, line)
	bad := false
	switch {
	case m.IsException():
		bad = true
	case m.Source == "" && (m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning):
		bad = true // console.error and console.warn
	case m.Source != "" && m.Type == chromedp.ConsoleError:
		bad = true // the browser's log: a failed load, a refused script...
	}
	if !bad {
		return
	}
	for _, re := range p.allowed {
		if re.MatchString(line) {
			return
		}
	}
	p.problems = append(p.problems, line)
}

// allowConsole lets console messages matching re (their text and place)
// pass, for a test that provokes them on purpose.
func (p *page) allowConsole(re string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.allowed = append(p.allowed, regexp.MustCompile(re))
}

// takeProblems returns the problems seen so far and forgets them.
func (p *page) takeProblems() []string {
	p.settle()
	p.mu.Lock()
	defer p.mu.Unlock()
	out := p.problems
	p.problems = nil
	return out
}

// settle lets the console messages already sent reach record: one round
// trip to the page, then a short pause for the subscription's queue.
func (p *page) settle() {
	ctx, cancel := context.WithTimeout(p.ctx, 5*time.Second)
	defer cancel()
	chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](`0`))
	time.Sleep(150 * time.Millisecond)
}

// finish logs the console and fails the test on its problems.
func (p *page) finish() {
	p.settle()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, line := range p.console {
		p.t.Log(line)
	}
	for _, line := range p.problems {
		p.t.Errorf("the page wrote to the console: %s", line)
	}
}

// do runs browser actions, failing the test with what on an error.
func (p *page) do(what string, steps ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
}

// run runs one browser action and returns its value.
func run[T any](p *page, what string, a chromedp.Action[T]) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		p.t.Fatalf("%s: %v", what, err)
	}
	return v
}

// eval evaluates a JavaScript expression in the page, awaiting a promise.
func eval[T any](p *page, js string) T {
	p.t.Helper()
	return run(p, "evaluating "+js, chromedp.Evaluate[T](js, chromedp.EvalAwaitPromise))
}

// evalf is eval of a formatted expression; %q quotes a Go string as a
// JavaScript string.
func evalf[T any](p *page, format string, args ...any) T {
	p.t.Helper()
	return eval[T](p, fmt.Sprintf(format, args...))
}

// open loads the page at a route ("#/play", or "" for the start page) and
// waits until it is idle.
func (p *page) open(route string) {
	p.t.Helper()
	p.do("opening "+route, chromedp.Navigate(p.app.URL()+"/"+route))
	p.waitIdle()
}

// reload reloads the page and waits until it is idle.
func (p *page) reload() {
	p.t.Helper()
	p.do("reloading", chromedp.Reload())
	p.waitIdle()
}

// idleJS tells whether the page says it is idle.
const idleJS = `document.documentElement.dataset.busy === "false"`

// waitIdle waits until no request, animation or computer move is running:
// the page says it is idle (html data-busy="false") several checks in a
// row, so that a request or an animation that starts just after another
// ends is not mistaken for the end.
func (p *page) waitIdle() {
	p.t.Helper()
	p.poll("the page to be idle (html data-busy=\"false\")", idleJS, 3, waitTimeout, busyJS)
}

// waitFor waits until a JavaScript condition holds.
func (p *page) waitFor(what, cond string) {
	p.t.Helper()
	p.poll(what, cond, 1, waitTimeout, busyJS)
}

// busyJS describes the busy marker, for the message of a wait that failed.
const busyJS = `"html data-busy=" + JSON.stringify(document.documentElement.dataset.busy ?? null)`

// poll evaluates a JavaScript condition every few milliseconds until it
// holds calm times in a row. It fails the test after timeout, with the
// string of the JavaScript expression explain, and at once when the page
// writes an error to the console meanwhile: a broken page fails fast
// instead of timing out.
func (p *page) poll(what, cond string, calm int, timeout time.Duration, explain string) {
	p.t.Helper()
	js := fmt.Sprintf(`(() => { try { return !!(%s); } catch (e) { return false; } })()`, cond)
	p.mu.Lock()
	seen := len(p.problems)
	p.mu.Unlock()
	deadline := time.Now().Add(timeout)
	for held := 0; held < calm; {
		ctx, cancel := context.WithTimeout(p.ctx, waitTimeout)
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](js))
		cancel()
		if err != nil {
			p.t.Fatalf("waiting for %s: %v", what, err)
		}
		if ok {
			held++
		} else {
			held = 0
		}
		p.mu.Lock()
		fresh := p.problems[seen:]
		p.mu.Unlock()
		if len(fresh) > 0 {
			p.settle()
			p.t.Fatalf("waiting for %s, the page wrote to the console:\n\t%s", what, strings.Join(p.takeProblems(), "\n\t"))
		}
		if time.Now().After(deadline) {
			state, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](explain))
			p.t.Fatalf("waited %v for %s: %s", timeout, what, state)
		}
		if held < calm {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// clickTimeout bounds the wait for an element to be clickable: after
// waitIdle, what a test clicks should be there at once.
const clickTimeout = 15 * time.Second

// coveredJS tells why the first element matching a selector cannot be
// clicked: it is missing, hidden or disabled, or another element covers its
// centre (a modal dialog, an overlay); "" when it can be. It scrolls the
// element into view first, as a click does.
const coveredJS = `((sel) => {
	const el = document.querySelector(sel);
	if (!el) return "no element matches";
	if (!%s(el)) return "it is not shown";
	el.scrollIntoView({block: "nearest", inline: "nearest"});
	const r = el.getBoundingClientRect();
	const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
	if (hit && !el.contains(hit) && !hit.contains(el)) {
		return "it is covered by <" + hit.tagName.toLowerCase() + (hit.id ? " id=" + hit.id : "") +
			(hit.className ? " class=" + hit.className : "") + ">";
	}
	return "";
})(%q)`

// clickable waits until the first element matching css is shown and not
// covered, and fails the test with the reason if it does not become so.
func (p *page) clickable(css string) {
	p.t.Helper()
	why := fmt.Sprintf(coveredJS, visibleJS, css)
	p.poll(css+" to be clickable", why+` === ""`, 1, clickTimeout, why)
}

// click clicks the first element matching a CSS selector with the mouse,
// as a person would: the element must be shown and not covered, and it is
// scrolled into view first.
func (p *page) click(css string) {
	p.t.Helper()
	p.clickable(css)
	p.do("clicking "+css, chromedp.Click(chromedp.CSS(css)))
}

// tap taps an element on a touch screen.
func (p *page) tap(css string) {
	p.t.Helper()
	p.clickable(css)
	p.do("tapping "+css, chromedp.Tap(chromedp.CSS(css)))
}

// key types keys (letters, or kb constants such as kb.ArrowLeft) into the
// focused element.
func (p *page) key(keys string) {
	p.t.Helper()
	p.do(fmt.Sprintf("typing %q", keys), chromedp.KeyEvent(keys))
}

// blur leaves the focus to the document, for keyboard shortcuts.
func (p *page) blur() {
	p.t.Helper()
	eval[chromedp.Void](p, `document.activeElement && document.activeElement.blur && document.activeElement.blur()`)
}

// exists reports whether an element matches a CSS selector.
func (p *page) exists(css string) bool {
	p.t.Helper()
	return evalf[bool](p, `document.querySelector(%q) !== null`, css)
}

// mustExist fails the test when no element matches a CSS selector, naming
// the hook.
func (p *page) mustExist(css string) {
	p.t.Helper()
	if !p.exists(css) {
		p.t.Fatalf("the page has no %s", css)
	}
}

// visibleJS is a JavaScript function telling whether an element is shown.
const visibleJS = `(el => !!el && !el.closest("[hidden]") && el.getClientRects().length > 0 &&
	getComputedStyle(el).visibility !== "hidden")`

// visible reports whether the first element matching css is shown.
func (p *page) visible(css string) bool {
	p.t.Helper()
	return evalf[bool](p, `%s(document.querySelector(%q))`, visibleJS, css)
}

// text is the trimmed text of the first element matching css ("" if none).
func (p *page) text(css string) string {
	p.t.Helper()
	return evalf[string](p, `(document.querySelector(%q)?.textContent ?? "").replace(/\s+/g, " ").trim()`, css)
}

// attr is an attribute of the first element matching css ("" if none).
func (p *page) attr(css, name string) string {
	p.t.Helper()
	return evalf[string](p, `document.querySelector(%q)?.getAttribute(%q) ?? ""`, css, name)
}

// count is the number of elements matching css.
func (p *page) count(css string) int {
	p.t.Helper()
	return evalf[int](p, `document.querySelectorAll(%q).length`, css)
}

// setField sets a form field (an input or a select) and fires its input
// and change events, as a person's choice does.
func (p *page) setField(css, value string) {
	p.t.Helper()
	ok := evalf[bool](p, `(() => {
		const el = document.querySelector(%q);
		if (!el) return false;
		if (el.tagName === "SELECT" && ![...el.options].some(o => o.value === %q)) return false;
		el.value = %q;
		el.dispatchEvent(new Event("input", {bubbles: true}));
		el.dispatchEvent(new Event("change", {bubbles: true}));
		return true;
	})()`, css, value, value)
	if !ok {
		p.t.Fatalf("cannot set %s to %q: no such field or option", css, value)
	}
}

// setSpeed chooses the animation speed: slow, normal, fast or instant.
func (p *page) setSpeed(speed string) {
	p.t.Helper()
	p.setField("#speed", speed)
}

// setLanguage chooses the page's language and waits until the page
// follows it.
func (p *page) setLanguage(lang string) {
	p.t.Helper()
	p.setField("#lang", lang)
	p.waitFor("the page to switch to "+lang, fmt.Sprintf(`document.documentElement.lang === %q`, lang))
	p.waitIdle()
}

// hash is the page's location hash, "#/play/3f2a...".
func (p *page) hash() string {
	p.t.Helper()
	return eval[string](p, `location.hash`)
}

var playRoute = regexp.MustCompile(`^#/play/([^/?#]+)$`)

// gameID is the id of the game shown, from the route.
func (p *page) gameID() string {
	p.t.Helper()
	h := p.hash()
	m := playRoute.FindStringSubmatch(h)
	if m == nil {
		p.t.Fatalf("the route %q names no game (want #/play/{id})", h)
	}
	return m[1]
}

// screenshot saves a PNG of the viewport as name in $ENDODOI_SCREENSHOTS,
// when it is set.
func (p *page) screenshot(name string) {
	p.t.Helper()
	dir := os.Getenv(envScreenshots)
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		p.t.Fatalf("screenshot folder: %v", err)
	}
	// Let fonts and the last paint settle.
	eval[chromedp.Void](p, `document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))))`)
	png := run(p, "taking a screenshot", chromedp.CaptureScreenshot())
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		p.t.Fatalf("saving %s: %v", path, err)
	}
	p.t.Logf("saved %s", path)
}
