package server

import (
	"context"
	"net/http"
	"time"

	"github.com/coder/websocket"
)

// What a game's and the lobby's live connections share: the upgrade, the
// writer of a connection's queue with its pings, and the rate-limited
// reader.

// acceptLive upgrades r to a WebSocket with the live limits. Its context
// ends with the server or the request; the caller cancels it when done. An
// error means Accept has answered.
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
	go func() { // the request's context ends with the connection
		select {
		case <-r.Context().Done():
		case <-ctx.Done():
		}
		cancel()
	}()
	return ws, ctx, cancel, nil
}

// writeLive sends the messages of send and pings until ctx ends, closed
// is closed (the connection was dropped, for being too slow unless away
// says the server is stopping) or a write fails; then it cancels.
func writeLive(ctx context.Context, cancel func(), ws *websocket.Conn, send <-chan []byte, closed <-chan struct{}, away func() bool) {
	defer cancel()
	ping := time.NewTicker(livePing)
	defer ping.Stop()
	for {
		select {
		case <-ctx.Done():
			ws.Close(websocket.StatusGoingAway, "the server is stopping")
			return
		case <-closed:
			if away != nil && away() {
				ws.Close(websocket.StatusGoingAway, "the server is stopping")
			} else {
				ws.Close(websocket.StatusTryAgainLater, "too slow to keep up: reconnect")
			}
			return
		case msg := <-send:
			wctx, done := context.WithTimeout(ctx, liveWrite)
			err := ws.Write(wctx, websocket.MessageText, msg)
			done()
			if err != nil {
				return
			}
		case <-ping.C:
			pctx, done := context.WithTimeout(ctx, liveWrite)
			err := ws.Ping(pctx)
			done()
			if err != nil {
				return
			}
		}
	}
}

// readLive hands each message the client sends to handle, until the
// connection ends or the client sends faster than the live rate (then it
// closes the connection).
func readLive(ctx context.Context, ws *websocket.Conn, handle func(data []byte)) {
	// The library closes a connection whose message is over the read limit.
	rate := Rate{liveRate, liveBurst}
	budget := &bucket{tokens: liveBurst, last: time.Now()}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return
		}
		if ok, _ := budget.take(rate, time.Now()); !ok {
			ws.Close(websocket.StatusPolicyViolation, "too many messages")
			return
		}
		handle(data)
	}
}
