package server

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A server alone, restarted while a clock runs, flags it when it falls,
// not a grace later: no other instance made the game's last change.
func TestLoneServerFlagsOnTimeAfterARestart(t *testing.T) {
	ts, fake := newTestServerAt(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := ts.srv.Start(ctx); err != nil {
		t.Fatal(err)
	}
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6, "clock": {"minutes": 1, "increment": 0}}`)
	for i := range 2 {
		cur := ts.get(g.ID)
		ts.seat("POST", "/api/games/"+g.ID+"/moves", tokenOf(cur, tokens), fmt.Sprintf(`{"move": %q, "ply": %d}`, cur.LegalMoves[0], i), nil)
	}
	cancel()
	ts.srv.Close()
	ts.restart()
	ctx2, cancel2 := context.WithCancel(context.Background())
	defer func() { cancel2(); ts.srv.Close() }()
	if err := ts.srv.Start(ctx2); err != nil {
		t.Fatal(err)
	}
	due, ok := ts.srv.clocks.due(g.ID)
	if !ok {
		t.Fatal("no timer for the running clock after the restart")
	}
	if falls := fake.Now().Add(time.Minute); due.After(falls.Add(time.Second)) {
		t.Errorf("the clock falls at %v and is flagged at %v", falls, due)
	}
	fake.Advance(time.Minute + 100*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for ts.get(g.ID).Status == "playing" && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := ts.get(g.ID); got.Status == "playing" || got.Online.End != "timeout" {
		t.Errorf("a minute on: status %s, end %q", got.Status, got.Online.End)
	}
}
