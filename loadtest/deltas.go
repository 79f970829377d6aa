package loadtest

import (
	"encoding/json"
	"slices"
	"strconv"
)

// The live connection's version 2 (docs/api.md, Live updates): a move
// comes as a move message, which the load test's clients apply to the
// game as last told, and ask for the game again (a sync) when one does
// not follow it; each message is decoded once.

// liveProtocol is the version of the live connection the clients speak.
const liveProtocol = 2

// liveQuery is the live connection's query saying it.
var liveQuery = "?v=" + strconv.Itoa(liveProtocol)

// syncMessage asks for the game again.
var syncMessage = []byte(`{"type":"sync"}`)

// wireStatus is a live message's "status": the game's status in a move
// message ("playing"), an HTTP status in an error.
type wireStatus struct {
	Code int
	Text string
}

func (w *wireStatus) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &w.Text)
	}
	return json.Unmarshal(b, &w.Code)
}

// moveFields are a move message's own fields, beside the type and status.
type moveFields struct {
	ID         string   `json:"id"`
	Rev        int64    `json:"rev"`
	Ply        int      `json:"ply"`
	Move       string   `json:"move"`
	ToMove     string   `json:"toMove"`
	LegalMoves []string `json:"legalMoves"`
	Online     *struct {
		Rev int64 `json:"rev"`
	} `json:"online"`
}

// follows reports whether move message m, of a game whose revision is rev
// with plies moves, is its next move.
func (m *moveFields) follows(id string, rev int64, plies int) bool {
	return m.ID == id && m.Online != nil && m.Rev == rev+1 && m.Ply == plies+1
}

// appendMove is moves with move, sharing nothing with moves that a later
// append could change.
func appendMove(moves []string, move string) []string {
	return append(slices.Clip(moves), move)
}
