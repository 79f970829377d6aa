package record

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

const sixHoleJSON = `{"event":"Casual game","date":"2026-11-29","south":"Naserian","north":"endodoi level 5",` +
	`"holes":6,"seeds":4,"variant":"standard","maxLaps":1000,"result":"0-1","score":"17-31",` +
	`"moves":["a","A","a","B","a","B","a","C","a","A","c","A","e","A"]}`

func TestJSONWriteRead(t *testing.T) {
	custom := New(playGame(t, rules.MustParsePosition("3,0,2,1/0,4,1,2 s 5 7"), rules.Rules{Variant: rules.Cross},
		"d D c C d B c D c C d D b"))
	custom.South = `Say "hi" \o/ <&>`
	custom.Extra = []Tag{{"Round", "3"}, {"Annotator", "Kisonga"}}
	tests := []struct {
		name string
		rec  *Record
		json string
	}{
		{"finished game", sixHoleRecord(t), sixHoleJSON},
		{"no moves", &Record{Start: newPosition(t, 8, 4)},
			`{"holes":8,"seeds":4,"variant":"standard","maxLaps":1000,"result":"*","score":"0-0","moves":[]}`},
		{"custom start and tags", custom,
			`{"south":"Say \"hi\" \\o/ <&>","holes":4,"variant":"cross","maxLaps":1000,` +
				`"position":"3,0,2,1/0,4,1,2 s 5 7","result":"0-1","score":"11-14",` +
				`"moves":["d","D","c","C","d","B","c","D","c","C","d","D","b"],"tags":{"Round":"3","Annotator":"Kisonga"}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := tt.rec.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.json {
				t.Errorf("MarshalJSON:\n%s\nwant:\n%s", b, tt.json)
			}
			if !json.Valid(b) {
				t.Errorf("MarshalJSON gave invalid JSON: %s", b)
			}
			back, err := ParseJSON([]byte(tt.json))
			if err != nil {
				t.Fatalf("ParseJSON: %v", err)
			}
			if !equalRecords(back, tt.rec) {
				t.Errorf("ParseJSON = %+v, want %+v", back, tt.rec)
			}
			// The text form holds the same information.
			text, err := Parse(tt.rec.String())
			if err != nil {
				t.Fatal(err)
			}
			if !equalRecords(text, back) {
				t.Errorf("text gives %+v, JSON %+v", text, back)
			}
		})
	}
}

func TestJSONWithEncodingJSON(t *testing.T) {
	type envelope struct {
		ID     int     `json:"id"`
		Record *Record `json:"record"`
		Other  Record  `json:"other"`
	}
	in := envelope{ID: 7, Record: sixHoleRecord(t), Other: *sixHoleRecord(t)}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"id":7,"record":` + sixHoleJSON + `,"other":` + sixHoleJSON + `}`; string(b) != want {
		t.Errorf("json.Marshal = %s", b)
	}
	var out envelope
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out.ID != 7 || !equalRecords(out.Record, in.Record) || !equalRecords(&out.Other, &in.Other) {
		t.Errorf("json.Unmarshal = %+v", out)
	}
	// null leaves the record alone, as encoding/json does.
	if err := json.Unmarshal([]byte(`{"id":1,"record":null}`), &out); err != nil || out.Record != nil {
		t.Errorf("null record: %v, %+v", err, out.Record)
	}
	// Errors come through.
	err = json.Unmarshal([]byte(`{"record":{"holes":6}}`), &out)
	if err == nil || !strings.Contains(err.Error(), `missing field "seeds" or "position"`) {
		t.Errorf("bad embedded record: %v", err)
	}
}

func TestParseJSONVariants(t *testing.T) {
	want := sixHoleRecord(t)
	tests := []struct{ name, json string }{
		{"canonical", sixHoleJSON},
		{"spaces, order, defaults", ` {
  "moves": ["a","A","a","B","a","B","a","C","a","A","c","A","e","A"],
  "seeds": 4, "holes": 6,
  "north": "endodoi level 5", "south": "Naserian", "date": "2026-11-29", "event": "Casual game"
}
`},
		{"escapes", strings.Replace(sixHoleJSON, `"Naserian"`, `"Nas\u0065rian"`, 1)},
		{"position instead of seeds", strings.Replace(sixHoleJSON, `"seeds":4`, `"position":"4,4,4,4,4,4/4,4,4,4,4,4 s 0 0"`, 1)},
		{"empty tags", strings.Replace(sixHoleJSON, `]}`, `],"tags":{}}`, 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseJSON([]byte(tt.json))
			if err != nil {
				t.Fatal(err)
			}
			if !equalRecords(r, want) {
				t.Errorf("ParseJSON = %+v", r)
			}
			if b, _ := r.MarshalJSON(); string(b) != sixHoleJSON {
				t.Errorf("MarshalJSON = %s", b)
			}
		})
	}
}

func TestParseJSONErrors(t *testing.T) {
	six := func(old, new string) string {
		if !strings.Contains(sixHoleJSON, old) {
			panic(old)
		}
		return strings.Replace(sixHoleJSON, old, new, 1)
	}
	tests := []struct {
		name, json, msg string
		is              error
	}{
		{"empty", ``, "record: invalid JSON: unexpected end of input", nil},
		{"not an object", `[1]`, "record: want a JSON object, found an array", nil},
		{"syntax", `{"holes":6,}`, "record: invalid JSON at offset 11: invalid character '}' looking for beginning of object key string", nil},
		{"truncated", sixHoleJSON[:40], "record: invalid JSON: unexpected end of input", nil},
		{"trailing data", sixHoleJSON + `{}`, "record: invalid JSON: data after the record's object", nil},
		{"unknown field", six(`"holes"`, `"board":1,"holes"`), `record: unknown field "board"`, nil},
		{"field in another case", six(`"holes"`, `"Holes"`), `record: unknown field "Holes"`, nil},
		{"duplicate field", six(`"holes":6`, `"holes":6,"holes":6`), `record: field "holes" appears twice`, nil},
		{"null", six(`"Naserian"`, `null`), "record: south: want a string, found null", nil},
		{"number as string", six(`"holes":6`, `"holes":"6"`), "record: holes: want a number, found a string", nil},
		{"fraction", six(`"holes":6`, `"holes":6.0`), `record: holes: want a whole number from 2 to 16, found "6.0"`, nil},
		{"negative", six(`"seeds":4`, `"seeds":-4`), `record: seeds: want a whole number from 1 to 12, found "-4"`, nil},
		{"control character", six(`"Naserian"`, `"Nas\nerian"`), `record: south: control character '\n' at byte 4`, nil},
		{"missing holes", `{"seeds":4}`, `record: missing field "holes": the board size is unknown`, nil},
		{"missing seeds", `{"holes":4}`, `record: missing field "seeds" or "position": the start position is unknown`, nil},
		{"position and holes disagree", `{"holes":4,"position":"1,1/1,1 s 0 0"}`,
			"record: position: the position has 2 holes per row but the holes says 4", nil},
		{"bad position", `{"holes":2,"position":"1,1/1 s 0 0"}`,
			`record: position: position "1,1/1 s 0 0": column 5: rows differ in length: South has 2 holes, North 1`, nil},
		{"unknown variant", six(`"standard"`, `"chess"`), `record: variant: unknown variant "chess" (known: standard, cross)`, nil},
		{"moves not an array", six(`"moves":[`, `"moves":"a",[`), "record: moves: want an array of moves, found a string", nil},
		{"move not a string", six(`"moves":["a"`, `"moves":[1`), "record: move 1: want a string, found a number", nil},
		{"bad move", six(`"moves":["a","A"`, `"moves":["a","AB"`),
			`record: move 2: want a hole letter (a-p for South, A-P for North), found "AB"`, nil},
		{"illegal move", six(`"a","C"`, `"a","a"`),
			"record: move 8 (a): wrong side: that hole belongs to the player not to move", rules.ErrWrongSide},
		{"move after the end", six(`"e","A"]`, `"e","A","a"]`),
			"record: move 15 (a): the game is over: it ended after move 14 (no legal move)", rules.ErrGameOver},
		{"result mismatch", six(`"0-1"`, `"1-0"`), "record: result: Result tag says 1-0 but the moves end in a win for North (17-31)", nil},
		{"bad result", six(`"0-1"`, `"0-2"`), `record: result: want 1-0, 0-1, 1/2-1/2 or *, found "0-2"`, nil},
		{"score mismatch", six(`"17-31"`, `"31-17"`), "record: score: Score tag says 31-17 but the moves end in a win for North (17-31)", nil},
		{"tags not an object", six(`]}`, `],"tags":[]}`), "record: tags: want an object, found an array", nil},
		{"known tag in tags", six(`]}`, `],"tags":{"Result":"0-1"}}`), `record: tags: Result belongs in the "result" field`, nil},
		{"bad tag name", six(`]}`, `],"tags":{"a b":"0-1"}}`),
			`record: tags: "a b": a tag name is a letter, then letters, digits or underscores`, nil},
		{"duplicate tag", six(`]}`, `],"tags":{"Site":"a","Site":"b"}}`), "record: tags: Site appears twice", nil},
		{"tag value not a string", six(`]}`, `],"tags":{"Round":3}}`), "record: tags: Round: want a string, found a number", nil},
		{"oversized", `{"event":"` + strings.Repeat("x", MaxSize) + `"}`,
			"record: the record is 1048588 bytes, more than the limit of 1048576 (1 MiB)", nil},
		{"too many moves", `{"holes":6,"seeds":4,"moves":[` + strings.Repeat(`"a",`, MaxMoves) + `"a"]}`,
			"record: moves: more than 100000 moves: the record is too long", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseJSON([]byte(tt.json))
			if err == nil {
				t.Fatalf("ParseJSON succeeded: %+v", r)
			}
			if err.Error() != tt.msg {
				t.Errorf("error %q\n     want %q", err, tt.msg)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not wrap %v", err, tt.is)
			}
		})
	}
}

func TestRead(t *testing.T) {
	want := sixHoleRecord(t)
	for _, in := range []string{sixHoleText, sixHoleJSON, " \r\n\t" + sixHoleJSON, "\n" + sixHoleText,
		"\ufeff" + sixHoleText, "\ufeff" + sixHoleJSON} {
		r, err := Read([]byte(in))
		if err != nil {
			t.Errorf("Read(%.20q): %v", in, err)
			continue
		}
		if !equalRecords(r, want) {
			t.Errorf("Read(%.20q) = %+v", in, r)
		}
	}
	// The form is chosen by the first byte: a broken JSON record gives a
	// JSON error, not a text one.
	if _, err := Read([]byte(" {")); err == nil || !strings.Contains(err.Error(), "invalid JSON") {
		t.Errorf("Read of broken JSON: %v", err)
	}
	var se *SyntaxError
	if _, err := Read([]byte("[Holes 6]")); !errors.As(err, &se) {
		t.Errorf("Read of broken text: %v", err)
	}
}

// TestDocExamples checks the second example of docs/game-records.md.
func TestDocExamples(t *testing.T) {
	const canonical = `[Holes "3"]
[Variant "cross"]
[MaxLaps "1000"]
[Position "2,2,2/2,2,2 n 0 0"]
[Result "0-1"]
[Score "5-7"]
[Annotator "Kisonga"]

1... C 2. c B 3. a C 4. b 0-1
`
	const loose = `[Position "2,2,2/2,2,2 n 0 0"]
[Variant "Cross"]
[Holes "3"]
[Annotator "Kisonga"]

C {North opens on the right} c 2... B a C b
`
	const js = `{"holes":3,"variant":"cross","maxLaps":1000,"position":"2,2,2/2,2,2 n 0 0","result":"0-1",` +
		`"score":"5-7","moves":["C","c","B","a","C","b"],"tags":{"Annotator":"Kisonga"}}`
	for _, in := range []string{canonical, loose, js} {
		r, err := Read([]byte(in))
		if err != nil {
			t.Fatalf("Read(%.30q): %v", in, err)
		}
		if s := r.String(); s != canonical {
			t.Errorf("String:\n%s", s)
		}
		if b, _ := r.MarshalJSON(); string(b) != js {
			t.Errorf("MarshalJSON: %s", b)
		}
	}
}
