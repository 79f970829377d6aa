package record

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// playGame plays the space-separated moves from start and fails the test
// if one is not legal.
func playGame(t testing.TB, start rules.Position, r rules.Rules, moves string) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(start, r)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range strings.Fields(moves) {
		m, err := rules.ParseMove(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

func newPosition(t testing.TB, holes, seeds int) rules.Position {
	t.Helper()
	p, err := rules.NewPosition(holes, seeds)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// equalRecords reports whether two records hold the same information.
func equalRecords(a, b *Record) bool {
	norm := func(r *Record) Record {
		c := *r
		c.Rules.MaxLaps = r.Rules.Laps()
		if len(c.Moves) == 0 {
			c.Moves = nil
		}
		if len(c.Extra) == 0 {
			c.Extra = nil
		}
		return c
	}
	return reflect.DeepEqual(norm(a), norm(b))
}

// sixHoleGame is a finished game on the 6-hole board, won by North.
const sixHoleMoves = "a A a B a B a C a A c A e A"

const sixHoleText = `[Event "Casual game"]
[Date "2026-11-29"]
[South "Naserian"]
[North "endodoi level 5"]
[Holes "6"]
[Seeds "4"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "0-1"]
[Score "17-31"]

1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. e A 0-1
`

func sixHoleRecord(t testing.TB) *Record {
	g := playGame(t, newPosition(t, 6, 4), rules.DefaultRules(), sixHoleMoves)
	r := New(g)
	r.Event, r.Date, r.South, r.North = "Casual game", "2026-11-29", "Naserian", "endodoi level 5"
	return r
}

func TestNew(t *testing.T) {
	g := playGame(t, newPosition(t, 6, 4), rules.Rules{Variant: rules.Cross}, "a")
	r := New(g)
	if r.Start != newPosition(t, 6, 4) || r.Rules.Variant != rules.Cross || r.Rules.Laps() != 1000 ||
		!reflect.DeepEqual(r.Moves, []rules.Move{rules.NewMove(rules.South, 0)}) {
		t.Errorf("New = %+v", r)
	}
	g2, err := r.Game()
	if err != nil {
		t.Fatal(err)
	}
	if g2.Position() != g.Position() || g2.Ply() != 1 {
		t.Errorf("replayed game at %v after %d moves, want %v after 1", g2.Position(), g2.Ply(), g.Position())
	}
}

// TestWriteRead writes whole games and reads them back.
func TestWriteRead(t *testing.T) {
	threeNorth := rules.MustParsePosition("2,2,2/2,2,2 n 0 0")
	custom := rules.MustParsePosition("3,0,2,1/0,4,1,2 s 5 7")
	cross := rules.Rules{Variant: rules.Cross, MaxLaps: 1000}
	tests := []struct {
		name string
		rec  func(t *testing.T) *Record
		text string
	}{
		{"finished game", func(t *testing.T) *Record { return sixHoleRecord(t) }, sixHoleText},
		{"no moves", func(t *testing.T) *Record {
			return &Record{Start: newPosition(t, 8, 4), Rules: rules.DefaultRules()}
		}, `[Holes "8"]
[Seeds "4"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "*"]
[Score "0-0"]

*
`},
		{"unfinished", func(t *testing.T) *Record {
			r := New(playGame(t, newPosition(t, 8, 4), rules.DefaultRules(), "a A a"))
			r.South = `Say "hi" \o/`
			return r
		}, `[South "Say \"hi\" \\o/"]
[Holes "8"]
[Seeds "4"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "*"]
[Score "0-7"]

1. a A 2. a *
`},
		{"North first", func(t *testing.T) *Record {
			return New(playGame(t, threeNorth, cross, "C c B a C b"))
		}, `[Holes "3"]
[Variant "cross"]
[MaxLaps "1000"]
[Position "2,2,2/2,2,2 n 0 0"]
[Result "0-1"]
[Score "5-7"]

1... C 2. c B 3. a C 4. b 0-1
`},
		{"custom position", func(t *testing.T) *Record {
			r := New(playGame(t, custom, cross, "d D c C d B c D c C d D b"))
			r.Extra = []Tag{{"Annotator", "Kisonga"}, {"Round", "3"}}
			return r
		}, `[Holes "4"]
[Variant "cross"]
[MaxLaps "1000"]
[Position "3,0,2,1/0,4,1,2 s 5 7"]
[Result "0-1"]
[Score "11-14"]
[Annotator "Kisonga"]
[Round "3"]

1. d D 2. c C 3. d B 4. c D 5. c C 6. d D 7. b 0-1
`},
		{"over at the start", func(t *testing.T) *Record {
			return New(playGame(t, rules.MustParsePosition("0,0/1,1 s 3 3"), rules.Rules{MaxLaps: 7}, ""))
		}, `[Holes "2"]
[Variant "standard"]
[MaxLaps "7"]
[Position "0,0/1,1 s 3 3"]
[Result "0-1"]
[Score "3-5"]

0-1
`},
		{"repetition and wrapping", func(t *testing.T) *Record {
			return New(playGame(t, newPosition(t, 4, 2), rules.DefaultRules(),
				"a A b A a A c A d A a C a A d B b A d A a C a D a A c A d A a C a D a A c"))
		}, `[Holes "4"]
[Seeds "2"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "1-0"]
[Score "8-4"]

1. a A 2. b A 3. a A 4. c A 5. d A 6. a C 7. a A 8. d B 9. b A 10. d A 11. a C
12. a D 13. a A 14. c A 15. d A 16. a C 17. a D 18. a A 19. c 1-0
`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rec(t)
			if got := r.String(); got != tt.text {
				t.Errorf("String:\n%s\nwant:\n%s", got, tt.text)
			}
			var b strings.Builder
			n, err := r.WriteTo(&b)
			if err != nil || b.String() != tt.text || n != int64(len(tt.text)) {
				t.Errorf("WriteTo = %d, %v, text:\n%s", n, err, b.String())
			}
			back, err := Parse(tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !equalRecords(back, r) {
				t.Errorf("Parse = %+v, want %+v", back, r)
			}
			for _, line := range strings.Split(tt.text, "\n") {
				if len(line) > lineWidth {
					t.Errorf("line longer than %d: %q", lineWidth, line)
				}
			}
		})
	}
}

// TestParseVariants reads records written differently from the canonical
// form and checks they give the canonical record.
func TestParseVariants(t *testing.T) {
	want := sixHoleRecord(t)
	tags := `[Event "Casual game"]
[Date "2026-11-29"]
[South "Naserian"]
[North "endodoi level 5"]
[Holes "6"]
[Seeds "4"]
`
	tests := []struct {
		name, text string
	}{
		{"canonical", sixHoleText},
		{"CRLF", strings.ReplaceAll(sixHoleText, "\n", "\r\n")},
		{"no numbers, no result, defaults", tags + "\na A a B a B a C a A c A e A\n"},
		{"numbers against moves", tags + "\n1.a A 2.a B 3.a B 4.a C 5.a A 6.c A 7.e A 0-1"},
		{"North's numbers", tags + "\n1. a 1... A 2. a 2... B 3. a B 4. a C 5. a A 6. c A 7. e 7... A"},
		{"comments", tags + "\n{Opening.} 1. a {a comment\nover two lines} A 2.{here too}a B\n" +
			"3. a B 4. a C 5. a A 6. c A 7. e A{after a move} 0-1 {after the result}\n"},
		{"tags in any order, spaces, blank lines", "\n  [Seeds \"4\"]\n[ Holes\t\"6\" ] \n\n" +
			`[Variant "Standard"]
[Score "17-31"]
[MaxLaps "1000"]
[Result "0-1"]
[Date "2026-11-29"]
[North "endodoi level 5"]
[Event "Casual game"]
[South "Naserian"]

1. a A 2. a B 3. a B 4. a C
 5. a A 6. c A
7. e A`},
		{"standard start as a Position", strings.Replace(sixHoleText, `[Seeds "4"]`,
			`[Position "4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"]`, 1)},
		{"Seeds and Position", strings.Replace(sixHoleText, `[Seeds "4"]`,
			"[Seeds \"4\"]\n[Position \"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0\"]", 1)},
		{"variant alias", strings.Replace(sixHoleText, `"standard"`, `"en-dodoi"`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.text)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if !equalRecords(r, want) {
				t.Errorf("Parse = %+v\nwant %+v", r, want)
			}
			if got := r.String(); got != sixHoleText {
				t.Errorf("String:\n%s", got)
			}
		})
	}
}

func TestUnknownTagsKept(t *testing.T) {
	text := `[Annotator "Kisonga"]
[Holes "3"]
[event "lower case is another tag"]
[Seeds "2"]
[Round "3"]

1. a B 2. b B 3. a A 0-1
`
	r, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []Tag{{"Annotator", "Kisonga"}, {"event", "lower case is another tag"}, {"Round", "3"}}
	if !reflect.DeepEqual(r.Extra, want) {
		t.Errorf("Extra = %q, want %q", r.Extra, want)
	}
	const out = `[Holes "3"]
[Seeds "2"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "0-1"]
[Score "4-8"]
[Annotator "Kisonga"]
[event "lower case is another tag"]
[Round "3"]

1. a B 2. b B 3. a A 0-1
`
	if got := r.String(); got != out {
		t.Errorf("String:\n%s\nwant:\n%s", got, out)
	}
}

// TestParseErrors checks each kind of error and where it is reported.
func TestParseErrors(t *testing.T) {
	const head = "[Holes \"6\"]\n[Seeds \"4\"]\n\n"
	tests := []struct {
		name      string
		text      string
		line, col int
		msg       string
		is        error
	}{
		{"empty", "", 1, 1, "missing Holes tag: the board size is unknown", nil},
		{"missing Holes", "[Seeds \"4\"]\n\n1. a", 1, 1, "missing Holes tag: the board size is unknown", nil},
		{"missing Seeds", "[Holes \"4\"]\n", 1, 1, "missing Seeds or Position tag: the start position is unknown", nil},
		{"no bracket", "[Holes \"6\"]\nSeeds \"4\"]\n", 2, 1,
			`want a tag pair [Name "value"] or a blank line before the moves, found "Seeds \"4\"]"`, nil},
		{"bad name", "[Holes \"6\"]\n[4Seeds \"4\"]\n", 2, 2,
			`want a tag name (a letter, then letters, digits or underscores) after [, found "4Seeds \"4\"]"`, nil},
		{"no value", "[Holes 6]\n", 1, 8, "want the value of tag Holes in double quotes", nil},
		{"unterminated string", "[Holes \"6\"]\n[Event \"Casual]\n", 2, 8,
			"unterminated string: the value of tag Event has no closing quote on its line", nil},
		{"bad escape", "[Event \"a\\tb\"]\n", 1, 10,
			`bad escape in the value of tag Event: only \" and \\ may be written with a backslash`, nil},
		{"control character", "[Event \"a\tb\"]\n", 1, 10, `control character '\t' in the value of tag Event`, nil},
		{"invalid UTF-8", "[Event \"a\xffb\"]\n", 1, 8, "the value of tag Event is not valid UTF-8", nil},
		{"no closing bracket", "[Holes \"6\"\n", 1, 11, "want ] to close tag Holes", nil},
		{"two tags on a line", "[Holes \"6\"] [Seeds \"4\"]\n", 1, 13,
			`unexpected "[Seeds \"4\"]" after tag Holes: write one tag pair per line`, nil},
		{"duplicate tag", "[Holes \"6\"]\n[Seeds \"4\"]\n[Holes \"6\"]\n", 3, 2, "duplicate tag Holes (first on line 1)", nil},
		{"duplicate extra tag", "[Site \"a\"]\n[Holes \"6\"]\n[Site \"b\"]\n", 3, 2, "duplicate tag Site (first on line 1)", nil},
		{"bad Holes", "[Holes \"eight\"]\n", 1, 8, `Holes tag: want a whole number from 2 to 16, found "eight"`, nil},
		{"Holes out of range", "[Holes \"17\"]\n", 1, 8, "Holes tag: 17 is out of range (2 to 16)", nil},
		{"Holes leading zero", "[Holes \"08\"]\n", 1, 8, `Holes tag: want a whole number from 2 to 16, found "08"`, nil},
		{"Seeds out of range", "[Holes \"6\"]\n[Seeds \"13\"]\n", 2, 8, "Seeds tag: 13 is out of range (1 to 12)", nil},
		{"MaxLaps zero", "[MaxLaps \"0\"]\n", 1, 10, "MaxLaps tag: 0 is out of range (1 to 1000000)", nil},
		{"unknown variant", "[Holes \"6\"]\n[Seeds \"4\"]\n[Variant \"chess\"]\n", 3, 10,
			`Variant tag: unknown variant "chess" (known: standard, cross)`, nil},
		{"bad Position", "[Holes \"2\"]\n[Position \"1,1/1 s 0 0\"]\n", 2, 16,
			"Position tag: rows differ in length: South has 2 holes, North 1", nil},
		{"Position and Holes disagree", "[Holes \"6\"]\n[Position \"1,1/1,1 s 0 0\"]\n", 2, 11,
			"the position has 2 holes per row but the Holes tag says 6", nil},
		{"bad Result", "[Result \"2-0\"]\n", 1, 9, `Result tag: want 1-0, 0-1, 1/2-1/2 or *, found "2-0"`, nil},
		{"bad Score", "[Score \"20:12\"]\n", 1, 8, `Score tag: want South's and North's captured seeds as in 20-12, found "20:12"`, nil},
		{"Result mismatch", strings.Replace(sixHoleText, `[Result "0-1"]`, `[Result "1-0"]`, 1), 9, 9,
			"Result tag says 1-0 but the moves end in a win for North (17-31)", nil},
		{"Result of a draw", "[Holes \"2\"]\n[Seeds \"2\"]\n[Result \"1-0\"]\n\n1. a B 2. b", 3, 9,
			"Result tag says 1-0 but the moves end in a draw (4-4)", nil},
		{"long bad token", head + "1. a " + strings.Repeat("x", 30), 4, 6, `want a move (a hole letter, a-p for South or A-P for North), ` +
			`a move number or a result (1-0, 0-1, 1/2-1/2, *), found "xxxxxxxxxxxxxxxxxxxxxxxx"...`, nil},
		{"Result of an unfinished game", "[Result \"1/2-1/2\"]\n" + head + "1. a A", 1, 9,
			"Result tag says 1/2-1/2 but the moves end in an unfinished game (2-3)", nil},
		{"Score mismatch", strings.Replace(sixHoleText, `[Score "17-31"]`, `[Score "17-25"]`, 1), 10, 8,
			"Score tag says 17-25 but the moves end in a win for North (17-31)", nil},
		{"marker against Result tag", strings.Replace(sixHoleText, "A 0-1", "A 1-0", 1), 12, 50,
			"game-termination marker 1-0 does not match the Result tag 0-1", nil},
		{"marker against the moves", head + "1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. e A 1/2-1/2", 4, 50,
			"game-termination marker says 1/2-1/2 but the moves end in a win for North (17-31)", nil},
		{"unfinished marked finished", head + "1. a A 0-1", 4, 8,
			"game-termination marker says 0-1 but the moves end in an unfinished game (2-3)", nil},
		{"move after the marker", head + "1. a * A", 4, 8, `unexpected "A" after the game-termination marker *`, nil},
		{"wrong move number", head + "1. a A\n3. a B", 5, 1, "wrong move number 3.: 2. is expected before South's move", nil},
		{"number before North's move", head + "1. a 1. A", 4, 6, "wrong move number 1.: 1... is expected before North's move", nil},
		{"North number before South's move", head + "1... a", 4, 1, "wrong move number 1...: 1. is expected before South's move", nil},
		{"two dots", head + "1.. a", 4, 1, `a move number is written with one dot or three, as in 3. or 3..., found "1.."`, nil},
		{"two numbers", head + "1. 1. a", 4, 4, "move number 1. follows move number 1. with no move between them", nil},
		{"number without move", head + "1. a A 2.", 4, 8, "move number 2. is not followed by a move", nil},
		{"number before marker", head + "1. a A 2. *", 4, 8, "move number 2. is not followed by a move", nil},
		{"bare number", head + "1 a", 4, 1,
			`want a move, a move number (as in 3. or 3...) or a result (1-0, 0-1, 1/2-1/2, *), found "1"`, nil},
		{"not a move", head + "1. a Ax", 4, 6, `want a move (a hole letter, a-p for South or A-P for North), ` +
			`a move number or a result (1-0, 0-1, 1/2-1/2, *), found "Ax"`, nil},
		{"letter beyond p", head + "1. q", 4, 4, `want a move (a hole letter, a-p for South or A-P for North), ` +
			`a move number or a result (1-0, 0-1, 1/2-1/2, *), found "q"`, nil},
		{"tag among the moves", head + "1. a A\n[Event \"x\"]", 5, 1, `want a move (a hole letter, a-p for South or A-P for North), ` +
			`a move number or a result (1-0, 0-1, 1/2-1/2, *), found "[Event"`, nil},
		{"unterminated comment", head + "1. a {A 2.\n b", 4, 6, "unterminated comment: { has no closing }", nil},
		{"stray brace", head + "1. a } A", 4, 6, "unexpected } outside a comment", nil},
		{"illegal move: empty hole", head + "1. a A 2. a B\n{ a comment }\n3. a B 4. a C 5. a A 6. c A 7. a", 6, 32,
			"move 13 (a): empty hole: there are no seeds to lift", rules.ErrEmptyHole},
		{"illegal move: wrong side", head + "1. a A 2. a B 3. a B 4. a C\n5. a A 6. c A 7. A", 5, 18,
			"move 13 (A): wrong side: that hole belongs to the player not to move", rules.ErrWrongSide},
		{"illegal move: no such hole", head + "1. a A 2. g", 4, 11, "move 3 (g): no such hole on this board", rules.ErrNoSuchHole},
		{"illegal move: endless", "[Holes \"3\"]\n[MaxLaps \"1\"]\n[Position \"1,1,0/0,0,0 s 0 0\"]\n\na", 5, 1,
			"move 1 (a): endless sowing: the sowing does not end within the lap cap", rules.ErrEndless},
		{"move after the end", head + "1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. e A\n8. a", 5, 4,
			"move 15 (a): the game is over: it ended after move 14 (no legal move)", rules.ErrGameOver},
		{"move after an end by repetition", "[Holes \"4\"]\n[Seeds \"2\"]\n\n" +
			"a A b A a A c A d A a C a A d B b A d A a C a D a A c A d A a C a D a A c A", 4, 75,
			"move 38 (A): the game is over: it ended after move 37 (third repetition)", rules.ErrGameOver},
		{"move when there is none", "[Holes \"2\"]\n[Position \"0,0/1,1 s 3 3\"]\n\n1. a", 4, 4,
			"move 1 (a): the game is over: it ended before the first move (no legal move)", rules.ErrGameOver},
		{"oversized", "[Holes \"6\"]\n[Seeds \"4\"]\n\n" + strings.Repeat(" ", MaxSize), 1, 1,
			"the record is 1048601 bytes, more than the limit of 1048576 (1 MiB)", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Parse(tt.text)
			if err == nil {
				t.Fatalf("Parse succeeded: %v", r)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is a %T, not a *SyntaxError", err, err)
			}
			if se.Line != tt.line || se.Column != tt.col || se.Msg != tt.msg {
				t.Errorf("error at %d:%d %q\n      want %d:%d %q", se.Line, se.Column, se.Msg, tt.line, tt.col, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			if want := "record: line "; !strings.HasPrefix(err.Error(), want) {
				t.Errorf("Error() = %q", err.Error())
			}
		})
	}
}

func TestSyntaxErrorString(t *testing.T) {
	text := "[Holes \"6\"]\n[Seeds \"4\"]\n\n1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. C"
	_, err := Parse(text)
	const want = "record: line 4, column 46: move 13 (C): wrong side: that hole belongs to the player not to move"
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

// TestInvalidRecords checks that records that cannot be written are
// refused by WriteTo and MarshalJSON, and that String still says something.
func TestInvalidRecords(t *testing.T) {
	good := func() *Record { return sixHoleRecord(t) }
	tests := []struct {
		name   string
		modify func(r *Record)
		msg    string
		is     error
	}{
		{"illegal move", func(r *Record) { r.Moves[3] = rules.NewMove(rules.South, 0) },
			"record: move 4 (a): wrong side: that hole belongs to the player not to move", rules.ErrWrongSide},
		{"move after the end", func(r *Record) { r.Moves = append(r.Moves, rules.NewMove(rules.South, 0)) },
			"record: move 15 (a): the game is over: it ended after move 14 (no legal move)", rules.ErrGameOver},
		{"zero start", func(r *Record) { r.Start = rules.Position{} },
			"record: invalid start position: 0 holes per row", nil},
		{"bad rules", func(r *Record) { r.Rules.MaxLaps = -1 },
			"record: rules: lap cap -1 out of range (1 to 1000000)", nil},
		{"newline in a name", func(r *Record) { r.South = "a\nb" },
			`record: South: control character '\n' at byte 2`, nil},
		{"invalid UTF-8", func(r *Record) { r.Event = "\xff" }, "record: Event: not valid UTF-8", nil},
		{"known tag as extra", func(r *Record) { r.Extra = []Tag{{"Result", "1-0"}} },
			`record: extra tag "Result": Result is a known tag, not an extra one`, nil},
		{"bad extra name", func(r *Record) { r.Extra = []Tag{{"a b", "x"}} },
			`record: extra tag "a b": a tag name is a letter, then letters, digits or underscores`, nil},
		{"duplicate extra", func(r *Record) { r.Extra = []Tag{{"Site", "x"}, {"Site", "y"}} },
			"record: extra tag Site appears twice", nil},
		{"too many moves", func(r *Record) { r.Moves = make([]rules.Move, MaxMoves+1) },
			"record: 100001 moves, more than the limit of 100000", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := good()
			tt.modify(r)
			err := r.Validate()
			if err == nil || err.Error() != tt.msg {
				t.Fatalf("Validate = %v, want %s", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
			var b strings.Builder
			if n, err := r.WriteTo(&b); err == nil || n != 0 || b.Len() != 0 {
				t.Errorf("WriteTo = %d, %v and wrote %q", n, err, b.String())
			}
			if j, err := r.MarshalJSON(); err == nil {
				t.Errorf("MarshalJSON = %s", j)
			}
			s := r.String()
			if !strings.Contains(s, `[Result "*"]`) || strings.Contains(s, "[Score") {
				t.Errorf("String of an invalid record:\n%s", s)
			}
		})
	}
}

func TestWriteTooLarge(t *testing.T) {
	r := sixHoleRecord(t)
	r.Event = strings.Repeat("x", MaxSize)
	if _, err := r.WriteTo(new(strings.Builder)); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("WriteTo of a huge record: %v", err)
	}
	if _, err := r.MarshalJSON(); err == nil || !strings.Contains(err.Error(), "more than the limit") {
		t.Errorf("MarshalJSON of a huge record: %v", err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteToError(t *testing.T) {
	_, err := sixHoleRecord(t).WriteTo(failWriter{})
	if err == nil || err.Error() != "record: disk full" {
		t.Errorf("WriteTo = %v", err)
	}
}
