// Package record reads and writes En Dodoi game records: a readable text
// format with tag pairs and numbered moves, and an equivalent JSON form.
//
// A text record looks like this:
//
//	[Event "Casual game"]
//	[Date "2026-11-29"]
//	[South "Naserian"]
//	[North "endodoi level 5"]
//	[Holes "6"]
//	[Seeds "4"]
//	[Variant "standard"]
//	[MaxLaps "1000"]
//	[Result "0-1"]
//	[Score "17-31"]
//
//	1. a A 2. a B 3. a B 4. a C 5. a A 6. c A 7. e A 0-1
//
// and its JSON form holds the same information:
//
//	{"event":"Casual game","date":"2026-11-29","south":"Naserian","north":"endodoi level 5",
//	 "holes":6,"seeds":4,"variant":"standard","maxLaps":1000,"result":"0-1","score":"17-31",
//	 "moves":["a","A","a","B","a","B","a","C","a","A","c","A","e","A"]}
//
// Reading a record, in either form, replays its moves with [rules.Game]: a
// record whose moves are not all legal, or whose Result or Score disagree
// with the moves, is refused. The result and the score are therefore not
// stored in a [Record]; they are computed from the moves when a record is
// written. docs/game-records.md describes both forms in full.
//
// In error messages, "move N" counts the moves of the record one by one from
// 1, whoever made them; "move number" is the full-move number written in
// the movetext ("3." or "3...").
package record

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/endodoi/endodoi/rules"
)

// Input bounds. Records beyond them are refused when read, and records that
// would exceed them are refused when written.
const (
	// MaxSize is the largest record accepted, in bytes, in either form.
	MaxSize = 1 << 20
	// MaxMoves is the most moves a record may hold.
	MaxMoves = 100_000
)

// Tag is a tag pair of the text form that the package does not know, kept
// so that it can be written back.
type Tag struct {
	Name, Value string
}

// Record is a game record: who played, under which rules, from which start,
// and the moves.
//
// A Record is plain data; [Record.Game] replays it. Its Result and Score are
// not fields: they follow from the moves.
type Record struct {
	Event, Date, South, North string // optional descriptions; empty when unknown

	Start rules.Position // the start position
	Rules rules.Rules    // the rules the game was played under
	Moves []rules.Move   // the moves, in order, whoever made them

	// Extra holds the tag pairs the package does not know, in their order.
	// Their names must not be those of the known tags.
	Extra []Tag
}

// New returns the record of game g: its start, rules and moves, without
// names or other descriptions.
func New(g *rules.Game) *Record {
	return &Record{Start: g.Start(), Rules: g.Rules(), Moves: g.Moves()}
}

// Game replays the record's moves from its start and returns the game.
// It fails if the start or the rules are not valid, if the record holds more
// than MaxMoves moves, or if a move is not legal; the error then names the
// move, counting from 1, and wraps the reason (for example
// rules.ErrEmptyHole or rules.ErrGameOver).
func (r *Record) Game() (*rules.Game, error) {
	if len(r.Moves) > MaxMoves {
		return nil, fmt.Errorf("record: %d moves, more than the limit of %d", len(r.Moves), MaxMoves)
	}
	g, err := rules.NewGame(r.Start, r.Rules)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	for i, m := range r.Moves {
		if err := playMove(g, i, m); err != nil {
			return nil, fmt.Errorf("record: %w", err)
		}
	}
	return g, nil
}

// Validate reports whether the record can be written and read back: its
// descriptions and extra tags are well formed (no control characters, valid
// UTF-8, extra tag names that are names and not those of known tags, no
// duplicates) and its moves replay legally (see [Record.Game]).
func (r *Record) Validate() error {
	_, err := r.validate()
	return err
}

// validate checks the record and returns its replayed game.
func (r *Record) validate() (*rules.Game, error) {
	for _, f := range []struct{ name, value string }{
		{"Event", r.Event}, {"Date", r.Date}, {"South", r.South}, {"North", r.North},
	} {
		if err := checkValue(f.value); err != nil {
			return nil, fmt.Errorf("record: %s: %w", f.name, err)
		}
	}
	seen := make(map[string]bool, len(r.Extra))
	for _, t := range r.Extra {
		if err := checkExtraName(t.Name); err != nil {
			return nil, fmt.Errorf("record: extra tag %q: %w", t.Name, err)
		}
		if seen[t.Name] {
			return nil, fmt.Errorf("record: extra tag %s appears twice", t.Name)
		}
		seen[t.Name] = true
		if err := checkValue(t.Value); err != nil {
			return nil, fmt.Errorf("record: extra tag %s: %w", t.Name, err)
		}
	}
	return r.Game()
}

// playMove plays m, the record's move number i+1 (counting from 1), on g.
// The error names the move and wraps the reason.
func playMove(g *rules.Game, i int, m rules.Move) error {
	if g.Over() {
		when := "before the first move"
		if g.Ply() > 0 {
			when = fmt.Sprintf("after move %d", g.Ply())
		}
		return fmt.Errorf("move %d (%s): %w: it ended %s (%s)", i+1, m, rules.ErrGameOver, when, g.Status())
	}
	if err := g.Play(m); err != nil {
		// Game.Play wraps the reason with the move's letter, which we
		// name ourselves.
		if reason := errors.Unwrap(err); reason != nil {
			err = reason
		}
		return fmt.Errorf("move %d (%s): %w", i+1, m, err)
	}
	return nil
}

// The known tags, in the order they are written.
const (
	tagEvent    = "Event"
	tagDate     = "Date"
	tagSouth    = "South"
	tagNorth    = "North"
	tagHoles    = "Holes"
	tagSeeds    = "Seeds"
	tagVariant  = "Variant"
	tagMaxLaps  = "MaxLaps"
	tagPosition = "Position"
	tagResult   = "Result"
	tagScore    = "Score"
)

// tagTermination says how a game ended other than by the rules of play.
// It stays an extra tag, kept and written in its place among them (the
// JSON form holds it in "tags"), but reading checks its value: the one
// ending a record carries is a resignation (see Record.Resigned).
const tagTermination = "Termination"

// terminationText is the value of the Termination tag of a game that
// winner won by resignation.
func terminationText(winner rules.Side) string {
	return "resigned; " + winner.String() + " won"
}

// parseTermination reads the value of a Termination tag: a resignation
// names its winner; any other ending (on time, by agreement, aborted, or
// words of another program) only says how the game ended, and is kept as
// it is. A value that begins as a resignation must be one exactly.
func parseTermination(value string) (winner rules.Side, resigned bool, err error) {
	for _, s := range []rules.Side{rules.South, rules.North} {
		if value == terminationText(s) {
			return s, true, nil
		}
	}
	if strings.HasPrefix(strings.ToLower(strings.TrimSpace(value)), "resign") {
		return 0, false, fmt.Errorf("want %q or %q (a resignation), found %s",
			terminationText(rules.South), terminationText(rules.North), quoteShort(value))
	}
	return 0, false, nil
}

// Resigned returns the winner of a game that ended by resignation, as its
// Termination tag says: the other player resigned. A record read by Parse
// or ParseJSON that has the tag has been checked: the moves leave the game
// going.
func (r *Record) Resigned() (winner rules.Side, ok bool) {
	for _, t := range r.Extra {
		if t.Name == tagTermination {
			w, resigned, err := parseTermination(t.Value)
			return w, resigned && err == nil
		}
	}
	return 0, false
}

// checkTermination checks the Termination tag among extra, if it tells of
// a resignation, against the game its moves make: one while the game goes on.
// Either player may resign then (online, or against the computer, not only
// on one's turn), so any winner is consistent with the position. The error
// does not name the tag; the caller does.
func checkTermination(extra []Tag, g *rules.Game) error {
	for _, t := range extra {
		if t.Name != tagTermination {
			continue
		}
		winner, resigned, err := parseTermination(t.Value)
		if err != nil || !resigned {
			return err
		}
		if g.Over() {
			return fmt.Errorf("says %s won by resignation but the moves end the game (%s): %s",
				winner, g.Status(), outcome(g))
		}
		return nil
	}
	return nil
}

func isKnownTag(name string) bool {
	switch name {
	case tagEvent, tagDate, tagSouth, tagNorth, tagHoles, tagSeeds, tagVariant,
		tagMaxLaps, tagPosition, tagResult, tagScore:
		return true
	}
	return false
}

// isName reports whether s is a tag name: a letter, then letters, digits
// or underscores.
func isName(s string) bool {
	if s == "" || !isLetter(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '_' {
			return false
		}
	}
	return true
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

// checkExtraName checks the name of an extra tag.
func checkExtraName(name string) error {
	if !isName(name) {
		return errors.New("a tag name is a letter, then letters, digits or underscores")
	}
	if isKnownTag(name) {
		return fmt.Errorf("%s is a known tag, not an extra one", name)
	}
	return nil
}

// checkValue checks a tag's value: valid UTF-8 without control characters,
// so that it fits on one line of the text form.
func checkValue(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			return fmt.Errorf("control character %q at byte %d", c, i+1)
		}
	}
	return nil
}

// isResultToken reports whether s is a game-termination token.
func isResultToken(s string) bool {
	_, err := rules.ParseResult(s)
	return err == nil
}

// scoreString returns the score in record form: South's captured seeds,
// a hyphen, North's.
func scoreString(g *rules.Game) string {
	s, n := g.Score()
	return strconv.Itoa(s) + "-" + strconv.Itoa(n)
}

// outcome describes how the moves end, for error messages: "a draw
// (18-18)".
func outcome(g *rules.Game) string {
	var what string
	switch g.Result() {
	case rules.SouthWins:
		what = "a win for South"
	case rules.NorthWins:
		what = "a win for North"
	case rules.Draw:
		what = "a draw"
	default:
		what = "an unfinished game"
	}
	return what + " (" + scoreString(g) + ")"
}

// standardSeeds returns s when p is the standard start of its board with s
// seeds per hole, South to move.
func standardSeeds(p rules.Position) (int, bool) {
	s := p.SeedsAt(0)
	q, err := rules.NewPosition(p.Holes(), s)
	if err != nil || q != p {
		return 0, false
	}
	return s, true
}

// parseCount reads a whole number from min to max written in decimal, with
// no sign, spaces or leading zeros.
func parseCount(s string, min, max int) (int, error) {
	ok := s != "" && len(s) <= 9 && (s[0] != '0' || len(s) == 1)
	for i := 0; ok && i < len(s); i++ {
		ok = isDigit(s[i])
	}
	if !ok {
		return 0, fmt.Errorf("want a whole number from %d to %d, found %q", min, max, s)
	}
	v, _ := strconv.Atoi(s)
	if v < min || v > max {
		return 0, fmt.Errorf("%d is out of range (%d to %d)", v, min, max)
	}
	return v, nil
}

// checkScore checks the syntax of a Score value: two whole numbers joined
// by a hyphen.
func checkScore(s string) error {
	a, b, ok := strings.Cut(s, "-")
	if ok {
		_, errA := parseCount(a, 0, rules.MaxTotalSeeds)
		_, errB := parseCount(b, 0, rules.MaxTotalSeeds)
		ok = errA == nil && errB == nil
	}
	if !ok {
		return fmt.Errorf("want South's and North's captured seeds as in 20-12, found %q", s)
	}
	return nil
}

// header is the tag information of a record, in either form, before the
// moves are replayed.
type header struct {
	event, date, south, north string

	holes, seeds int // 0 when absent
	rules        rules.Rules
	position     *rules.Position // nil when absent
	result       string          // "" when absent
	score        string          // "" when absent
	extra        []Tag
}

// startError is a problem with the start position, blamed on a tag or,
// when Tag is empty, on the record as a whole.
type startError struct {
	Tag string
	Err error
}

// start returns the start position the header describes. inJSON selects
// how missing information is named in errors.
func (h *header) start(inJSON bool) (rules.Position, *startError) {
	holes, seeds, position := "Holes tag", "Seeds or Position tag", "Holes tag"
	if inJSON {
		holes, seeds, position = `field "holes"`, `field "seeds" or "position"`, "holes"
	}
	if h.holes == 0 {
		return rules.Position{}, &startError{Err: fmt.Errorf("missing %s: the board size is unknown", holes)}
	}
	if h.position != nil {
		if n := h.position.Holes(); n != h.holes {
			return rules.Position{}, &startError{Tag: tagPosition,
				Err: fmt.Errorf("the position has %d holes per row but the %s says %d", n, position, h.holes)}
		}
		return *h.position, nil
	}
	if h.seeds == 0 {
		return rules.Position{}, &startError{Err: fmt.Errorf("missing %s: the start position is unknown", seeds)}
	}
	p, err := rules.NewPosition(h.holes, h.seeds)
	if err != nil { // cannot happen: both were range-checked
		return rules.Position{}, &startError{Tag: tagSeeds, Err: err}
	}
	return p, nil
}

// checkOutcome compares the Result and Score the header claims with the
// game's; on a mismatch it returns the tag to blame and the error.
func (h *header) checkOutcome(g *rules.Game) (string, error) {
	if h.result != "" {
		if got := g.Result().Token(); got != h.result {
			return tagResult, fmt.Errorf("Result tag says %s but the moves end in %s", h.result, outcome(g))
		}
	}
	if h.score != "" {
		if got := scoreString(g); got != h.score {
			return tagScore, fmt.Errorf("Score tag says %s but the moves end in %s", h.score, outcome(g))
		}
	}
	return "", nil
}

// record returns the record the header and moves describe.
func (h *header) record(start rules.Position, moves []rules.Move) *Record {
	return &Record{
		Event: h.event, Date: h.date, South: h.south, North: h.north,
		Start: start, Rules: h.rules, Moves: moves, Extra: h.extra,
	}
}

// setKnown reads the value of known tag name into h. The error does not
// name the tag; the caller does.
func (h *header) setKnown(name, value string) error {
	var err error
	switch name {
	case tagEvent:
		h.event = value
	case tagDate:
		h.date = value
	case tagSouth:
		h.south = value
	case tagNorth:
		h.north = value
	case tagHoles:
		h.holes, err = parseCount(value, rules.MinHoles, rules.MaxHoles)
	case tagSeeds:
		h.seeds, err = parseCount(value, rules.MinStartSeeds, rules.MaxStartSeeds)
	case tagVariant:
		h.rules.Variant, err = rules.ParseVariant(value)
	case tagMaxLaps:
		h.rules.MaxLaps, err = parseCount(value, 1, rules.MaxMaxLaps)
	case tagPosition:
		var p rules.Position
		p, err = rules.ParsePosition(value)
		if err == nil {
			h.position = &p
		}
	case tagResult:
		if _, err = rules.ParseResult(value); err == nil {
			h.result = value
		}
	case tagScore:
		if err = checkScore(value); err == nil {
			h.score = value
		}
	default:
		err = fmt.Errorf("unknown tag %s", name)
	}
	return err
}

// newHeader returns a header with the defaults of absent tags.
func newHeader() *header {
	return &header{rules: rules.DefaultRules()}
}
