package api

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"

	"github.com/endodoi/endodoi/internal/marks"
)

// MaxNameLength is the most characters a player's name may have, counted
// in its normalized form.
const MaxNameLength = 50

// blanks are characters of the visible categories that show nothing, so
// that a name made of them would look empty or like another.
var blanks = map[rune]bool{
	'\u115f': true, '\u1160': true, '\u3164': true, '\uffa0': true, // Hangul fillers
	'\u2800': true, // the blank Braille pattern
}

// errNoName is a name with nothing to show.
var errNoName = errors.New("has no visible character")

// DisplayName checks and normalizes a player's display name by the PRECIS
// nickname profile (RFC 8266: compatibility forms and spaces folded,
// surrounding spaces dropped, control and invisible characters refused),
// and refuses a name that would show nothing or stacks marks; who names
// the player in the message. The name returned is as stored and shown.
func DisplayName(name, who string) (string, error) {
	if !utf8.ValidString(name) {
		return "", fmt.Errorf("%s's name is not valid UTF-8", who)
	}
	// Far too long whatever normalizing would drop: refused before the
	// work of checking it.
	if n := utf8.RuneCountInString(name); n > 4*MaxNameLength {
		return "", fmt.Errorf("%s's name has %d characters; at most %d", who, n, MaxNameLength)
	}
	out, err := precis.Nickname.String(name)
	if err != nil {
		return "", fmt.Errorf("%s's name %s", who, nameProblem(name))
	}
	if n := utf8.RuneCountInString(out); n > MaxNameLength {
		return "", fmt.Errorf("%s's name has %d characters; at most %d", who, n, MaxNameLength)
	}
	if marks.Stacked(out) {
		return "", fmt.Errorf("%s's name stacks more than %d marks on one character", who, marks.Max)
	}
	visible := false
	for _, c := range out {
		if blanks[c] {
			return "", fmt.Errorf("%s's name contains the character %U, which shows nothing", who, c)
		}
		if unicode.In(c, unicode.L, unicode.N, unicode.P, unicode.S) {
			visible = true
		}
	}
	if !visible {
		return "", fmt.Errorf("%s's name %v", who, errNoName)
	}
	return out, nil
}

// nameProblem says why the nickname profile refuses name.
func nameProblem(name string) string {
	for _, c := range name {
		if contextual(c) {
			continue
		}
		if _, err := precis.Nickname.String("x" + string(c)); err != nil {
			return fmt.Sprintf("contains the character %U, which is not allowed in a name", c)
		}
	}
	for _, c := range name {
		if contextual(c) {
			return fmt.Sprintf("has the character %U where it is not allowed (a joiner must join letters that take it)", c)
		}
	}
	return errNoName.Error() // nothing left once the spaces are dropped
}

// contextual reports whether the nickname profile allows c only beside
// certain characters (RFC 5892, CONTEXTJ and CONTEXTO): the joiners after
// a virama or between joining letters, and a few punctuation marks and
// digits.
func contextual(c rune) bool {
	switch {
	case c == '\u200c', c == '\u200d', c == '\u00b7', c == '\u0375', c == '\u05f3', c == '\u05f4', c == '\u30fb':
		return true
	case '\u0660' <= c && c <= '\u0669', '\u06f0' <= c && c <= '\u06f9':
		return true
	}
	return false
}
