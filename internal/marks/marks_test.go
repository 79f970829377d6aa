package marks

import (
	"strings"
	"testing"
)

func TestStacked(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"Nguyễn", false},
		{"e\u0301\u0302\u0303\u0304", false},
		{"e\u0301\u0302\u0303\u0304\u0306", true},
		{"a" + strings.Repeat("\u0301", 49), true},
		{"क्षत्रिय", false},
		{"e\u0301\u0302\u0303\u0304a\u0301\u0302\u0303\u0304", false},
	} {
		if got := Stacked(tc.in); got != tc.want {
			t.Errorf("Stacked(%+q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}
