package account

import (
	"fmt"
	"unicode/utf8"

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
	key, err = precis.UsernameCaseMapped.String(display)
	if err != nil {
		return "", "", fmt.Errorf("%w: use letters, digits and punctuation, without spaces", ErrBadName)
	}
	return display, key, nil
}
