package cli

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// dbWithGames makes a data folder whose database holds n games of legal
// moves, and returns the folder and the database.
func dbWithGames(t *testing.T, n int) (string, string) {
	t.Helper()
	ctx := context.Background()
	data := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(data, "games.db")
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	start, _ := rules.NewPosition(6, 4)
	r := rules.Rules{MaxLaps: 500}
	for i := range n {
		g, err := rules.NewGame(start, r)
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 10 && !g.Over(); j++ {
			legal := g.LegalMoves()
			if err := g.Play(legal[(i+j)%len(legal)]); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.CreateGame(ctx, &game.Game{Start: start, Rules: r, Moves: g.Moves()}); err != nil {
			t.Fatal(err)
		}
	}
	return data, path
}

func TestDBCheck(t *testing.T) {
	data, path := dbWithGames(t, 12)
	code, out, errOut := run(t, "", "db", "check", "--data", data)
	if code != 0 {
		t.Fatalf("check of a sound database: exit %d: %s%s", code, out, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "database ok: 12 games, ") {
		t.Errorf("last line %q", last)
	}
	// The version itself is the store's to check (store.TestWriteCheck).
	if !regexp.MustCompile(`(?m)^schema version: [0-9]+$`).MatchString(out) {
		t.Errorf("the report gives no schema version:\n%s", out)
	}
	for _, want := range []string{"integrity: ok", "all 12 games replay"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report does not say %q:\n%s", want, out)
		}
	}

	// A game whose stored moves are not legal is found.
	ctx := context.Background()
	st, err := store.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	start, _ := rules.NewPosition(6, 4)
	bad, _ := rules.ParseMove("A") // North's hole, with South to move
	g := &game.Game{Start: start, Rules: rules.Rules{MaxLaps: 500}, Moves: []rules.Move{bad}}
	if err := st.CreateGame(ctx, g); err != nil {
		t.Fatal(err)
	}
	st.Close()
	code, out, errOut = run(t, "", "db", "check", "--data", data)
	if code != 1 || !strings.Contains(out, g.ID) || !strings.Contains(errOut, "database damaged: 1 game whose moves do not replay") {
		t.Errorf("check with a game that does not replay: exit %d:\n%s%s", code, out, errOut)
	}
}

func TestDBCheckDamaged(t *testing.T) {
	data, path := dbWithGames(t, 300)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := f.Stat()
	if _, err := f.WriteAt([]byte(strings.Repeat("garbage!", 1024)), fi.Size()/2/4096*4096); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(path)
	code, out, errOut := run(t, "", "db", "check", "--data", data)
	if code != 1 || !strings.Contains(out, "integrity: ") || !strings.HasPrefix(errOut, "endodoi db: database damaged: ") {
		t.Errorf("check of a damaged database: exit %d:\n%s%s", code, out, errOut)
	}
	if after, _ := os.ReadFile(path); string(after) != string(before) {
		t.Error("check changed the database file")
	}
	// The game refuses it too, and says what to do.
	code, _, errOut = run(t, "", "serve", "--addr", "127.0.0.1:0", "--data", data)
	if code != 1 || !strings.Contains(errOut, "damaged") || !strings.Contains(errOut, "endodoi db check") {
		t.Errorf("serving a damaged database: exit %d: %s", code, errOut)
	}
}

func TestDBBackup(t *testing.T) {
	data, _ := dbWithGames(t, 5)
	backup := filepath.Join(t.TempDir(), "backup.db")
	code, out, errOut := run(t, "", "db", "backup", "--data", data, backup)
	if code != 0 || !strings.Contains(out, backup) || !strings.Contains(out, "bytes") {
		t.Fatalf("backup: exit %d: %s%s", code, out, errOut)
	}
	code, out, errOut = run(t, "", "db", "check", "--data", filepath.Dir(backup)+"/nothing")
	if code != 1 || !strings.Contains(errOut, "no database at") {
		t.Errorf("check of a missing database: exit %d: %s%s", code, out, errOut)
	}
	if err := os.Rename(backup, filepath.Join(filepath.Dir(backup), "games.db")); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "db", "check", "--data", filepath.Dir(backup))
	if code != 0 || !strings.Contains(out, "database ok: 5 games") {
		t.Errorf("check of the backup: exit %d: %s%s", code, out, errOut)
	}
	existing := filepath.Join(filepath.Dir(backup), "games.db")
	if code, _, errOut := run(t, "", "db", "backup", "--data", data, existing); code != 1 || !strings.Contains(errOut, "exists") {
		t.Errorf("backup over an existing file: exit %d: %s", code, errOut)
	}
}

func TestDBUsage(t *testing.T) {
	for _, args := range [][]string{
		{"db"},
		{"db", "fix"},
		{"db", "backup"},
		{"db", "backup", "a.db", "b.db"},
		{"db", "check", "extra"},
	} {
		if code, _, errOut := run(t, "", args...); code != 2 || !strings.Contains(errOut, "usage: endodoi db") {
			t.Errorf("%v: exit %d: %s", args, code, errOut)
		}
	}
	if code, out, _ := run(t, "", "help", "db"); code != 0 || !strings.Contains(out, "endodoi db backup") {
		t.Errorf("help db: exit %d: %s", code, out)
	}
}
