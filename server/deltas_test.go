package server

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"slices"
	"testing"
)

// A move is told as a move message, at most 1 KB whatever the game's
// length, to a client that speaks the live protocol's version 2; applied
// to the game as last told it makes the game as the server has it. A page
// of before, which says no version, is sent the whole game each time. A
// client that missed a move asks for the game again and carries on.
func TestLiveMovesAsDeltas(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 8, "seeds": 4}`)
	deltas, old := dialLive(t, web.URL, g.ID), dialLiveV(t, web.URL, g.ID, "")
	for _, c := range []*liveClient{deltas, old} {
		c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" && m.Game.ID == g.ID })
	}
	var moveWire []int
	var largest []byte
	var wholeWire []int // the whole games told to the page of before
	for ply := 0; ; ply++ {
		cur := ts.get(g.ID)
		if cur.Status != "playing" {
			break
		}
		if ply == 20 {
			// A move missed: the client's game is one behind the next move.
			deltas.forgetLastMove()
		}
		ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[len(cur.LegalMoves)/2], ply), nil)
		want := ts.get(g.ID)
		m := deltas.wait(fmt.Sprintf("move %d", ply+1), func(m liveMessage) bool {
			return m.Type == "game" && len(m.Game.Moves) == ply+1
		})
		if want.Status == "playing" {
			if ply != 20 {
				var head struct{ Type string }
				if err := json.Unmarshal(m.wire, &head); err != nil || head.Type != "move" {
					t.Fatalf("move %d told as %q, want a move message", ply+1, head.Type)
				}
				moveWire = append(moveWire, len(m.wire))
				if len(m.wire) > len(largest) {
					largest = m.wire
				}
			}
		}
		got := m.Game
		if !slices.Equal(got.Moves, want.Moves) || !slices.Equal(got.Positions, want.Positions) || got.Position != want.Position ||
			got.ToMove != want.ToMove || !slices.Equal(got.LegalMoves, want.LegalMoves) || got.Status != want.Status ||
			got.Result != want.Result || got.Score != want.Score || got.Online.Rev != want.Online.Rev ||
			got.Online.Clocks != want.Online.Clocks || got.Online.Running != want.Online.Running || got.Online.DrawOffer != want.Online.DrawOffer {
			t.Fatalf("move %d: the game made from the messages\n%+v\nthe server's\n%+v", ply+1, got, want)
		}
		o := old.wait(fmt.Sprintf("move %d, whole", ply+1), func(m liveMessage) bool {
			return m.Type == "game" && m.Game != nil && len(m.Game.Moves) == ply+1
		})
		wholeWire = append(wholeWire, len(o.wire))
		var head struct{ Type string }
		if err := json.Unmarshal(o.wire, &head); err != nil || head.Type != "game" || o.Event != "move" || o.Sowing == nil {
			t.Fatalf("move %d told to a page of before as %s", ply+1, o.wire)
		}
	}
	if len(moveWire) < 20 {
		t.Fatalf("%d moves told as move messages", len(moveWire))
	}
	if m := slices.Max(moveWire); m > 1024 {
		t.Errorf("a move message of %d bytes, want at most 1 KB: %v", m, moveWire)
	}
	t.Logf("the largest: %s", largest)
	t.Logf("whole games told instead: from %d to %d bytes", slices.Min(wholeWire), slices.Max(wholeWire))
	t.Logf("move messages: %d, of %d to %d bytes", len(moveWire), slices.Min(moveWire), slices.Max(moveWire))
}
