package terminal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// play runs a session from pos on input and returns its output.
func play(t *testing.T, pos string, r rules.Rules, cfg Config, input string) string {
	t.Helper()
	g, err := rules.NewGame(rules.MustParsePosition(pos), r)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Game = g
	if cfg.Level == 0 {
		cfg.Level = 1
	}
	var out strings.Builder
	s, err := NewSession(cfg, strings.NewReader(input), &out)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background()); err != nil {
		t.Fatalf("%v; output:\n%s", err, out.String())
	}
	return out.String()
}

func TestUndoTwoPlayers(t *testing.T) {
	out := play(t, "2,2,2/2,2,2 s 0 0", rules.DefaultRules(), Config{TwoPlayers: true}, "c\nB\nundo\nundo\nmoves\na\nmoves\n")
	for _, want := range []string{"Took back B.", "Took back c.", "No moves yet.", "1. a\n", "End of input: the game is left unfinished after 1 move."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestGameOverAtOnce(t *testing.T) {
	out := play(t, "2,0/2,1 s 0 0", rules.DefaultRules(), Config{Human: rules.North}, "")
	if !strings.Contains(out, "South has no legal move (every sowing it could start is endless)") ||
		!strings.Contains(out, "The 5 seeds left on the board go to North.") ||
		!strings.Contains(out, "North wins by 5. You win!") || strings.Contains(out, "quit > ") {
		t.Errorf("output:\n%s", out)
	}
}

func TestSaveAndQuit(t *testing.T) {
	save := filepath.Join(t.TempDir(), "game.txt")
	out := play(t, "2,2,2/2,2,2 s 0 0", rules.DefaultRules(), Config{TwoPlayers: true, Save: save}, "a\nquit\nB\n")
	if !strings.Contains(out, "Game left unfinished after 1 move.") || !strings.Contains(out, "Game record saved to "+save) {
		t.Errorf("output:\n%s", out)
	}
}

func TestNewSessionErrors(t *testing.T) {
	g, _ := rules.NewGame(rules.MustParsePosition("2,2/2,2 s 0 0"), rules.DefaultRules())
	for _, cfg := range []Config{{}, {Game: g, Level: 0}, {Game: g, Level: 11}} {
		if _, err := NewSession(cfg, strings.NewReader(""), &strings.Builder{}); err == nil {
			t.Errorf("NewSession(%+v) accepted", cfg)
		}
	}
}

func TestDrawBoard(t *testing.T) {
	var b strings.Builder
	DrawBoard(&b, rules.MustParsePosition("1,2,13/0,4,5 n 7 3"))
	want := `North  captured 3  (to move)
       C    B    A 
    +----+----+----+
  N |  5 |  4 |  0 | <- North sows right to left
    +----+----+----+
  S |  1 |  2 | 13 | -> South sows left to right
    +----+----+----+
       a    b    c 
South  captured 7
1,2,13/0,4,5 n 7 3
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}
