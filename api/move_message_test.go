package api

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/endodoi/endodoi/internal/gameview"
)

// A move message is at most MaxMoveMessage bytes: a sowing too long for
// it is left out, and the game it is applied to then keeps no sowings.
func TestMoveMessageBounded(t *testing.T) {
	for _, laps := range []int{1, 30, 1000} {
		m := MoveMessage{Type: "move", ID: "0123456789abcdef", Rev: 8, Ply: 7, Move: "E",
			Sowing:   &PackedSowing{Laps: make([][3]int, laps), CaptureFrom: -1},
			Position: "4,4,4,4,4,4,4,4/4,4,4,4,4,4,4,4 s 0 0", ToMove: "s", LegalMoves: []string{"A", "B", "C", "D", "E", "F", "G", "H"},
			Status: "playing", Result: "*", Online: &Online{Rev: 8, Clock: &Clock{Minutes: 5, Increment: 3}}}
		for i := range m.Sowing.Laps {
			m.Sowing.Laps[i] = [3]int{15, 199, 15}
		}
		data := m.Marshal()
		if len(data) > MaxMoveMessage {
			t.Errorf("%d laps: %d bytes", laps, len(data))
		}
		var back MoveMessage
		if err := json.Unmarshal(data, &back); err != nil {
			t.Fatal(err)
		}
		if (back.Sowing != nil) != (laps <= 30) {
			t.Errorf("%d laps: the sowing sent is %v", laps, back.Sowing)
		}
		g := Game{ID: m.ID, Board: gameview.Board{Moves: make([]string, 6), Positions: make([]string, 7), Sowings: make([]gameview.Sowing, 6)},
			Online: &Online{Rev: 7}}
		if err := g.Apply(&back); err != nil {
			t.Fatalf("%d laps: %v", laps, err)
		}
		if len(g.Moves) != 7 || g.Position != m.Position || g.Online.Rev != 8 {
			t.Errorf("%d laps: applied, %+v", laps, g)
		}
		if laps <= 30 && (len(g.Sowings) != 7 || len(g.Sowings[6].Laps) != laps) || laps > 30 && (len(g.Sowings) != 0 || g.SowingsFrom != 7) {
			t.Errorf("%d laps: sowings from %d, %d of them", laps, g.SowingsFrom, len(g.Sowings))
		}
		if err := g.Apply(&back); !errors.Is(err, ErrBehind) {
			t.Errorf("%d laps: applied twice: %v", laps, err)
		}
	}
}
