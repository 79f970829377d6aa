package loadtest

import (
	"net/http"
	"testing"
)

// A move sent again after a reconnect that the server had taken after all
// is refused with 409, and that refusal may come after the game has shown
// the move and gone on past it: it is the resend's expected answer, not an
// error of the server's. A 409 for a move never sent again is one.
func TestConflictOfAResentMove(t *testing.T) {
	conflict := func(move string, ply int) *liveMsg {
		m := &liveMsg{Type: "error", Status: wireStatus{Code: http.StatusConflict}}
		m.Ref = &struct {
			Type string `json:"type"`
			Move string `json:"move"`
			Ply  *int   `json:"ply"`
		}{Type: "move", Move: move, Ply: &ply}
		return m
	}
	newSeat := func() (*table, *seat) {
		r := &onlineRunner{}
		r.st.errors, r.st.firstErr = map[string]int{}, map[string]string{}
		tb := &table{r: r}
		g := &ogame{id: "g"}
		s := &seat{t: tb, g: g}
		g.seats[0] = s
		return tb, s
	}

	// Resent, seen taken (no longer pending), then the 409 of the resend.
	tb, s := newSeat()
	m := &omove{move: "e", ply: 6, resent: 1}
	s.resent = m
	tb.onError(s, conflict("e", 6), nil)
	if n := len(tb.r.st.errors); n != 0 || tb.r.st.resendRefused != 1 {
		t.Errorf("the 409 of a resend already seen taken: errors %v, resends refused %d", tb.r.st.errors, tb.r.st.resendRefused)
	}

	// Resent and still pending: the 409 keeps it pending.
	tb, s = newSeat()
	s.pending, s.resent = m, m
	tb.onError(s, conflict("e", 6), nil)
	if n := len(tb.r.st.errors); n != 0 || s.pending != m {
		t.Errorf("the 409 of a pending resend: errors %v, pending %v", tb.r.st.errors, s.pending)
	}

	// Sent once: a 409 is an error.
	tb, s = newSeat()
	s.pending = &omove{move: "c", ply: 2}
	tb.onError(s, conflict("c", 2), nil)
	if tb.r.st.errors["WS error 409 (move)"] != 1 || s.pending != nil {
		t.Errorf("the 409 of a move sent once: errors %v, pending %v", tb.r.st.errors, s.pending)
	}
}
