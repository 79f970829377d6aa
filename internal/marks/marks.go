// Package marks bounds the combining marks a name given by a person may
// stack on one character, the same for usernames (package account) and
// players' display names (package api).
package marks

import "unicode"

// Max is the most combining marks a name may stack on one character:
// enough for any script's vowel signs and tone marks, too few to smear a
// name over the lines around it.
const Max = 4

// Stacked reports whether s stacks more than Max combining marks on one
// character.
func Stacked(s string) bool {
	n := 0
	for _, c := range s {
		if !unicode.Is(unicode.M, c) {
			n = 0
			continue
		}
		if n++; n > Max {
			return true
		}
	}
	return false
}
