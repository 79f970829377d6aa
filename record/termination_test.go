package record

import (
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// resignedText is a game of one move that North resigned, as the server
// writes it.
const resignedText = `[Holes "6"]
[Seeds "4"]
[Variant "standard"]
[MaxLaps "1000"]
[Result "*"]
[Score "7-0"]
[Termination "resigned; South won"]

1. c *
`

// TestTerminationRead: a Termination tag is read, in either form, as a
// resignation of a game its moves leave going; another ending is kept as
// words; a resignation that is not one exactly is refused with an error that
// names the tag.
func TestTerminationRead(t *testing.T) {
	tests := []struct {
		name   string
		text   string // the text form
		json   string // the JSON form
		winner rules.Side
		ok     bool   // a resignation
		err    string // in both forms, "" for none
	}{
		{name: "none", text: "[Holes \"6\"]\n[Seeds \"4\"]\n\n1. c *\n",
			json: `{"holes":6,"seeds":4,"moves":["c"]}`},
		{name: "South won", text: resignedText,
			json:   `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigned; South won"}}`,
			winner: rules.South, ok: true},
		{name: "North won, among other tags",
			text:   "[Annotator \"K\"]\n[Holes \"6\"]\n[Termination \"resigned; North won\"]\n[Seeds \"4\"]\n[Round \"2\"]\n\nc C\n",
			json:   `{"holes":6,"seeds":4,"moves":["c","C"],"tags":{"Annotator":"K","Termination":"resigned; North won","Round":"2"}}`,
			winner: rules.North, ok: true},
		{name: "before the first move", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned; North won\"]\n",
			json:   `{"holes":6,"seeds":4,"tags":{"Termination":"resigned; North won"}}`,
			winner: rules.North, ok: true},
		{name: "the player to move won", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned; North won\"]\n\nc\n",
			json:   `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigned; North won"}}`,
			winner: rules.North, ok: true},
		{name: "another ending", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"lost on time; South won\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"lost on time; South won"}}`},
		{name: "a draw", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"drawn by agreement\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"drawn by agreement"}}`},
		{name: "aborted, after the moves ended the game",
			text: strings.Replace(sixHoleText, "[Score \"17-31\"]\n", "[Score \"17-31\"]\n[Termination \"aborted\"]\n", 1)},
		{name: "no winner", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigned"}}`,
			err:  `Termination tag: want "resigned; South won"`},
		{name: "wrong case", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"Resigned; south won\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"Resigned; south won"}}`,
			err:  `found "Resigned; south won"`},
		{name: "a resignation misspelt", text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigns; South won\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigns; South won"}}`,
			err:  `found "resigns; South won"`},
		{name: "the moves end the game",
			text: strings.Replace(sixHoleText, "[Score \"17-31\"]\n", "[Score \"17-31\"]\n[Termination \"resigned; North won\"]\n", 1),
			json: strings.Replace(sixHoleJSON, `]}`, `],"tags":{"Termination":"resigned; North won"}}`, 1),
			err:  "Termination tag: says North won by resignation but the moves end the game (no legal move): a win for North (17-31)"},
		{name: "a resignation with a decided Result",
			text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Result \"1-0\"]\n[Termination \"resigned; South won\"]\n\nc\n",
			json: `{"holes":6,"seeds":4,"result":"1-0","moves":["c"],"tags":{"Termination":"resigned; South won"}}`,
			err:  "Result tag says 1-0 but the moves end in an unfinished game (7-0)"},
		{name: "a resignation with a decided marker",
			text: "[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned; South won\"]\n\nc 1-0\n",
			err:  "game-termination marker says 1-0 but the moves end in an unfinished game (7-0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forms := map[string]func() (*Record, error){
				"text": func() (*Record, error) { return Parse(tt.text) },
			}
			if tt.json != "" {
				forms["json"] = func() (*Record, error) { return ParseJSON([]byte(tt.json)) }
			}
			for form, read := range forms {
				r, err := read()
				if tt.err != "" {
					if err == nil || !strings.Contains(err.Error(), tt.err) {
						t.Fatalf("%s: error %v, want one containing %q", form, err, tt.err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", form, err)
				}
				winner, ok := r.Resigned()
				if ok != tt.ok || ok && winner != tt.winner {
					t.Fatalf("%s: Resigned() = %v, %v; want %v, %v", form, winner, ok, tt.winner, tt.ok)
				}
			}
		})
	}
}

// TestTerminationErrorPlace: in the text form the error points at the
// value of the Termination tag; in JSON it names the tag among the tags.
func TestTerminationErrorPlace(t *testing.T) {
	_, err := Parse("[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned\"]\n\nc\n")
	if err == nil || err.Error() != `record: line 3, column 14: Termination tag: want "resigned; South won" or "resigned; North won" (a resignation), found "resigned"` {
		t.Fatalf("text error %v", err)
	}
	_, err = ParseJSON([]byte(`{"holes":6,"seeds":4,"tags":{"Termination":"resigned"}}`))
	if err == nil || err.Error() != `record: tags: Termination tag: want "resigned; South won" or "resigned; North won" (a resignation), found "resigned"` {
		t.Fatalf("JSON error %v", err)
	}
}

// TestTerminationRoundTrip: a resigned game's record prints back the same
// in both forms, the tag in its place, and reads back resigned.
func TestTerminationRoundTrip(t *testing.T) {
	r, err := Parse(resignedText)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.String(); got != resignedText {
		t.Fatalf("String() =\n%s\nwant\n%s", got, resignedText)
	}
	js, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"holes":6,"seeds":4,"variant":"standard","maxLaps":1000,"result":"*","score":"7-0","moves":["c"],"tags":{"Termination":"resigned; South won"}}`
	if string(js) != want {
		t.Fatalf("MarshalJSON() = %s, want %s", js, want)
	}
	back, err := ParseJSON(js)
	if err != nil {
		t.Fatal(err)
	}
	if w, ok := back.Resigned(); !ok || w != rules.South || back.String() != resignedText {
		t.Fatalf("JSON read back: Resigned() = %v, %v; text\n%s", w, ok, back.String())
	}
}
