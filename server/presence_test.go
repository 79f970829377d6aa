package server

import (
	"net/http/httptest"
	"testing"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// A player's page reconnecting (after a restart, say) is not counted as
// watching in the moment before it says which seat it holds: the players
// never read "1 watching" or "2 watching" when nobody else watches, while
// a spectator is still counted.
func TestLivePresenceCountsNoPlayerAsWatching(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	south, north := dialLive(t, web.URL, g.ID), dialLive(t, web.URL, g.ID)
	for side, c := range []*liveClient{south, north} {
		m := c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" && m.Game != nil })
		if w := m.Game.Online.Watchers; w != 0 {
			t.Errorf("the first state sent to %s's page counts %d watching; nobody watches", rules.Side(side), w)
		}
		c.send(map[string]string{"type": "hello", "token": tokens[side]})
	}
	both := func(m liveMessage) bool {
		return m.Game != nil && m.Game.Online.Connected.South && m.Game.Online.Connected.North
	}
	for side, c := range []*liveClient{south, north} {
		for m := c.wait("both seats connected", both); m.Game.Online.Watchers != 0; m = c.wait("both seats connected", both) {
			t.Fatalf("%s's page is told %d watching; nobody watches", rules.Side(side), m.Game.Online.Watchers)
		}
	}
	// Long after, still nobody: no late count of a player's connection.
	time.Sleep(2 * presenceDelay)
	if w := ts.get(g.ID).Online.Watchers; w != 0 {
		t.Errorf("with the two players connected the game counts %d watching", w)
	}
	// A spectator, who says nothing, is counted once it has stayed a moment.
	dialLive(t, web.URL, g.ID)
	south.wait("the spectator counted", func(m liveMessage) bool { return m.Game != nil && m.Game.Online.Watchers == 1 })
	for side, c := range []*liveClient{south, north} {
		select {
		case m := <-c.msgs:
			if m.Game != nil && m.Game.Online.Watchers > 1 {
				t.Errorf("%s's page is told %d watching; one watches", rules.Side(side), m.Game.Online.Watchers)
			}
		default:
		}
	}
}
