package record

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/endodoi/endodoi/rules"
)

// SyntaxError is an error in a text record: bad syntax, a bad tag value, an
// illegal move, or a Result or Score that the moves contradict.
type SyntaxError struct {
	Line, Column int // where the problem is, from 1; Column counts bytes
	Msg          string
	// Err is the underlying error when there is one, such as the
	// rules.ErrEmptyHole that made a move illegal; it is often nil.
	Err error
}

// Error returns "record: line L, column C: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("record: line %d, column %d: %s", e.Line, e.Column, e.Msg)
}

// Unwrap returns the underlying error, if any.
func (e *SyntaxError) Unwrap() error { return e.Err }

// place is a line and column in the text, both from 1.
type place struct{ line, col int }

// tagInfo remembers where a tag pair was, for later errors.
type tagInfo struct {
	name  place // the tag's name
	value place // the opening quote of its value
}

// token is a movetext token and its place.
type token struct {
	text string
	at   place
}

// textParser reads one text record.
type textParser struct {
	src  string
	h    *header
	tags map[string]tagInfo

	// movetext state
	start   rules.Position
	game    *rules.Game
	moves   []rules.Move
	number  *token // a move number waiting for its move
	numN    int    // its value (-1 if too large to matter)
	numDots int    // its dots: 1 or 3
	marker  *token // the game-termination marker, once read
}

func errAt(at place, format string, args ...any) *SyntaxError {
	return &SyntaxError{Line: at.line, Column: at.col, Msg: fmt.Sprintf(format, args...)}
}

// bom is the UTF-8 byte-order mark, ignored at the start of a record.
const bom = "\ufeff"

// Parse reads a record in the text form. Every error it returns is a
// *SyntaxError that tells where the problem is. Lines may end in CRLF, and
// a UTF-8 byte-order mark at the start is ignored (columns on the first
// line are counted after it).
//
// The moves are replayed as they are read; the record is refused if one is
// not legal or comes after the end of the game, or if the Result or Score
// tag or the game-termination marker disagree with the moves.
func Parse(text string) (*Record, error) {
	if len(text) > MaxSize {
		return nil, errAt(place{1, 1}, "the record is %d bytes, more than the limit of %d (1 MiB)", len(text), MaxSize)
	}
	text = strings.TrimPrefix(text, bom)
	p := &textParser{src: text, h: newHeader(), tags: make(map[string]tagInfo)}
	off, line, err := p.header()
	if err != nil {
		return nil, err
	}
	start, serr := p.h.start(false)
	if serr != nil {
		at := place{1, 1}
		if serr.Tag != "" {
			at = p.tags[serr.Tag].value
		}
		return nil, &SyntaxError{Line: at.line, Column: at.col, Msg: serr.Err.Error(), Err: serr.Err}
	}
	g, err := rules.NewGame(start, p.h.rules)
	if err != nil { // cannot happen: the start and the rules were checked
		return nil, &SyntaxError{Line: 1, Column: 1, Msg: err.Error(), Err: err}
	}
	p.start, p.game = start, g
	if err := p.movetext(off, line); err != nil {
		return nil, err
	}
	if tag, err := p.h.checkOutcome(g); err != nil {
		at := p.tags[tag].value
		return nil, &SyntaxError{Line: at.line, Column: at.col, Msg: err.Error()}
	}
	if mk := p.marker; mk != nil {
		if p.h.result != "" && mk.text != p.h.result {
			return nil, errAt(mk.at, "game-termination marker %s does not match the Result tag %s", mk.text, p.h.result)
		}
		if got := g.Result().Token(); mk.text != got {
			return nil, errAt(mk.at, "game-termination marker says %s but the moves end in %s", mk.text, outcome(g))
		}
	}
	if err := checkTermination(p.h.extra, g); err != nil {
		at := p.tags[tagTermination].value
		return nil, &SyntaxError{Line: at.line, Column: at.col, Msg: tagTermination + " tag: " + err.Error(), Err: err}
	}
	return p.h.record(start, p.moves), nil
}

// header reads the tag pairs and returns the offset and line number of the
// first line of the movetext.
func (p *textParser) header() (off, line int, err error) {
	line = 1
	lastWasTag := false
	for off < len(p.src) {
		end := strings.IndexByte(p.src[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end = len(p.src) - off
			next = len(p.src)
		}
		l := strings.TrimSuffix(p.src[off:off+end], "\r")
		first := strings.IndexFunc(l, func(r rune) bool { return r != ' ' && r != '\t' && r != '\r' })
		switch {
		case first < 0: // blank line
			lastWasTag = false
		case l[first] == '[':
			if err := p.tagLine(l, line); err != nil {
				return 0, 0, err
			}
			lastWasTag = true
		case lastWasTag:
			return 0, 0, errAt(place{line, first + 1},
				"want a tag pair [Name \"value\"] or a blank line before the moves, found %s", quoteShort(l[first:]))
		default:
			return off, line, nil
		}
		off = next
		line++
	}
	return off, line, nil
}

// tagLine reads the tag pair on line l, number line.
func (p *textParser) tagLine(l string, line int) error {
	i := 0
	at := func() place { return place{line, i + 1} }
	skipSpace := func() {
		for i < len(l) && (l[i] == ' ' || l[i] == '\t') {
			i++
		}
	}
	skipSpace()
	i++ // the '['
	skipSpace()
	nameAt := at()
	start := i
	for i < len(l) && (isLetter(l[i]) || isDigit(l[i]) || l[i] == '_') {
		i++
	}
	name := l[start:i]
	if !isName(name) {
		i = start
		return errAt(nameAt, "want a tag name (a letter, then letters, digits or underscores) after [, found %s", quoteShort(l[i:]))
	}
	skipSpace()
	if i >= len(l) || l[i] != '"' {
		return errAt(at(), "want the value of tag %s in double quotes", name)
	}
	valueAt := at()
	i++
	var b strings.Builder
	escaped := false
value:
	for {
		if i >= len(l) {
			return errAt(valueAt, "unterminated string: the value of tag %s has no closing quote on its line", name)
		}
		switch c := l[i]; {
		case c == '"':
			i++
			break value
		case c == '\\':
			if i+1 < len(l) && (l[i+1] == '"' || l[i+1] == '\\') {
				b.WriteByte(l[i+1])
				i += 2
				escaped = true
				continue
			}
			return errAt(at(), `bad escape in the value of tag %s: only \" and \\ may be written with a backslash`, name)
		case c < 0x20 || c == 0x7f:
			return errAt(at(), "control character %q in the value of tag %s", c, name)
		default:
			b.WriteByte(c)
			i++
		}
	}
	value := b.String()
	if !utf8.ValidString(value) {
		return errAt(valueAt, "the value of tag %s is not valid UTF-8", name)
	}
	skipSpace()
	if i >= len(l) || l[i] != ']' {
		return errAt(at(), "want ] to close tag %s", name)
	}
	i++
	skipSpace()
	if i < len(l) {
		return errAt(at(), "unexpected %s after tag %s: write one tag pair per line", quoteShort(l[i:]), name)
	}
	if prev, dup := p.tags[name]; dup {
		return errAt(nameAt, "duplicate tag %s (first on line %d)", name, prev.name.line)
	}
	p.tags[name] = tagInfo{name: nameAt, value: valueAt}
	if !isKnownTag(name) {
		p.h.extra = append(p.h.extra, Tag{Name: name, Value: value})
		return nil
	}
	if err := p.h.setKnown(name, value); err != nil {
		e := &SyntaxError{Line: line, Column: valueAt.col, Msg: name + " tag: " + err.Error(), Err: err}
		var pe *rules.PositionError
		if errors.As(err, &pe) {
			e.Msg = name + " tag: " + pe.Msg
			if !escaped {
				e.Column = valueAt.col + pe.Column
			}
		}
		return e
	}
	return nil
}

// isSeparator reports whether c ends a movetext token.
func isSeparator(c byte) bool {
	switch c {
	case ' ', '\t', '\r', '\n', '{', '}':
		return true
	}
	return false
}

// movetext reads the moves from offset off, the start of line number line,
// and plays them.
func (p *textParser) movetext(off, line int) error {
	src := p.src
	lineStart := off
	for i := off; i < len(src); {
		c := src[i]
		at := place{line, i - lineStart + 1}
		switch c {
		case '\n':
			i++
			line++
			lineStart = i
		case ' ', '\t', '\r':
			i++
		case '{':
			j := i + 1
			for j < len(src) && src[j] != '}' {
				if src[j] == '\n' {
					line++
					lineStart = j + 1
				}
				j++
			}
			if j == len(src) {
				return errAt(at, "unterminated comment: { has no closing }")
			}
			i = j + 1
		case '}':
			return errAt(at, "unexpected } outside a comment")
		default:
			j := i
			for j < len(src) && !isSeparator(src[j]) {
				j++
			}
			n, err := p.token(token{src[i:j], at})
			if err != nil {
				return err
			}
			i += n
		}
	}
	if p.number != nil {
		return errAt(p.number.at, "move number %s is not followed by a move", p.number.text)
	}
	return nil
}

// token handles the movetext token t and returns how many of its bytes it
// used: all but when a move number is written against its move, as in
// "3.c".
func (p *textParser) token(t token) (int, error) {
	s := t.text
	switch {
	case p.marker != nil:
		return 0, errAt(t.at, "unexpected %s after the game-termination marker %s", quoteShort(s), p.marker.text)
	case isResultToken(s):
		if p.number != nil {
			return 0, errAt(p.number.at, "move number %s is not followed by a move", p.number.text)
		}
		p.marker = &t
		return len(s), nil
	case isDigit(s[0]):
		return p.moveNumber(t)
	case len(s) == 1 && isLetter(s[0]):
		if m, err := rules.ParseMove(s); err == nil {
			return 1, p.move(t, m)
		}
	}
	return 0, errAt(t.at, "want a move (a hole letter, a-p for South or A-P for North), "+
		"a move number or a result (1-0, 0-1, 1/2-1/2, *), found %s", quoteShort(s))
}

// moveNumber reads the move number that begins t.
func (p *textParser) moveNumber(t token) (int, error) {
	s := t.text
	d := 0
	for d < len(s) && isDigit(s[d]) {
		d++
	}
	dots := 0
	for d+dots < len(s) && s[d+dots] == '.' {
		dots++
	}
	switch {
	case dots == 0:
		return 0, errAt(t.at, "want a move, a move number (as in 3. or 3...) or a result (1-0, 0-1, 1/2-1/2, *), found %s",
			quoteShort(s))
	case dots != 1 && dots != 3:
		return 0, errAt(t.at, "a move number is written with one dot or three, as in 3. or 3..., found %s",
			quoteShort(s[:d+dots]))
	case p.number != nil:
		return 0, errAt(t.at, "move number %s follows move number %s with no move between them",
			s[:d+dots], p.number.text)
	}
	n := -1
	if d <= 9 {
		n, _ = strconv.Atoi(s[:d])
	}
	p.number = &token{s[:d+dots], t.at}
	p.numN, p.numDots = n, dots
	return d + dots, nil
}

// move plays move m, read from token t.
func (p *textParser) move(t token, m rules.Move) error {
	i := len(p.moves)
	if i >= MaxMoves {
		return errAt(t.at, "more than %d moves: the record is too long", MaxMoves)
	}
	if p.game.Over() {
		err := playMove(p.game, i, m)
		return &SyntaxError{Line: t.at.line, Column: t.at.col, Msg: err.Error(), Err: err}
	}
	if num := p.number; num != nil {
		p.number = nil
		first := p.start.ToMove()
		side, offset := first, 0
		if i%2 == 1 {
			side = first.Opponent()
		}
		if first == rules.North {
			offset = 1
		}
		want, wantDots := 1+(i+offset)/2, 1
		if side == rules.North {
			wantDots = 3
		}
		if p.numN != want || p.numDots != wantDots {
			return errAt(num.at, "wrong move number %s: %d%s is expected before %s's move",
				num.text, want, strings.Repeat(".", wantDots), side)
		}
	}
	if err := playMove(p.game, i, m); err != nil {
		return &SyntaxError{Line: t.at.line, Column: t.at.col, Msg: err.Error(), Err: err}
	}
	p.moves = append(p.moves, m)
	return nil
}

// quoteShort quotes s for an error message, cut short if long.
func quoteShort(s string) string {
	const max = 24
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + "..."
	}
	return strconv.Quote(s)
}

// String returns the record in the text form. For a record that does not
// validate (see [Record.Validate]), which WriteTo refuses, it returns a best
// effort, with the Result "*" and no Score, that Parse will not accept.
func (r *Record) String() string {
	g, err := r.validate()
	if err != nil {
		g = nil
	}
	return string(r.appendText(nil, g))
}

// WriteTo writes the record in the text form to w. It fails, writing
// nothing, if the record does not validate (see [Record.Validate]) or if
// its text would be longer than MaxSize.
func (r *Record) WriteTo(w io.Writer) (int64, error) {
	g, err := r.validate()
	if err != nil {
		return 0, err
	}
	b := r.appendText(nil, g)
	if len(b) > MaxSize {
		return 0, fmt.Errorf("record: the text form would be %d bytes, more than the limit of %d", len(b), MaxSize)
	}
	n, err := w.Write(b)
	if err != nil {
		err = fmt.Errorf("record: %w", err)
	}
	return int64(n), err
}

// lineWidth is the width the movetext is wrapped at.
const lineWidth = 80

// appendText appends the text form to b. g is the replayed game, or nil for
// the best-effort text of an invalid record.
func (r *Record) appendText(b []byte, g *rules.Game) []byte {
	tag := func(name, value string) {
		b = append(b, '[')
		b = append(b, name...)
		b = append(b, ' ', '"')
		for i := 0; i < len(value); i++ {
			if c := value[i]; c == '"' || c == '\\' {
				b = append(b, '\\')
			}
			b = append(b, value[i])
		}
		b = append(b, '"', ']', '\n')
	}
	for _, t := range []Tag{{tagEvent, r.Event}, {tagDate, r.Date}, {tagSouth, r.South}, {tagNorth, r.North}} {
		if t.Value != "" {
			tag(t.Name, t.Value)
		}
	}
	tag(tagHoles, strconv.Itoa(r.Start.Holes()))
	seeds, standard := standardSeeds(r.Start)
	if standard {
		tag(tagSeeds, strconv.Itoa(seeds))
	}
	tag(tagVariant, r.Rules.Variant.String())
	tag(tagMaxLaps, strconv.Itoa(r.Rules.Laps()))
	if !standard && r.Start.Holes() > 0 {
		tag(tagPosition, r.Start.String())
	}
	result := "*"
	if g != nil {
		result = g.Result().Token()
		tag(tagResult, result)
		tag(tagScore, scoreString(g))
	} else {
		tag(tagResult, result)
	}
	for _, t := range r.Extra {
		tag(t.Name, t.Value)
	}
	b = append(b, '\n')

	first := r.Start.ToMove()
	offset := 0
	if first == rules.North {
		offset = 1
	}
	width := 0
	unit := func(s string) {
		switch {
		case width == 0:
		case width+1+len(s) > lineWidth:
			b = append(b, '\n')
			width = 0
		default:
			b = append(b, ' ')
			width++
		}
		b = append(b, s...)
		width += len(s)
	}
	for i, m := range r.Moves {
		side := first
		if i%2 == 1 {
			side = first.Opponent()
		}
		switch {
		case side == rules.South:
			unit(strconv.Itoa(1+(i+offset)/2) + ". " + m.String())
		case i == 0:
			unit("1... " + m.String())
		default:
			unit(m.String())
		}
	}
	unit(result)
	return append(b, '\n')
}
