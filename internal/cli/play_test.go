package cli

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// The session itself (moves, commands, undo, hints, the engine's replies,
// the end of the game) is tested in package terminal; these tests check
// that play's options reach it.

const playPrompt = "or: help, undo, hint, moves, board, quit > "

func TestPlayTwoPlayers(t *testing.T) {
	start := "2,2,2/2,2,2 s 0 0"
	g := playOut(t, start)
	// Every move in lower case: North's holes are meant all the same.
	var in strings.Builder
	for _, m := range g.Moves() {
		fmt.Fprintf(&in, "%s\n", strings.ToLower(m.String()))
	}
	save := filepath.Join(t.TempDir(), "game.txt")
	code, out, errOut := run(t, in.String(), "play", "--two-players", "--holes", "3", "--seeds", "2", "--save", save)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	south, north := g.Score()
	for _, want := range []string{
		"Two players",
		"South plays a: ",
		"North plays ",
		rules.ResultText(south, north),
		"Moves: " + rules.NumberedMoves(rules.South, g.Moves()),
		"Game record saved to " + save,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, playPrompt); n != g.Ply() {
		t.Errorf("%d prompts for %d moves", n, g.Ply())
	}
	if strings.Contains(out, "Not a legal move") || strings.Contains(out, "Unknown command") {
		t.Errorf("a move was refused:\n%s", out)
	}
	rec, rg, err := record.LoadFile(save)
	if err != nil {
		t.Fatal(err)
	}
	if rg.Result() != g.Result() || rec.Event != "endodoi play" || rec.Date != time.Now().Format("2006-01-02") ||
		rec.South == "" || rec.North == "" {
		t.Errorf("record: result %v (want %v), %+v", rg.Result(), g.Result(), rec)
	}
	if len(rec.Moves) != g.Ply() || rec.Start != rules.MustParsePosition(start) {
		t.Errorf("record: %d moves from %v", len(rec.Moves), rec.Start)
	}
}

// --position and --max-laps give the session its start and rules.
func TestPlayPositionAndLapCap(t *testing.T) {
	// 1,1,0/0,0,1 with a one-lap cap: a relays (endless).
	code, out, errOut := run(t, "a\nb\n", "play", "--two-players", "--position", "1,1,0/0,0,1 s 0 0", "--max-laps", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"South to move (b), " + playPrompt,
		"Not a legal move: endless sowing: the sowing from a has not ended after the lap cap.",
		"Final score: South 3, North 0: South wins by 3.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// --side and --position: the engine's side has no legal move at once.
func TestPlayGameOverAtOnce(t *testing.T) {
	code, out, _ := run(t, "", "play", "--position", "2,0/2,1 s 0 0", "--side", "north")
	if code != 0 || !strings.Contains(out, "South has no legal move (every sowing it could start is endless)") ||
		!strings.Contains(out, "The 5 seeds left on the board go to North.") ||
		!strings.Contains(out, "North wins by 5. You win!") || strings.Contains(out, playPrompt) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestPlayLaps(t *testing.T) {
	p := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	_, sow, err := p.Trace(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := run(t, "c\n", "play", "--two-players", "--holes", "6", "--laps")
	if code != 0 || !strings.Contains(out, sow.LapsText(p)) {
		t.Errorf("--laps: exit %d\n%s", code, out)
	}
}

func TestPlayFirstNorthRecord(t *testing.T) {
	save := filepath.Join(t.TempDir(), "game.txt")
	code, out, errOut := run(t, "a\n", "play", "--two-players", "--holes", "3", "--seeds", "2", "--first", "north", "--save", save)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "North plays A: ") || !strings.Contains(out, "Moves: 1... A") {
		t.Errorf("output:\n%s", out)
	}
	if rec, g, err := record.LoadFile(save); err != nil || rec.Start.ToMove() != rules.North || g.Ply() != 1 {
		t.Errorf("record from %v with %d moves (%v)", rec.Start, g.Ply(), err)
	}
}

func TestPlayBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"--level", "0"},
		{"--level", "11"},
		{"--holes", "1"},
		{"--holes", "17"},
		{"--seeds", "0"},
		{"--side", "east"},
		{"--first", "random"},
		{"--position", "4,4/4 s 0 0"},
		{"--position", "2,2/2,2 s 0 0", "--holes", "2"},
		{"--two-players", "--side", "north"},
		{"--two-players", "--level", "3"},
		{"--variant", "diagonal"},
		{"--max-laps", "0"},
		{"extra"},
	} {
		code, _, errOut := run(t, "", append([]string{"play"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "usage: endodoi play") {
			t.Errorf("play %q: exit %d, stderr %q", args, code, errOut)
		}
	}
}
