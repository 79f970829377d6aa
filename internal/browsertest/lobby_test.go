package browsertest

// The lobby: two players with accounts, one with a passkey on a desktop and
// one with a password on a phone, from a seek to a rated game's rating
// change, a quick pairing, the profile with its graph, the leaderboard, and
// challenges by name, one accepted and one declined.

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/webauthn"
	"github.com/chromedp/chromedp"
)

// addAuthenticator gives the page's browser context Chromium's virtual
// authenticator, which answers passkey ceremonies by itself.
func addAuthenticator(p *page) {
	p.t.Helper()
	if _, err := chromedp.Call(p.ctx, webauthn.Enable, webauthn.EnableParams{}); err != nil {
		p.t.Fatalf("enabling WebAuthn: %v", err)
	}
	if _, err := chromedp.Call(p.ctx, webauthn.AddVirtualAuthenticator, webauthn.AddVirtualAuthenticatorParams{
		Options: &webauthn.VirtualAuthenticatorOptions{Protocol: webauthn.AuthenticatorProtocolCtap2, Ctap2version: webauthn.Ctap2versionCtap21,
			Transport: webauthn.AuthenticatorTransportInternal, HasResidentKey: true, HasUserVerification: true,
			IsUserVerified: true, AutomaticPresenceSimulation: true}}); err != nil {
		p.t.Fatalf("adding a virtual authenticator: %v", err)
	}
}

// visit opens route on origin (the app's address, or its localhost form
// for a page with passkeys) and waits until the page is idle.
func (p *page) visit(origin, route string) {
	p.t.Helper()
	p.do("opening "+route, chromedp.Navigate(origin+"/"+route))
	p.waitIdle()
}

// signUp makes an account in the account dialog, with a passkey when
// password is empty, and closes the dialog.
func (p *page) signUp(name, password string) {
	p.t.Helper()
	p.click("#account-open")
	p.waitFor("the account dialog", `document.getElementById("account-dialog")?.open && !document.querySelector(".account-out").hidden`)
	p.setField("#account-name", name)
	if password == "" {
		p.click("#account-passkey-signup")
	} else {
		p.setField("#account-password", password)
		p.click("#account-signup")
	}
	p.waitFor("signed in as "+name, `document.getElementById("account-who").textContent.includes(`+jsString(name)+`)`)
	p.click("#account-close")
	p.waitIdle()
}

// seat is the side the page's account holds in game id ("" for none).
func (p *page) seat(id string) string {
	p.t.Helper()
	return evalf[string](p, `fetch("/api/games/" + %q).then(r => r.json()).then(g => g.you || "")`, id)
}

// waitGame waits until the page shows a game other than not, and returns its id.
func (p *page) waitGame(what, not string) string {
	p.t.Helper()
	p.waitFor(what, `/^#\/play\/[^/]+$/.test(location.hash) && location.hash !== "#/play/" + `+jsString(not)+
		` && !document.getElementById("play-layout").hidden`)
	p.waitIdle()
	return p.gameID()
}

// ratedGame is what the API says of a rated game's players and result.
type ratedGame struct {
	Rated   bool `json:"rated"`
	You     string
	Players map[string]struct {
		Name   string   `json:"name"`
		Rating *float64 `json:"rating"`
	} `json:"players"`
	RatingChange map[string]struct {
		Before, After, Diff int
	} `json:"rating_change"`
	Result string `json:"result"`
}

func TestLobbyRatedGameProfileAndChallenges(t *testing.T) {
	a := startApp(t)
	// Amina plays on a desktop with a passkey, which belongs to a domain:
	// her page is on localhost. Baraka plays on a phone with a password.
	amina := openPage(t, a, desktop)
	addAuthenticator(amina)
	local := strings.Replace(a.URL(), "127.0.0.1", "localhost", 1)
	baraka := openPage(t, a, phone)
	open := func(p *page, route string) {
		t.Helper()
		if p == amina {
			p.visit(local, route)
		} else {
			p.visit(a.URL(), route)
		}
	}

	// Signed out, the lobby is there to see, and says that playing needs an account.
	open(baraka, "#/lobby")
	baraka.waitFor("the pools", `document.querySelectorAll("#lobby-pools button[data-pool]").length === 5`)
	if !baraka.visible("#lobby-signin") || !eval[bool](baraka, `[...document.querySelectorAll("#lobby-pools button")].every(b => b.disabled)`) {
		t.Error("signed out, the lobby does not say that playing needs an account, or lets the pools be joined")
	}
	if baraka.visible("#lobby-create") {
		t.Error("signed out, the lobby offers to create a seek")
	}
	baraka.screenshot("lobby-signed-out-phone.png")
	baraka.signUp("Baraka", "kite-Umbrella-74-ledger")
	baraka.waitFor("the lobby for a signed-in player", `document.getElementById("lobby-signin").hidden && !document.getElementById("lobby-create").hidden`)

	open(amina, "#/lobby")
	amina.click("#lobby-signin-button")
	amina.waitFor("the account dialog", `document.getElementById("account-dialog")?.open`)
	amina.click("#account-close")
	amina.signUp("Amina", "")
	amina.waitFor("the lobby for a signed-in player", `document.getElementById("lobby-signin").hidden && !document.getElementById("lobby-create").hidden`)

	// Amina seeks a rated blitz game; Baraka sees it arrive and takes it.
	amina.click("#lobby-create > summary")
	amina.setField("#seek-clock", "3+2")
	amina.setField("#seek-mode", "rated")
	amina.click("#seek-post")
	amina.waitFor("her seek in the list", `document.querySelector("#lobby-seek-list tr.mine button[data-seek]") !== null`)
	baraka.waitFor("Amina's seek, live", `[...document.querySelectorAll("#lobby-seek-list tr")].some(r => r.textContent.includes("Amina") && r.textContent.includes("3+2"))`)
	amina.screenshot("lobby-seek-desktop.png")
	baraka.tap(`#lobby-seek-list button[data-mine="false"]`)
	id := baraka.waitGame("the paired game", "")
	if got := amina.waitGame("the paired game, opened by itself", ""); got != id {
		t.Fatalf("the players were sent to different games: %s and %s", got, id)
	}
	for _, p := range []*page{amina, baraka} {
		p.setSpeed("instant")
		p.waitFor("Rated, and both ratings", `document.getElementById("game-mode")?.textContent === "Rated" && !document.getElementById("rating-south").hidden && !document.getElementById("rating-north").hidden`)
	}
	side := map[*page]string{amina: amina.seat(id), baraka: baraka.seat(id)}
	if side[amina] == "" || side[baraka] == "" || side[amina] == side[baraka] {
		t.Fatalf("the seats: Amina %q, Baraka %q", side[amina], side[baraka])
	}
	byside := map[string]*page{side[amina]: amina, side[baraka]: baraka}
	for ply, mover := range []string{"s", "n"} {
		p := byside[mover]
		legal := p.legal(mover)
		if len(legal) == 0 {
			t.Fatalf("ply %d: the page of %s shows no legal move", ply+1, mover)
		}
		p.play(legal[0])
		for _, q := range []*page{amina, baraka} {
			q.waitFor("the move", fmt.Sprintf(`document.querySelectorAll("#moves [data-ply]").length === %d`, ply+1))
		}
	}
	amina.click("#act-resign")
	amina.click("#resign-yes")
	for _, p := range []*page{amina, baraka} {
		p.waitFor("the rating change", `document.querySelectorAll("#rating-change span").length === 2`)
	}
	var g ratedGame
	a.api("GET", "/api/games/"+id, "", http.StatusOK, &g)
	if !g.Rated || len(g.RatingChange) != 2 {
		t.Fatalf("the game: rated %v, rating change %v", g.Rated, g.RatingChange)
	}
	winner := side[baraka]
	if w, l := g.RatingChange[winner].Diff, g.RatingChange[side[amina]].Diff; w <= 0 || l >= 0 {
		t.Errorf("after Amina resigned, the changes are %+d for Baraka and %+d for Amina", w, l)
	}
	for _, p := range []*page{amina, baraka} {
		text := p.text("#rating-change")
		for who, s := range map[string]string{"Baraka": winner, "Amina": side[amina]} {
			c := g.RatingChange[s]
			sign := "+"
			if c.Diff < 0 {
				sign = "\u2212"
				c.Diff = -c.Diff
			}
			// After one game both ratings are provisional: "?", kept after
			// the number by an isolate.
			want := fmt.Sprintf("%s: %s%d, now \u2066%s?\u2069", who, sign, c.Diff, thousands(c.After))
			if !strings.Contains(text, want) {
				t.Errorf("the end screen says %q, not %q", text, want)
			}
		}
	}
	// On the phone the result and the rating change come first, above the game's review.
	baraka.waitFor("the review", `!document.getElementById("review").hidden`)
	if change, review := baraka.rectOf("#rating-change"), baraka.rectOf("#review"); change.Bottom > review.Top {
		t.Errorf("on the phone the rating change (y %.0f..%.0f) is not above the review (y %.0f)", change.Top, change.Bottom, review.Top)
	}
	amina.screenshot("rated-game-end-desktop.png")
	baraka.screenshot("rated-game-end-phone.png")

	// Baraka reports the game from its menu.
	baraka.tap("#game-menu > summary")
	baraka.setField("#report-reason", "abuse")
	baraka.setField("#report-text", "Rude words in the chat of another site.")
	baraka.tap("#report-send")
	baraka.waitFor("the report's thanks", `document.getElementById("message").textContent.includes("your report was sent")`)

	// Amina opens Baraka's profile from his name: his rating, its graph and table, his games.
	amina.click("#rating-" + map[string]string{"s": "south", "n": "north"}[winner])
	amina.waitFor("Baraka's profile", `location.hash === "#/profile/Baraka" && document.querySelector("#profile-graph svg.rating-graph") !== null`)
	amina.waitIdle()
	if n := amina.count("#profile-ratings tr"); n != 1 {
		t.Errorf("the profile lists %d ratings, want 1", n)
	}
	if n := amina.count("#profile-points tr"); n != 1 {
		t.Errorf("the rating table has %d rows, want 1", n)
	}
	if n := amina.count("#profile-games tr"); n != 1 {
		t.Errorf("the profile lists %d games, want 1", n)
	}
	if got := amina.text("#profile-sides"); !strings.Contains(got, "1") {
		t.Errorf("the results by side: %q", got)
	}
	amina.screenshot("profile-desktop.png")
	amina.setField("#pf-result", "loss")
	amina.click("#pf-apply")
	amina.waitIdle()
	if n := amina.count("#profile-games tr"); n != 0 || !amina.visible("#profile-games-empty") {
		t.Errorf("filtered to Baraka's losses, the profile lists %d games", n)
	}
	open(amina, "#/leaderboard/8-blitz")
	amina.waitFor("the leaderboard, empty while both ratings are provisional", `document.getElementById("board-category")?.value === "8-blitz" && !document.getElementById("board-empty").hidden`)
	// It says how many rated games a player needs, and how many more Amina does.
	amina.waitFor("the games a player needs", `/about \d+ rated games/.test(document.getElementById("board-appear").textContent) && /not settled yet: about \d+ more rated games/.test(document.getElementById("board-you").textContent)`)
	amina.screenshot("leaderboard-provisional-desktop.png")

	// A seek withdrawn, and a pool left, leave the lists.
	open(amina, "#/lobby")
	open(baraka, "#/lobby")
	amina.click("#lobby-create > summary")
	amina.setField("#seek-clock", "7d")
	amina.click("#seek-post")
	baraka.waitFor("the correspondence seek", `[...document.querySelectorAll("#lobby-seek-list tr")].some(r => r.textContent.includes("7 days a move"))`)
	amina.click(`#lobby-seek-list button[data-mine="true"]`)
	baraka.waitFor("the seek withdrawn", `document.querySelectorAll("#lobby-seek-list tr").length === 0 && !document.getElementById("lobby-seeks-empty").hidden`)
	amina.click(`#lobby-pools button[data-pool="8-5+3"]`)
	baraka.waitFor("Amina in the 5+3 pool", `document.querySelector('#lobby-pools button[data-pool="8-5+3"] .pool-count')?.textContent === "1 player waiting"`)
	amina.click(`#lobby-pools button[data-pool="8-5+3"]`)
	amina.waitFor("out of the pool", `document.querySelector('#lobby-pools button[data-pool="8-5+3"]').getAttribute("aria-pressed") === "false"`)
	baraka.waitFor("the pool empty", `document.querySelector('#lobby-pools button[data-pool="8-5+3"] .pool-count')?.textContent === "0 players waiting"`)

	// Quick pairing: both choose 1+0 and are paired with each other.
	amina.click(`#lobby-pools button[data-pool="8-1+0"]`)
	amina.waitFor("waiting in the pool", `document.querySelector('#lobby-pools button[data-pool="8-1+0"]').getAttribute("aria-pressed") === "true"`)
	open(baraka, "#/lobby")
	baraka.waitFor("someone waiting", `document.querySelector('#lobby-pools button[data-pool="8-1+0"] .pool-count')?.textContent.startsWith("1 ")`)
	baraka.tap(`#lobby-pools button[data-pool="8-1+0"]`)
	pooled := baraka.waitGame("the pool's game", id)
	if got := amina.waitGame("the pool's game, opened by itself", id); got != pooled {
		t.Fatalf("the pool sent the players to different games: %s and %s", got, pooled)
	}

	// A challenge by name, from Baraka's profile; he sees it on another screen and accepts.
	open(baraka, "#/rules")
	open(amina, "#/profile/Baraka")
	amina.click("#profile-challenge")
	amina.waitFor("the challenge form", `document.getElementById("lobby-challenge")?.open && document.getElementById("challenge-name").value === "Baraka"`)
	amina.setField("#challenge-clock", "10+5")
	amina.click("#challenge-send")
	amina.waitFor("her challenge waiting", `document.querySelector("#notices .notice.outgoing") !== null`)
	// Amina has no rating in rapid yet: she shows a new player's.
	baraka.waitFor("the challenge", `document.querySelector("#notices .notice.incoming")?.textContent.includes("Amina (\u20661,500?\u2069) challenges you")`)
	baraka.screenshot("challenge-phone.png")
	baraka.tap("#notices .ch-accept")
	challenged := baraka.waitGame("the challenge's game", pooled)
	if got := amina.waitGame("the challenge's game, opened by itself", pooled); got != challenged {
		t.Fatalf("the challenge sent the players to different games: %s and %s", got, challenged)
	}

	// Another challenge, declined: Amina reads the answer.
	open(amina, "#/lobby/challenge/Baraka")
	amina.click("#challenge-send")
	baraka.waitFor("the second challenge", `document.querySelector("#notices .notice.incoming") !== null`)
	baraka.tap("#notices .ch-decline")
	amina.waitFor("the answer", `[...document.querySelectorAll("#notices .notice.news")].some(n => n.textContent.includes("Baraka declined your challenge"))`)
	baraka.waitFor("the notice gone", `document.querySelector("#notices .notice.incoming") === null`)

	// Amina blocks Baraka from their last game's menu: his challenges are refused.
	open(amina, "#/play/"+challenged)
	amina.click("#game-menu > summary")
	amina.click("#game-block")
	amina.waitFor("the block said", `document.getElementById("message").textContent.includes("Baraka is blocked")`)
	var blocks struct{ Blocks []struct{ Name string } }
	if err := json.Unmarshal([]byte(eval[string](amina, `fetch("/api/me/blocks").then(r => r.text())`)), &blocks); err != nil || len(blocks.Blocks) != 1 || blocks.Blocks[0].Name != "Baraka" {
		t.Errorf("after blocking, Amina's blocks are %+v (%v)", blocks, err)
	}
	baraka.allowConsole(`status of 403 .*/api/challenges`)
	open(baraka, "#/lobby/challenge/Amina")
	baraka.tap("#challenge-send")
	baraka.waitFor("the refusal", `document.getElementById("message").textContent === "This player does not take challenges from you."`)

	// The lobby and a profile in Urdu, on the phone.
	open(baraka, "#/lobby")
	baraka.setLanguage("ur")
	baraka.waitFor("the lobby in Urdu", `document.querySelector("#view-lobby h1").textContent === "آن لائن کھیلیں"`)
	baraka.screenshot("lobby-urdu-phone.png")
	open(baraka, "#/profile/Amina")
	baraka.waitFor("Amina's profile", `document.querySelector("#profile-graph svg") !== null`)
	baraka.screenshot("profile-urdu-phone.png")
}

// thousands writes n as the English page does: 1,512.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// player is an account's HTTP client, with its session cookie.
type player struct {
	t    *testing.T
	a    *app
	http *http.Client
}

// signUpAPI makes an account over the API.
func signUpAPI(t *testing.T, a *app, name string) *player {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	p := &player{t: t, a: a, http: &http.Client{Jar: jar}}
	p.call("POST", "/api/account/signup", fmt.Sprintf(`{"name": %q, "password": "kite-Umbrella-74-ledger"}`, name), http.StatusCreated, nil)
	return p
}

// call sends a request as the player and decodes the answer into out (if not nil).
func (p *player) call(method, path, body string, want int, out any) {
	p.t.Helper()
	if method == http.MethodPost && body == "" {
		body = "{}" // the server takes only JSON posts
	}
	req, err := http.NewRequest(method, p.a.URL()+path, strings.NewReader(body))
	if err != nil {
		p.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := p.http.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatal(err)
	}
	if resp.StatusCode != want {
		p.t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			p.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
}

// ratedGameAPI has seeker seek a rated 3+2 game, taker take it, both move
// once and seeker resign; it returns the game's id.
func ratedGameAPI(seeker, taker *player) string {
	t := seeker.t
	t.Helper()
	var seek struct{ Seek struct{ ID string } }
	seeker.call("POST", "/api/lobby/seeks", `{"minutes": 3, "increment": 2, "rated": true}`, http.StatusCreated, &seek)
	var paired struct{ Game, Side string }
	taker.call("POST", "/api/lobby/seeks/"+seek.Seek.ID+"/accept", "", http.StatusCreated, &paired)
	bySide := map[string]*player{paired.Side: taker, map[string]string{"s": "n", "n": "s"}[paired.Side]: seeker}
	for _, side := range []string{"s", "n"} {
		g := seeker.a.game(paired.Game)
		bySide[side].call("POST", "/api/games/"+paired.Game+"/moves", fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), http.StatusOK, nil)
	}
	seeker.call("POST", "/api/games/"+paired.Game+"/actions", `{"action": "resign", "ply": 2}`, http.StatusOK, nil)
	return paired.Game
}

// openProfile shows the profile of a player with a rated game, for the
// accessibility checks.
func openProfile(p *page) {
	p.t.Helper()
	// Made once for all the languages the checks visit.
	resp, err := http.Get(p.app.URL() + "/api/players/Naserian")
	if err != nil {
		p.t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		naserian := signUpAPI(p.t, p.app, "Naserian")
		ratedGameAPI(signUpAPI(p.t, p.app, "Lemayian"), naserian)
	}
	p.goTo("#/profile/Naserian")
	p.waitFor("the rating graph", `document.querySelector("#profile-graph svg") !== null`)
	p.waitIdle()
}

// TestProfilePagingAndLeaderboard: a player's games come twenty at a time,
// and two players settled by many rated games head the leaderboard.
func TestProfilePagingAndLeaderboard(t *testing.T) {
	a := startApp(t)
	naserian, lemayian := signUpAPI(t, a, "Naserian"), signUpAPI(t, a, "Lemayian")
	// The ratings count only a few games a day between two players: each
	// plays 21 against seven others, three each.
	var others []*player
	for i := range 7 {
		others = append(others, signUpAPI(t, a, fmt.Sprintf("Helper%d", i)))
	}
	for i := range 21 {
		for _, p := range []*player{naserian, lemayian} {
			// Each resigns in turn, so that no rating runs away.
			if i%2 == 0 {
				ratedGameAPI(p, others[i/3])
			} else {
				ratedGameAPI(others[i/3], p)
			}
		}
	}
	p := openPage(t, a, desktop)
	p.open("#/profile/Naserian")
	p.waitFor("the first page of games", `document.querySelectorAll("#profile-games tr").length === 20`)
	p.click("#profile-more")
	p.waitFor("the second page", `document.querySelectorAll("#profile-games tr").length === 21 && document.getElementById("profile-more").hidden`)
	if n := p.count("#profile-points tr"); n != 21 {
		t.Errorf("the rating table has %d rows, want 21", n)
	}
	if n := p.count("#profile-graph circle"); n != 21 {
		t.Errorf("the graph has %d points, want 21", n)
	}
	eval[chromedp.Void](p, `document.getElementById("profile-graph").scrollIntoView()`)
	p.screenshot("profile-history-desktop.png")
	p.click(`#profile-ratings a[href="#/leaderboard/8-blitz"]`)
	p.waitFor("the leaderboard", `location.hash === "#/leaderboard/8-blitz" && document.querySelectorAll("#board-list tr").length === 2`)
	rows := eval[[]string](p, `[...document.querySelectorAll("#board-list tr")].map(r => [...r.cells].map(c => c.textContent).join("|"))`)
	if !strings.HasPrefix(rows[0], "1|") || !strings.HasPrefix(rows[1], "2|") {
		t.Errorf("the leaderboard's rows: %q", rows)
	}
	p.screenshot("leaderboard-desktop.png")
	p.setField("#board-category", "8-bullet")
	p.waitFor("an empty category", `location.hash === "#/leaderboard/8-bullet" && !document.getElementById("board-empty").hidden`)
}

// brokenWordsJS lists the words split across lines, or spilling out of
// their box, in the elements matching a selector (a range over a word
// split across lines has a rectangle on each).
const brokenWordsJS = `((sel) => {
	const out = [];
	for (const el of document.querySelectorAll(sel)) {
		if (el.scrollWidth > el.clientWidth + 1) out.push(el.textContent + " (spills out)");
		const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let node; (node = walk.nextNode()); ) {
			for (const m of node.textContent.matchAll(/\S+/g)) {
				const r = document.createRange();
				r.setStart(node, m.index);
				r.setEnd(node, m.index + m[0].length);
				const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0).map((x) => Math.round(x.top)));
				if (lines.size > 1) out.push(m[0]);
			}
		}
	}
	return out;
})(%q)`

// TestPoolTilesKeepWordsWhole: the lobby's pool tiles break no word
// ("Correspondence") across lines, on a phone, a small phone and a
// desktop, in every language.
func TestPoolTilesKeepWordsWhole(t *testing.T) {
	a := startApp(t)
	small := viewport{width: 320, height: 640, phone: true}
	for _, v := range []viewport{phone, small, desktop} {
		p := openPage(t, a, v)
		p.open("#/lobby")
		for _, lang := range []string{"en", "sw", "vi", "bn", "ur", "cs"} {
			p.setLanguage(lang)
			p.waitFor("the pools", `document.querySelectorAll("#lobby-pools button[data-pool]").length > 0`)
			if broken := evalf[[]string](p, brokenWordsJS, "#lobby-pools button[data-pool]"); len(broken) > 0 {
				t.Errorf("%s, %dpx wide: the pool tiles break %q", lang, v.width, broken)
			}
			if lang == "en" && v == small {
				p.do("scrolling to the pools", chromedp.ScrollIntoView("#lobby-pools"))
				p.screenshot("lobby-pools-small-phone.png")
			}
		}
	}
}

// TestNoticesDoNotPileUp: the notices of challenges show the newest first,
// under the one that declines them all, and fold the older ones; acting on one clears it; the answers to a
// player's challenges are one notice, and the answers close all at once;
// an accepted challenge's notice goes once its game is left. On a phone.
func TestNoticesDoNotPileUp(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, phone)
	p.open("")
	p.signUp("Amina", "kite-Umbrella-74-ledger")
	p.setSpeed("instant")
	rivals := map[string]*player{}
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("Rival%d", i)
		rivals[name] = signUpAPI(t, a, name)
	}
	const settings = `"holes": 8, "seeds": 4, "variant": "standard", "minutes": 5, "increment": 3, "days": 0, "rated": false, "side": "random"`
	var ids []string
	for i := 1; i <= 5; i++ {
		var c struct{ Challenge struct{ ID string } }
		rivals[fmt.Sprintf("Rival%d", i)].call("POST", "/api/challenges", `{"to": "Amina", `+settings+`}`, http.StatusCreated, &c)
		ids = append(ids, c.Challenge.ID)
		time.Sleep(20 * time.Millisecond) // each a moment after the other
	}
	p.waitFor("five challenges", `document.querySelectorAll("#notices .notice.incoming").length === 5`)
	shown := func() []string {
		t.Helper()
		return eval[[]string](p, `[...document.querySelectorAll("#notices .notice")].filter((n) => n.checkVisibility()).map((n) => n.textContent)`)
	}
	wantShown := func(when string, starts ...string) {
		t.Helper()
		got := shown()
		ok := len(got) == len(starts)
		for i := 0; ok && i < len(starts); i++ {
			ok = strings.HasPrefix(got[i], starts[i])
		}
		if !ok {
			t.Errorf("%s: the notices shown are %q, want them to start %q", when, got, starts)
		}
	}
	// The challenges' own notice, to decline them all, comes first; then
	// the three newest, each challenger with a rating (new players' 1,500,
	// provisional).
	challenges := func(name string) string { return name + " (\u20661,500?\u2069) challenges you" }
	wantShown("five challenges", "5 challenges wait for your answer.", challenges("Rival5"), challenges("Rival4"), challenges("Rival3"))
	if got := p.text("#notices .notices-more > summary"); got != "2 more notices" {
		t.Errorf("the folded notices are summed up as %q", got)
	}
	p.screenshot("notices-folded-phone.png")
	// Declined from its notice: gone; the next folded one shows.
	p.tap("#notices .notice.incoming .ch-decline")
	p.waitFor("four challenges", `document.querySelectorAll("#notices .notice.incoming").length === 4`)
	wantShown("one declined", "4 challenges wait for your answer.", challenges("Rival4"), challenges("Rival3"), challenges("Rival2"))
	for i := 1; i <= 4; i++ {
		rivals[fmt.Sprintf("Rival%d", i)].call("POST", "/api/challenges/"+ids[i-1]+"/cancel", "", http.StatusOK, nil)
	}
	p.waitFor("no challenge left", `document.querySelectorAll("#notices .notice").length === 0`)

	// Her challenges, declined: an answer a player, the newest first.
	challenge := func(to string) string {
		t.Helper()
		id := evalf[string](p, `fetch("/api/challenges", {method: "POST", headers: {"Content-Type": "application/json"},
			body: JSON.stringify({to: %q, `+settings+`})}).then((r) => r.json()).then((c) => c.challenge.id)`, to)
		p.waitFor("her challenge to "+to, fmt.Sprintf(`document.querySelector('#notices .notice.outgoing[data-challenge=%q]') !== null`, id))
		return id
	}
	decline := func(name string) {
		t.Helper()
		id := challenge(name)
		rivals[name].call("POST", "/api/challenges/"+id+"/decline", "", http.StatusOK, nil)
		p.waitFor(name+"'s answer", fmt.Sprintf(`[...document.querySelectorAll("#notices .notice.news")].some((n) => n.textContent.startsWith(%q))`, name+" declined"))
		time.Sleep(20 * time.Millisecond)
	}
	for _, name := range []string{"Rival1", "Rival2", "Rival3", "Rival4", "Rival1"} {
		decline(name)
	}
	if n := p.count("#notices .notice.news"); n != 4 {
		t.Errorf("after five answers from four players, %d notices of answers", n)
	}
	wantShown("the answers", "Rival1 declined", "Rival4 declined", "Rival3 declined")
	p.screenshot("notices-answers-phone.png")
	p.tap("#notices .ch-close-all")
	p.waitFor("the answers closed", `document.querySelectorAll("#notices .notice").length === 0 && document.getElementById("notices").hidden`)

	// Accepted: its game opens, with the notice, until it is left.
	id := challenge("Rival5")
	var acc struct{ Game string }
	rivals["Rival5"].call("POST", "/api/challenges/"+id+"/accept", "", http.StatusCreated, &acc)
	p.waitFor("the game", fmt.Sprintf(`location.hash === "#/play/%s"`, acc.Game))
	wantShown("the game accepted", "Rival5 accepted")
	p.goTo("#/rules")
	p.waitIdle()
	if got := shown(); len(got) != 0 {
		t.Errorf("the game left, the notices shown are %q", got)
	}
}
