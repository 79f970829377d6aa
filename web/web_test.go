package web

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

func get(t *testing.T, method, target string, header map[string]string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	Handler().ServeHTTP(rec, req)
	return rec
}

func TestContentTypes(t *testing.T) {
	for _, c := range []struct{ path, ctype string }{
		{"/", "text/html; charset=utf-8"},
		{"/index.html", "text/html; charset=utf-8"},
		{"/style.css", "text/css; charset=utf-8"},
		{"/js/main.js", "text/javascript; charset=utf-8"},
		{"/i18n/en.json", "application/json; charset=utf-8"},
		{"/favicon.svg", "image/svg+xml"},
	} {
		rec := get(t, http.MethodGet, c.path, nil)
		if rec.Code != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", c.path, rec.Code)
			continue
		}
		if got := rec.Header().Get("Content-Type"); got != c.ctype {
			t.Errorf("GET %s: Content-Type %q, want %q", c.path, got, c.ctype)
		}
		if got := rec.Header().Get("Cache-Control"); got != "no-cache" {
			t.Errorf("GET %s: Cache-Control %q, want no-cache", c.path, got)
		}
		if rec.Header().Get("ETag") == "" {
			t.Errorf("GET %s: no ETag", c.path)
		}
		if rec.Body.Len() == 0 {
			t.Errorf("GET %s: empty body", c.path)
		}
	}
	if rec := get(t, http.MethodGet, "/", nil); !strings.Contains(rec.Body.String(), `id="table"`) {
		t.Error("GET / does not serve the page with the game's table")
	}
	if rec := get(t, http.MethodGet, "/", nil); rec.Header().Get("Content-Security-Policy") == "" {
		t.Error("GET / has no Content-Security-Policy")
	}
}

func TestETagRevalidation(t *testing.T) {
	first := get(t, http.MethodGet, "/js/main.js", nil)
	etag := first.Header().Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) {
		t.Fatalf("ETag %q is not a quoted strong tag", etag)
	}
	again := get(t, http.MethodGet, "/js/main.js", map[string]string{"If-None-Match": etag})
	if again.Code != http.StatusNotModified || again.Body.Len() != 0 {
		t.Errorf("If-None-Match with the ETag: status %d, %d bytes; want 304 and no body", again.Code, again.Body.Len())
	}
	gz := get(t, http.MethodGet, "/js/main.js", map[string]string{"Accept-Encoding": "gzip"})
	gzTag := gz.Header().Get("ETag")
	if gzTag == etag {
		t.Errorf("the gzipped and plain forms share the ETag %s", etag)
	}
	for _, tag := range []string{gzTag, `W/` + etag, `"other", ` + etag, "*"} {
		if rec := get(t, http.MethodGet, "/js/main.js", map[string]string{"If-None-Match": tag, "Accept-Encoding": "gzip"}); rec.Code != http.StatusNotModified {
			t.Errorf("If-None-Match %s: status %d, want 304", tag, rec.Code)
		}
	}
	if rec := get(t, http.MethodGet, "/js/main.js", map[string]string{"If-None-Match": `"stale"`}); rec.Code != http.StatusOK {
		t.Errorf("If-None-Match with a stale tag: status %d, want 200", rec.Code)
	}
	if other := get(t, http.MethodGet, "/style.css", nil).Header().Get("ETag"); other == etag {
		t.Error("two different files have the same ETag")
	}
}

func TestGzip(t *testing.T) {
	plain := get(t, http.MethodGet, "/js/game.js", nil)
	if plain.Header().Get("Content-Encoding") != "" {
		t.Fatal("gzipped for a client that did not ask")
	}
	if !strings.Contains(plain.Header().Get("Vary"), "Accept-Encoding") {
		t.Error("no Vary: Accept-Encoding")
	}
	for _, accept := range []string{"gzip", "gzip, deflate, br", "br;q=1.0, gzip;q=0.8", "*"} {
		rec := get(t, http.MethodGet, "/js/game.js", map[string]string{"Accept-Encoding": accept})
		if rec.Header().Get("Content-Encoding") != "gzip" {
			t.Errorf("Accept-Encoding %q: not gzipped", accept)
			continue
		}
		zr, err := gzip.NewReader(rec.Body)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(body, plain.Body.Bytes()) {
			t.Errorf("Accept-Encoding %q: the gzipped body differs from the plain one", accept)
		}
		if rec.Header().Get("Content-Type") != "text/javascript; charset=utf-8" {
			t.Errorf("gzipped Content-Type %q", rec.Header().Get("Content-Type"))
		}
	}
	for _, accept := range []string{"gzip;q=0", "identity", "br"} {
		if rec := get(t, http.MethodGet, "/js/game.js", map[string]string{"Accept-Encoding": accept}); rec.Header().Get("Content-Encoding") != "" {
			t.Errorf("Accept-Encoding %q: gzipped anyway", accept)
		}
	}
	// Compression happens once: the same bytes every time.
	a := get(t, http.MethodGet, "/", map[string]string{"Accept-Encoding": "gzip"})
	b := get(t, http.MethodGet, "/", map[string]string{"Accept-Encoding": "gzip"})
	if !bytes.Equal(a.Body.Bytes(), b.Body.Bytes()) {
		t.Error("two gzipped answers differ")
	}
}

func TestNotFoundAndMethods(t *testing.T) {
	for _, p := range []string{"/nope", "/js/", "/js", "/i18n/xx.json", "/static/index.html", "/../web.go", "/index.html/"} {
		if rec := get(t, http.MethodGet, p, nil); rec.Code != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, rec.Code)
		}
	}
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch, http.MethodOptions} {
		rec := get(t, m, "/", nil)
		if rec.Code != http.StatusMethodNotAllowed {
			t.Errorf("%s /: status %d, want 405", m, rec.Code)
		}
		if rec.Header().Get("Allow") != "GET, HEAD" {
			t.Errorf("%s /: Allow %q", m, rec.Header().Get("Allow"))
		}
	}
	head := get(t, http.MethodHead, "/style.css", nil)
	if head.Code != http.StatusOK || head.Body.Len() != 0 || head.Header().Get("Content-Length") == "" {
		t.Errorf("HEAD: status %d, %d bytes, Content-Length %q", head.Code, head.Body.Len(), head.Header().Get("Content-Length"))
	}
}

// TestPageWeight keeps the page small: everything a first visit loads (the
// markup, style, scripts, images and one catalog) under pageBudget. (It
// was 150 KB before online play, which added about 32 KB: the live
// connection, clocks, invitations and their messages; and 240 KB before the
// static site explained the screens it lacks, in six languages.) The fonts are
// counted apart: a page loads one at most, and only in its language
// (their @font-face has a unicode-range); fontBudget bounds each.
var fontBudget = map[string]int{
	"static/fonts/noto-sans-bengali.woff2":  60_000,
	"static/fonts/noto-nastaliq-urdu.woff2": 130_000,
}

// pageBudget bounds, uncompressed, what a first visit loads: the page, its
// style, its scripts and one catalog (the server sends them gzipped, about
// a quarter of the size).
const pageBudget = 245_000

// lazy lists what the page loads only when it is needed, in parts, each
// with its budget: Learn's script and puzzles when Learn is first opened,
// the review's script when a finished game is first shown, the online
// games' controller when an online game is first shown, the account
// dialog when first opened, and the lobby's, the profiles' and the rated
// games' parts.
var lazy = []struct {
	name   string
	files  func(name string) bool
	budget int
}{
	{"Learn", func(name string) bool {
		return name == "static/js/learn.js" || strings.HasPrefix(name, "static/learn/")
	}, 40_000},
	{"Review", func(name string) bool { return name == "static/js/review.js" }, 30_000},
	// The online games' controller with the live connection (livesocket.js),
	// which the lobby's connection also uses. 20 KB before the live
	// protocol's version 2: applying its move messages to the game takes
	// about 2.7 KB once, and saves up to 12 KB on each move of a long game.
	{"Online", func(name string) bool {
		return name == "static/js/onlinegame.js" || name == "static/js/livesocket.js"
	}, 23_000},
	{"Account", func(name string) bool { return name == "static/js/account.js" }, 12_000},
	// The lobby with its live connection, the challenges' notices (in the
	// order notices.js keeps), its style and the words of the lobby, the
	// profiles and the rated games, loaded when the lobby, a profile or a
	// rated game is first shown, or at once for a signed-in player (whom
	// challenges reach on any screen). 40 KB before the notices were ordered
	// and folded and the players to challenge were listed.
	{"Lobby", func(name string) bool {
		switch name {
		case "static/js/lobby.js", "static/js/lobbylive.js", "static/js/lobbyapi.js", "static/js/notices.js", "static/lobby.css", "static/i18n/lobby/en.json":
			return true
		}
		return false
	}, 48_000},
	// A profile with its rating graph, and the leaderboards (which say how
	// many games a player needs to appear).
	{"Profiles", func(name string) bool {
		return name == "static/js/profile.js" || name == "static/js/ratinggraph.js"
	}, 21_000},
	// The players' ratings, the rating change, reports and blocks in a game between accounts.
	{"Rated game", func(name string) bool { return name == "static/js/rated.js" }, 7_000},
	// The engine's worker and Go's loader for it, started when the page
	// first plays with no server; the module itself (cmd/wasm, 1.1 MB
	// gzipped) is kept in wasm/, not in static/, and weighed by TestWasmServed.
	{"Engine worker", func(name string) bool {
		return name == "static/js/engine-worker.js" || name == "static/js/wasm_exec.js"
	}, 24_000},
	// The games played with no server (offline.js) and the watch for the
	// server's return (reconnect.js), loaded when the server cannot be
	// reached, a game of this browser is opened, or the page has no server
	// (the static site); and the offer of a new version (update.js).
	{"Offline", func(name string) bool {
		switch name {
		case "static/js/offline.js", "static/js/reconnect.js", "static/js/update.js":
			return true
		}
		return false
	}, 24_000},
	// The app's manifest and icons, which a browser fetches for installing
	// the page, not to show it; the service worker keeps them with the rest.
	{"App install", func(name string) bool {
		return name == "static/manifest.webmanifest" || strings.HasPrefix(name, "static/icons/")
	}, 90_000},
}

func TestPageWeight(t *testing.T) {
	total := 0
	parts := make([]int, len(lazy))
	for name, budget := range fontBudget {
		data, err := fs.ReadFile(static, name)
		if err != nil {
			t.Errorf("the font %s: %v", name, err)
			continue
		}
		if len(data) > budget {
			t.Errorf("the font %s weighs %d bytes, over its budget of %d", name, len(data), budget)
		}
	}
	err := fs.WalkDir(static, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(name, "static/i18n/") && path.Base(name) != "en.json" {
			return nil // one catalog is loaded at a time
		}
		if strings.HasPrefix(name, "static/fonts/") {
			return nil // counted above; the licence text is not loaded
		}
		data, err := fs.ReadFile(static, name)
		for i, part := range lazy {
			if part.files(name) {
				parts[i] += len(data)
				return err
			}
		}
		total += len(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > pageBudget {
		t.Errorf("the page's assets weigh %d bytes, over %d", total, pageBudget)
	}
	for i, part := range lazy {
		if parts[i] > part.budget {
			t.Errorf("%s's assets weigh %d bytes, over %d", part.name, parts[i], part.budget)
		}
		t.Logf("%s: %d bytes more when first needed", part.name, parts[i])
	}
	t.Logf("page weight: %d bytes", total)
}

// The catalogs and the keys the page uses.

var languages = []string{"en", "sw", "vi", "bn", "ur", "cs"}

// pluralForms are the forms Intl.PluralRules(lang).resolvedOptions()
// .pluralCategories gives for each language; a plural key group (a key
// ending in .one and .other in en.json) must have each of them, and "one"
// and "other" always.
var pluralForms = map[string][]string{
	"en": {"one", "other"},
	"sw": {"one", "other"},
	"vi": {"other"},
	"bn": {"one", "other"},
	"ur": {"one", "other"},
	"cs": {"one", "few", "many", "other"},
}

var allForms = []string{"zero", "one", "two", "few", "many", "other"}

// catalog returns the messages of lang: its catalog, static/i18n/<lang>.json,
// with those of the parts loaded later, static/i18n/<part>/<lang>.json. A key
// is in one file only.
func catalog(t *testing.T, lang string) map[string]string {
	t.Helper()
	files, err := fs.Glob(static, "static/i18n/*/"+lang+".json")
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]string{}
	where := map[string]string{}
	for _, name := range append([]string{"static/i18n/" + lang + ".json"}, files...) {
		data, err := fs.ReadFile(static, name)
		if err != nil {
			t.Fatalf("catalog %s: %v", lang, err)
		}
		var part map[string]string
		if err := json.Unmarshal(data, &part); err != nil {
			t.Fatalf("catalog %s: %v", name, err)
		}
		for k, v := range part {
			if w, ok := where[k]; ok {
				t.Errorf("the key %q is in both %s and %s", k, w, name)
			}
			m[k], where[k] = v, name
		}
	}
	return m
}

// pluralGroups returns the plural key groups of en: "seeds" for
// seeds.one and seeds.other.
func pluralGroups(en map[string]string) map[string]bool {
	groups := map[string]bool{}
	for k := range en {
		if base, ok := strings.CutSuffix(k, ".other"); ok {
			groups[base] = true
		}
	}
	return groups
}

var placeholder = regexp.MustCompile(`\{(\w+)\}`)

func placeholders(s string) []string {
	var out []string
	for _, m := range placeholder.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func TestCatalogs(t *testing.T) {
	en := catalog(t, "en")
	groups := pluralGroups(en)
	for g := range groups {
		if _, ok := en[g+".one"]; !ok {
			t.Errorf("en: plural group %s has no %s.one", g, g)
		}
	}
	for _, lang := range languages {
		cat := catalog(t, lang)
		for k := range en {
			if _, ok := cat[k]; !ok {
				t.Errorf("%s: missing key %q", lang, k)
			}
		}
		for k, v := range cat {
			want, ok := en[k]
			if !ok {
				// Extra plural forms are allowed for the groups of en.
				i := strings.LastIndex(k, ".")
				if i < 0 || !groups[k[:i]] || !slices.Contains(allForms, k[i+1:]) {
					t.Errorf("%s: extra key %q (not in en.json)", lang, k)
					continue
				}
				want = en[k[:i]+".other"]
			}
			if strings.TrimSpace(v) == "" {
				t.Errorf("%s: key %q is empty", lang, k)
			}
			if got, w := placeholders(v), placeholders(want); !slices.Equal(got, w) {
				t.Errorf("%s: key %q has the placeholders %v, en has %v", lang, k, got, w)
			}
		}
		for g := range groups {
			for _, form := range pluralForms[lang] {
				if _, ok := cat[g+"."+form]; !ok {
					t.Errorf("%s: plural group %q lacks the form %q the language needs", lang, g, form)
				}
			}
		}
	}
}

var (
	// data-i18n="key", data-i18n-aria-label="key", data-i18n-title="key", ...
	htmlKey = regexp.MustCompile(`data-i18n(?:-[a-z-]+)?="([^"]+)"`)
	// t("key" and tp("key" in the scripts; tp's key names a plural group;
	// dataset.i18n = "key" for markup the scripts draw.
	jsKey    = regexp.MustCompile(`\bt\(\s*"([^"]+)"`)
	jsPlural = regexp.MustCompile(`\btp\(\s*"([^"]+)"`)
	jsMarkup = regexp.MustCompile(`\.dataset\.i18n = "([^"]+)"`)
	// Any other call of t or tp, with a computed key the test cannot check.
	jsDynamic = regexp.MustCompile(`\btp?\(\s*[^"\s)]`)
)

// usedKeys returns the catalog keys the page's markup and scripts use.
func usedKeys(t *testing.T) map[string]string {
	t.Helper()
	used := map[string]string{} // key -> file that uses it
	err := fs.WalkDir(static, "static", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(static, name)
		if err != nil {
			return err
		}
		text := string(data)
		switch path.Ext(name) {
		case ".html":
			for _, m := range htmlKey.FindAllStringSubmatch(text, -1) {
				used[m[1]] = name
			}
		case ".js":
			text = stripComments(text)
			for _, m := range jsKey.FindAllStringSubmatch(text, -1) {
				used[m[1]] = name
			}
			for _, m := range jsMarkup.FindAllStringSubmatch(text, -1) {
				used[m[1]] = name
			}
			for _, m := range jsPlural.FindAllStringSubmatch(text, -1) {
				used[m[1]+".one"] = name
				used[m[1]+".other"] = name
			}
			if name == "static/js/i18n.js" {
				break // it defines t and tp, and applies the markup's data-i18n keys, checked above
			}
			for _, line := range strings.Split(text, "\n") {
				if jsDynamic.MatchString(line) {
					t.Errorf("%s: a translation with a computed key, which this test cannot check: %s", name, strings.TrimSpace(line))
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return used
}

var (
	blockComment = regexp.MustCompile(`(?s)/\*.*?\*/`)
	lineComment  = regexp.MustCompile(`(?m)(^|\s)//.*$`)
)

// stripComments removes a script's comments, which may mention keys in prose.
func stripComments(js string) string {
	return lineComment.ReplaceAllString(blockComment.ReplaceAllString(js, ""), "$1")
}

func TestCatalogKeysUsed(t *testing.T) {
	en := catalog(t, "en")
	used := usedKeys(t)
	for k, file := range used {
		if _, ok := en[k]; !ok {
			t.Errorf("%s uses the key %q, which en.json lacks", file, k)
		}
	}
	for k := range en {
		if _, ok := used[k]; !ok {
			t.Errorf("en.json has the key %q, which nothing uses", k)
		}
	}
}

// BenchmarkLoad is what preparing the files costs a server's start: every
// embedded file read and hashed, and the build's descriptors written.
func BenchmarkLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		set, err := loadAssets()
		if err == nil {
			_, err = addOfflineFiles(set, true)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}
