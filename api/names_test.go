package api

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/secure/precis"
)

func TestDisplayNames(t *testing.T) {
	for _, tc := range []struct {
		in, want string // want "" for a name refused
	}{
		// Names that show nothing, or hide part of themselves.
		{"", ""},
		{"   ", ""},
		{"\u00a0\u3000", ""},
		{"\u3164", ""},
		{"\u3164\u3164", ""},
		{"\u115f", ""},
		{"\uffa0", ""},
		{"\u2800", ""},
		{"Bob\u2800", ""},
		{"a" + strings.Repeat("\u0301", 49), ""},
		{"e\u0301\u0302\u0303\u0304\u0306\u0307", ""},
		{"ad\u200dmin", ""},
		{"ad\u200cmin", ""},
		{"\ufe0f", ""},
		{"a\ufe0f", ""},
		{"Ali \u2764\ufe0f", ""},
		{"\u0301", ""},
		{"x\u202eevil", ""},
		{"Ann\tB", ""},
		{"A\u0000", ""},
		{"\u200b", ""},
		{strings.Repeat("n", MaxNameLength+1), ""},
		{"Bob" + strings.Repeat(" ", 1<<20) + "\u0000", ""},
		// Ordinary names in the page's languages, normalized.
		{"  Naserian ole  Sironka ", "Naserian ole Sironka"},
		{"Ｎａｓｅｒｉａｎ", "Naserian"},
		{"Zoe\u0308 Núñez", "Zoë Núñez"},
		{"François Lefèvre-Ørsted", "François Lefèvre-Ørsted"},
		{"Nguyễn Thị Ánh", "Nguyễn Thị Ánh"},
		{"Nguye\u0302\u0303n Văn Đức", "Nguyễn Văn Đức"},
		{"Trần Thị Thu Hương", "Trần Thị Thu Hương"},
		{"সুমাইয়া আক্তার", "সুমাইয়া আক্তার"},
		{"আরিফুর রহমান", "আরিফুর রহমান"},
		{"ঋত্বিক", "ঋত্বিক"},
		{"ক্\u200dষমা", "ক্\u200dষমা"}, // a joiner after a virama shapes the conjunct
		{"ক্\u200cষমা", "ক্\u200cষমা"},
		{"نصیر احمد", "نصیر احمد"},
		{"عائشہ صدیقہ", "عائشہ صدیقہ"},
		{"حسن\u200cعلی", "حسن\u200cعلی"}, // a non-joiner between joining letters
		{"Amani Wanjiru", "Amani Wanjiru"},
		{"Mwanaisha Salim", "Mwanaisha Salim"},
		{"Jiří Dvořák", "Jiří Dvořák"},
		{"Šárka Čermáková", "Šárka Čermáková"},
		{"O'Brien", "O'Brien"},
		{"Player 2", "Player 2"},
		{strings.Repeat("ন", MaxNameLength), strings.Repeat("ন", MaxNameLength)},
	} {
		got, err := DisplayName(tc.in, "South")
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%+q: accepted as %+q", tc.in, got)
		case tc.want == "" && !strings.HasPrefix(err.Error(), "South's name "):
			t.Errorf("%+q: message %q does not say whose name", tc.in, err)
		case tc.want != "" && err != nil:
			t.Errorf("%+q: %v", tc.in, err)
		case got != tc.want:
			t.Errorf("%+q: stored as %+q, want %+q", tc.in, got, tc.want)
		}
	}
}

// FuzzDisplayName: the validator never panics, and a name it accepts is
// stable under the profile, within the length limit, and shows something.
func FuzzDisplayName(f *testing.F) {
	for _, s := range []string{"", " ", "Jiří", "\u3164", "\u2800", "ad\u200dmin", "\ufe0f", "ক্\u200dষ", "حسن\u200cعلی",
		"a" + strings.Repeat("\u0301", 49), "Ｎａｓｅｒｉａｎ", "\xff", "Nguye\u0302\u0303n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, err := DisplayName(in, "South")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "South's name ") {
				t.Fatalf("%+q: message %q", in, err)
			}
			return
		}
		again, err := precis.Nickname.String(out)
		if err != nil || again != out {
			t.Fatalf("%+q: accepted as %+q, which the profile makes %+q (%v)", in, out, again, err)
		}
		if n := utf8.RuneCountInString(out); n == 0 || n > MaxNameLength {
			t.Fatalf("%+q: accepted with %d characters", in, n)
		}
		if again, err := DisplayName(out, "South"); err != nil || again != out {
			t.Fatalf("%+q: accepted as %+q, which then gives %+q, %v", in, out, again, err)
		}
		visible := false
		for _, c := range out {
			if unicode.In(c, unicode.L, unicode.N, unicode.P, unicode.S) && !blanks[c] {
				visible = true
			}
		}
		if !visible {
			t.Fatalf("%+q: accepted as %s, with nothing to show", in, fmt.Sprintf("%+q", out))
		}
	})
}
