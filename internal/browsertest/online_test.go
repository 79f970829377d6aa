package browsertest

// Online play: two browsers (separate browser contexts, so separate
// storage) play each other through an invitation link while a third
// watches; clocks, reloads, a server restart and the spectators' limits.

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/store"
)

// onlineView is the "online" part of an online game in the API.
type onlineView struct {
	Seats     map[string]bool  `json:"seats"`
	Connected map[string]bool  `json:"connected"`
	Watchers  int              `json:"watchers"`
	Clocks    map[string]int64 `json:"clocks"`
	Running   string           `json:"running"`
	End       string           `json:"end"`
	Rev       int64            `json:"rev"`
}

// onlineGame is an online game as the API shows it.
type onlineGame struct {
	gameView
	Online *onlineView `json:"online"`
}

func (a *app) onlineGame(id string) onlineGame {
	a.t.Helper()
	var g onlineGame
	a.api("GET", "/api/games/"+id, "", http.StatusOK, &g)
	if g.Online == nil {
		a.t.Fatalf("game %s is not an online game", id)
	}
	return g
}

// seatAPI sends a request of a seat (with its token) and returns the status.
func (a *app) seatAPI(method, path, token, body string) int {
	a.t.Helper()
	req, err := http.NewRequest(method, a.URL()+path, strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatalf("%s %s: %v", method, path, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// onlinePlayer is a browser at an online game: its page and the side it
// plays ("" for a spectator).
type onlinePlayer struct {
	*page
	side string
	name string
}

// startOnline makes an online game in the new-game dialog and returns its
// id once the page shows it.
func (p *page) startOnline(holes, seeds int, side, clock, name string) string {
	p.t.Helper()
	before := p.hash()
	p.newGameDialog("online")
	p.setField("#ng-opponent", "online")
	for _, css := range []string{"#ng-side", "#ng-clock", "#ng-name"} {
		if !p.visible(css) {
			p.t.Fatalf("choosing to play a friend online does not show %s", css)
		}
	}
	p.setField("#ng-mode", "single")
	p.setField("#ng-holes", fmt.Sprint(holes))
	p.setField("#ng-seeds", fmt.Sprint(seeds))
	p.setField("#ng-first", "s")
	p.setField("#ng-side", side)
	p.setField("#ng-clock", clock)
	p.setField("#ng-name", name)
	p.click("#ng-start")
	p.waitFor("the new game's route", fmt.Sprintf(`/^#\/play\/[^\/]+$/.test(location.hash) && location.hash !== %q`, before))
	p.waitIdle()
	return p.gameID()
}

// joinLink opens an invitation link and joins with a name; it returns
// once the page shows the game.
func (p *page) joinLink(link, name string) {
	p.t.Helper()
	p.do("opening the invitation "+link, chromedp.Navigate(link))
	p.waitIdle()
	p.waitFor("the join form", `!document.querySelector("#join-form").hidden`)
	p.setField("#join-name", name)
	p.click("#join-go")
	p.waitFor("the game after joining", `/^#\/play\/[^\/]+$/.test(location.hash)`)
	p.waitIdle()
}

// waitPlies waits until the page's move list has n moves and it is idle.
func (p *page) waitPlies(who string, n int) {
	p.t.Helper()
	p.waitFor(fmt.Sprintf("%s to show %d moves", who, n), fmt.Sprintf(`document.querySelectorAll("#moves [data-ply]").length === %d`, n))
	p.waitIdle()
}

// noSideways fails the test when the page scrolls sideways.
func (p *page) noSideways(when string, v viewport) {
	p.t.Helper()
	if w := eval[int](p, `document.documentElement.scrollWidth`); w > int(v.width) {
		p.t.Errorf("%s: the page is %d px wide on a %d px screen: it scrolls sideways", when, w, v.width)
	}
}

// checkNoToken fails the test when the page's URL or markup holds the
// token of a seat.
func (p *page) checkNoToken(token string) {
	p.t.Helper()
	where := eval[string](p, `location.href + "\n" + document.documentElement.outerHTML`)
	if strings.Contains(where, token) {
		p.t.Errorf("the page shows a seat's token in its URL or markup")
	}
}

// onlineTable is an online game and the pages showing it.
type onlineTable struct {
	a       *app
	id      string
	rng     *rand.Rand
	players map[string]*page // by side
	names   map[*page]string // every page, named for messages
}

// move plays a random legal move by a click on the page of the side to
// move, waits until every page shows it and checks their boards.
func (tbl *onlineTable) move() onlineGame {
	t := tbl.a.t
	t.Helper()
	g := tbl.a.onlineGame(tbl.id)
	p := tbl.players[g.ToMove]
	legal := p.legal(g.ToMove)
	if len(legal) == 0 {
		t.Fatalf("%s (%s) is to move but is offered no hole; status %q", tbl.names[p], g.ToMove, p.text("#status"))
	}
	other := tbl.players[map[string]string{"s": "n", "n": "s"}[g.ToMove]]
	if got := other.legal(""); len(got) != 0 {
		t.Fatalf("%s is offered holes %v while it is the other's move", tbl.names[other], got)
	}
	p.click(holeCSS(legal[tbl.rng.IntN(len(legal))]))
	for s, name := range tbl.names {
		s.waitPlies(name, len(g.Moves)+1)
	}
	now := tbl.a.onlineGame(tbl.id)
	for s, name := range tbl.names {
		s.checkBoard(fmt.Sprintf("%s after move %d", name, len(now.Moves)), now.Position)
	}
	return now
}

// seat is a seat of an online game, as the API gives it.
type seat struct {
	Side  string `json:"side"`
	Token string `json:"token"`
}

// apiOnlineGame makes an online game through the API with body and, if
// join, seats a second player named Sironka; it returns the game, the
// seats' tokens by side and the invitation code.
func (a *app) apiOnlineGame(body string, join bool) (id string, tokens map[string]string, code string) {
	a.t.Helper()
	var made struct {
		Game   onlineGame `json:"game"`
		Seat   seat       `json:"seat"`
		Invite string     `json:"invite"`
	}
	a.api("POST", "/api/games", body, http.StatusCreated, &made)
	code = made.Invite[strings.LastIndex(made.Invite, "/")+1:]
	tokens = map[string]string{made.Seat.Side: made.Seat.Token}
	if join {
		var joined struct {
			Seat *seat `json:"seat"`
		}
		a.api("POST", "/api/join/"+code, `{"name": "Sironka"}`, http.StatusOK, &joined)
		if joined.Seat == nil {
			a.t.Fatal("joining a game with a free seat gave no seat")
		}
		tokens[joined.Seat.Side] = joined.Seat.Token
	}
	return made.Game.ID, tokens, code
}

// apiMove plays the first legal move of the side to move through the API.
func (a *app) apiMove(id string, tokens map[string]string) {
	a.t.Helper()
	g := a.onlineGame(id)
	body := fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves))
	if code := a.seatAPI("POST", "/api/games/"+id+"/moves", tokens[g.ToMove], body); code != http.StatusOK {
		a.t.Fatalf("move %s of %s: status %d", g.LegalMoves[0], g.ToMove, code)
	}
}

// changeOnline changes the online state of game id in the store, with
// the server stopped, and starts the server again in place: a running
// server keeps the games it serves in memory, and is told of a change
// only by the instance that made it. While it is down, each of pages
// says it is reconnecting (a page that still thinks itself connected when
// the server is back might act before it knows better); they reconnect
// by themselves. The server is down for a moment only, so the running
// clocks are not given the time back.
func (a *app) changeOnline(id string, change func(o *game.Online), pages ...*page) {
	a.t.Helper()
	a.restartInPlace(func() {
		for _, p := range pages {
			p.waitFor("the page to say it is reconnecting", `document.querySelector("#live-state").textContent.includes("Reconnecting")`)
		}
		ctx := context.Background()
		st, err := store.Open(ctx, a.dbPath)
		if err != nil {
			a.t.Fatalf("opening the store %s: %v", a.dbPath, err)
		}
		defer st.Close()
		g, err := st.Game(ctx, id)
		if err != nil {
			a.t.Fatalf("reading game %s: %v", id, err)
		}
		o := *g.Online
		change(&o)
		ply := len(g.Moves)
		if err := st.Update(ctx, id, game.Change{Ply: ply, Rev: o.Rev, From: ply, Result: g.Result, Online: &o}); err != nil {
			a.t.Fatalf("changing game %s: %v", id, err)
		}
	})
}

// heldToken is the token of the seat the page's browser holds in game id.
func (p *page) heldToken(id string) string {
	p.t.Helper()
	return evalf[string](p, `JSON.parse(localStorage.getItem("endodoi.seats") || "{}")[%q]?.token ?? ""`, id)
}

// TestOnlineGame plays a whole online game: the creator makes it in the
// dialog and reads the invitation from the page, the friend opens it in
// another browser and is seated, a third browser watches. Every move made
// by a click shows on the other two screens; a takeback is asked by one
// and accepted by the other; the result reads the same on all three.
func TestOnlineGame(t *testing.T) {
	a := startApp(t)
	host := openPage(t, a, desktop)
	host.open("")
	host.setSpeed("instant")
	id := host.startOnline(4, 2, "s", "", "Naserian")

	host.waitFor("the invitation link", `document.querySelector("#invite-link")?.value.includes("/#/join/")`)
	if got := host.text("#status"); !containsFold(got, "waiting for your friend") {
		t.Errorf("before the friend joins the status says %q", got)
	}
	link := host.value("#invite-link")
	if !strings.HasPrefix(link, a.URL()+"/#/join/") {
		t.Fatalf("the invitation link %q is not a full link to %s/#/join/{code}", link, a.URL())
	}
	host.screenshot("online-invite-desktop.png")

	friend := openPage(t, a, desktop)
	friend.joinLink(link, "Sironka")
	if got := friend.gameID(); got != id {
		t.Fatalf("the invitation opened game %s, want %s", got, id)
	}
	friend.setSpeed("instant")
	host.waitFor("the invitation to go once the friend has joined", `document.querySelector("#invite").hidden`)
	host.waitFor("South's turn", `document.querySelector("#status").textContent === "Your move"`)
	friend.waitFor("the friend waiting for Naserian", `document.querySelector("#status").textContent.includes("Naserian")`)
	friend.waitFor("the host shown connected", `document.querySelector("#presence-south").classList.contains("here")`)
	host.waitFor("the friend shown connected", `document.querySelector("#presence-north").classList.contains("here")`)

	// The spectator opens the same link: both seats are taken.
	watcher := openPage(t, a, desktop)
	watcher.do("opening the invitation as a third", chromedp.Navigate(link))
	watcher.waitFor("the spectator's game", fmt.Sprintf(`location.hash === "#/play/%s"`, id))
	watcher.waitIdle()
	if msg := watcher.text("#message"); !containsFold(msg, "you are watching") {
		t.Errorf("the spectator is not told that both seats are taken: %q", msg)
	}
	watcher.setSpeed("fast") // one screen animates the moves it is sent
	if watcher.visible("#online-actions") || watcher.visible("#offers button") {
		t.Error("the spectator is offered action buttons")
	}

	tbl := &onlineTable{a: a, id: id, rng: newRand(11),
		players: map[string]*page{"s": host, "n": friend},
		names:   map[*page]string{host: "the host", friend: "the friend", watcher: "the spectator"}}
	screens := []*page{host, friend, watcher}
	names := tbl.names
	move := tbl.move
	// The first move, then its takeback: South asks, North accepts.
	g := move()
	// The players see how many watch. (The server counts a spectator in
	// the next change it sends.)
	host.waitFor("the watcher counted", `document.querySelector("#live-state").textContent.includes("1 watching")`)
	host.click("#act-takeback")
	friend.waitFor("the takeback request", `!!document.querySelector('#offers button[data-action="takeback-accept"]')`)
	if watcher.count(`#offers button`) != 0 {
		t.Error("the spectator is offered to answer the takeback request")
	}
	friend.click(`#offers button[data-action="takeback-accept"]`)
	for _, s := range screens {
		s.waitPlies(names[s], len(g.Moves)-1)
	}
	if g = a.onlineGame(id); len(g.Moves) != 0 {
		t.Fatalf("after the takeback the API has the moves %v", g.Moves)
	}
	host.waitFor("South's move again", `document.querySelector("#status").textContent === "Your move"`)

	for n := 0; !g.over(); n++ {
		if n == maxMoves {
			t.Fatalf("the game is not over after %d moves", n)
		}
		if n == 2 {
			host.screenshot("online-desktop.png")
		}
		g = move()
	}
	want := ""
	for _, s := range screens {
		s.waitFor(names[s]+" to show the result", `!document.querySelector("#result").hidden`)
		got := s.text("#result")
		if want == "" {
			want = got
		} else if got != want {
			t.Errorf("%s shows the result %q, the host %q", names[s], got, want)
		}
	}
	t.Logf("the game ended after %d moves: %s", len(g.Moves), want)
	if g.Online.End != "" {
		t.Errorf("a game played to its end has end %q", g.Online.End)
	}
	if watcher.visible("#act-rematch") {
		t.Error("the spectator is offered a rematch")
	}

	// A rematch: offered by one, accepted by the other; both go to the
	// new game, in the same rows, and play it.
	host.click("#act-rematch")
	friend.waitFor("the rematch offer", `!!document.querySelector('#offers button[data-action="rematch"]')`)
	friend.click(`#offers button[data-action="rematch"]`)
	for _, s := range []*page{host, friend} {
		s.waitFor(names[s]+" to go to the rematch", fmt.Sprintf(`/^#\/play\/[^\/]+$/.test(location.hash) && location.hash !== "#/play/%s"`, id))
		s.waitIdle()
	}
	next := host.gameID()
	if friend.gameID() != next {
		t.Fatalf("the players went to different games: %s and %s", next, friend.gameID())
	}
	if g := a.onlineGame(next); len(g.Moves) != 0 || !g.Online.Seats["s"] || !g.Online.Seats["n"] {
		t.Fatalf("the rematch is %v with seats %v", g.Moves, g.Online.Seats)
	}
	tbl.id = next
	delete(tbl.names, watcher)
	tbl.move()
}

// TestOnlineClockRunsOut makes a timed game through the API, plays the two
// untimed moves, then winds the running clock back to a few seconds (in
// the store, the server stopped, as the server's own tests do): the page
// counts down, marks the low time, and shows the loss on time the server
// declares.
func TestOnlineClockRunsOut(t *testing.T) {
	a := startApp(t)
	id, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 4, "seeds": 2, "side": "s", "first": "s", "name": "Naserian",
		"clock": {"minutes": 1, "increment": 0}}`, true)
	p := openPage(t, a, desktop)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	p.waitFor("both clocks", `!document.querySelector("#clock-south").hidden && !document.querySelector("#clock-north").hidden`)
	if s, n := p.text("#clock-south"), p.text("#clock-north"); s != "1:00" || n != "1:00" {
		t.Errorf("before the first move the clocks show %q and %q, want 1:00 each", s, n)
	}
	a.apiMove(id, tokens)
	a.apiMove(id, tokens)
	p.waitPlies("the spectator", 2)
	g := a.onlineGame(id)
	if g.Online.Running != "s" {
		t.Fatalf("after two moves the running clock is %q, want South's", g.Online.Running)
	}
	p.waitFor("South's clock running", `document.querySelector("#clock-south").classList.contains("running")`)

	// Three seconds left for South: the server, started again, looks at
	// the clock; the page reconnects.
	p.allowConsole(`WebSocket connection to .* failed`)
	a.changeOnline(id, func(o *game.Online) { o.TurnStart = time.Now().Add(-57 * time.Second) }, p)
	p.waitFor("South's clock in low time", `document.querySelector("#clock-south").classList.contains("low")`)
	p.waitFor("the loss on time", `!document.querySelector("#result").hidden`)
	if got := p.text("#result"); !containsFold(got, "Naserian lost on time") || !containsFold(got, "Sironka wins") {
		t.Errorf("after South's time ran out the result says %q", got)
	}
	if got := p.text("#clock-south"); got != "0:00" {
		t.Errorf("South's clock shows %q after the flag fell, want 0:00", got)
	}
	if g := a.onlineGame(id); g.Status != "timeout" || g.Result != "0-1" {
		t.Errorf("the API has the game %s %s, want a timeout won by North", g.Status, g.Result)
	}
}

// TestOnlineReloadAndRestart reloads a player's page and restarts the
// server mid-game: the pages reconnect by themselves and the game goes on.
func TestOnlineReloadAndRestart(t *testing.T) {
	a := startApp(t)
	host := openPage(t, a, desktop)
	host.open("")
	host.setSpeed("instant")
	id := host.startOnline(6, 3, "n", "5+3", "Naserian")
	host.waitFor("the invitation link", `document.querySelector("#invite-link")?.value.includes("/#/join/")`)
	friend := openPage(t, a, desktop)
	friend.joinLink(host.value("#invite-link"), "Sironka")
	friend.setSpeed("instant")
	tbl := &onlineTable{a: a, id: id, rng: newRand(12),
		players: map[string]*page{"n": host, "s": friend},
		names:   map[*page]string{host: "the host", friend: "the friend"}}
	for _, p := range []*page{host, friend} {
		p.checkNoToken(p.heldToken(id))
		p.allowConsole(`WebSocket connection to .* failed`)
	}
	tbl.move()
	tbl.move()

	friend.reload()
	friend.waitPlies("the friend after a reload", 2)
	friend.waitFor("the friend's move after a reload", `document.querySelector("#status").textContent === "Your move"`)
	host.waitFor("the friend back online", `document.querySelector("#presence-south").classList.contains("here")`)
	tbl.move()

	// The server stops: the pages say so, and reconnect once it is back.
	a.restartInPlace(func() {
		for p, name := range tbl.names {
			p.waitFor(name+" to say it is reconnecting", `document.querySelector("#live-state").textContent.includes("Reconnecting")`)
		}
	})
	for p, name := range tbl.names {
		p.waitFor(name+" to reconnect", `!document.querySelector("#live-state").textContent.includes("Reconnecting")`)
	}
	tbl.move()
	tbl.move()
	if g := a.onlineGame(id); len(g.Moves) != 5 {
		t.Errorf("after five moves across a reload and a restart the API has %v", g.Moves)
	}
	host.screenshot("online-clock-desktop.png")

	// The Games page lists the game among the player's own online games,
	// with whose move it is, and among the games being played now.
	g := a.onlineGame(id)
	mover, waiter := tbl.players[g.ToMove], tbl.players[map[string]string{"s": "n", "n": "s"}[g.ToMove]]
	for p, want := range map[*page]string{mover: "Your move", waiter: "Waiting for your opponent"} {
		p.click(`nav a[href="#/history"]`)
		p.waitIdle()
		row := fmt.Sprintf(`#my-online-list li[data-game-id=%q]`, id)
		if got := p.text(row); !strings.Contains(got, want) {
			t.Errorf("%s: my online games show %q, want %q", tbl.names[p], got, want)
		}
		if !p.exists(fmt.Sprintf(`#live-list li[data-game-id=%q] a[href="#/play/%s"]`, id, id)) {
			t.Errorf("%s: the games being played now do not list the game with a link", tbl.names[p])
		}
	}
	mover.screenshot("online-history-desktop.png")
}

// TestOnlineSpectator: a spectator sees no action buttons and cannot
// move; actions sent without a seat's token, over HTTP or the live
// connection, are refused and change nothing.
func TestOnlineSpectator(t *testing.T) {
	a := startApp(t)
	id, tokens, _ := a.apiOnlineGame(`{"online": true, "holes": 5, "seeds": 2, "side": "s", "name": "Naserian"}`, true)
	a.apiMove(id, tokens)
	a.apiMove(id, tokens)
	p := openPage(t, a, desktop)
	p.open("#/play/" + id)
	p.setSpeed("instant")
	p.waitPlies("the spectator", 2)
	p.allowConsole(`status of 401`)
	before := a.onlineGame(id)
	if p.visible("#online-actions") || p.visible("#resign-confirm") || p.visible("#hint") || p.visible("#takeback") {
		t.Error("the spectator is offered actions")
	}
	if legal := p.legal(""); len(legal) != 0 {
		t.Errorf("the spectator is offered the holes %v", legal)
	}
	if got := p.text("#live-state"); !containsFold(got, "watching") {
		t.Errorf("the spectator is not told that they watch: %q", got)
	}
	p.click(holeCSS(before.LegalMoves[0]))
	p.waitIdle()
	if msg := p.text("#message"); !containsFold(msg, "watching") {
		t.Errorf("a spectator's click on a hole says %q", msg)
	}
	status := evalf[int](p, `fetch("/api/games/%s/actions", {method: "POST", headers: {"Content-Type": "application/json"},
		body: JSON.stringify({action: "resign", ply: 2})}).then(r => r.status)`, id)
	if status != http.StatusUnauthorized {
		t.Errorf("a resignation without a token: status %d, want 401", status)
	}
	reply := evalf[string](p, `new Promise((resolve, reject) => {
		const ws = new WebSocket("ws://" + location.host + "/api/games/%s/live");
		ws.onopen = () => ws.send(JSON.stringify({type: "action", action: "resign", ply: 2}));
		ws.onmessage = (e) => { const m = JSON.parse(e.data); if (m.type === "error") { ws.close(); resolve(e.data); } };
		setTimeout(() => resolve("no answer"), 5000);
	})`, id)
	if !strings.Contains(reply, `"status":401`) {
		t.Errorf("a resignation on the live connection without a seat: %s", reply)
	}
	after := a.onlineGame(id)
	if after.Status != "playing" || len(after.Moves) != 2 {
		t.Errorf("refused actions changed the game: %s after %v", after.Status, after.Moves)
	}
	p.waitIdle()
	if p.visible("#result") || p.plies() != 2 {
		t.Errorf("the spectator's page changed: result shown %v, %d moves", p.visible("#result"), p.plies())
	}

	// An invitation that does not exist says so.
	p.allowConsole(`status of 404`)
	p.open("#/join/nosuchcode")
	p.waitFor("the unknown invitation's message", `!document.querySelector("#join-error").hidden`)
	if got := p.text("#join-error"); !containsFold(got, "not valid") {
		t.Errorf("an unknown invitation says %q", got)
	}
}

// TestOnlinePhoneLayout: the invitation, the join screen and the online
// game fit a 360 px phone in English and in Urdu.
func TestOnlinePhoneLayout(t *testing.T) {
	a := startApp(t)
	for _, lang := range []string{"en", "ur"} {
		host := openPage(t, a, phone)
		host.open("")
		host.setLanguage(lang)
		host.setSpeed("instant")
		host.startOnline(8, 4, "s", "3d", "Naserian")
		host.waitFor("the invitation link", `document.querySelector("#invite-link")?.value.includes("/#/join/")`)
		host.noSideways(lang+": the invitation", phone)

		friend := openPage(t, a, phone)
		friend.do("opening the invitation", chromedp.Navigate(host.value("#invite-link")))
		friend.waitIdle()
		friend.setLanguage(lang)
		friend.waitFor("the join form", `!document.querySelector("#join-form").hidden`)
		friend.noSideways(lang+": the join screen", phone)
		if lang == "en" {
			friend.screenshot("online-join-phone.png")
		}
		friend.setField("#join-name", "Sironka")
		friend.tap("#join-go")
		friend.waitFor("the game after joining", `/^#\/play\/[^\/]+$/.test(location.hash)`)
		friend.waitIdle()
		host.waitFor("the friend seated", `document.querySelector("#invite").hidden`)
		for _, p := range []*page{host, friend} {
			p.waitFor("the clocks", `!document.querySelector("#clock-south").hidden`)
			p.noSideways(lang+": the online game", phone)
		}
		host.do("scrolling to the top", chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`))
		host.screenshot("online-phone-" + lang + ".png")
	}
}
