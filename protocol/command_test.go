package protocol

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/rules"
)

func TestParseCommand(t *testing.T) {
	start := defaultStart()
	six, _ := rules.NewPosition(6, 4)
	c, d := rules.NewMove(rules.South, 2), rules.NewMove(rules.North, 3)
	tests := []struct {
		line string
		want Command
		text string // the formatted line, when not line itself
	}{
		{"endodoi", Hello{}, ""},
		{"endodoi extra", Hello{}, "endodoi"},
		{"isready", IsReady{}, ""},
		{"  isready\t\r", IsReady{}, "isready"},
		{"newgame", NewGame{}, ""},
		{"stop", Stop{}, ""},
		{"quit", Quit{}, ""},
		{"setoption name Hash value 32", SetOption{Name: "Hash", Value: "32"}, ""},
		{"setoption name Long  Name value a  b", SetOption{Name: "Long Name", Value: "a b"}, "setoption name Long Name value a b"},
		{"position startpos", Position{Start: start, StartPos: true}, ""},
		{"position startpos 8 4", Position{Start: start, StartPos: true}, "position startpos"},
		{"position startpos 6 4 moves c D", Position{Start: six, StartPos: true, Moves: []rules.Move{c, d}}, ""},
		{"position startpos moves", Position{Start: start, StartPos: true}, "position startpos"},
		{"position 4,4,4,4,4,4/4,4,4,4,4,4 s 0 0 moves c", Position{Start: six, Moves: []rules.Move{c}}, ""},
		{"position  3,0,1/2,2,2   n 5 7", Position{Start: rules.MustParsePosition("3,0,1/2,2,2 n 5 7")}, "position 3,0,1/2,2,2 n 5 7"},
		{"go", Go{}, ""},
		{"go depth 6", Go{engine.Limits{Depth: 6}}, ""},
		{"go infinite movetime 250 nodes 9 depth 200", Go{engine.Limits{Depth: 200, MoveTime: 250 * time.Millisecond, Nodes: 9, Infinite: true}},
			"go depth 200 movetime 250 nodes 9 infinite"},
	}
	for _, tc := range tests {
		got, err := ParseCommand(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.line, got, tc.want)
		}
		text := tc.text
		if text == "" {
			text = tc.line
		}
		if got.String() != text {
			t.Errorf("%q formats as %q, want %q", tc.line, got, text)
		}
	}
}

func TestParseCommandErrors(t *testing.T) {
	tests := []struct{ line, want string }{
		{"frobnicate now", `unknown command "frobnicate"`},
		{"ISREADY", `unknown command "ISREADY"`},
		{"stop now", "stop takes no arguments"},
		{"newgame 6", "newgame takes no arguments"},
		{"setoption", "setoption: want 'setoption name <Name> value <v>'"},
		{"setoption Threads value 2", "setoption: want"},
		{"setoption name value 2", "setoption: missing option name"},
		{"setoption name Threads", "setoption Threads: missing value"},
		{"setoption name Threads value", "setoption Threads: missing value"},
		{"position", "position: want"},
		{"position moves a", "position: want"},
		{"position startpos 6", "position startpos: want no numbers or both"},
		{"position startpos six 4", "position startpos: holes and seeds must be whole numbers"},
		{"position startpos 17 4", "position startpos:"},
		{"position startpos 6 13", "position startpos:"},
		{"position 4,4,4/4,4 s 0 0", "position:"},
		{"position 4,4,4/4,4,4 x 0 0", "position:"},
		{"position 4,4,4/4,4,4 s", "position:"},
		{"position startpos 6 4 moves c 7", "move 2 (7):"},
		{"go wtime 1000", `go: unknown word "wtime"`},
		{"go depth", "go depth: missing number"},
		{"go depth three", `go depth: "three" is not a whole number from 1 to 200`},
		{"go depth 0", `go depth: "0" is not`},
		{"go depth -1", `go depth: "-1" is not`},
		{"go depth 201", `go depth: "201" is not`},
		{"go movetime 1.5", `go movetime: "1.5" is not`},
		{"go movetime 86400001", `go movetime: "86400001" is not`},
		{"go nodes 0", `go nodes: "0" is not`},
		{"go nodes 99999999999999999999", "go nodes:"},
	}
	for _, tc := range tests {
		c, err := ParseCommand(tc.line)
		if err == nil {
			t.Errorf("%q: parsed as %v, want an error", tc.line, c)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: error %q, want it to start %q", tc.line, err, tc.want)
		}
	}
	for _, blank := range []string{"", "  \t ", "\r"} {
		if _, err := ParseCommand(blank); !errors.Is(err, ErrEmpty) {
			t.Errorf("%q: error %v, want ErrEmpty", blank, err)
		}
	}
}

func TestParseReply(t *testing.T) {
	tests := []struct {
		line string
		want Reply
	}{
		{"id name endodoi dev", ID{Key: "name", Value: "endodoi dev"}},
		{"id author the endodoi developers", ID{Key: "author", Value: "the endodoi developers"}},
		{"option name Variant type combo default standard var standard var cross",
			Option{Name: "Variant", Type: Combo, Default: "standard", Vars: []string{"standard", "cross"}}},
		{"option name Hash type spin default 64 min 1 max 16384", Option{Name: "Hash", Type: Spin, Default: "64", Min: 1, Max: 16384}},
		{"endodoiok", HelloOK{}},
		{"readyok", ReadyOK{}},
		{"info depth 6 score +12.2 nodes 507 nps 1134273 time 0 pv f B a",
			Info{Depth: 6, Score: 1220, Nodes: 507, NPS: 1134273, PV: []rules.Move{rules.NewMove(rules.South, 5), rules.NewMove(rules.North, 1), rules.NewMove(rules.South, 0)}}},
		{"info depth 3 score -1 exact nodes 9 nps 149977 time 12 pv A", Info{Depth: 3, Score: -100, Exact: true, Nodes: 9, NPS: 149977, Time: 12 * time.Millisecond, PV: []rules.Move{rules.NewMove(rules.North, 0)}}},
		{"info depth 1 score 0 nodes 1 nps 0 time 0 pv", Info{Depth: 1, Nodes: 1}},
		{"info string error: go: unknown word", InfoString{Text: "error: go: unknown word"}},
		{"bestmove f", BestMove{Move: rules.NewMove(rules.South, 5)}},
		{"bestmove none", BestMove{Move: rules.NoMove}},
	}
	for _, tc := range tests {
		got, err := ParseReply(tc.line)
		if err != nil {
			t.Errorf("%q: %v", tc.line, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: got %#v, want %#v", tc.line, got, tc.want)
		}
		if got.String() != tc.line {
			t.Errorf("%q formats as %q", tc.line, got)
		}
	}
	if msg, ok := Errorf("bad %d", 7).Error(); !ok || msg != "bad 7" {
		t.Errorf("Errorf: %q %v", msg, ok)
	}
	for _, bad := range []string{"bestmove 7", "info depth x", "info depth 1 score 3 nodes 1 nps 1 time 1 pv", "option name X type check default true", "hello"} {
		if r, err := ParseReply(bad); err == nil {
			t.Errorf("%q: parsed as %v, want an error", bad, r)
		}
	}
}

func TestParseScore(t *testing.T) {
	for _, s := range []engine.Score{0, 1, -1, 10, 50, 100, -100, 350, -205, 123456} {
		got, err := ParseScore(s.String())
		if err != nil || got != s {
			t.Errorf("%v: got %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "+", "3", "+3.", "+.5", "+3.125", "--1", "+1e3", "++1", "+9999999"} {
		if _, err := ParseScore(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// FuzzParseCommand checks that parsing never panics and that a parsed
// command formats to a line that parses back to the same command.
func FuzzParseCommand(f *testing.F) {
	for _, s := range []string{"endodoi", "isready", "setoption name Hash value 32", "newgame", "position startpos 6 4 moves c D",
		"position 3,0,1/2,2,2 n 5 7 moves A", "go depth 6 movetime 100 nodes 5 infinite", "go", "stop", "quit", "bogus", "position startpos 16 12"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		c, err := ParseCommand(line)
		if err != nil {
			return
		}
		again, err := ParseCommand(c.String())
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", line, c, err)
		}
		if !reflect.DeepEqual(c, again) {
			t.Fatalf("%q: %#v formats as %q, which parses as %#v", line, c, c, again)
		}
	})
}

// FuzzParseReply is FuzzParseCommand for replies.
func FuzzParseReply(f *testing.F) {
	for _, s := range []string{"id name x", "option name Hash type spin default 64 min 1 max 16384", "option name V type combo default a var a var b",
		"endodoiok", "readyok", "info depth 3 score -1.5 exact nodes 9 nps 1 time 0 pv A c", "info string hello  world", "bestmove none", "bestmove c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseReply(line)
		if err != nil {
			return
		}
		again, err := ParseReply(r.String())
		if err != nil {
			t.Fatalf("%q formats as %q, which does not parse: %v", line, r, err)
		}
		if !reflect.DeepEqual(r, again) {
			t.Fatalf("%q: %#v formats as %q, which parses as %#v", line, r, r, again)
		}
	})
}
