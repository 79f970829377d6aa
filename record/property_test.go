package record

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode"

	"pgregory.net/rapid"

	"github.com/endodoi/endodoi/rules"
)

// valueGen generates tag values: printable text, quotes and backslashes
// included.
var valueGen = rapid.StringOfN(rapid.RuneFrom([]rune{'"', '\\', ' ', '{', '}', '[', ']'},
	unicode.L, unicode.N, unicode.P, unicode.S, unicode.Zs), 0, 20, -1)

// randomRecord plays a random legal game on a random board and describes
// it with random names and tags.
func randomRecord(t *rapid.T) *Record {
	holes := rapid.IntRange(2, 10).Draw(t, "holes")
	seeds := rapid.IntRange(1, 5).Draw(t, "seeds")
	start, err := rules.NewPosition(holes, seeds)
	if err != nil {
		t.Fatal(err)
	}
	if rapid.Bool().Draw(t, "northFirst") {
		start = start.WithToMove(rules.North)
	}
	rs := rules.Rules{
		Variant: rapid.SampledFrom(rules.Variants()).Draw(t, "variant"),
		MaxLaps: rapid.SampledFrom([]int{rules.DefaultMaxLaps, 2, 5, 50}).Draw(t, "maxLaps"),
	}
	g, err := rules.NewGame(start, rs)
	if err != nil {
		t.Fatal(err)
	}
	plies := rapid.IntRange(0, 400).Draw(t, "plies")
	for g.Ply() < plies && !g.Over() {
		legal := g.LegalMoves()
		m := legal[rapid.IntRange(0, len(legal)-1).Draw(t, "move")]
		if err := g.Play(m); err != nil {
			t.Fatal(err)
		}
	}
	r := New(g)
	r.Event = valueGen.Draw(t, "event")
	r.Date = valueGen.Draw(t, "date")
	r.South = valueGen.Draw(t, "south")
	r.North = valueGen.Draw(t, "north")
	names := rapid.SliceOfNDistinct(rapid.StringMatching(`[A-Za-z][A-Za-z0-9_]{0,8}`), 0, 4, rapid.ID[string]).
		Filter(func(ns []string) bool {
			for _, n := range ns {
				if isKnownTag(n) {
					return false
				}
			}
			return true
		}).Draw(t, "tagNames")
	for _, n := range names {
		r.Extra = append(r.Extra, Tag{Name: n, Value: valueGen.Draw(t, "tagValue")})
	}
	if !g.Over() && rapid.Bool().Draw(t, "resigned") {
		winner := rules.Side(rapid.IntRange(0, 1).Draw(t, "winner"))
		r.Extra = append(r.Extra, Tag{Name: tagTermination, Value: terminationText(winner)})
	}
	return r
}

// TestRoundTripProperty checks that writing a record and reading it back,
// in either form, gives the same record and the same text.
func TestRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := randomRecord(t)
		g, err := r.Game()
		if err != nil {
			t.Fatal(err)
		}

		text := r.String()
		fromText, err := Parse(text)
		if err != nil {
			t.Fatalf("Parse: %v\n%s", err, text)
		}
		if !equalRecords(fromText, r) {
			t.Fatalf("text round trip:\n got %+v\nwant %+v", fromText, r)
		}
		if again := fromText.String(); again != text {
			t.Fatalf("text is not a fixed point:\n%s\n%s", text, again)
		}

		js, err := r.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := ParseJSON(js)
		if err != nil {
			t.Fatalf("ParseJSON: %v\n%s", err, js)
		}
		if !equalRecords(fromJSON, r) {
			t.Fatalf("JSON round trip:\n got %+v\nwant %+v", fromJSON, r)
		}
		if again, _ := fromJSON.MarshalJSON(); !bytes.Equal(again, js) {
			t.Fatalf("JSON is not a fixed point:\n%s\n%s", js, again)
		}
		// text -> JSON -> text
		if s := fromJSON.String(); s != text {
			t.Fatalf("text from JSON differs:\n%s\n%s", s, text)
		}

		// encoding/json reads the same JSON as we meant it.
		var plain struct {
			Holes  int               `json:"holes"`
			Result string            `json:"result"`
			Score  string            `json:"score"`
			South  string            `json:"south"`
			Moves  []string          `json:"moves"`
			Tags   map[string]string `json:"tags"`
		}
		if err := json.Unmarshal(js, &plain); err != nil {
			t.Fatalf("encoding/json: %v\n%s", err, js)
		}
		if plain.Holes != r.Start.Holes() || plain.Result != g.Result().Token() ||
			plain.Score != scoreString(g) || plain.South != r.South ||
			len(plain.Moves) != len(r.Moves) || len(plain.Tags) != len(r.Extra) {
			t.Fatalf("encoding/json reads %+v from %s", plain, js)
		}
		for _, tag := range r.Extra {
			if plain.Tags[tag.Name] != tag.Value {
				t.Fatalf("encoding/json reads tag %s as %q, want %q", tag.Name, plain.Tags[tag.Name], tag.Value)
			}
		}
	})
}
