package server

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/api"
)

// TestImportKeepsTheDate: a record's Date tag, a date or a date and time,
// dates the game it makes, as it dates the record exported; a Date the
// server cannot read, one in the future or one before 1900 leaves the game
// dated when it was imported.
func TestImportKeepsTheDate(t *testing.T) {
	ts := newTestServer(t)
	noon := time.Date(2024, 3, 5, 12, 0, 0, 0, time.UTC)
	for i, c := range []struct {
		date string
		want time.Time // zero: the time of the import
	}{
		{"2024-03-05T10:20:30.123Z", time.Date(2024, 3, 5, 10, 20, 30, 123e6, time.UTC)},
		{"2024-03-05T12:20:30+02:00", time.Date(2024, 3, 5, 10, 20, 30, 0, time.UTC)},
		// A day alone is dated at its noon in UTC: the same day in nearly every time zone.
		{"2024-03-05", noon},
		{"2024.03.05", noon},
		{"", time.Time{}},
		{"????.??.??", time.Time{}},
		{"last Tuesday", time.Time{}},
		{"2024-02-30", time.Time{}},
		{"2999-01-01", time.Time{}},
		{"1850-06-01", time.Time{}},
	} {
		rec := "[Holes \"6\"]\n[Seeds \"4\"]\n"
		if c.date != "" {
			rec += "[Date \"" + c.date + "\"]\n"
		}
		// Each record its own game: the import key is the record's digest.
		rec += "[Offline \"" + strings.Repeat("k", i+1) + "\"]\n\n1. c *\n"
		before := time.Now().Add(-time.Second)
		var g gameView
		if code, raw := ts.do("POST", "/api/games/import", recordBody(rec), &g); code != http.StatusCreated {
			t.Fatalf("import with Date %q: %d %s", c.date, code, raw)
		}
		after := time.Now().Add(time.Second)
		if c.want.IsZero() {
			if g.Created.Before(before) || g.Created.After(after) || !g.Updated.Equal(g.Created) {
				t.Errorf("Date %q: created %v, updated %v; want both the time of the import", c.date, g.Created, g.Updated)
			}
			continue
		}
		if !g.Created.Equal(c.want) || !g.Updated.Equal(c.want) {
			t.Errorf("Date %q: created %v, updated %v; want both %v", c.date, g.Created, g.Updated, c.want)
		}
		// The list and the record say the same.
		var list struct{ Games []api.Summary }
		ts.do("GET", "/api/games?ids="+g.ID, "", &list)
		if len(list.Games) != 1 || !list.Games[0].Updated.Equal(c.want) {
			t.Errorf("Date %q: the list has %+v", c.date, list.Games)
		}
		if code, text := ts.do("GET", "/api/games/"+g.ID+"/record", "", nil); code != http.StatusOK || !strings.Contains(text, `[Date "2024-03-05"]`) {
			t.Errorf("Date %q: the record exported:\n%s", c.date, text)
		}
	}
}

// TestImportOfflineKey: a game a device sends is stored once, whatever its
// record says besides its Offline tag: a page that sends it again after an
// update writes the record otherwise.
func TestImportOfflineKey(t *testing.T) {
	ts := newTestServer(t)
	first := "[Date \"2026-11-30T10:00:00.000Z\"]\n[Holes \"6\"]\n[Seeds \"4\"]\n[Offline \"k1\"]\n\nc *\n"
	again := "[Holes \"6\"]\n[Seeds \"4\"]\n[Variant \"standard\"]\n[MaxLaps \"1000\"]\n[Offline \"k1\"]\n[Date \"2026-11-30\"]\n\nc *\n"
	other := "[Holes \"6\"]\n[Seeds \"4\"]\n[Offline \"k2\"]\n\nc *\n"
	var a, b, c struct{ ID string }
	if code, raw := ts.do("POST", "/api/games/import", recordBody(first), &a); code != 201 {
		t.Fatalf("first import: %d %s", code, raw)
	}
	if code, raw := ts.do("POST", "/api/games/import", recordBody(again), &b); code != 200 || b.ID != a.ID {
		t.Errorf("the same game written otherwise: %d %s, want 200 with %s", code, raw, a.ID)
	}
	if code, raw := ts.do("POST", "/api/games/import", recordBody(other), &c); code != 201 || c.ID == a.ID {
		t.Errorf("another device's game with the same moves: %d %s, want a game of its own", code, raw)
	}
}
