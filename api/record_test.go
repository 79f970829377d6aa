package api

import (
	"testing"
	"time"
)

// A record's Date tag dates the game imported when it is a time or a day
// between 1900 and now; anything else is free text, and the import is
// dated when it is made.
func TestPlayedAt(t *testing.T) {
	now := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		date string
		want time.Time
		ok   bool
	}{
		{"2025-12-24T18:30:00+03:00", time.Date(2025, 12, 24, 15, 30, 0, 0, time.UTC), true},
		{"2025-12-24", time.Date(2025, 12, 24, 12, 0, 0, 0, time.UTC), true},
		{"2025.12.24", time.Date(2025, 12, 24, 12, 0, 0, 0, time.UTC), true},
		{"2027-01-01", time.Time{}, false},
		{"1899-12-31", time.Time{}, false},
		{"last Sunday", time.Time{}, false},
		{"", time.Time{}, false},
	} {
		if got, ok := playedAt(tc.date, now); ok != tc.ok || !got.Equal(tc.want) {
			t.Errorf("playedAt(%q) = %v %v, want %v %v", tc.date, got, ok, tc.want, tc.ok)
		}
	}
}
