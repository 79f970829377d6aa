package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

const playPrompt = "or: help, undo, hint, moves, board, quit > "

// readRecord reads a saved game record and replays it.
func readRecord(t *testing.T, name string) (*record.Record, *rules.Game) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := record.Read(data)
	if err != nil {
		t.Fatalf("the saved record does not read: %v\n%s", err, data)
	}
	g, err := rec.Game()
	if err != nil {
		t.Fatal(err)
	}
	return rec, g
}

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
	rec, rg := readRecord(t, save)
	if rg.Result() != g.Result() || rec.Event != "endodoi play" || rec.Date != time.Now().Format("2006-01-02") ||
		rec.South == "" || rec.North == "" {
		t.Errorf("record: result %v (want %v), %+v", rg.Result(), g.Result(), rec)
	}
	if len(rec.Moves) != g.Ply() || rec.Start != rules.MustParsePosition(start) {
		t.Errorf("record: %d moves from %v", len(rec.Moves), rec.Start)
	}
}

func TestPlayBadInputAndEOF(t *testing.T) {
	// 1,1,0/0,0,1 with a one-lap cap: a relays (endless), c is empty, b is
	// the only legal move.
	input := strings.Join([]string{"", "z", "foo", "a b", "c", "a", "moves", "undo", "q", "help", "board", "b"}, "\n") + "\n"
	code, out, errOut := run(t, input, "play", "--two-players", "--position", "1,1,0/0,0,1 s 0 0", "--max-laps", "1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{
		"South to move (b), " + playPrompt,
		"No such hole: z. This board has 3 holes a row; South plays a to c.",
		`Unknown command "foo".`,
		`One move or command at a time, please (got "a b")`,
		"Not a legal move: empty hole: c has no seeds to lift.",
		"Not a legal move: endless sowing: the sowing from a has not ended after the lap cap.",
		"No moves yet.",
		"Nothing to undo: no move has been played.",
		"No such hole: q.",
		"undo   take back the last move",
		"South plays b: 1 lap, ends in c in its own row; the opposite hole A is empty: no capture",
		// After b, North's only move relays at once: endless.
		"North has no legal move (every sowing it could start is endless): the game is over. The 3 seeds left on the board go to South, who moved last.",
		"Final score: South 3, North 0: South wins by 3.",
		"Moves: 1. b",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// board and the start each draw the board; so does b.
	if n := strings.Count(out, "South  captured"); n != 3 {
		t.Errorf("%d boards drawn, want 3:\n%s", n, out)
	}

	// The end of the input leaves the game unfinished, and so does quit;
	// either way the game saves as it is.
	for _, input := range []string{"a", "a\nquit\nB\n"} {
		save := filepath.Join(t.TempDir(), "game.txt")
		code, out, errOut = run(t, input, "play", "--two-players", "--holes", "3", "--seeds", "2", "--save", save)
		if code != 0 {
			t.Fatalf("%q: exit %d: %s", input, code, errOut)
		}
		want := "End of input: the game is left unfinished after 1 move."
		if strings.Contains(input, "quit") {
			want = "Game left unfinished after 1 move."
		}
		if !strings.Contains(out, want) || !strings.Contains(out, "Game record saved to "+save) {
			t.Errorf("%q: output lacks %q:\n%s", input, want, out)
		}
		if _, g := readRecord(t, save); g.Result() != rules.Unfinished || g.Over() {
			t.Errorf("%q: saved game: %v after %d moves", input, g.Result(), g.Ply())
		}
	}
}

func TestPlayUndoTwoPlayers(t *testing.T) {
	code, out, errOut := run(t, "c\nB\nundo\nundo\nmoves\na\nmoves\n", "play", "--two-players", "--holes", "3", "--seeds", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Took back B.", "Took back c.", "No moves yet.", "1. a\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestPlayGameOverAtOnce(t *testing.T) {
	code, out, _ := run(t, "", "play", "--position", "2,0/2,1 s 0 0", "--side", "north")
	if code != 0 || !strings.Contains(out, "South has no legal move (every sowing it could start is endless)") ||
		!strings.Contains(out, "The 5 seeds left on the board go to North.") ||
		!strings.Contains(out, "North wins by 5. You win!") || strings.Contains(out, playPrompt) {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// promptWriter passes on the output written up to each prompt.
type promptWriter struct {
	mu      sync.Mutex
	buf     strings.Builder
	prompts chan string
}

func (w *promptWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(b)
	if strings.HasSuffix(w.buf.String(), playPrompt) {
		w.prompts <- w.buf.String()
		w.buf.Reset()
	}
	return len(b), nil
}

var promptMoves = regexp.MustCompile(`(South|North) to move \(([a-pA-P ]+)\), ` + regexp.QuoteMeta(playPrompt) + `$`)

// TestPlayEngine plays whole games against the engine at level 1 on a
// 3-hole board, answering each prompt with the first move it lists, with a
// hint, an undo and a bad line on the way.
func TestPlayEngine(t *testing.T) {
	old := playHintTime
	playHintTime = 50 * time.Millisecond
	defer func() { playHintTime = old }()
	for _, side := range []string{"south", "north"} {
		t.Run(side, func(t *testing.T) {
			save := filepath.Join(t.TempDir(), "game.txt")
			inR, inW := io.Pipe()
			out := &promptWriter{prompts: make(chan string, 1)}
			done := make(chan int, 1)
			var errOut strings.Builder
			go func() {
				done <- Run(context.Background(), []string{"play", "--holes", "3", "--seeds", "3", "--level", "1", "--side", side, "--save", save},
					Env{Stdin: inR, Stdout: out, Stderr: &errOut})
			}()
			var transcript strings.Builder
			prompts := 0
			for {
				var text string
				select {
				case text = <-out.prompts:
				case code := <-done:
					inW.Close()
					if code != 0 {
						t.Fatalf("exit %d: %s", code, errOut.String())
					}
					out.mu.Lock()
					transcript.WriteString(out.buf.String())
					out.mu.Unlock()
					goto finished
				case <-time.After(waitLimit):
					t.Fatalf("no prompt; so far:\n%s", transcript.String())
				}
				transcript.WriteString(text)
				f := promptMoves.FindStringSubmatch(text)
				if f == nil {
					t.Fatalf("bad prompt in:\n%s", text)
				}
				if !strings.EqualFold(f[1], side) {
					t.Fatalf("prompted for %s, who is the engine:\n%s", f[1], text)
				}
				prompts++
				var answer string
				switch prompts {
				case 1:
					answer = "undo"
				case 2:
					answer = "hint"
				case 3:
					answer = "x"
				case 5:
					answer = "undo"
				default:
					answer = strings.Fields(f[2])[0]
				}
				transcript.WriteString(answer + "\n")
				if _, err := io.WriteString(inW, answer+"\n"); err != nil {
					t.Fatal(err)
				}
			}
		finished:
			text := transcript.String()
			_, g := readRecord(t, save)
			if !g.Over() {
				t.Fatalf("the saved game is not over:\n%s", text)
			}
			south, north := g.Score()
			for _, want := range []string{
				"Hint: ",
				"No such hole: x.",
				rules.ResultText(south, north),
				"Moves: " + rules.NumberedMoves(rules.South, g.Moves()),
			} {
				if !strings.Contains(text, want) {
					t.Errorf("transcript lacks %q:\n%s", want, text)
				}
			}
			t.Logf("%d prompts, %d moves", prompts, g.Ply())
			nothing := "Nothing to undo: no move has been played."
			if side == "north" {
				nothing = "Nothing to undo: you have not moved yet."
			}
			if !strings.Contains(text, nothing) {
				t.Errorf("transcript lacks %q:\n%s", nothing, text)
			}
			if prompts > 5 && !strings.Contains(text, "Took back ") {
				t.Errorf("undo took nothing back:\n%s", text)
			}
			engineSide := "North"
			if side == "north" {
				engineSide = "South"
			}
			if !strings.Contains(text, engineSide+" thinks...\n"+engineSide+" plays ") {
				t.Errorf("the engine's moves are not shown:\n%s", text)
			}
		})
	}
}

func TestDescribeSowing(t *testing.T) {
	for _, tc := range []struct {
		pos, move, want string
	}{
		{"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "c", "South plays c: 5 laps, ends in e and captures 7 (B's 6 and the last seed)"},
		{"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0", "e", "South plays e: 5 laps, ends in North's row (A), no capture"},
		{"1,0,0/1,0,0 s 0 0", "a", "South plays a: 1 lap, ends in b in its own row; the opposite hole B is empty: no capture"},
		{"6,0,0/0,0,1 s 0 0", "a", "South plays a: 1 lap, ends in a and captures 3 (C's 2 and the last seed)"},
	} {
		p := rules.MustParsePosition(tc.pos)
		m, _ := rules.ParseMove(tc.move)
		_, sow, err := p.Trace(m, rules.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		if got := sow.Describe(p); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.pos, tc.move, got, tc.want)
		}
	}
}

func TestLapsText(t *testing.T) {
	p := rules.MustParsePosition("4,4,4,4,4,4/4,4,4,4,4,4 s 0 0")
	_, sow, err := p.Trace(rules.NewMove(rules.South, 2), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	// docs/rules.md, example 1.
	want := `  lap 1: lifted 4 from c, last seed in A (held 4: relay)  4,4,0,5,5,5/5,4,4,4,4,4
  lap 2: lifted 5 from A, last seed in F (held 4: relay)  4,4,0,5,5,5/0,5,5,5,5,5
  lap 3: lifted 5 from F, last seed in e (held 5: relay)  5,5,1,6,6,5/0,5,5,5,5,0
  lap 4: lifted 6 from e, last seed in E (held 5: relay)  5,5,1,6,0,6/1,6,6,6,6,0
  lap 5: lifted 6 from E, last seed in e (was empty: the sowing ends)  6,6,2,7,1,6/1,6,6,6,0,1
  capture: 6 seeds from B and the last seed from e
`
	if got := sow.LapsText(p); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	code, out, _ := run(t, "c\n", "play", "--two-players", "--holes", "6", "--laps")
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("--laps: exit %d\n%s", code, out)
	}
}

func TestFormatMoves(t *testing.T) {
	mv := func(s string) rules.Move { m, _ := rules.ParseMove(s); return m }
	moves := []rules.Move{mv("A"), mv("b"), mv("C"), mv("a")}
	if got := rules.NumberedMoves(rules.North, moves); got != "1... A 2. b C 3. a" {
		t.Errorf("North first: %q", got)
	}
	if got := rules.NumberedMoves(rules.South, moves[1:]); got != "1. b C 2. a" {
		t.Errorf("South first: %q", got)
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
	if rec, g := readRecord(t, save); rec.Start.ToMove() != rules.North || g.Ply() != 1 {
		t.Errorf("record from %v with %d moves", rec.Start, g.Ply())
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
