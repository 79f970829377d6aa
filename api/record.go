package api

// Game records in requests: read and checked, for the analysis board, and
// imported as games.

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// Record is the body of POST /api/games/import and POST
// /api/records/parse: a game record, in either form, as a JSON string.
type Record struct {
	Record string `json:"record"`
}

// Read reads the request's record and replays it.
func (req *Record) Read() (*record.Record, *rules.Game, error) {
	if strings.TrimSpace(req.Record) == "" {
		return nil, nil, Errorf(StatusBadRequest, "no record given: send {\"record\": \"<the record's text>\"}")
	}
	rec, err := record.Read([]byte(req.Record))
	if err != nil {
		return nil, nil, Errorf(StatusUnprocessableEntity, "%v", err)
	}
	if rec.Rules.Laps() > MaxLaps {
		return nil, nil, Errorf(StatusUnprocessableEntity, "MaxLaps %d: the server plays at most %d", rec.Rules.Laps(), MaxLaps)
	}
	g, err := rec.Game()
	if err != nil {
		return nil, nil, Errorf(StatusUnprocessableEntity, "%v", err)
	}
	return rec, g, nil
}

// Import is the game that importing rec at now stores: dated when it was
// played, if its record says so, and keyed so that the same record
// imported again finds it (importKey).
func Import(rec *record.Record, now time.Time) (*game.Game, error) {
	sg := &game.Game{Start: rec.Start, Rules: rec.Rules, Moves: rec.Moves, ImportKey: importKey(rec)}
	if at, ok := playedAt(rec.Date, now); ok {
		// Dated when it was played, not when it reached the server.
		sg.Created, sg.Updated = at, at
	}
	if winner, ok := rec.Resigned(); ok {
		// Stored as a game resigned on this server is: the winner's result
		// while the moves leave the game going.
		sg.Result = rules.WinFor(winner).Token()
	}
	// A record's names are optional: an empty one is no name.
	var err error
	if rec.South != "" {
		sg.South, err = DisplayName(rec.South, "South")
	}
	if err == nil && rec.North != "" {
		sg.North, err = DisplayName(rec.North, "North")
	}
	if err != nil {
		return nil, Errorf(StatusUnprocessableEntity, "%v", err)
	}
	return sg, nil
}

// firstDate is the earliest date an import keeps: a record dated before
// it is dated when it is imported.
var firstDate = time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)

// playedAt reads a record's Date tag: a date and time in RFC 3339 (as the
// page writes for a game played offline), or a day, 2006-01-02 or
// 2006.01.02, taken at its noon in UTC (the same day in nearly every time
// zone). It reports false for a value that is none of these, a time after
// now, or one before firstDate: the tag is free text.
func playedAt(date string, now time.Time) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, date)
	for _, layout := range []string{"2006-01-02", "2006.01.02"} {
		if err == nil {
			break
		}
		if t, err = time.Parse(layout, date); err == nil {
			t = t.Add(12 * time.Hour)
		}
	}
	if err != nil || t.After(now) || t.Before(firstDate) {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// importKey identifies a record whatever its form and layout: the digest
// of its text form as this program writes it; or, for a game played on a
// device while the server could not be reached, of its Offline tag, the
// device's own key for the game, whatever else its record says (a later
// version of the page may write it otherwise).
func importKey(rec *record.Record) string {
	text := rec.String()
	for _, tag := range rec.Extra {
		if tag.Name == "Offline" && tag.Value != "" {
			text = "offline " + tag.Value
		}
	}
	sum := sha256.Sum256([]byte(text))
	return hex.EncodeToString(sum[:])
}

// RecordView answers POST /api/records/parse: a record read and checked,
// for the analysis board.
type RecordView struct {
	Start   string   `json:"start"`
	Moves   []string `json:"moves"`
	Variant string   `json:"variant"`
	MaxLaps int      `json:"maxLaps"`
	South   string   `json:"south"`
	North   string   `json:"north"`
	Result  string   `json:"result"`
}

// NewRecordView is record rec, which plays game g, as the analysis board
// takes it.
func NewRecordView(rec *record.Record, g *rules.Game) RecordView {
	v := RecordView{Start: rec.Start.String(), Moves: []string{}, Variant: rec.Rules.Variant.String(),
		MaxLaps: rec.Rules.Laps(), South: rec.South, North: rec.North, Result: g.Result().Token()}
	for _, m := range rec.Moves {
		v.Moves = append(v.Moves, m.String())
	}
	return v
}
