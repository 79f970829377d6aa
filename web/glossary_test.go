package web

import (
	"encoding/json"
	"fmt"
	"maps"
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
// keys whose messages name it, the English words that name it in any
// message (but those of Except), and the concepts that must keep out of
// them.
type glossaryConcept struct {
	Keys    []string `json:"keys"`
	En      []string `json:"en"`
	Except  []string `json:"except"`
	Exclude []string `json:"exclude"`
}

// keys returns the en.json keys whose messages name the concept: its
// keys, and those whose English names it with one of the En words,
// placeholders aside, but for the keys of Except. A new message that
// names the concept in English is thus checked from its first commit.
func (c glossaryConcept) keys(en map[string]string) []string {
	keys := slices.Clone(c.Keys)
	for k, msg := range en {
		if _, ok := findAny(placeholder.ReplaceAllString(msg, " "), c.En); ok && !slices.Contains(c.Except, k) && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
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
	cats := map[string]map[string]string{}
	for _, lang := range languages[1:] {
		cats[lang] = catalog(t, lang)
	}
	checkGlossary(g, catalog(t, "en"), cats, t.Errorf)
}

// checkGlossary reports each message of the translated catalogs cats that
// strays from the glossary g, and each flaw of g itself; en is the English
// catalog.
func checkGlossary(g glossary, en map[string]string, cats map[string]map[string]string, report func(format string, args ...any)) {
	checkGlossaryItself(g, en, slices.Sorted(maps.Keys(cats)), report)
	keysOf := map[string][]string{}
	for name, c := range g.Concepts {
		keysOf[name] = c.keys(en)
	}
	for _, lang := range slices.Sorted(maps.Keys(cats)) {
		spec, ok := g.Languages[lang]
		if !ok {
			report("the glossary has no entry for %s", lang)
			continue
		}
		cat := cats[lang]
		keys := slices.Sorted(maps.Keys(cat))
		for _, name := range slices.Sorted(maps.Keys(spec.Concepts)) {
			term := spec.Concepts[name]
			shared, ok := g.Concepts[name]
			if !ok {
				report("%s: the glossary's concept %q is not among its concepts", lang, name)
				continue
			}
			if term.Term == "" {
				report("%s %s: no term", lang, name)
			}
			conceptKeys := keysOf[name]
			if len(term.Keys) > 0 {
				conceptKeys = term.Keys
			}
			for _, k := range conceptKeys {
				if _, ok := en[k]; !ok {
					report("the glossary's key %q (%s) is not in en.json", k, name)
					continue
				}
				msg, ok := cat[k]
				if !ok {
					report("%s: no message %q", lang, k)
					continue
				}
				if _, ok := findAny(msg, term.patterns()); !ok {
					report("%s %s: %s does not use the term %q: %q", lang, name, k, term.Term, msg)
				}
				for _, other := range shared.Exclude {
					if found, ok := findAny(msg, spec.Concepts[other].patterns()); ok && spec.Concepts[other].Term != "" {
						report("%s %s: %s uses %q, the term for %s: %q", lang, name, k, found, other, msg)
					}
				}
			}
			for _, k := range keys {
				if found, ok := findAny(cat[k], term.Reject); ok {
					report("%s %s: %s uses %q where the term is %q: %q", lang, name, k, found, term.Term, cat[k])
				}
			}
		}
		for _, a := range spec.Avoid {
			for _, k := range keys {
				if found, ok := findTerm(cat[k], a.Text); ok {
					report("%s: %s uses %q (%s): %q", lang, k, found, a.Why, cat[k])
				}
			}
		}
	}
}

// checkGlossaryItself reports the flaws of the glossary g, given en.json:
// a concept found by its English words must find some message and have a
// term in each of langs, its exceptions must be messages that use the
// words, and two concepts one of which keeps the other's term out of its
// messages must have terms that differ.
func checkGlossaryItself(g glossary, en map[string]string, langs []string, report func(format string, args ...any)) {
	names := slices.Sorted(maps.Keys(g.Concepts))
	for _, name := range names {
		c := g.Concepts[name]
		for _, other := range c.Exclude {
			if _, ok := g.Concepts[other]; !ok {
				report("the glossary's concept %s excludes %s, which is not among its concepts", name, other)
			}
		}
		if len(c.En) == 0 {
			if len(c.Except) > 0 {
				report("the glossary's concept %s has exceptions but no English words", name)
			}
			continue
		}
		if len(c.keys(en)) == 0 {
			report("no message of en.json names the glossary's concept %s with %q", name, c.En)
		}
		for _, k := range c.Except {
			if _, ok := findAny(placeholder.ReplaceAllString(en[k], " "), c.En); !ok {
				report("the glossary's concept %s excepts %s, whose English does not use %q: %q", name, k, c.En, en[k])
			}
		}
		for _, lang := range langs {
			if g.Languages[lang].Concepts[name].Term == "" {
				report("%s: the glossary has no term for %s, which en.json's messages name", lang, name)
			}
		}
	}
	for _, lang := range langs {
		spec := g.Languages[lang]
		for _, name := range names {
			term, ok := spec.Concepts[name]
			if !ok {
				continue
			}
			for _, other := range g.Concepts[name].Exclude {
				o, ok := spec.Concepts[other]
				if !ok {
					continue
				}
				if found, ok := findAny(o.Term, term.patterns()); ok {
					report("%s: the glossary's term for %s, %q, is also %s's (%q), which %s must keep out", lang, other, o.Term, name, found, name)
				} else if found, ok := findAny(term.Term, o.patterns()); ok {
					report("%s: the glossary's term for %s, %q, is also %s's (%q), which %s must keep out", lang, name, term.Term, other, found, name)
				}
			}
		}
	}
}

// TestGlossaryCatchesASecondWord runs the glossary's checks on a small
// glossary and catalogs: a concept named in English in a new message
// (puzzle.round) is checked there without being listed, and one word
// given to two concepts that must differ is caught in the catalog and in
// the glossary.
func TestGlossaryCatchesASecondWord(t *testing.T) {
	const spec = `{
		"concepts": {
			"lap": {"keys": ["play.lap"]},
			"round": {"en": ["round", "rounds"], "except": ["rules.r3"], "exclude": ["lap"]}
		},
		"languages": {"vi": {"concepts": {"lap": {"term": "vòng"}, "round": {"term": "lượt"}}}}
	}`
	en := map[string]string{
		"play.lap":     "Lap {lap} of {laps}",
		"moves.item":   "Round {round}, {player}: {move}",
		"puzzle.round": "Puzzle {n}: {count} rounds",
		"rules.r3":     "A lap goes all the way round.",
	}
	good := map[string]string{
		"play.lap":     "Vòng {lap}/{laps}",
		"moves.item":   "Lượt {round}, {player}: {move}",
		"puzzle.round": "Câu đố {n}: {count} lượt",
		"rules.r3":     "Một vòng đi hết quanh bàn.",
	}
	for _, c := range []struct {
		name string
		edit func(g *glossary, vi map[string]string)
		want []string
	}{
		{"the catalog keeps to the glossary", func(*glossary, map[string]string) {}, nil},
		{"a new message says round with the lap's word", func(_ *glossary, vi map[string]string) {
			vi["puzzle.round"] = "Câu đố {n}: {count} vòng"
		}, []string{
			`vi round: puzzle.round does not use the term "lượt": "Câu đố {n}: {count} vòng"`,
			`vi round: puzzle.round uses "vòng", the term for lap: "Câu đố {n}: {count} vòng"`,
		}},
		{"the glossary gives round the lap's word", func(g *glossary, _ map[string]string) {
			g.Languages["vi"].Concepts["round"] = glossaryTerm{Term: "vòng"}
		}, []string{
			`vi round: moves.item does not use the term "vòng": "Lượt {round}, {player}: {move}"`,
			`vi round: puzzle.round does not use the term "vòng": "Câu đố {n}: {count} lượt"`,
			`vi: the glossary's term for lap, "vòng", is also round's ("vòng"), which round must keep out`,
		}},
		{"a language without a term for a concept named in English", func(g *glossary, _ map[string]string) {
			delete(g.Languages["vi"].Concepts, "round")
		}, []string{
			`vi: the glossary has no term for round, which en.json's messages name`,
		}},
		{"an exception the English does not need", func(g *glossary, _ map[string]string) {
			c := g.Concepts["round"]
			c.Except = append(c.Except, "play.lap")
			g.Concepts["round"] = c
		}, []string{
			`the glossary's concept round excepts play.lap, whose English does not use ["round" "rounds"]: "Lap {lap} of {laps}"`,
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var g glossary
			if err := json.Unmarshal([]byte(spec), &g); err != nil {
				t.Fatal(err)
			}
			vi := maps.Clone(good)
			c.edit(&g, vi)
			var got []string
			checkGlossary(g, en, map[string]map[string]string{"vi": vi}, func(format string, args ...any) {
				got = append(got, fmt.Sprintf(format, args...))
			})
			slices.Sort(got)
			want := slices.Sorted(slices.Values(c.want))
			if !slices.Equal(got, want) {
				t.Errorf("the checks report\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
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
// closed by U+2069. A signed number built by the page ("+12") shows its
// sign on the wrong side ("12+"), and a name in Latin letters pulls the
// digits and brackets after it into its own run ("Amina (1512" and a
// stray bracket), unless they are isolated too.

var (
	rtlLanguages = []string{"ur"}
	// ltrFields are messages shown alone in a left-to-right field.
	ltrFields = []string{"analysis.placeholder"}
	// notationParams are the placeholders filled with left-to-right
	// notation: hole letters, moves, lines or positions, or a signed number
	// (a rating change "+12", an evaluation "+1.5"). U+2066 or U+2068
	// isolates them.
	notationParams = []string{"move", "best", "played", "letter", "hole", "own", "position", "notation",
		"diff", "score", "eval", "start", "low", "high"}
	// firstStrongParams are the placeholders filled with a name (a player's,
	// typed in any script), with text that may be in Latin letters (an
	// error from the server, a file format, a variant's name, the reason
	// a player gave, a clock "3+2") or with a sentence (end). U+2068
	// isolates them: it lays each out in the direction of its first letter,
	// where U+2066 would turn an Urdu name or sentence left to right.
	// (south and north are names in history.vs and the scores in
	// result.drawScore, which U+2068 lays out left to right as well.)
	firstStrongParams = []string{"player", "name", "offerer", "other", "mover", "south", "north",
		"error", "format", "variant", "reason", "clock", "end"}
	// rtlUnits are messages that another holds in an isolate as one
	// placeholder and that have no letter outside their own isolates: a
	// player with their rating ({player} of ch.incoming is lobby.playerRated,
	// "⁨Amina⁩ (1512)"). Each begins with the right-to-left mark U+200F, so
	// that the isolate around it is right to left, the rating after the
	// name, whatever the name's script.
	rtlUnits = []string{"lobby.playerRated"}
	// ltrRun is notation two pieces of which a neutral joins: digits or a
	// placeholder, then ×, a dash, a colon, a slash or a full stop, then
	// digits, a placeholder or a letter; or a key combination.
	ltrRun = regexp.MustCompile(`(?:\d|\})\s?[×–\-:/.]\s?(?:\d|\{|[A-Za-z])|[⌘]\+|\{\w+\} ?%`)
)

// isolated reports whether byte offset i of s lies inside an isolate.
func isolated(s string, i int) bool {
	return isolate(s, i) != 0
}

// isolate returns the initiator (U+2066, U+2067 or U+2068) of the
// innermost isolate that holds byte offset i of s, or 0 for none.
func isolate(s string, i int) rune {
	var open []rune
	for _, r := range s[:i] {
		switch r {
		case '\u2066', '\u2067', '\u2068':
			open = append(open, r)
		case '\u2069':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return 0
	}
	return open[len(open)-1]
}

func TestRightToLeftIsolates(t *testing.T) {
	for _, lang := range rtlLanguages {
		cat := catalog(t, lang)
		for _, k := range slices.Sorted(maps.Keys(cat)) {
			for _, problem := range isolateProblems(k, cat[k]) {
				t.Errorf("%s %s: %s", lang, k, problem)
			}
		}
	}
}

// isolateProblems lists what the message msg of key k, in a right-to-left
// language, leaves unisolated.
func isolateProblems(k, msg string) []string {
	if slices.Contains(ltrFields, k) {
		return nil
	}
	var out []string
	if strings.Count(msg, "\u2069") != strings.Count(msg, "\u2066")+strings.Count(msg, "\u2067")+strings.Count(msg, "\u2068") {
		out = append(out, fmt.Sprintf("unbalanced isolates: %q", msg))
	}
	for _, m := range placeholder.FindAllStringSubmatchIndex(msg, -1) {
		name, at := msg[m[2]:m[3]], msg[m[0]:m[1]]
		switch {
		case slices.Contains(notationParams, name) && !isolated(msg, m[0]):
			out = append(out, fmt.Sprintf("%s is not isolated (U+2066 … U+2069): %q", at, msg))
		case slices.Contains(firstStrongParams, name) && isolate(msg, m[0]) != '\u2068':
			out = append(out, fmt.Sprintf("%s is not isolated by U+2068 … U+2069: %q", at, msg))
		}
	}
	for _, m := range ltrRun.FindAllStringIndex(msg, -1) {
		if !isolated(msg, m[0]) || !isolated(msg, m[1]-1) {
			out = append(out, fmt.Sprintf("the left-to-right run %q is not isolated (U+2066 … U+2069): %q", msg[m[0]:m[1]], msg))
		}
	}
	if slices.Contains(rtlUnits, k) && !strings.HasPrefix(msg, "\u200f") {
		out = append(out, fmt.Sprintf("does not begin with U+200F, which keeps it right to left in the isolate of the message that holds it: %q", msg))
	}
	return out
}

func TestIsolateProblems(t *testing.T) {
	for _, c := range []struct {
		key, msg string
		want     int
	}{
		{"game.ratingChange", "\u2068{player}\u2069 کی ریٹنگ میں \u2066{diff}\u2069، اب {rating}", 0},
		{"game.ratingChange", "\u2068{player}\u2069 کی ریٹنگ میں {diff}، اب {rating}", 1},
		{"game.ratingChange", "{player} کی ریٹنگ میں \u2066{diff}\u2069، اب {rating}", 1},
		// A name isolated left to right would turn an Urdu name around.
		{"ch.sent", "\u2066{player}\u2069 کو چیلنج بھیج دیا گیا۔", 1},
		{"ch.sent", "\u2068{player}\u2069 کو چیلنج بھیج دیا گیا۔", 0},
		// The innermost isolate counts: a name in U+2066 inside U+2068 is left to right.
		{"ch.sent", "\u2068\u2066{player}\u2069\u2069 کو", 1},
		{"result.drawScore", "برابر، \u2068{south}–{north}\u2069", 0},
		{"result.drawScore", "برابر، \u2066{south}–{north}\u2069", 2},
		{"lobby.playerRated", "\u200f\u2068{name}\u2069 ({rating})", 0},
		{"lobby.playerRated", "\u2068{name}\u2069 ({rating})", 1},
		{"eval.line", "چال \u2066{move}\u2069: \u2066{eval}\u2069", 0},
		{"eval.line", "چال \u2066{move}: {eval}\u2069", 0},
		{"eval.line", "چال \u2066{move}\u2069: {eval}", 1},
		{"analysis.placeholder", "{move} 1-0", 0},
	} {
		if got := isolateProblems(c.key, c.msg); len(got) != c.want {
			t.Errorf("%s %q: %d problems, want %d: %q", c.key, c.msg, len(got), c.want, got)
		}
	}
}

// A number written with spaces between its groups of digits ("1 000", as
// Czech writes it) must not break across lines: the space is the no-break
// space U+00A0, as Intl.NumberFormat writes it. breakingGroup is such a
// number with an ordinary space.
var breakingGroup = regexp.MustCompile(`(\d \d{3})(?:\D|$)`)

func TestDigitGroupsDoNotBreak(t *testing.T) {
	if !breakingGroup.MatchString("po 1 000 okruzích") || breakingGroup.MatchString("po 1\u00a0000 okruzích") || breakingGroup.MatchString("8 jamek a 4 zrna") {
		t.Fatal("breakingGroup does not tell a breaking digit group from the others")
	}
	for _, lang := range languages {
		cat := catalog(t, lang)
		for _, k := range slices.Sorted(maps.Keys(cat)) {
			if m := breakingGroup.FindStringSubmatch(cat[k]); m != nil {
				t.Errorf("%s %s: the number %q can break across lines: write U+00A0 between its groups: %q", lang, k, m[1], cat[k])
			}
		}
	}
}
