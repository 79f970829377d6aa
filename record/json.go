package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/endodoi/endodoi/rules"
)

// The JSON field names, in the order they are written.
const (
	fieldEvent    = "event"
	fieldDate     = "date"
	fieldSouth    = "south"
	fieldNorth    = "north"
	fieldHoles    = "holes"
	fieldSeeds    = "seeds"
	fieldVariant  = "variant"
	fieldMaxLaps  = "maxLaps"
	fieldPosition = "position"
	fieldResult   = "result"
	fieldScore    = "score"
	fieldMoves    = "moves"
	fieldTags     = "tags"
)

// fieldTag maps the JSON fields that hold a known tag to the tag's name.
var fieldTag = map[string]string{
	fieldEvent: tagEvent, fieldDate: tagDate, fieldSouth: tagSouth, fieldNorth: tagNorth,
	fieldHoles: tagHoles, fieldSeeds: tagSeeds, fieldVariant: tagVariant, fieldMaxLaps: tagMaxLaps,
	fieldPosition: tagPosition, fieldResult: tagResult, fieldScore: tagScore,
}

// tagField is the inverse of fieldTag.
var tagField = func() map[string]string {
	m := make(map[string]string, len(fieldTag))
	for f, t := range fieldTag {
		m[t] = f
	}
	return m
}()

// isNumberField reports whether a known field holds a number rather than a
// string.
func isNumberField(f string) bool {
	return f == fieldHoles || f == fieldSeeds || f == fieldMaxLaps
}

// Read reads a record in either form: JSON if its first byte other than
// white space (and a UTF-8 byte-order mark) is '{', the text form otherwise.
func Read(data []byte) (*Record, error) {
	for _, c := range bytes.TrimPrefix(data, []byte(bom)) {
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			continue
		}
		if c == '{' {
			return ParseJSON(data)
		}
		break
	}
	return Parse(string(data))
}

// ParseJSON reads a record in the JSON form. It checks it as Parse checks
// the text form: the moves must be legal, and the result and score, when
// given, must be those the moves lead to. Unknown fields, duplicate fields
// and null values are refused. A UTF-8 byte-order mark at the start is
// ignored.
func ParseJSON(data []byte) (*Record, error) {
	if len(data) > MaxSize {
		return nil, fmt.Errorf("record: the record is %d bytes, more than the limit of %d (1 MiB)", len(data), MaxSize)
	}
	data = bytes.TrimPrefix(data, []byte(bom))
	jp := jsonParser{dec: json.NewDecoder(bytes.NewReader(data))}
	jp.dec.UseNumber()
	h, moves, err := jp.parse()
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	start, serr := h.start(true)
	if serr != nil {
		if serr.Tag != "" {
			return nil, fmt.Errorf("record: %s: %w", tagField[serr.Tag], serr.Err)
		}
		return nil, fmt.Errorf("record: %w", serr.Err)
	}
	r := h.record(start, moves)
	g, err := r.Game()
	if err != nil {
		return nil, err
	}
	if tag, err := h.checkOutcome(g); err != nil {
		return nil, fmt.Errorf("record: %s: %w", tagField[tag], err)
	}
	if err := checkTermination(h.extra, g); err != nil {
		return nil, fmt.Errorf("record: tags: %s tag: %w", tagTermination, err)
	}
	return r, nil
}

// jsonParser reads the tokens of a JSON record.
type jsonParser struct {
	dec *json.Decoder
}

// token returns the next token, with syntax errors made readable.
func (jp *jsonParser) token() (json.Token, error) {
	t, err := jp.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("invalid JSON at offset %d: %w", se.Offset, err)
		case err == io.EOF || err == io.ErrUnexpectedEOF:
			return nil, errors.New("invalid JSON: unexpected end of input")
		}
		return nil, fmt.Errorf("invalid JSON: %w", err)
	}
	return t, nil
}

// kind describes a token for error messages.
func kind(t json.Token) string {
	switch t := t.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case json.Delim:
		switch t {
		case '{':
			return "an object"
		case '[':
			return "an array"
		}
		return strconv.Quote(t.String())
	}
	return fmt.Sprintf("%T", t)
}

// parse reads the record's object.
func (jp *jsonParser) parse() (*header, []rules.Move, error) {
	t, err := jp.token()
	if err != nil {
		return nil, nil, err
	}
	if t != json.Delim('{') {
		return nil, nil, fmt.Errorf("want a JSON object, found %s", kind(t))
	}
	h := newHeader()
	var moves []rules.Move
	seen := make(map[string]bool)
	for jp.dec.More() {
		t, err := jp.token()
		if err != nil {
			return nil, nil, err
		}
		key := t.(string) // object keys are strings
		if seen[key] {
			return nil, nil, fmt.Errorf("field %q appears twice", key)
		}
		seen[key] = true
		switch key {
		case fieldMoves:
			moves, err = jp.moves()
		case fieldTags:
			h.extra, err = jp.tags()
		default:
			tag, known := fieldTag[key]
			if !known {
				return nil, nil, fmt.Errorf("unknown field %q", key)
			}
			err = jp.known(h, key, tag)
		}
		if err != nil {
			return nil, nil, err
		}
	}
	if _, err := jp.token(); err != nil { // the closing '}'
		return nil, nil, err
	}
	if _, err := jp.dec.Token(); err != io.EOF {
		return nil, nil, errors.New("invalid JSON: data after the record's object")
	}
	return h, moves, nil
}

// known reads the value of field key, which holds the known tag.
func (jp *jsonParser) known(h *header, key, tag string) error {
	t, err := jp.token()
	if err != nil {
		return err
	}
	var value string
	if isNumberField(key) {
		n, ok := t.(json.Number)
		if !ok {
			return fmt.Errorf("%s: want a number, found %s", key, kind(t))
		}
		value = string(n)
	} else {
		s, ok := t.(string)
		if !ok {
			return fmt.Errorf("%s: want a string, found %s", key, kind(t))
		}
		if err := checkValue(s); err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		value = s
	}
	if err := h.setKnown(tag, value); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// moves reads the array of moves.
func (jp *jsonParser) moves() ([]rules.Move, error) {
	t, err := jp.token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('[') {
		return nil, fmt.Errorf("moves: want an array of moves, found %s", kind(t))
	}
	var moves []rules.Move
	for jp.dec.More() {
		if len(moves) == MaxMoves {
			return nil, fmt.Errorf("moves: more than %d moves: the record is too long", MaxMoves)
		}
		t, err := jp.token()
		if err != nil {
			return nil, err
		}
		s, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("move %d: want a string, found %s", len(moves)+1, kind(t))
		}
		m, err := rules.ParseMove(s)
		if err != nil {
			return nil, fmt.Errorf("move %d: want a hole letter (a-p for South, A-P for North), found %s",
				len(moves)+1, quoteShort(s))
		}
		moves = append(moves, m)
	}
	_, err = jp.token() // the closing ']'
	return moves, err
}

// tags reads the object of extra tags, keeping their order.
func (jp *jsonParser) tags() ([]Tag, error) {
	t, err := jp.token()
	if err != nil {
		return nil, err
	}
	if t != json.Delim('{') {
		return nil, fmt.Errorf("tags: want an object, found %s", kind(t))
	}
	var tags []Tag
	seen := make(map[string]bool)
	for jp.dec.More() {
		t, err := jp.token()
		if err != nil {
			return nil, err
		}
		name := t.(string) // object keys are strings
		if err := checkExtraName(name); err != nil {
			if f, known := tagField[name]; known {
				return nil, fmt.Errorf("tags: %s belongs in the %q field", name, f)
			}
			return nil, fmt.Errorf("tags: %q: %w", name, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("tags: %s appears twice", name)
		}
		seen[name] = true
		t, err = jp.token()
		if err != nil {
			return nil, err
		}
		value, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("tags: %s: want a string, found %s", name, kind(t))
		}
		if err := checkValue(value); err != nil {
			return nil, fmt.Errorf("tags: %s: %w", name, err)
		}
		tags = append(tags, Tag{Name: name, Value: value})
	}
	_, err = jp.token() // the closing '}'
	return tags, err
}

// MarshalJSON returns the record's JSON form, fields in a fixed order and
// the extra tags in theirs. It fails if the record does not validate (see
// [Record.Validate]) or if its JSON would be longer than MaxSize. Its value
// receiver lets encoding/json use it for Record values as well as pointers.
func (r Record) MarshalJSON() ([]byte, error) {
	g, err := r.validate()
	if err != nil {
		return nil, err
	}
	b := make([]byte, 0, 256+4*len(r.Moves))
	b = append(b, '{')
	field := func(name string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = appendJSONString(b, name)
		b = append(b, ':')
	}
	str := func(name, value string) {
		field(name)
		b = appendJSONString(b, value)
	}
	num := func(name string, v int) {
		field(name)
		b = strconv.AppendInt(b, int64(v), 10)
	}
	for _, f := range []struct{ name, value string }{
		{fieldEvent, r.Event}, {fieldDate, r.Date}, {fieldSouth, r.South}, {fieldNorth, r.North},
	} {
		if f.value != "" {
			str(f.name, f.value)
		}
	}
	num(fieldHoles, r.Start.Holes())
	seeds, standard := standardSeeds(r.Start)
	if standard {
		num(fieldSeeds, seeds)
	}
	str(fieldVariant, r.Rules.Variant.String())
	num(fieldMaxLaps, r.Rules.Laps())
	if !standard {
		str(fieldPosition, r.Start.String())
	}
	str(fieldResult, g.Result().Token())
	str(fieldScore, scoreString(g))
	field(fieldMoves)
	b = append(b, '[')
	for i, m := range r.Moves {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, m.String()...)
		b = append(b, '"')
	}
	b = append(b, ']')
	if len(r.Extra) > 0 {
		field(fieldTags)
		b = append(b, '{')
		for i, t := range r.Extra {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, t.Name)
			b = append(b, ':')
			b = appendJSONString(b, t.Value)
		}
		b = append(b, '}')
	}
	b = append(b, '}')
	if len(b) > MaxSize {
		return nil, fmt.Errorf("record: the JSON form would be %d bytes, more than the limit of %d", len(b), MaxSize)
	}
	return b, nil
}

// UnmarshalJSON reads the record's JSON form, as ParseJSON does. Following
// the convention of encoding/json, a JSON null leaves r as it is.
func (r *Record) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil
	}
	rec, err := ParseJSON(data)
	if err != nil {
		return err
	}
	*r = *rec
	return nil
}

// appendJSONString appends s as a JSON string. s is valid UTF-8 without
// control characters (the record was validated), so only quotes and
// backslashes need escaping.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
