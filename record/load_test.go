package record_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

func TestLoad(t *testing.T) {
	g, err := rules.NewGame(rules.MustParsePosition("2,2,2/2,2,2 s 0 0"), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		if err := g.Play(g.LegalMoves()[0]); err != nil {
			t.Fatal(err)
		}
	}
	text := record.New(g).String()
	js, err := record.New(g).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{text, string(js)} {
		rec, lg, err := record.Load(strings.NewReader(data), "standard input")
		if err != nil || len(rec.Moves) != g.Ply() || lg.Position() != g.Position() || lg.Result() != g.Result() {
			t.Errorf("Load of %.20q: %v", data, err)
		}
	}

	dir := t.TempDir()
	name := filepath.Join(dir, "game.txt")
	if err := os.WriteFile(name, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, lg, err := record.LoadFile(name); err != nil || lg.Ply() != g.Ply() {
		t.Errorf("LoadFile: %v", err)
	}

	// Move 2 (A) is North's hole played on South's turn: the error names
	// the file and the line.
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("[Holes \"3\"]\n[Seeds \"2\"]\n\n1. a A a\n"), 0o644)
	if _, _, err := record.LoadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+": ") || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("illegal move: %v", err)
	}
	if _, _, err := record.LoadFile(filepath.Join(dir, "missing.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
	if _, _, err := record.Load(strings.NewReader(`{"holes": 3`), "standard input"); err == nil || !strings.HasPrefix(err.Error(), "standard input: ") {
		t.Errorf("broken JSON: %v", err)
	}
	big := strings.Repeat(" ", record.MaxSize) + text
	if _, _, err := record.Load(strings.NewReader(big), "big.txt"); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("a record over MaxSize: %v", err)
	}
}

func TestSummary(t *testing.T) {
	r := rules.DefaultRules()
	game := func(start string, moves ...string) *rules.Game {
		g, err := rules.NewGame(rules.MustParsePosition(start), r)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range moves {
			m, _ := rules.ParseMove(s)
			if err := g.Play(m); err != nil {
				t.Fatal(err)
			}
		}
		return g
	}
	for _, tc := range []struct {
		g    *rules.Game
		want string
	}{
		{game("2,2,2/2,2,2 s 0 0", "a"), "moves: 1\nfinal position: 1,4,0/0,3,0 n 4 0\nend: not finished; North to move\nscore: South 4, North 0\nresult: unfinished\n"},
		// After a, North's row is empty: the seed left goes to South.
		{game("1,0/0,0 s 3 3", "a"), "moves: 1\nfinal position: 0,1/0,0 n 3 3\nend: North has no legal move; the 1 seeds on the board go to South, who moved last\nscore: South 4, North 3\nresult: South wins\n"},
	} {
		if got := record.Summary(tc.g); got != tc.want {
			t.Errorf("got\n%s\nwant\n%s", got, tc.want)
		}
	}
	// The third time a position occurs ends the game; its seeds count
	// for neither player.
	g := game("1,1/0,0 s 3 1", "a", "A", "a", "A")
	want := "moves: 4\nfinal position: 1,1/0,0 s 3 1\nend: the position occurred for the third time; the 2 seeds on the board count for neither player\nscore: South 3, North 1\nresult: South wins\n"
	if got := record.Summary(g); got != want {
		t.Errorf("repetition: got\n%s\nwant\n%s", got, want)
	}
}
