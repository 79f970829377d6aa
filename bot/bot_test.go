package bot

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/rules"
)

// testConfig is a bot of f that thinks briefly and reconnects quickly.
func testConfig(t *testing.T, f *fakeServer) Config {
	p := DefaultPolicy()
	p.Holes = Ranges{{4, 10}}
	p.Clocks = append(p.Clocks, ClockRule{Kind: NoClock})
	return Config{Server: f.srv.URL, Token: f.token, Engine: testEngineConfig(t, "engine"), Policy: p, MaxGames: 2,
		Timing: Timing{Max: 30 * time.Millisecond}, Log: testLog(t),
		Backoff: Backoff{Min: 10 * time.Millisecond, Max: 100 * time.Millisecond}}
}

// runBot runs a bot until the test ends, and checks that it then stops.
func runBot(t *testing.T, cfg Config) (stop func() error) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, cfg) }()
	stopped := false
	var err error
	stop = func() error {
		if stopped {
			return err
		}
		stopped = true
		cancel()
		select {
		case err = <-done:
		case <-time.After(liveWait):
			t.Fatal("the bot did not stop")
		}
		return err
	}
	t.Cleanup(func() {
		if err := stop(); err != nil {
			t.Errorf("the bot stopped with %v", err)
		}
	})
	return stop
}

func (f *fakeServer) over(id string) bool { return f.games[id] != nil && f.games[id].game.Over() }

func gameOf(t *testing.T, answer string) string {
	t.Helper()
	id, ok := strings.CutPrefix(answer, "accepted ")
	if !ok {
		t.Fatalf("the bot answered %q, want an acceptance", answer)
	}
	return id
}

func TestBotPlaysAChallengedGame(t *testing.T) {
	f := newFakeServer(t)
	runBot(t, testConfig(t, f))
	for _, side := range []string{"s", "n"} {
		id := gameOf(t, f.answered(f.challenge(Challenge{Holes: 6, Seeds: 4, Variant: "standard", Clock: &Clock{Minutes: 1}, Side: side})))
		f.waitFor("the game's end", func() bool { return f.over(id) })
		f.check(id)
		f.mu.Lock()
		if g := f.games[id]; g.hello == 0 {
			t.Errorf("game %s: the bot never said hello on the game's socket", id)
		}
		f.mu.Unlock()
	}
}

func TestBotSurvivesDropsAndLostAnswers(t *testing.T) {
	f := newFakeServer(t)
	runBot(t, testConfig(t, f))
	f.waitFor("the bot in the lobby", func() bool { return len(f.lobbies) > 0 })
	f.mu.Lock()
	g := f.newGame(8, 4, &Clock{Minutes: 3, Increment: 2}, rules.South)
	g.human = false // the test plays North
	f.loseAnswer[g.id] = 2
	f.dropAfter[g.id] = 5
	f.mu.Unlock()
	// The bot hears of the game as it would of one paired in the lobby.
	f.dropLobbies()
	f.waitFor("the bot's first move", func() bool { return g.game.Ply() == 1 })
	for ply := 1; ; ply += 2 {
		f.mu.Lock()
		over := g.game.Over()
		if !over {
			if err := f.play(g, g.game.LegalMoves()[0]); err != nil {
				t.Fatal(err)
			}
			over = g.game.Over()
		}
		f.mu.Unlock()
		if over {
			break
		}
		if ply == 7 {
			f.dropLobbies()
			f.mu.Lock()
			for ws := range g.conns {
				ws.CloseNow()
			}
			f.mu.Unlock()
		}
		f.waitFor("the bot's move", func() bool { return g.game.Over() || g.game.Ply() == ply+2 })
	}
	f.check(g.id)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.loseAnswer)+len(f.dropAfter) > 0 {
		t.Errorf("faults the game never reached: lost answers %v, drops %v", f.loseAnswer, f.dropAfter)
	}
}

func TestBotDeclinesOutsideItsLimits(t *testing.T) {
	f := newFakeServer(t)
	cfg := testConfig(t, f)
	cfg.MaxGames = 1
	cfg.Policy.Rated = false
	runBot(t, cfg)
	for _, tc := range []struct {
		ch   Challenge
		want string
	}{
		{Challenge{Holes: 12, Seeds: 4, Variant: "standard"}, "declined: this bot plays boards of 4-10 holes a row"},
		{Challenge{Holes: 8, Seeds: 4, Variant: "standard", Clock: &Clock{Days: 3}}, "declined: this bot plays these clocks: bullet, blitz, rapid, classical, none"},
		{Challenge{Holes: 8, Seeds: 4, Variant: "standard", Rated: true}, "declined: this bot plays casual games only"},
		{Challenge{Holes: 8, Seeds: 4, Variant: "other"}, "declined: this bot plays the standard or cross rules"},
	} {
		if got := f.answered(f.challenge(tc.ch)); got != tc.want {
			t.Errorf("challenge %+v: %q, want %q", tc.ch, got, tc.want)
		}
	}
	// One game at once: the bot plays South and waits for North, who
	// does not move; a second challenge meanwhile is declined.
	id := gameOf(t, f.answered(f.challenge(Challenge{Holes: 8, Seeds: 4, Variant: "standard", Side: "n"})))
	f.mu.Lock()
	f.games[id].human = false
	f.mu.Unlock()
	f.waitFor("the bot's first move", func() bool { return f.games[id].game.Ply() == 1 })
	if got, want := f.answered(f.challenge(Challenge{Holes: 8, Seeds: 4, Variant: "standard"})), "declined: this bot is playing as many games as it may (1): try again later"; got != want {
		t.Errorf("a second game: %q, want %q", got, want)
	}
}

func TestBotTakesUpItsGames(t *testing.T) {
	f := newFakeServer(t)
	f.mu.Lock()
	g := f.newGame(6, 3, nil, rules.North)
	f.mu.Unlock()
	runBot(t, testConfig(t, f))
	f.waitFor("the game's end", func() bool { return g.game.Over() })
	f.check(g.id)
}

func TestBotStopsMidGame(t *testing.T) {
	f := newFakeServer(t)
	stop := runBot(t, testConfig(t, f))
	id := gameOf(t, f.answered(f.challenge(Challenge{Holes: 10, Seeds: 6, Variant: "standard", Side: "n"})))
	f.waitFor("the bot's first move", func() bool { return f.games[id].game.Ply() >= 1 })
	if err := stop(); err != nil {
		t.Fatalf("the bot stopped with %v", err)
	}
	f.check(id)
}

func TestBotRefusedToken(t *testing.T) {
	f := newFakeServer(t)
	cfg := testConfig(t, f)
	cfg.Token = "bot_" + strings.Repeat("y", 43)
	if err := Run(t.Context(), cfg); !errors.Is(err, ErrUnauthorized) {
		t.Fatalf("Run with a wrong token: %v, want ErrUnauthorized", err)
	}
}

func TestBotLeavesAGameNotItsOwn(t *testing.T) {
	f := newFakeServer(t)
	f.mu.Lock()
	g := f.newGame(6, 4, nil, rules.South)
	g.forbid = true
	f.mu.Unlock()
	b, err := newBot(testConfig(t, f))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		b.play(t.Context(), g.id, rules.South)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(liveWait):
		t.Fatal("the bot keeps playing a game the server does not let it play")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if g.refused != 1 {
		t.Errorf("%d moves refused, want 1: the bot leaves the game at the first", g.refused)
	}
}

// TestBotNeverLosesForWantOfAMove: an engine that names only illegal
// moves is restarted while the move's time lasts, and then the bot plays
// a legal move of its own, to the game's end.
func TestBotNeverLosesForWantOfAMove(t *testing.T) {
	f := newFakeServer(t)
	f.mu.Lock()
	g := f.newGame(3, 2, &Clock{Minutes: 1}, rules.North)
	f.mu.Unlock()
	cfg := testConfig(t, f)
	cfg.Engine = testEngineConfig(t, "illegal")
	runBot(t, cfg)
	f.waitFor("the game's end", func() bool { return g.game.Over() })
	f.check(g.id)
}

// TestBotDeclinesBriefly: a decline's reason fits the server's 200
// characters, however many clocks the bot accepts.
func TestBotDeclinesBriefly(t *testing.T) {
	f := newFakeServer(t)
	cfg := testConfig(t, f)
	clocks, err := ParseClocks(strings.TrimSuffix(strings.Repeat("100-180+50-60,", 60), ","))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Policy.Clocks = clocks
	runBot(t, cfg)
	got, ok := strings.CutPrefix(f.answered(f.challenge(Challenge{Holes: 8, Seeds: 4, Variant: "standard", Clock: &Clock{Minutes: 5}})), "declined: ")
	if !ok || !strings.HasPrefix(got, "this bot plays these clocks: 100-180+50-60, ") || utf8.RuneCountInString(got) > 200 {
		t.Errorf("declined with %q (%d characters), want the clocks in at most 200", got, utf8.RuneCountInString(got))
	}
}

// TestBotAnswersAgainAfterAFailure: a challenge whose answer failed is
// answered when the lobby lists it again, at the next connection.
func TestBotAnswersAgainAfterAFailure(t *testing.T) {
	f := newFakeServer(t)
	f.failAnswers = 1
	runBot(t, testConfig(t, f))
	id := f.challenge(Challenge{Holes: 16, Seeds: 4, Variant: "standard"})
	f.waitFor("the failed answer", func() bool { return f.failAnswers == 0 })
	// Cut the lobby's socket until the bot answers: the bot may come back
	// before it has taken in that its answer failed.
	for deadline := time.Now().Add(liveWait); ; {
		f.dropLobbies()
		f.mu.Lock()
		got := f.answers[id]
		f.mu.Unlock()
		if got != "" {
			if want := "declined: this bot plays boards of 4-10 holes a row"; got != want {
				t.Errorf("answered %q, want %q", got, want)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no answer within %v", liveWait)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
