package record

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// fuzzTextSeeds are valid and broken text records.
var fuzzTextSeeds = []string{
	sixHoleText,
	strings.ReplaceAll(sixHoleText, "\n", "\r\n"),
	"[Holes \"3\"]\n[Variant \"cross\"]\n[Position \"2,2,2/2,2,2 n 0 0\"]\n\n1... C 2. c B {x} 3. a C 4. b 0-1\n",
	"[Holes \"4\"]\n[Position \"3,0,2,1/0,4,1,2 s 5 7\"]\n[Annotator \"K\\\"\\\\\"]\n\nd D c C d B c D c C d D b",
	"[Holes \"3\"]\n[MaxLaps \"1\"]\n[Position \"1,1,0/0,0,0 s 0 0\"]\n\nb",
	"[Holes \"2\"]\n[Seeds \"1\"]\n\n1.a *",
	"[Holes \"6\"]\n[Seeds \"4\"]\n\n1. a A\n3. a B",
	"[Holes \"6\"]\n[Seeds \"4\"]\n\n1. a {A 2.\n b",
	"[Holes \"6\"]\n[Event \"Casual]\n",
	"[Holes \"6\"]\n[Seeds \"4\"]\n[Holes \"6\"]\n",
	"[Result \"1-0\"]\n[Holes \"6\"]\n[Seeds \"4\"]\n\n1. a A 1-0",
	"[Holes \"6\"]\n[Seeds \"4\"]\n[Result \"*\"]\n[Termination \"resigned; South won\"]\n\n1. c *\n",
	"[Holes \"6\"]\n[Seeds \"4\"]\n[Termination \"resigned; North wins\"]\n\n1. c *\n",
	"[Holes \"3\"]\n[MaxLaps \"1\"]\n[Position \"1,1,0/0,0,0 s 0 0\"]\n[Termination \"resigned; North won\"]\n\nb",
	"",
}

// FuzzParse checks that Parse never panics, that its errors are
// *SyntaxErrors inside the text, and that whatever parses prints back the
// same: String is a fixed point, and the JSON form holds the same record.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzTextSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		r, err := Parse(text)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is a %T", err, err)
			}
			if lines := strings.Count(text, "\n") + 1; se.Line < 1 || se.Line > lines || se.Column < 1 {
				t.Fatalf("error %v outside the text (%d lines)", err, lines)
			}
			return
		}
		checkPrintsBack(t, r)
	})
}

// FuzzParseJSON does for ParseJSON what FuzzParse does for Parse.
func FuzzParseJSON(f *testing.F) {
	f.Add([]byte(sixHoleJSON))
	f.Add([]byte(`{"holes":3,"variant":"cross","maxLaps":1000,"position":"2,2,2/2,2,2 n 0 0","result":"0-1",` +
		`"score":"5-7","moves":["C","c","B","a","C","b"],"tags":{"Round":"3","A":"\"\\"}}`))
	f.Add([]byte(`{"holes":2,"seeds":1,"moves":["a"]}`))
	f.Add([]byte(`{"holes":2,"seeds":1,"moves":["a","A"]}`))
	f.Add([]byte(`{"holes":6,"seeds":4,"holes":6}`))
	f.Add([]byte(`{"holes":6.5}`))
	f.Add([]byte(`{"holes":6,"seeds":4,"tags":{"Result":"*"}}`))
	f.Add([]byte(`{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"resigned; South won"}}`))
	f.Add([]byte(`{"holes":6,"seeds":4,"moves":["c"],"tags":{"Termination":"lost on time; South won"}}`))
	f.Add([]byte(`{"holes":2,"seeds":1,"moves":["a","A"],"tags":{"Termination":"resigned; North won"}}`))
	f.Add([]byte(`{"holes":6,"seeds":4,"moves":null}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseJSON(data)
		if err != nil {
			return
		}
		checkPrintsBack(t, r)
	})
}

// checkPrintsBack checks that a record that was read validates and prints
// back the same in both forms.
func checkPrintsBack(t *testing.T, r *Record) {
	t.Helper()
	if err := r.Validate(); err != nil {
		t.Fatalf("a record that was read does not validate: %v", err)
	}
	for _, tag := range r.Extra {
		if tag.Name != tagTermination {
			continue
		}
		// A Termination tag that was read as a resignation is one in a
		// game its moves leave going; one that begins as a resignation
		// was read as one.
		if _, ok := r.Resigned(); !ok {
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(tag.Value)), "resign") {
				t.Fatalf("Termination %q was read but is not a resignation", tag.Value)
			}
			continue
		}
		if g, err := r.Game(); err != nil || g.Over() {
			t.Fatalf("Termination %q was read for a game its moves end (%v)", tag.Value, err)
		}
	}
	text := r.String()
	if len(text) > MaxSize {
		return // too large to be read back, and WriteTo says so
	}
	back, err := Parse(text)
	if err != nil {
		t.Fatalf("Parse(String()): %v\n%s", err, text)
	}
	if !equalRecords(back, r) {
		t.Fatalf("Parse(String()) = %+v, want %+v", back, r)
	}
	if again := back.String(); again != text {
		t.Fatalf("String is not a fixed point:\n%s\n%s", text, again)
	}
	js, err := r.MarshalJSON()
	if err != nil {
		t.Fatalf("MarshalJSON: %v", err)
	}
	fromJSON, err := ParseJSON(js)
	if err != nil {
		t.Fatalf("ParseJSON(MarshalJSON()): %v\n%s", err, js)
	}
	if !equalRecords(fromJSON, r) {
		t.Fatalf("ParseJSON(MarshalJSON()) = %+v, want %+v", fromJSON, r)
	}
	if again, _ := fromJSON.MarshalJSON(); !bytes.Equal(again, js) {
		t.Fatalf("MarshalJSON is not a fixed point:\n%s\n%s", js, again)
	}
}
