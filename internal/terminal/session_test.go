package terminal

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

const prompt = "or: help, undo, hint, moves, board, quit > "

func TestBadInput(t *testing.T) {
	// 1,1,0/0,0,1 with a one-lap cap: a relays (endless), c is empty, b is
	// the only legal move.
	input := strings.Join([]string{"", "z", "foo", "a b", "c", "a", "moves", "undo", "q", "help", "board", "b"}, "\n") + "\n"
	out := play(t, "1,1,0/0,0,1 s 0 0", rules.Rules{MaxLaps: 1}, Config{TwoPlayers: true}, input)
	for _, want := range []string{
		"South to move (b), " + prompt,
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
}

// The end of the input leaves the game unfinished, and so does quit;
// either way the game saves as it is.
func TestLeftUnfinished(t *testing.T) {
	for _, input := range []string{"a", "a\nquit\nB\n"} {
		save := filepath.Join(t.TempDir(), "game.txt")
		out := play(t, "2,2,2/2,2,2 s 0 0", rules.DefaultRules(), Config{TwoPlayers: true, Save: save}, input)
		want := "End of input: the game is left unfinished after 1 move."
		if strings.Contains(input, "quit") {
			want = "Game left unfinished after 1 move."
		}
		if !strings.Contains(out, want) || !strings.Contains(out, "Game record saved to "+save) {
			t.Errorf("%q: output lacks %q:\n%s", input, want, out)
		}
		if _, g, err := record.LoadFile(save); err != nil || g.Result() != rules.Unfinished || g.Over() || g.Ply() != 1 {
			t.Errorf("%q: saved game: %v", input, err)
		}
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
	if strings.HasSuffix(w.buf.String(), prompt) {
		w.prompts <- w.buf.String()
		w.buf.Reset()
	}
	return len(b), nil
}

var promptMoves = regexp.MustCompile(`(South|North) to move \(([a-pA-P ]+)\), ` + regexp.QuoteMeta(prompt) + `$`)

// TestAgainstTheEngine plays whole games against the engine at level 1 on
// a 3-hole board, answering each prompt with the first move it lists, with
// a hint, an undo and a bad line on the way.
func TestAgainstTheEngine(t *testing.T) {
	for _, human := range []rules.Side{rules.South, rules.North} {
		t.Run(human.String(), func(t *testing.T) {
			save := filepath.Join(t.TempDir(), "game.txt")
			start, _ := rules.NewPosition(3, 3)
			g, err := rules.NewGame(start, rules.DefaultRules())
			if err != nil {
				t.Fatal(err)
			}
			inR, inW := io.Pipe()
			out := &promptWriter{prompts: make(chan string, 1)}
			s, err := NewSession(Config{Game: g, Level: 1, Human: human, Save: save, HintTime: 50 * time.Millisecond}, inR, out)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- s.Run(context.Background()) }()
			var transcript strings.Builder
			prompts := 0
		play:
			for {
				var text string
				select {
				case text = <-out.prompts:
				case err := <-done:
					inW.Close()
					if err != nil {
						t.Fatal(err)
					}
					out.mu.Lock()
					transcript.WriteString(out.buf.String())
					out.mu.Unlock()
					break play
				case <-time.After(30 * time.Second):
					t.Fatalf("no prompt; so far:\n%s", transcript.String())
				}
				transcript.WriteString(text)
				f := promptMoves.FindStringSubmatch(text)
				if f == nil {
					t.Fatalf("bad prompt in:\n%s", text)
				}
				if f[1] != human.String() {
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
			text := transcript.String()
			_, saved, err := record.LoadFile(save)
			if err != nil || !saved.Over() {
				t.Fatalf("the saved game (%v) is not over:\n%s", err, text)
			}
			south, north := saved.Score()
			for _, want := range []string{
				"Hint: ",
				"No such hole: x.",
				rules.ResultText(south, north),
				"Moves: " + rules.NumberedMoves(rules.South, saved.Moves()),
			} {
				if !strings.Contains(text, want) {
					t.Errorf("transcript lacks %q:\n%s", want, text)
				}
			}
			t.Logf("%d prompts, %d moves", prompts, saved.Ply())
			nothing := "Nothing to undo: no move has been played."
			if human == rules.North {
				nothing = "Nothing to undo: you have not moved yet."
			}
			if !strings.Contains(text, nothing) {
				t.Errorf("transcript lacks %q:\n%s", nothing, text)
			}
			if prompts > 5 && !strings.Contains(text, "Took back ") {
				t.Errorf("undo took nothing back:\n%s", text)
			}
			engineSide := human.Opponent().String()
			if !strings.Contains(text, engineSide+" thinks...\n"+engineSide+" plays ") {
				t.Errorf("the engine's moves are not shown:\n%s", text)
			}
		})
	}
}
