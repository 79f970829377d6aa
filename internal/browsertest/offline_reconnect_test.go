package browsertest

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

// cutNetwork cuts the browser's network, or gives it back, as a phone
// losing its signal: every request of the page fails and navigator.onLine
// says so; given back, the browser tells the page it is online.
func (p *page) cutNetwork(cut bool) {
	p.t.Helper()
	var rules []*network.Conditions
	if cut {
		rules = append(rules, &network.Conditions{Offline: true, DownloadThroughput: -1, UploadThroughput: -1})
	}
	if _, err := chromedp.Call(p.ctx, network.Enable, network.EnableParams{}); err != nil {
		p.t.Fatalf("the network's domain: %v", err)
	}
	if _, err := chromedp.Call(p.ctx, network.EmulateNetworkConditionsByRule, network.EmulateNetworkConditionsByRuleParams{MatchedNetworkConditions: rules}); err != nil {
		p.t.Fatalf("cutting the network (%v): %v", cut, err)
	}
	if _, err := chromedp.Call(p.ctx, network.OverrideNetworkState, network.OverrideNetworkStateParams{Offline: cut, DownloadThroughput: -1, UploadThroughput: -1}); err != nil {
		p.t.Fatalf("telling the page it is offline (%v): %v", cut, err)
	}
}

// localUpdated is the time this browser last changed game id of its own, as
// it keeps it.
func (p *page) localUpdated(id string) string {
	p.t.Helper()
	return evalf[string](p, `(async () => {
		const req = indexedDB.open("endodoi", 1);
		const db = await new Promise((ok, ko) => { req.onsuccess = () => ok(req.result); req.onerror = () => ko(req.error); });
		const g = await new Promise((ok) => { const r = db.transaction("games").objectStore("games").get(%q); r.onsuccess = () => ok(r.result); });
		return g ? g.updated : "";
	})()`, id)
}

// TestOfflineSyncsOnReconnect: the games played while the server could not
// be reached reach it once it can, with no reload: after the server was
// stopped and started again, and after the network was cut and given back.
// The messages saying that something needs the server go; the game shown
// is then the server's, which can be reviewed; each game keeps the time it
// was played.
func TestOfflineSyncsOnReconnect(t *testing.T) {
	a := startApp(t)
	p := openPage(t, a, desktop)
	p.open("")
	p.waitOffline()
	p.setSpeed("instant")

	var local, played string
	a.restartInPlace(func() {
		p.allowConsole(refusedLoads)
		p.reload()
		local = p.startGame(newGame{Holes: 4, Seeds: 2, Opponent: "computer", Level: 1, First: "s", Mode: "single"})
		if !strings.HasPrefix(local, "local-") {
			t.Fatalf("with no server the game's id is %q", local)
		}
		p.localGame(newRand(31), "s")
		p.waitFor("the review's sentence", `document.getElementById("review-body").textContent.includes("needs the server")`)
		// Something else that needs the server: the page says so.
		p.newGameDialog("online")
		p.setField("#ng-opponent", "online")
		p.click("#ng-start")
		p.waitFor("the plain sentence", `!document.getElementById("ng-error").hidden`)
		p.click("#ng-cancel")
		if !p.visible("#message") || !strings.Contains(p.text("#message"), "needs the server") {
			t.Fatalf("an online game with no server: the message says %q", p.text("#message"))
		}
		played = p.localUpdated(local)
		time.Sleep(1100 * time.Millisecond) // the server's clock is surely past the game's
	})

	// The server is back: the page finds it by itself.
	waitServerGames(t, a, 1)
	p.waitFor("the message about the server to go", `document.getElementById("message").hidden`)
	p.waitFor("the game to be shown from the server", `!location.hash.includes("local-")`)
	p.waitIdle()
	if got := p.text("#review-body"); strings.Contains(got, "needs the server") {
		t.Errorf("the game sent is shown from the server, yet its review says %q", got)
	}
	g := a.serverGames()[0]
	if p.gameID() != g.ID {
		t.Errorf("the game shown is %s, the server's copy %s", p.gameID(), g.ID)
	}
	var summary struct{ Games []struct{ Updated time.Time } }
	a.api("GET", "/api/games?ids="+g.ID, "", http.StatusOK, &summary)
	want, err := time.Parse(time.RFC3339Nano, played)
	if err != nil || len(summary.Games) != 1 || !summary.Games[0].Updated.Equal(want) {
		t.Errorf("the game played offline at %s is dated %+v on the server", played, summary.Games)
	}
	p.screenshot("offline-reconnected-desktop.png")

	// The network is cut, the server still up: a game between two people,
	// sent when the browser is online again.
	p.cutNetwork(true)
	p.startGame(newGame{Holes: 4, Seeds: 2, Opponent: "friend", First: "s", Mode: "single"})
	if !strings.HasPrefix(p.gameID(), "local-") {
		t.Fatalf("with the network cut the game's id is %q", p.gameID())
	}
	p.localGame(newRand(32), "")
	p.route("#/history")
	if n := p.count(`#history [data-game-id^="local-"]`); n != 1 {
		t.Errorf("with the network cut the list shows %d games of this browser, want 1", n)
	}
	p.cutNetwork(false)
	waitServerGames(t, a, 2)
	p.waitFor("the list to show the server's games", `document.querySelectorAll('#history [data-game-id^="local-"]').length === 0 && document.querySelectorAll("#history [data-game-id]").length === 2`)
}

// waitServerGames waits until the server lists n games.
func waitServerGames(t *testing.T, a *app, n int) {
	t.Helper()
	for deadline := time.Now().Add(waitTimeout); len(a.serverGames()) < n; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v for the page to send its games: the server has %d, want %d", waitTimeout, len(a.serverGames()), n)
		}
	}
	if got := len(a.serverGames()); got != n {
		t.Fatalf("the server has %d games, want %d", got, n)
	}
}
