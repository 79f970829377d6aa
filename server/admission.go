package server

import (
	"context"
	"net/http"

	"github.com/endodoi/endodoi/internal/limits"
)

// setupGate bounds the setups of players at work at once (limits.Gate):
// creating a game, joining it, opening a live connection and saying hello
// on it. The zero value is ready to use.
type setupGate struct{ limits.Gate }

// enter waits for a free slot; it returns the function that frees it.
func (g *setupGate) enter(ctx context.Context) (leave func(), err error) { return g.Enter(ctx) }

// setupLimited passes h's requests through the server's setup gate.
func (s *Server) setupLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		leave, err := s.setups.enter(r.Context())
		if err != nil {
			return // the client has gone
		}
		defer leave()
		h(w, r)
	}
}
