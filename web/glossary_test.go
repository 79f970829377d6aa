package web

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// glossary is testdata/glossary.json: for each translated language, the one
// term of each concept (hole, seed, sowing...), the competing terms it
// replaced, and wrong words no message may use.
type glossary struct {
	Concepts  map[string]glossaryConcept `json:"concepts"`
	Languages map[string]struct {
		Concepts map[string]glossaryTerm `json:"concepts"`
		Avoid    []struct {
			Text string `json:"text"`
			Why  string `json:"why"`
		} `json:"avoid"`
	} `json:"languages"`
}

// glossaryConcept is what all languages share about a concept: the en.json
// keys whose messages name it, and the concepts that must keep out of them.
type glossaryConcept struct {
	Keys    []string `json:"keys"`
	Exclude []string `json:"exclude"`
}

// glossaryTerm is a language's term for a concept. Match lists the patterns
// that count as the term (Term itself when empty); Keys, when set, replaces
// the concept's keys.
type glossaryTerm struct {
	Term   string   `json:"term"`
	Match  []string `json:"match"`
	Seed   string   `json:"seed"`
	Note   string   `json:"note"`
	Keys   []string `json:"keys"`
	Reject []string `json:"reject"`
}

func (g glossaryTerm) patterns() []string {
	if len(g.Match) > 0 {
		return g.Match
	}
	return []string{g.Term}
}

func readGlossary(t *testing.T) glossary {
	t.Helper()
	data, err := os.ReadFile("testdata/glossary.json")
	if err != nil {
		t.Fatalf("reading the glossary: %v", err)
	}
	var g glossary
	if err := json.Unmarshal(data, &g); err != nil {
		t.Fatalf("testdata/glossary.json: %v", err)
	}
	return g
}

// wordChar reports whether r belongs to a word: letters, the marks of
// scripts such as Bengali's vowel signs, and digits.
func wordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsMark(r) || unicode.IsDigit(r)
}

// findTerm reports the first occurrence in text of a glossary pattern: a
// word or phrase matched as whole words, case aside; a leading or trailing
// * lets the word begin or end anywhere ("zrn*" is zrno, zrna, zrny...).
func findTerm(text, pattern string) (string, bool) {
	open, closed := strings.HasPrefix(pattern, "*"), strings.HasSuffix(pattern, "*")
	needle := strings.ToLower(strings.Trim(pattern, "*"))
	lower := strings.ToLower(text)
	for from := 0; ; {
		i := strings.Index(lower[from:], needle)
		if i < 0 {
			return "", false
		}
		start, end := from+i, from+i+len(needle)
		before, _ := utf8.DecodeLastRuneInString(lower[:start])
		after, _ := utf8.DecodeRuneInString(lower[end:])
		if (open || start == 0 || !wordChar(before)) && (closed || end == len(lower) || !wordChar(after)) {
			return text[start:end], true
		}
		_, size := utf8.DecodeRuneInString(lower[start:])
		from = start + size
	}
}

func findAny(text string, patterns []string) (string, bool) {
	for _, p := range patterns {
		if found, ok := findTerm(text, p); ok {
			return found, true
		}
	}
	return "", false
}

// TestGlossary checks that each translated catalog names each concept of
// testdata/glossary.json with its one term: in every message that names
// the concept, and with none of the competing terms anywhere; and that no
// message uses a word the glossary lists as wrong.
func TestGlossary(t *testing.T) {
	g := readGlossary(t)
	en := catalog(t, "en")
	for _, lang := range languages[1:] {
		spec, ok := g.Languages[lang]
		if !ok {
			t.Errorf("the glossary has no entry for %s", lang)
			continue
		}
		cat := catalog(t, lang)
		keys := make([]string, 0, len(cat))
		for k := range cat {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		names := make([]string, 0, len(spec.Concepts))
		for name := range spec.Concepts {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			term := spec.Concepts[name]
			shared, ok := g.Concepts[name]
			if !ok {
				t.Errorf("%s: the glossary's concept %q is not among its concepts", lang, name)
				continue
			}
			if term.Term == "" {
				t.Errorf("%s %s: no term", lang, name)
			}
			conceptKeys := shared.Keys
			if len(term.Keys) > 0 {
				conceptKeys = term.Keys
			}
			for _, k := range conceptKeys {
				if _, ok := en[k]; !ok {
					t.Errorf("the glossary's key %q (%s) is not in en.json", k, name)
					continue
				}
				msg, ok := cat[k]
				if !ok {
					t.Errorf("%s: no message %q", lang, k)
					continue
				}
				if _, ok := findAny(msg, term.patterns()); !ok {
					t.Errorf("%s %s: %s does not use the term %q: %q", lang, name, k, term.Term, msg)
				}
				for _, other := range shared.Exclude {
					if found, ok := findAny(msg, spec.Concepts[other].patterns()); ok && spec.Concepts[other].Term != "" {
						t.Errorf("%s %s: %s uses %q, the term for %s: %q", lang, name, k, found, other, msg)
					}
				}
			}
			for _, k := range keys {
				if found, ok := findAny(cat[k], term.Reject); ok {
					t.Errorf("%s %s: %s uses %q where the term is %q: %q", lang, name, k, found, term.Term, cat[k])
				}
			}
		}
		for _, a := range spec.Avoid {
			for _, k := range keys {
				if found, ok := findTerm(cat[k], a.Text); ok {
					t.Errorf("%s: %s uses %q (%s): %q", lang, k, found, a.Why, cat[k])
				}
			}
		}
	}
}

func TestFindTerm(t *testing.T) {
	for _, c := range []struct {
		text, pattern string
		want          bool
	}{
		{"Lỗ {letter} đang trống", "lỗ", true},
		{"Không thể xem lại: lỗi", "lỗ", false},
		{"s nejvýše 8 zrny na desce", "zrn*", true},
		{"bez zajetí", "zaj*", true},
		{"nezbyl žádný tah", "zbyl*", false},
		{"Kusini anapanda…", "*panda", true},
		{"উত্তরের গর্তে", "গর্ত*", true},
		{"উত্তরের গর্তে", "গর্ত", false},
		{"{player} জিতেছেন।", "জিতেছে", false},
		{"{player} জিতেছে।", "জিতেছে", true},
		{"Smetení desky", "smetení*", true},
	} {
		if _, got := findTerm(c.text, c.pattern); got != c.want {
			t.Errorf("findTerm(%q, %q) = %v, want %v", c.text, c.pattern, got, c.want)
		}
	}
}

// Right to left. In an Urdu sentence a run of left-to-right text made of
// several pieces (a score 28–20, a board 2×8, a line 1. c A) is laid out
// right to left piece by piece and reads backwards ("8×2") unless it is
// isolated: first strong isolate U+2068 or left-to-right isolate U+2066,
// closed by U+2069. The placeholders below are filled with such notation.

var (
	rtlLanguages = []string{"ur"}
	// ltrFields are messages shown alone in a left-to-right field.
	ltrFields = []string{"analysis.placeholder"}
	// notationParams are the placeholders filled with hole letters, moves,
	// lines or positions.
	notationParams = []string{"move", "best", "played", "letter", "hole", "own", "position"}
	// ltrRun is notation two pieces of which a neutral joins: digits or a
	// placeholder, then ×, a dash, a colon, a slash or a full stop, then
	// digits, a placeholder or a letter; or a key combination.
	ltrRun = regexp.MustCompile(`(?:\d|\})\s?[×–\-:/.]\s?(?:\d|\{|[A-Za-z])|[⌘]\+|\{\w+\} ?%`)
)

// isolated reports whether byte offset i of s lies inside an isolate.
func isolated(s string, i int) bool {
	depth := 0
	for _, r := range s[:i] {
		switch r {
		case '\u2066', '\u2067', '\u2068':
			depth++
		case '\u2069':
			if depth > 0 {
				depth--
			}
		}
	}
	return depth > 0
}

func TestRightToLeftIsolates(t *testing.T) {
	for _, lang := range rtlLanguages {
		cat := catalog(t, lang)
		keys := make([]string, 0, len(cat))
		for k := range cat {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			msg := cat[k]
			if slices.Contains(ltrFields, k) {
				continue
			}
			if strings.Count(msg, "\u2069") != strings.Count(msg, "\u2066")+strings.Count(msg, "\u2067")+strings.Count(msg, "\u2068") {
				t.Errorf("%s %s: unbalanced isolates: %q", lang, k, msg)
			}
			for _, m := range placeholder.FindAllStringSubmatchIndex(msg, -1) {
				if slices.Contains(notationParams, msg[m[2]:m[3]]) && !isolated(msg, m[0]) {
					t.Errorf("%s %s: %s is not isolated (U+2066 … U+2069): %q", lang, k, msg[m[0]:m[1]], msg)
				}
			}
			for _, m := range ltrRun.FindAllStringIndex(msg, -1) {
				if !isolated(msg, m[0]) || !isolated(msg, m[1]-1) {
					t.Errorf("%s %s: the left-to-right run %q is not isolated (U+2066 … U+2069): %q", lang, k, msg[m[0]:m[1]], msg)
				}
			}
		}
	}
}
