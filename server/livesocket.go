package server

import (
	"bytes"
	"context"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// What a game's and the lobby's live connections share: the upgrade, the
// writer of a connection's queue with its pings, and the rate-limited
// reader.

// acceptLive upgrades r to a WebSocket with the live limits. Its context
// ends with the server; the caller cancels it when the connection ends.
// An error means Accept has answered.
func (s *Server) acceptLive(w http.ResponseWriter, r *http.Request) (*websocket.Conn, context.Context, context.CancelFunc, error) {
	// The HTTP server's deadlines would cut the connection short: it lives
	// as long as the client stays, watched by pings instead.
	rc := http.NewResponseController(w)
	rc.SetReadDeadline(time.Time{})
	rc.SetWriteDeadline(time.Time{})
	// The guard has checked Origin already; the library checks it again.
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{CompressionMode: websocket.CompressionDisabled})
	if err != nil {
		return nil, nil, nil, err
	}
	ws.SetReadLimit(MaxLiveMessage)
	ctx, cancel := context.WithCancel(s.ctx)
	return ws, ctx, cancel, nil
}

// ending is why the server closes a live connection, which its close
// frame tells the page.
type ending int32

const (
	endSlow       ending = iota // too slow to keep up: it reconnects and resyncs
	endStopping                 // the server is stopping: reconnect, to another instance
	endSignedOut                // its session ended, or its account can act no more
	endUnchecked                // its sign-in could not be checked: reconnect
	endNoDatabase               // the server cannot reach its database: reconnect, to another
	endDeaf                     // the server cannot hear the others: reconnect, to another
)

// StatusSignedOut is the close status of a live connection whose session
// ended (signed out, here or everywhere) or whose account was disabled or
// deleted: the page may reconnect, as nobody in particular.
const StatusSignedOut websocket.StatusCode = 4401

// close closes ws as e says.
func (e ending) close(ws *websocket.Conn) {
	switch e {
	case endStopping:
		ws.Close(websocket.StatusGoingAway, "the server is stopping")
	case endSignedOut:
		ws.Close(StatusSignedOut, "signed out: the session ended, or the account was disabled or deleted")
	case endNoDatabase:
		ws.Close(websocket.StatusGoingAway, "this server cannot reach its database: reconnect, to another server")
	case endDeaf:
		ws.Close(websocket.StatusGoingAway, "this server cannot hear the other servers: reconnect, to another server")
	case endUnchecked:
		ws.Close(websocket.StatusTryAgainLater, "the sign-in could not be checked: reconnect")
	default:
		ws.Close(websocket.StatusTryAgainLater, "too slow to keep up: reconnect")
	}
}

// endCause keeps why a connection is dropped: the first reason given.
type endCause struct{ v atomic.Int32 }

// set records e unless a reason was given before.
func (c *endCause) set(e ending) { c.v.CompareAndSwap(0, int32(e)+1) }

// get returns the reason given, endSlow if none was.
func (c *endCause) get() ending {
	if v := c.v.Load(); v > 0 {
		return ending(v - 1)
	}
	return endSlow
}

// readLive hands each message the client sends to handle, until the
// connection ends or the client sends faster than the live rate (then it
// closes the connection). The message handed is read into one buffer of
// the connection's, kept for the next: handle must not keep it.
//
// The reads wait on the connection alone, not on a context: a context
// that can end costs the library a context.AfterFunc a read. When the
// connection's context ends, its writer (writeLive) closes it, which ends
// the read.
func readLive(ws *websocket.Conn, handle func(data []byte)) {
	// The library closes a connection whose message is over the read limit.
	rate := Rate{liveRate, liveBurst}
	budget := &bucket{tokens: liveBurst, last: time.Now()}
	var buf bytes.Buffer
	for {
		_, r, err := ws.Reader(context.Background())
		if err != nil {
			return
		}
		buf.Reset()
		if _, err := buf.ReadFrom(r); err != nil {
			return
		}
		if ok, _ := budget.take(rate, time.Now()); !ok {
			ws.Close(websocket.StatusPolicyViolation, "too many messages")
			return
		}
		handle(buf.Bytes())
		if buf.Cap() > keptReadBuffer {
			buf = bytes.Buffer{} // a rare long message: not kept for the rest
		}
	}
}

// keptReadBuffer bounds the buffer a live connection keeps between
// messages: a move or an action takes a few dozen bytes.
const keptReadBuffer = 1 << 10
