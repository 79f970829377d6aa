package server

import (
	"context"
	"time"

	"github.com/coder/websocket"
)

// writeLive sends the messages of send and pings until ctx ends, closed
// is closed (the connection was dropped, for the reason why gives) or a
// write fails; then it cancels. A dropped connection is sent nothing
// more.
func writeLive(ctx context.Context, cancel func(), ws *websocket.Conn, send <-chan []byte, closed <-chan struct{}, why *endCause) {
	defer cancel()
	ping := time.NewTicker(livePing)
	defer ping.Stop()
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
