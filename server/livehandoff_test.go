package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/rules"
)

// TestLiveLetsRequestGo: once a live connection (a game's or the lobby's)
// is upgraded, the handler of its request has returned, so that the HTTP
// server's goroutine, the request and its answer's buffers are not kept
// as long as the connection; the connection goes on (a move made on it
// is told to the other seat's), and the instance's count of live
// connections lasts as long as the connection, not as its handler.
func TestLiveLetsRequestGo(t *testing.T) {
	ts := newTestServer(t)
	g, tokens := ts.onlinePair(`{"online": true, "holes": 6}`)
	// A second server on the same store, holding two live connections at
	// most.
	srv := NewWithOptions(ts.st, slog.New(slog.NewTextHandler(io.Discard, nil)),
		Options{ClientLimits: ClientLimits{MaxLive: 2}})
	run, stop := context.WithCancel(context.Background())
	if err := srv.Start(run); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stop()
		srv.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	returned := make(chan string, 16)
	// freed has each live request's path once the collector has freed it.
	freed := make(chan string, 16)
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if strings.HasSuffix(path, "/live") {
			runtime.AddCleanup(r, func(p string) { freed <- p }, path)
		}
		srv.ServeHTTP(w, r)
		if strings.HasSuffix(path, "/live") {
			returned <- path
		}
	}))
	defer func() {
		web.CloseClientConnections()
		web.Close()
	}()
	wsURL := "ws" + strings.TrimPrefix(web.URL, "http")
	// dial opens a live connection at path and reads its first message;
	// its handler has returned by then, or soon after.
	dial := func(path, query string) *websocket.Conn {
		t.Helper()
		ws, _, err := websocket.Dial(ctx, wsURL+path+query, nil)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		if _, _, err := ws.Read(ctx); err != nil {
			t.Fatalf("%s: the first message: %v", path, err)
		}
		select {
		case got := <-returned:
			if got != path {
				t.Fatalf("the handler of %s returned, waiting for %s's", got, path)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: the upgraded request's handler has not returned", path)
		}
		return ws
	}
	send := func(ws *websocket.Conn, msg string) {
		t.Helper()
		if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	game, v := "/api/games/"+g.ID+"/live", "?v="+strconv.Itoa(api.LiveProtocol)
	mover, other := tokens[rules.South], tokens[rules.North]
	if g.ToMove == "n" {
		mover, other = other, mover
	}
	own := dial(game, v)
	watcher := dial(game, v)
	// Both requests are freed while their connections are open.
	deadline := time.Now().Add(5 * time.Second)
	for n := 0; n < 2; {
		runtime.GC()
		select {
		case got := <-freed:
			if got != game {
				t.Fatalf("the request of %s was freed, waiting for %s's", got, game)
			}
			n++
		case <-time.After(50 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatalf("%s: the upgraded request is still kept", game)
			}
		}
	}
	// The instance's two connections are held: a third is refused.
	if _, resp, err := websocket.Dial(ctx, wsURL+game+v, nil); err == nil || resp == nil ||
		resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("a third live connection on an instance holding two at most: %v %+v", err, resp)
	}
	<-returned // the refusal's handler
	send(watcher, `{"type": "hello", "token": "`+other+`"}`)
	send(own, `{"type": "hello", "token": "`+mover+`"}`)
	send(own, `{"type": "move", "move": "`+g.LegalMoves[0]+`", "ply": 0}`)
	for told := false; !told; {
		_, data, err := watcher.Read(ctx)
		if err != nil {
			t.Fatalf("the other seat's connection, waiting for the move: %v", err)
		}
		var m struct {
			Type string `json:"type"`
			Move string `json:"move"`
		}
		told = json.Unmarshal(data, &m) == nil && m.Type == "move" && m.Move == g.LegalMoves[0]
	}
	// A connection that ends gives its place back: the lobby's is taken.
	own.Close(websocket.StatusNormalClosure, "")
	watcher.Close(websocket.StatusNormalClosure, "")
	var lobby *websocket.Conn
	for lobby == nil {
		ws, resp, err := websocket.Dial(ctx, wsURL+"/api/lobby/live", nil)
		switch {
		case err == nil:
			lobby = ws
			t.Cleanup(func() { ws.CloseNow() })
		case resp != nil && resp.StatusCode == http.StatusServiceUnavailable && ctx.Err() == nil:
			<-returned
			time.Sleep(10 * time.Millisecond)
		default:
			t.Fatalf("a live connection after two ended: %v %+v", err, resp)
		}
	}
	if _, _, err := lobby.Read(ctx); err != nil {
		t.Fatalf("the lobby's first message: %v", err)
	}
	select {
	case got := <-returned:
		if got != "/api/lobby/live" {
			t.Fatalf("the handler of %s returned, waiting for the lobby's", got)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the lobby's upgraded request's handler has not returned")
	}
	send(lobby, `{"type": "ping"}`)
	send(lobby, `{"type": "pong"}`) // not a lobby's message: answered with an error
	for {
		_, data, err := lobby.Read(ctx)
		if err != nil {
			t.Fatalf("the lobby's connection after its handler returned: %v, want an error message", err)
		}
		if strings.Contains(string(data), `"type":"error"`) {
			break
		}
	}
}

// TestLivePanicEndsItsConnectionAlone: a live connection's life that
// panics (a defect) is logged, gives its place among the instance's live
// connections back, and leaves the process serving, as the HTTP server
// does for a handler that panics.
func TestLivePanicEndsItsConnectionAlone(t *testing.T) {
	ts := newTestServer(t)
	var logged lockedBuffer
	srv := NewWithOptions(ts.st, slog.New(slog.NewTextHandler(&logged, nil)),
		Options{ClientLimits: ClientLimits{MaxLive: 1}})
	h := srv.liveLimited(func(w http.ResponseWriter, r *http.Request) func() {
		return func() { panic("a defect") }
	})
	deadline := time.Now().Add(5 * time.Second)
	for served := 0; served < 3; {
		rec := httptest.NewRecorder()
		h(rec, httptest.NewRequest("GET", "/api/games/x/live", nil))
		switch {
		case rec.Code == http.StatusOK:
			served++
		case rec.Code == http.StatusServiceUnavailable && time.Now().Before(deadline):
			time.Sleep(5 * time.Millisecond) // the place is given back as the panic ends
		default:
			t.Fatalf("after %d connections that panicked: %d %s", served, rec.Code, rec.Body)
		}
	}
	for !strings.Contains(logged.String(), "a defect") {
		if time.Now().After(deadline) {
			t.Fatalf("the panic is not logged: %q", logged.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	if !strings.Contains(logged.String(), "a live connection failed") || !strings.Contains(logged.String(), "/api/games/x/live") {
		t.Errorf("the log of a panic: %q", logged.String())
	}
}
