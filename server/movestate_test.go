package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/endodoi/endodoi/api"
)

// TestMoveAnswerIsItsLiveMessage: the answer to a move and the live
// message that tells it are made of the one state the move left: the same
// game, clocks and series tally to the millisecond, the same sowing; only
// who is connected may differ.
func TestMoveAnswerIsItsLiveMessage(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6, "series": 2, "clock": {"minutes": 5, "increment": 2}}`)
	watcher := dialLive(t, web.URL, g.ID)
	watcher.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	// Once two moves are played a clock runs, and is read in both.
	for ply := range 4 {
		var mv moveView
		body := fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], ply)
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens), body, &mv); code != http.StatusOK {
			t.Fatalf("move %d: %d %s", ply+1, code, raw)
		}
		m := watcher.wait("the move", func(m liveMessage) bool { return m.Event == "move" && len(m.Game.Moves) == ply+1 })
		if m.Sowing == nil || !reflect.DeepEqual(*m.Sowing, mv.Sowing) {
			t.Errorf("move %d: live sowing %+v, answered %+v", ply+1, m.Sowing, mv.Sowing)
		}
		live, answered := *m.Game, mv.Game
		for _, v := range []*gameView{&live, &answered} {
			o := *v.Online
			o.Connected, o.Watchers = api.SideFlags{}, 0
			v.Online = &o
		}
		if !reflect.DeepEqual(live, answered) {
			a, _ := json.Marshal(answered)
			l, _ := json.Marshal(live)
			t.Errorf("move %d: answered\n%s\nlive\n%s", ply+1, a, l)
		}
		if answered.Series == nil || (ply+1 >= 2) != (answered.Online.Running != "") {
			t.Errorf("move %d: series %+v, running clock %q", ply+1, answered.Series, answered.Online.Running)
		}
		g = mv.Game
	}
}
