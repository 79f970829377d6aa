package account

import (
	"fmt"
	"unicode/utf8"

	"github.com/endodoi/endodoi/internal/marks"
	"go.mau.fi/util/confusable"
	"golang.org/x/text/secure/precis"
)

// The length of a username, in characters.
const (
	MinNameLen = 3
	MaxNameLen = 20
)

// ParseUsername checks a username by the PRECIS UsernameCasePreserved
// profile and returns it as shown and its key: the UsernameCaseMapped
// form, under which names are unique. The error wraps ErrBadName.
func ParseUsername(name string) (display, key string, err error) {
	if len(name) > 16*MaxNameLen { // spare PRECIS a long text
		return "", "", fmt.Errorf("%w: more than %d characters", ErrBadName, MaxNameLen)
	}
	display, err = precis.UsernameCasePreserved.String(name)
	if err != nil {
		return "", "", fmt.Errorf("%w: use letters, digits and punctuation, without spaces", ErrBadName)
	}
	switch n := utf8.RuneCountInString(display); {
	case n < MinNameLen:
		return "", "", fmt.Errorf("%w: fewer than %d characters", ErrBadName, MinNameLen)
	case n > MaxNameLen:
		return "", "", fmt.Errorf("%w: more than %d characters", ErrBadName, MaxNameLen)
	}
	if StacksMarks(display) {
		return "", "", fmt.Errorf("%w: more than %d marks on one character", ErrBadName, MaxMarks)
	}
	key, err = precis.UsernameCaseMapped.String(display)
	if err != nil {
		return "", "", fmt.Errorf("%w: use letters, digits and punctuation, without spaces", ErrBadName)
	}
	return display, key, nil
}

// MaxMarks is the most combining marks a username may stack on one
// character, as a player's display name (package marks).
const MaxMarks = marks.Max

// StacksMarks reports whether s stacks more than MaxMarks combining marks
// on one character.
func StacksMarks(s string) bool { return marks.Stacked(s) }

// Skeleton is the confusable skeleton of a username's key (Unicode's UTS
// #39, with the data of Unicode 17): two names with the same skeleton
// look alike (a Latin "a" and a Cyrillic "а", "rn" and "m", "l" and "1"),
// and only one account may have it. It is for comparing, never showing.
func Skeleton(key string) string { return confusable.Skeleton(key) }
