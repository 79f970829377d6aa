package server

import (
	"context"
	"time"

	"github.com/coder/websocket"
)

// writeLive sends the messages of send and pings until ctx ends, closed
// is closed (the connection was dropped, for the reason why gives) or a
// write or a ping fails; then it closes the connection, which ends its
// reader (readLive), and cancels. A dropped connection is sent nothing
// more.
//
// A ping waits for its pong on a goroutine of its own, at most one at a
// time: a message (a move) is never held back for a round trip to the
// client.
func writeLive(ctx context.Context, cancel func(), ws *websocket.Conn, send <-chan []byte, closed <-chan struct{}, why *endCause) {
	writeLiveEvery(ctx, cancel, ws, send, closed, why, livePing, liveWrite)
}

// writeLiveEvery is writeLive with a ping every pingEvery, and the time a
// write, or a pong, may take.
func writeLiveEvery(ctx context.Context, cancel func(), ws *websocket.Conn, send <-chan []byte, closed <-chan struct{}, why *endCause, pingEvery, wait time.Duration) {
	defer cancel()
	defer ws.CloseNow() // after a close handshake, if one was begun
	ping := time.NewTicker(pingEvery)
	defer ping.Stop()
	pinging := make(chan struct{}, 1) // holds a token while a ping waits for its pong
	unanswered := make(chan struct{}) // closed when a ping fails
	// A write may take wait: one timer of the connection's, set for each
	// write, ends the connection when a write takes longer. The writes
	// themselves wait on no context: a context with a deadline for each
	// write allocated a context and a timer a message, and the library
	// allocates for any context that can end.
	slow := time.AfterFunc(time.Hour, func() {
		cancel()
		ws.CloseNow()
	})
	slow.Stop()
	defer slow.Stop()
	for {
		select {
		case <-closed:
			why.get().close(ws)
			return
		default:
		}
		select {
		case <-ctx.Done():
			endStopping.close(ws)
			return
		case <-closed:
			why.get().close(ws)
			return
		case <-unanswered:
			return
		case msg := <-send:
			slow.Reset(wait)
			err := ws.Write(context.Background(), websocket.MessageText, msg)
			if !slow.Stop() || err != nil {
				return // the write failed, or took too long
			}
		case <-ping.C:
			select {
			case pinging <- struct{}{}:
			default:
				continue // the last ping still waits
			}
			go func() {
				// ctx ends when writeLive returns: the ping with it.
				pctx, done := context.WithTimeout(ctx, wait)
				err := ws.Ping(pctx)
				done()
				if err != nil {
					close(unanswered) // and the token kept: no ping after
					return
				}
				<-pinging
			}()
		}
	}
}
