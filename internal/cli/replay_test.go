package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// playOut plays the first legal move until the game ends.
func playOut(t *testing.T, start string) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rules.MustParsePosition(start), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		if err := g.Play(g.LegalMoves()[0]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func TestReplay(t *testing.T) {
	g := playOut(t, "2,2,2/2,2,2 s 0 0")
	dir := t.TempDir()
	text := filepath.Join(dir, "game.txt")
	if err := os.WriteFile(text, []byte(record.New(g).String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s, n := g.Score()
	code, out, errOut := run(t, "", "replay", text)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"final position: " + g.Position().String(),
		fmt.Sprintf("score: South %d, North %d", s, n),
		"result: " + g.Result().String(),
		"end: ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("replay output lacks %q:\n%s", want, out)
		}
	}

	// The JSON form, from standard input, gives the same summary.
	code, js, _ := run(t, "", "replay", "--json", text)
	if code != 0 || !strings.HasPrefix(js, "{") {
		t.Fatalf("--json: exit %d, %q", code, js)
	}
	code, out2, errOut := run(t, js, "replay", "-")
	if code != 0 || out2 != out {
		t.Errorf("replay of the JSON form: exit %d %s\n%s\nwant\n%s", code, errOut, out2, out)
	}
}

func TestReplayErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.txt")
	// Move 2 (A) is North's hole played on South's turn.
	os.WriteFile(bad, []byte("[Holes \"3\"]\n[Seeds \"2\"]\n\n1. a A a\n"), 0o644)
	code, _, errOut := run(t, "", "replay", bad)
	if code != 1 || !strings.Contains(errOut, "line 4") {
		t.Errorf("illegal move: exit %d, %q; want 1 and the line", code, errOut)
	}
	code, _, errOut = run(t, "", "replay", filepath.Join(dir, "missing.txt"))
	if code != 1 || !strings.Contains(errOut, "missing.txt") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
	code, _, _ = run(t, "", "replay")
	if code != 2 {
		t.Errorf("no file: exit %d, want 2", code)
	}
	code, _, errOut = run(t, "{\"holes\": 3", "replay", "-")
	if code != 1 || !strings.Contains(errOut, "standard input") {
		t.Errorf("broken JSON: exit %d, %q", code, errOut)
	}
}
