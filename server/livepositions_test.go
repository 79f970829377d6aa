package server

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/internal/pgtest"
	"github.com/endodoi/endodoi/rules"
)

// asked counts the requests of ask.
var asked atomic.Uint32

// ask sends a request to ts, each from a client of its own so that the
// limits on expensive requests leave them be, and answers its status and
// body.
func ask(ts *testServer, method, path, body string) (int, string) {
	ts.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	n := asked.Add(1)
	req.RemoteAddr = fmt.Sprintf("10.%d.%d.%d:1234", n>>16&255, n>>8&255, n&255)
	if method == "POST" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	ts.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// liveGameAt plays an online game on ts past its opening, and returns it
// with the tokens of its seats.
func liveGameAt(t *testing.T, ts *testServer, holes int) (gameView, [2]string) {
	t.Helper()
	g, tokens := ts.onlinePair(fmt.Sprintf(`{"online": true, "holes": %d}`, holes))
	for len(g.Moves) < analysis.LivePly+1 {
		var mv moveView
		if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens),
			fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[len(g.LegalMoves)-1], len(g.Moves)), &mv); code != 200 {
			t.Fatalf("online move: %d %s", code, raw)
		}
		g = mv.Game
	}
	if g.Status != "playing" {
		t.Fatalf("the online game ended in its opening: %s", g.Status)
	}
	return g, tokens
}

// near returns, for a position p under the standard rules, its children
// (after each legal move) and grandchildren, each with the moves from p.
func near(t *testing.T, p string) (children, grandchildren map[string][]string) {
	t.Helper()
	r := rules.DefaultRules()
	pos := rules.MustParsePosition(p)
	children, grandchildren = map[string][]string{}, map[string][]string{}
	for _, m := range pos.LegalMoves(r) {
		c, err := pos.Play(m, r)
		if err != nil {
			t.Fatal(err)
		}
		children[c.String()] = []string{m.String()}
		for _, m2 := range c.LegalMoves(r) {
			gc, err := c.Play(m2, r)
			if err != nil {
				t.Fatal(err)
			}
			grandchildren[gc.String()] = []string{m.String(), m2.String()}
		}
	}
	return children, grandchildren
}

// The engine analyses no position within two moves of an online game's
// own while it is played: not the position, nor one of its children (the
// position after each move, whose scores rank the moves), nor one of its
// grandchildren, whether asked through moves from the position, given
// directly, or reached in a game on one device (its hints, the
// computer's moves, a review); the analysis board does not set them up
// either. Once the game has ended, they are analysed.
func TestNoAnalysisNearALiveOnlineGame(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := liveGameAt(t, ts, 6)
	pos := g.Position
	children, grandchildren := near(t, pos)
	if len(children) == 0 || len(grandchildren) == 0 {
		t.Fatalf("the position %s has %d children and %d grandchildren", pos, len(children), len(grandchildren))
	}
	status := func(method, path, body string) int {
		code, _ := ask(ts, method, path, body)
		return code
	}
	refused := func(what string, code int) {
		t.Helper()
		if code != http.StatusConflict {
			t.Errorf("%s: %d, want 409", what, code)
		}
	}
	for _, set := range []map[string][]string{children, grandchildren} {
		for p, moves := range set {
			refused("analysis of "+pos+" after "+fmt.Sprint(moves),
				status("POST", "/api/analyze", fmt.Sprintf(`{"position": %q, "moves": %s, "depth": 2}`, pos, mustJSON(moves))))
			refused("analysis of "+p, status("POST", "/api/analyze", fmt.Sprintf(`{"position": %q, "depth": 2}`, p)))
			refused("the analysis board at "+p, status("POST", "/api/position", fmt.Sprintf(`{"position": %q}`, p)))
		}
	}
	// A copy of the game on one device, moved one ply: its hint, and the
	// computer's move there.
	var m string
	var child string
	for c, moves := range children {
		child, m = c, moves[0]
		break
	}
	local := ts.create(fmt.Sprintf(`{"position": %q}`, pos))
	if code, raw := ts.do("POST", "/api/games/"+local.ID+"/moves", fmt.Sprintf(`{"move": %q}`, m), nil); code != 200 {
		t.Fatalf("the local copy's move: %d %s", code, raw)
	}
	refused("a hint in a local copy one move on", status("GET", "/api/games/"+local.ID+"/hint", ""))
	mover := rules.MustParsePosition(child).ToMove()
	vsComputer := ts.create(fmt.Sprintf(`{"position": %q, "computer": {"side": %q, "level": 10}}`, child, string(mover.Letter())))
	refused("the computer's move at a child", status("POST", "/api/games/"+vsComputer.ID+"/computer", `{}`))
	// A finished game through a child of the position: its review.
	if code, raw := ts.do("POST", "/api/games/"+local.ID+"/actions", `{"action": "resign", "ply": 1}`, nil); code != 200 {
		t.Fatalf("resign the local copy: %d %s", code, raw)
	}
	refused("the review of a game through a child", status("POST", "/api/games/"+local.ID+"/review", ""))

	if code, raw := ts.seat("POST", "/api/games/"+g.ID+"/actions", tokens[0], fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != 200 {
		t.Fatalf("resign: %d %s", code, raw)
	}
	if code, raw := ask(ts, "POST", "/api/analyze", fmt.Sprintf(`{"position": %q, "moves": [%q], "depth": 2}`, pos, m)); code != 200 {
		t.Errorf("analysis of a child once the game is over: %d %s", code, raw)
	}
	if code, raw := ask(ts, "GET", "/api/games/"+local.ID+"/review", ""); code != 200 {
		t.Errorf("the review once the game is over: %d %s", code, raw)
	}
}

// Two instances: the children and grandchildren of a game played through
// one are not analysed by the other, which learns the position from the
// notice of each move.
func TestInstancesRefuseAnalysisNearALiveGame(t *testing.T) {
	forEachBus(t, testInstancesRefuseAnalysisNearALiveGame)
}

func testInstancesRefuseAnalysisNearALiveGame(t *testing.T, busURL string) {
	url := pgtest.NewDatabase(t)
	a, b := startInstanceOn(t, url, busURL, nil), startInstanceOn(t, url, busURL, nil)
	ta, tb := &testServer{t: t, srv: a.srv}, &testServer{t: t, srv: b.srv}
	g, tokens := liveGameAt(t, ta, 8)
	// B tells its live client of the move, from its notice or from the
	// game as B reads it when it catches up; the notice brings the
	// position, a moment later in the second case.
	watcher := dialLive(t, b.web.URL, g.ID)
	watcher.wait("the first state", func(m liveMessage) bool { return m.Game != nil })
	var mv moveView
	if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(g, tokens),
		fmt.Sprintf(`{"move": %q, "ply": %d}`, g.LegalMoves[0], len(g.Moves)), &mv); code != 200 {
		t.Fatalf("move on A: %d %s", code, raw)
	}
	g = mv.Game
	watcher.wait("the move on A", func(m liveMessage) bool { return m.Game != nil && len(m.Game.Moves) == len(g.Moves) })
	children, grandchildren := near(t, g.Position)
	body := func(moves []string) string {
		return fmt.Sprintf(`{"position": %q, "moves": %s, "depth": 2}`, g.Position, mustJSON(moves))
	}
	answers(t, tb, body(nil), http.StatusConflict, "the position of the game played on A")
	for _, set := range []map[string][]string{children, grandchildren} {
		for _, moves := range set {
			if code, raw := ask(tb, "POST", "/api/analyze", body(moves)); code != http.StatusConflict {
				t.Errorf("B analyses the game's position after %v: %d %s", moves, code, raw)
			}
		}
	}
	if code, raw := ta.seat("POST", "/api/games/"+g.ID+"/actions", tokens[0], fmt.Sprintf(`{"action": "resign", "ply": %d}`, len(g.Moves)), nil); code != 200 {
		t.Fatalf("resign on A: %d %s", code, raw)
	}
	watcher.wait("the resignation on A", func(m liveMessage) bool { return m.Game != nil && m.Game.Status != "playing" })
	for _, moves := range children {
		answers(t, tb, body(moves), http.StatusOK, "a child of the position of the game over")
		break
	}
}

// answers waits, within liveWait, for ts to answer the analysis body with
// status want: another instance's notice takes a moment to arrive.
func answers(t *testing.T, ts *testServer, body string, want int, what string) {
	t.Helper()
	for deadline := time.Now().Add(liveWait); ; time.Sleep(10 * time.Millisecond) {
		code, raw := ask(ts, "POST", "/api/analyze", body)
		if code == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the analysis of %s: %d %s, want %d", what, code, raw, want)
		}
	}
}
