package server

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/rules"
)

// holdingProxy forwards TCP connections to a server; while held, what
// the client sends (a pong, say) is kept back, not what the server sends.
type holdingProxy struct {
	ln   net.Listener
	mu   sync.Mutex
	held bool
	cond *sync.Cond
}

func newHoldingProxy(t *testing.T, target string) *holdingProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &holdingProxy{ln: ln}
	p.cond = sync.NewCond(&p.mu)
	t.Cleanup(func() { ln.Close(); p.hold(false) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				return
			}
			t.Cleanup(func() { c.Close(); s.Close() })
			go io.Copy(c, s)
			go func() {
				buf := make([]byte, 4096)
				for {
					n, err := c.Read(buf)
					p.mu.Lock()
					for p.held {
						p.cond.Wait()
					}
					p.mu.Unlock()
					if n > 0 {
						if _, werr := s.Write(buf[:n]); werr != nil {
							return
						}
					}
					if err != nil {
						return
					}
				}
			}()
		}
	}()
	return p
}

func (p *holdingProxy) hold(on bool) {
	p.mu.Lock()
	p.held = on
	p.mu.Unlock()
	p.cond.Broadcast()
}

// liveWriterServer serves one WebSocket whose messages come from send,
// written by writeLiveEvery with the given ping times; ended is closed
// when it returns.
func liveWriterServer(t *testing.T, send chan []byte, every, wait time.Duration) (url string, ended chan struct{}) {
	ended = make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ws, err := websocket.Accept(w, r, nil)
		if err != nil {
			return
		}
		defer ws.CloseNow()
		ctx, cancel := context.WithCancel(context.Background())
		ctx = ws.CloseRead(ctx) // reads the pongs
		var why endCause
		writeLiveEvery(ctx, cancel, ws, send, make(chan struct{}), &why, every, wait)
		close(ended)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, ended
}

// dialThroughProxy dials the WebSocket server at url through a holding
// proxy; the context ends with the test.
func dialThroughProxy(t *testing.T, url string) (context.Context, *holdingProxy, *websocket.Conn) {
	proxy := newHoldingProxy(t, strings.TrimPrefix(url, "http://"))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	ws, _, err := websocket.Dial(ctx, "ws://"+proxy.ln.Addr().String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.CloseNow() })
	return ctx, proxy, ws
}

// TestLiveWriteNotHeldByPing: a message goes out while a ping waits for
// its pong, not after it (a move held back for a client's round trip).
func TestLiveWriteNotHeldByPing(t *testing.T) {
	send := make(chan []byte, 1)
	url, ended := liveWriterServer(t, send, 10*time.Millisecond, 10*time.Second)
	ctx, proxy, ws := dialThroughProxy(t, url)
	proxy.hold(true) // the pongs from here on are kept back
	got := make(chan string, 1)
	go func() {
		_, msg, err := ws.Read(ctx)
		if err == nil {
			got <- string(msg)
		}
	}()
	time.Sleep(100 * time.Millisecond) // a ping goes out and waits
	send <- []byte("a move")
	select {
	case msg := <-got:
		if msg != "a move" {
			t.Fatalf("read %q", msg)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("the message waited for the ping's pong")
	case <-ended:
		t.Fatal("the writer ended")
	}
	proxy.hold(false)
}

// TestLiveWriteUnansweredPing: a ping whose pong does not come in time
// ends the writer.
func TestLiveWriteUnansweredPing(t *testing.T) {
	url, ended := liveWriterServer(t, make(chan []byte), 10*time.Millisecond, 200*time.Millisecond)
	ctx, proxy, ws := dialThroughProxy(t, url)
	go ws.Read(ctx) // answers pings, which the proxy keeps back
	select {
	case <-ended:
		t.Fatal("the writer ended while the pongs came")
	case <-time.After(300 * time.Millisecond):
	}
	proxy.hold(true)
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the writer went on with its pings unanswered")
	}
	proxy.hold(false)
}

// TestLiveWriteSlowClient: a client that stops reading ends its
// connection once a write has waited the time allowed.
func TestLiveWriteSlowClient(t *testing.T) {
	send := make(chan []byte)
	url, ended := liveWriterServer(t, send, time.Hour, 200*time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	// Never read: the socket's buffers fill, and a write waits.
	msg := []byte(strings.Repeat("x", 64<<10))
	for sent := 0; ; sent++ {
		select {
		case send <- msg:
		case <-ended:
			if sent < 2 {
				t.Fatalf("the writer ended after %d messages, before the buffers could fill", sent)
			}
			return
		case <-ctx.Done():
			t.Fatalf("the writer still waits after %d messages of 64 KiB to a client that reads none", sent)
		}
	}
}

// TestLiveReadHostile: a live connection read into its one buffer still
// answers a malformed message with an error and reads on, refuses the
// other seat's move and a move out of turn or replayed, and is closed for
// a message over the limit or a flood of messages.
func TestLiveReadHostile(t *testing.T) {
	ts := newTestServer(t)
	web := httptest.NewServer(ts.srv)
	defer web.Close()
	g, tokens := ts.onlinePair(`{"online": true, "holes": 8, "seeds": 4}`)
	url := "ws" + strings.TrimPrefix(web.URL, "http") + "/api/games/" + g.ID + "/live?v=" + strconv.Itoa(api.LiveProtocol)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	dial := func() *websocket.Conn {
		ws, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.CloseNow() })
		return ws
	}
	send := func(ws *websocket.Conn, msg string) {
		if err := ws.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
			t.Fatal(err)
		}
	}
	// errorOf reads up to the next error message, and returns its status.
	errorOf := func(ws *websocket.Conn) int {
		for {
			_, data, err := ws.Read(ctx)
			if err != nil {
				t.Fatalf("no error message: %v", err)
			}
			var m struct {
				Type   string `json:"type"`
				Status int    `json:"status"`
			}
			if json.Unmarshal(data, &m) == nil && m.Type == "error" {
				return m.Status
			}
		}
	}
	mover, other := tokens[rules.South], tokens[rules.North]
	if g.ToMove == "n" {
		mover, other = other, mover
	}
	ws := dial()
	send(ws, `{"type": "hello", "token": "`+other+`"}`)
	send(ws, `{"type": "move", "move": `) // cut short
	if st := errorOf(ws); st != http.StatusBadRequest {
		t.Errorf("a malformed message: status %d, want 400", st)
	}
	send(ws, `{"type": "move", "move": "`+g.LegalMoves[0]+`", "ply": 0}`)
	if st := errorOf(ws); st < 400 || st == http.StatusBadRequest {
		t.Errorf("the other seat's move: status %d, want a refusal", st)
	}
	own := dial()
	send(own, `{"type": "hello", "token": "`+mover+`"}`)
	send(own, `{"type": "move", "move": "`+g.LegalMoves[0]+`", "ply": 0}`)
	send(own, `{"type": "move", "move": "`+g.LegalMoves[0]+`", "ply": 0}`) // replayed
	if st := errorOf(own); st != http.StatusConflict {
		t.Errorf("a replayed move: status %d, want 409", st)
	}
	if got := ts.get(g.ID); len(got.Moves) != 1 {
		t.Fatalf("after one move, a refused one and a replayed one: %d moves", len(got.Moves))
	}
	closedWith := func(ws *websocket.Conn, want websocket.StatusCode, what string) {
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				if got := websocket.CloseStatus(err); got != want {
					t.Errorf("%s: closed with %v (%v), want %v", what, got, err, want)
				}
				return
			}
		}
	}
	big := dial()
	send(big, `{"type": "ping", "pad": "`+strings.Repeat("x", MaxLiveMessage)+`"}`)
	closedWith(big, websocket.StatusMessageTooBig, "a message over the limit")
	flood := dial()
	for range 3 * liveBurst {
		if flood.Write(ctx, websocket.MessageText, []byte(`{"type": "ping"}`)) != nil {
			break
		}
	}
	closedWith(flood, websocket.StatusPolicyViolation, "a flood")
}
