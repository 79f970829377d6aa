package browsertest

// The lobby's list of the bots and the players in it, each to challenge;
// the answers to challenges reaching the challenger, however fast a bot
// gives them; declining all challenges at once; and what an aborted rated
// game and a blocked opponent's menu say.

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/bot"
	"github.com/endodoi/endodoi/protocol"
	"github.com/endodoi/endodoi/store"
)

// runBot runs a bot named name on app a (package bot, its engine in this
// process, at level) for one game, until the test ends.
func runBot(t *testing.T, a *app, name string, level int) {
	t.Helper()
	token, hash := account.NewBotToken()
	if err := a.st.CreateBot(context.Background(), &store.Account{Name: name, Key: strings.ToLower(name)}, hash); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	stopped := make(chan error, 1)
	go func() {
		stopped <- bot.Run(ctx, bot.Config{Server: a.URL(), Token: token, MaxGames: 1, Policy: bot.DefaultPolicy(),
			Engine: bot.EngineConfig{Level: level, Serve: func(ctx context.Context, in io.Reader, out io.Writer) error {
				return protocol.Serve(ctx, in, out, protocol.NewSession("test"))
			}},
			Timing: bot.Timing{Max: 200 * time.Millisecond, Overhead: 100 * time.Millisecond},
			Log:    slog.New(slog.NewTextHandler(io.Discard, nil))})
	}()
	t.Cleanup(func() {
		stop()
		select {
		case err := <-stopped:
			// Stopped before its game ended (the test skipped or failed
			// first), the bot reports the cancellation itself.
			if err != nil && !errors.Is(err, context.Canceled) {
				t.Errorf("the bot stopped with %v", err)
			}
		case <-time.After(waitTimeout):
			t.Error("the bot did not stop")
		}
	})
}

// slowChallenges makes the page hear the server's answer to a challenge
// it sends 800 ms late, as on a slow network: a bot's answer, given at
// once on the lobby's connection, comes first.
func slowChallenges(p *page) {
	p.t.Helper()
	eval[bool](p, `(() => {
		const f = window.fetch;
		window.fetch = async (url, init) => {
			const res = await f(url, init);
			if (String(url) === "/api/challenges" && init && init.method === "POST") await new Promise((r) => setTimeout(r, 800));
			return res;
		};
		return true;
	})()`)
}

// Every answer of a bot to a challenge reaches the challenger's page and
// takes its "Waiting for an answer" away, though it comes before the page
// hears that the challenge was sent: a decline is told with its reason,
// an acceptance opens the game, and no notice of a challenge waiting
// stays.
func TestBotAnswersReachTheChallenger(t *testing.T) {
	a := startApp(t)
	runBot(t, a, "Olorien", 1)
	p := openPage(t, a, desktop)
	p.visit(a.URL(), "#/lobby")
	p.signUp("Naserian", "kite-Umbrella-74-ledger")
	slowChallenges(p)

	// Four holes: the bot plays six to ten, and declines.
	p.visit(a.URL(), "#/lobby/challenge/Olorien")
	p.setField("#challenge-holes", "4")
	p.click("#challenge-send")
	p.waitFor("the bot's answer", `[...document.querySelectorAll("#notices .notice.news")].some(n => n.textContent.includes("Olorien declined your challenge"))`)
	// The page hears back from its own sending after the answer came.
	time.Sleep(1500 * time.Millisecond)
	p.waitIdle()
	if p.exists("#notices .notice.outgoing") {
		t.Errorf("after the bot declined, the page still says: %q", p.text("#notices .notice.outgoing"))
	}
	p.screenshot("challenge-bot-declined-desktop.png")
	p.click("#notices .ch-close")

	// Accepted: the game opens, and nothing waits. The bot is challenged
	// from the lobby's list this time.
	p.click(`#lobby-player-list button[data-player="Olorien"]`)
	p.waitFor("the challenge form", `document.getElementById("lobby-challenge").open && document.getElementById("challenge-name").value === "Olorien"`)
	p.setField("#challenge-holes", "6")
	p.setField("#challenge-seeds", "3")
	p.setField("#challenge-clock", "10+5")
	p.click("#challenge-send")
	p.waitGame("the bot's game, opened by itself", "")
	time.Sleep(1500 * time.Millisecond)
	p.waitIdle()
	if p.exists("#notices .notice.outgoing") {
		t.Errorf("after the bot accepted, the page still says: %q", p.text("#notices .notice.outgoing"))
	}
	p.screenshot("challenge-bot-accepted-desktop.png")
}

// The lobby lists the bots and the players in it, each with a button that
// fills the challenge in; a player with several challenges declines them
// all at once, and the challenger is told, in one notice.
func TestLobbyPlayersAndDeclineAll(t *testing.T) {
	a := startApp(t)
	// A bot that is not running: listed, away.
	_, hash := account.NewBotToken()
	if err := a.st.CreateBot(context.Background(), &store.Account{Name: "Kibot", Key: "kibot"}, hash); err != nil {
		t.Fatal(err)
	}
	baraka := openPage(t, a, phone)
	baraka.visit(a.URL(), "#/lobby")
	baraka.signUp("Baraka", "kite-Umbrella-74-ledger")
	amina := openPage(t, a, desktop)
	amina.visit(a.URL(), "#/lobby")
	amina.signUp("Amina", "kite-Umbrella-74-ledger")
	amina.waitFor("Baraka and the bot listed", `document.querySelector('#lobby-player-list [data-player-row="Baraka"]') !== null && document.querySelector('#lobby-player-list [data-player-row="Kibot"]') !== null`)
	baraka.waitFor("Amina listed", `document.querySelector('#lobby-player-list [data-player-row="Amina"]') !== null`)
	if got := amina.text(`#lobby-player-list [data-player-row="Kibot"]`); !strings.Contains(got, "bot") || !strings.Contains(got, "away") {
		t.Errorf("the bot's row: %q", got)
	}
	if got := amina.text(`#lobby-player-list [data-player-row="Baraka"]`); !strings.Contains(got, "online") {
		t.Errorf("Baraka's row: %q", got)
	}
	if amina.exists(`#lobby-player-list [data-player-row="Amina"]`) {
		t.Error("Amina is listed to herself")
	}
	eval[bool](amina, `(document.getElementById("lobby-players-heading").scrollIntoView(), true)`)
	amina.screenshot("lobby-players-desktop.png")
	eval[bool](baraka, `(document.getElementById("lobby-players-heading").scrollIntoView(), true)`)
	baraka.screenshot("lobby-players-phone.png")

	// Amina challenges Baraka from the list, three times.
	for i, clock := range []string{"3+2", "5+3", "10+5"} {
		amina.click(`#lobby-player-list button[data-player="Baraka"]`)
		amina.waitFor("the challenge form", `document.getElementById("lobby-challenge").open && document.getElementById("challenge-name").value === "Baraka"`)
		amina.setField("#challenge-clock", clock)
		amina.click("#challenge-send")
		amina.waitFor("her challenge waiting", `document.querySelectorAll("#notices .notice.outgoing").length === `+strconv.Itoa(i+1))
	}
	baraka.waitFor("three challenges and the way to decline them all", `document.querySelectorAll("#notices .notice.incoming").length === 3 && document.querySelector("#notices .ch-decline-all") !== null`)
	eval[bool](baraka, `(window.scrollTo(0, 0), true)`)
	baraka.screenshot("challenges-decline-all-phone.png")
	baraka.tap("#notices .ch-decline-all")
	baraka.waitFor("no challenge left", `document.querySelectorAll("#notices .notice.incoming").length === 0`)
	// Her three challenges go, and the answer is one notice: one a player.
	amina.waitFor("the three declines", `document.querySelectorAll("#notices .notice.outgoing").length === 0 && [...document.querySelectorAll("#notices .notice.news")].filter(n => n.textContent.includes("Baraka declined your challenge")).length === 1`)
	if n := amina.count("#notices .notice.news"); n != 1 {
		t.Errorf("after three declines from Baraka, %d notices of answers", n)
	}
}

// An aborted rated game says it is over once, and is neither Rated nor
// Casual; the menu of a game offers to unblock an opponent blocked.
func TestAbortedGameAndBlockedOpponent(t *testing.T) {
	a := startApp(t)
	baraka := signUpAPI(t, a, "Baraka")
	p := openPage(t, a, phone)
	p.visit(a.URL(), "#/lobby")
	p.signUp("Amina", "kite-Umbrella-74-ledger")
	var ch struct{ Challenge struct{ ID string } }
	baraka.call("POST", "/api/challenges", `{"to": "Amina", "minutes": 5, "rated": true}`, http.StatusCreated, &ch)
	p.waitFor("the challenge", `document.querySelector("#notices .notice.incoming") !== null`)
	p.tap("#notices .ch-accept")
	id := p.waitGame("the game", "")
	p.setSpeed("instant")
	p.waitFor("a rated game", `document.getElementById("game-mode")?.textContent === "Rated"`)
	p.tap("#act-abort")
	p.waitFor("the abort", `!document.getElementById("result").hidden`)
	p.waitIdle()
	if n := eval[int](p, `document.getElementById("play-layout").innerText.split("Game aborted").length - 1`); n != 1 {
		t.Errorf("the page says \"Game aborted\" %d times", n)
	}
	if p.visible("#game-mode") {
		t.Errorf("an aborted game says %q", p.text("#game-mode"))
	}
	if g := a.game(id); g.Status != "aborted" {
		t.Fatalf("the game's status %q", g.Status)
	}
	p.screenshot("rated-game-aborted-phone.png")

	// Blocked from the menu, Baraka is offered to be unblocked, and back.
	p.tap("#game-menu > summary")
	p.waitFor("the menu's block", `document.getElementById("game-block").textContent === "Block Baraka"`)
	p.tap("#game-block")
	p.waitFor("the block said", `document.getElementById("message").textContent.includes("Baraka is blocked")`)
	p.tap("#game-menu > summary")
	p.waitFor("the menu's unblock", `document.getElementById("game-block").textContent === "Unblock Baraka"`)
	eval[bool](p, `(document.getElementById("game-menu").scrollIntoView({block: "center"}), true)`)
	p.screenshot("game-menu-unblock-phone.png")
	p.tap("#game-block")
	p.waitFor("the unblock said", `document.getElementById("message").textContent.includes("Baraka is no longer blocked")`)
	p.reload()
	p.tap("#game-menu > summary")
	p.waitFor("the menu's block again", `document.getElementById("game-block").textContent === "Block Baraka"`)
}
