package server

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/store"
)

// heldStore counts the reads of games and holds those of the games in
// held until release is closed.
type heldStore struct {
	store.Store
	reads        atomic.Int64
	held         map[string]bool // set before use, read only after
	release      chan struct{}
	inside, most atomic.Int64
}

func (h *heldStore) Game(ctx context.Context, id string) (*game.Game, error) {
	h.reads.Add(1)
	if h.held[id] {
		n := h.inside.Add(1)
		for m := h.most.Load(); n > m && !h.most.CompareAndSwap(m, n); m = h.most.Load() {
		}
		select {
		case <-h.release:
		case <-ctx.Done():
		}
		h.inside.Add(-1)
	}
	return h.Store.Game(ctx, id)
}

// heldServer is a second server over ts's store, whose reads of games go
// through a heldStore.
func heldServer(ts *testServer) (*heldStore, *testServer) {
	h := &heldStore{Store: ts.st, held: map[string]bool{}, release: make(chan struct{})}
	return h, &testServer{t: ts.t, path: ts.path, st: ts.st, srv: New(h, slog.New(slog.NewTextHandler(io.Discard, nil)))}
}

// Opening a live connection reads its game once: a burst of reconnections
// after a restart costs a read a connection, not two.
func TestLiveConnectionReadsItsGameOnce(t *testing.T) {
	ts := newTestServer(t)
	g, _ := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	h, hs := heldServer(ts)
	web := httptest.NewServer(hs.srv)
	defer web.Close()
	c := dialLive(t, web.URL, g.ID)
	c.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	if n := h.reads.Load(); n != 1 {
		t.Errorf("opening a live connection read the game %d times; want 1", n)
	}
	// An unknown game is still refused before the upgrade.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(web.URL, "http")+"/api/games/0123456789abcdef/live", nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusNotFound {
		t.Errorf("a live connection to an unknown game: %v, %v; want 404", resp, err)
	}
}

// A burst of live connections is set up a few at a time, and the moves of
// games in play pass it by: while every setup is stuck reading its game,
// a move of another game is played.
func TestBurstOfConnectionsLeavesMovesAlone(t *testing.T) {
	ts := newTestServer(t)
	limit := limits.SetupsPerCore * runtime.GOMAXPROCS(0)
	var ids []string
	for range 3 * limit {
		g, _ := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
		ids = append(ids, g.ID)
	}
	playing, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	h, hs := heldServer(ts)
	for _, id := range ids {
		h.held[id] = true
	}
	web := httptest.NewServer(hs.srv)
	defer web.Close()
	var wg sync.WaitGroup
	defer func() {
		close(h.release)
		wg.Wait()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, id := range ids {
		wg.Go(func() {
			ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(web.URL, "http")+"/api/games/"+id+"/live", nil)
			if err == nil {
				ws.CloseNow()
			}
		})
	}
	for deadline := time.Now().Add(5 * time.Second); h.inside.Load() < int64(limit); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d connections reached their game's read; want %d", h.inside.Load(), len(ids), limit)
		}
	}
	time.Sleep(50 * time.Millisecond) // for any others to arrive
	if n := h.most.Load(); n > int64(limit) {
		t.Errorf("%d connections were set up at once; want at most %d", n, limit)
	}
	side := playing.ToMove
	token := tokens[0]
	if side == "n" {
		token = tokens[1]
	}
	body := `{"move": "` + playing.LegalMoves[0] + `", "ply": 0}`
	if code, raw := hs.seat("POST", "/api/games/"+playing.ID+"/moves", token, body, nil); code != http.StatusOK {
		t.Errorf("a move while the connections wait: %d %s", code, raw)
	}
}

// A connection opening is not news to the others until it says its seat
// or stays to watch: the players hear of a spectator once, not first of
// nobody new and then of the spectator.
func TestNewConnectionAnnouncedOnce(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 4, "seeds": 2}`)
	south := dialLive(t, web.URL, g.ID)
	south.wait("the first state", func(m liveMessage) bool { return m.Type == "game" })
	south.send(map[string]string{"type": "hello", "token": tokens[0]})
	south.wait("south connected", func(m liveMessage) bool { return m.Game != nil && m.Game.Online.Connected.South })
	time.Sleep(2 * presenceDelay)
	// The two announcements, when made, may fall together: three
	// spectators in turn.
	for i := 1; i <= 3; i++ {
		for len(south.msgs) > 0 {
			<-south.msgs
		}
		dialLive(t, web.URL, g.ID)
		var got []int
		for deadline := time.After(3 * presenceDelay); ; {
			select {
			case m := <-south.msgs:
				if m.Game != nil {
					got = append(got, m.Game.Online.Watchers)
				}
				continue
			case <-deadline:
			}
			break
		}
		if len(got) != 1 || got[0] != i {
			t.Fatalf("spectator %d's arrival sent the player messages counting %v watching; want one message, %d", i, got, i)
		}
	}
}
