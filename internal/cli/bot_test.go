package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/bot"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

func TestBotUsage(t *testing.T) {
	t.Setenv(bot.TokenEnv, "")
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("bot_"+strings.Repeat("A", 43)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t"}, "no engine command"},
		{[]string{"bot", "--token", "t", "--", "endodoi", "engine"}, "--server is required"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--", "endodoi", "engine"}, "no token: set $ENDODOI_BOT_TOKEN"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--token-file", tokenFile, "--", "e"}, "give one"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--clocks", "fast", "--", "e"}, `--clocks: clock "fast"`},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--holes", "1-8", "--", "e"}, "--holes: \"1-8\": out of range (2 to 16)"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--variants", "standard,fast", "--", "e"}, "--variants"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--games", "0", "--", "e"}, "--games 0 out of range"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--level", "11", "--", "e"}, "--level 11 out of range"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--option", "Level=3", "--", "e"}, "set the level with --level"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--option", "Hash", "--", "e"}, "want Name=Value"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--rated=false", "--casual=false", "--", "e"}, "would accept nothing"},
		{[]string{"bot", "--server", "http://127.0.0.1:1", "--token", "t", "--think-max", "1ms", "--", "e"}, "--think-max 1ms out of range"},
	} {
		code, _, errOut := run(t, "", tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
	// Not an engine, or not a server: exit 1, saying so.
	token := "bot_" + strings.Repeat("A", 43)
	code, _, errOut := run(t, "", "bot", "--server", "ftp://example.org", "--token", token, "--", "/nonexistent/engine")
	if code != 1 || !strings.Contains(errOut, "server address") {
		t.Errorf("a server address that is not http: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "", "bot", "--server", "http://127.0.0.1:1", "--token-file", tokenFile, "--", "/nonexistent/engine")
	if code != 1 || !strings.Contains(errOut, "the engine") {
		t.Errorf("a missing engine: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "", "bot", "--server", "http://127.0.0.1:1", "--token", "abc", "--", "/nonexistent/engine")
	if code != 1 || !strings.Contains(errOut, "not a bot's token") {
		t.Errorf("a token that is not a bot's: exit %d, %q", code, errOut)
	}
	code, out, _ := run(t, "", "help", "bot")
	if code != 0 || !strings.Contains(out, "endodoi bot --server https://example.org --level 5 -- endodoi engine") || !strings.Contains(out, bot.TokenEnv) {
		t.Errorf("help bot: exit %d:\n%s", code, out)
	}
}

// TestBotCommandPlays runs endodoi bot with endodoi engine (this test
// binary, as TestMain lets it be) against a server: the bot, its token
// from the environment, accepts a player's challenge and moves first,
// and stops on its context's end without ever writing its token.
func TestBotCommandPlays(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	sctx, stopServer := context.WithCancel(context.Background())
	if err := srv.Start(sctx); err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(srv)
	defer func() {
		web.CloseClientConnections()
		web.Close()
		stopServer()
		srv.Close()
	}()
	token, hash := account.NewBotToken()
	if err := st.CreateBot(context.Background(), &store.Account{Name: "Robo", Key: "robo"}, hash); err != nil {
		t.Fatal(err)
	}
	session, sessionHash := account.NewSessionID()
	at := time.Now().UTC()
	if err := st.CreateAccount(context.Background(), &store.Account{Name: "Naserian", Key: "naserian"}, nil,
		&store.Session{Hash: sessionHash, Created: at, Expires: at.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	cookie := http.Header{}
	cookie.Set("Cookie", (&http.Cookie{Name: server.SessionCookie, Value: session}).String())

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(bot.TokenEnv, token)
	t.Setenv(serveMainEnv, "1") // for the engine's process: this binary runs endodoi engine
	ctx, stopBot := context.WithCancel(context.Background())
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Run(ctx, []string{"bot", "--server", web.URL, "--level", "3", "--think-max", "100ms", "--", exe, "engine"},
			Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: &stderr})
	}()

	wctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	wsURL := "ws" + strings.TrimPrefix(web.URL, "http")
	lobby, _, err := websocket.Dial(wctx, wsURL+"/api/lobby/live", &websocket.DialOptions{HTTPHeader: cookie})
	if err != nil {
		t.Fatal(err)
	}
	defer lobby.CloseNow()
	body := `{"to": "Robo", "holes": 8, "seeds": 4, "minutes": 5, "increment": 3, "side": "n"}`
	req, _ := http.NewRequest("POST", web.URL+"/api/challenges", strings.NewReader(body))
	req.Header = cookie.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("challenging the bot: %d", resp.StatusCode)
	}
	var game string
	for game == "" {
		_, data, err := lobby.Read(wctx)
		if err != nil {
			t.Fatalf("waiting for the pairing: %v; the bot said: %s", err, &stderr)
		}
		var m struct{ Type, Game string }
		if json.Unmarshal(data, &m) == nil && m.Type == "paired" {
			game = m.Game
		}
	}
	live, _, err := websocket.Dial(wctx, wsURL+"/api/games/"+game+"/live", &websocket.DialOptions{HTTPHeader: cookie})
	if err != nil {
		t.Fatal(err)
	}
	defer live.CloseNow()
	live.SetReadLimit(8 << 20)
	for moved := false; !moved; {
		_, data, err := live.Read(wctx)
		if err != nil {
			t.Fatalf("waiting for the bot's first move: %v; the bot said: %s", err, &stderr)
		}
		var m struct {
			Game struct{ Moves []string } `json:"game"`
		}
		moved = json.Unmarshal(data, &m) == nil && len(m.Game.Moves) > 0
	}
	stopBot()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("endodoi bot exited %d: %s", code, &stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("endodoi bot did not stop")
	}
	if strings.Contains(stderr.String(), token) || strings.Contains(stderr.String(), strings.TrimPrefix(token, "bot_")) {
		t.Error("the bot's log shows its token")
	}
	if !bytes.Contains([]byte(stderr.String()), []byte("challenge accepted")) {
		t.Errorf("the bot's log says nothing of the challenge: %s", &stderr)
	}
}
