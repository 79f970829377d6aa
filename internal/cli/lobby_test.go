package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/store"
)

// endodoi admin bot makes a bot's account and prints its token once; the
// store keeps only its hash, and the token signs the bot in. endodoi
// admin reports lists the reports of games, the reporter's text quoted.
func TestAdminBotAndReports(t *testing.T) {
	ctx := context.Background()
	data, path := dbWithGames(t, 1)
	code, out, errOut := run(t, "", "admin", "bot", "Kibot", "--data", data)
	if code != 0 || !strings.Contains(out, "bot Kibot made") {
		t.Fatalf("admin bot: %d %q %q", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	token := lines[len(lines)-1]
	if !account.IsBotToken(token) {
		t.Fatalf("the last line %q is not a bot token", token)
	}
	if code, _, errOut := run(t, "", "admin", "bot", "kibot", "--data", data); code != 1 || !strings.Contains(errOut, "taken") {
		t.Errorf("a bot's name again: %d %q", code, errOut)
	}
	if code, _, errOut := run(t, "", "admin", "bot", "x", "--data", data); code != 1 || !strings.Contains(errOut, "fewer than") {
		t.Errorf("a bad name: %d %q", code, errOut)
	}
	if code, out, _ := run(t, "", "admin", "reports", "--data", data); code != 0 || !strings.Contains(out, "no reports") {
		t.Errorf("no reports: %d %q", code, out)
	}

	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	bot, err := account.New(st, account.NewHasher(account.Params{Time: 1, MemoryKiB: 64, Threads: 1}, 1, 0)).Bot(ctx, token)
	if err != nil || bot.Name != "Kibot" || bot.Kind != store.AccountBot {
		t.Fatalf("the bot's token signs in %+v, %v", bot, err)
	}
	creds, err := st.Credentials(ctx, bot.ID)
	if err != nil || len(creds) != 1 || strings.Contains(creds[0].ID+creds[0].Data, token) {
		t.Errorf("the bot's credential %+v, %v: want one, without the token", creds, err)
	}
	ids, err := st.GameIDs(ctx)
	if err != nil || len(ids) == 0 {
		t.Fatal(ids, err)
	}
	if err := st.AddReport(ctx, &seek.Report{GameID: ids[0], By: seek.Player{ID: bot.ID}, Reason: "abuse",
		Text: "line one\nFAKE LINE"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut = run(t, "", "admin", "reports", "--data", data)
	if code != 0 || !strings.Contains(out, ids[0]) || !strings.Contains(out, `"line one\nFAKE LINE"`) || !strings.Contains(out, "Kibot") {
		t.Errorf("admin reports: %d %q %q", code, out, errOut)
	}
	if code, _, errOut := run(t, "", "admin", "reports", "extra", "--data", data); code != 2 {
		t.Errorf("admin reports extra: %d %q", code, errOut)
	}
}
