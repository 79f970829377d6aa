package server

// GoAway closes every live connection with "going away": the pages
// reconnect, to another instance behind a load balancer. A server that
// stops calls it once it accepts no more connections.
func (s *Server) GoAway() { s.live.goAway() }

// LiveConnections counts the live connections of games open.
func (s *Server) LiveConnections() int { return s.live.connections() }

// goAway closes every live connection with "going away": the pages
// reconnect, to another instance behind a load balancer.
func (h *liveHub) goAway() { h.dropAll(endStopping) }

// dropAll closes every live connection of a game, saying e.
func (h *liveHub) dropAll(e ending) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.rooms {
		for c := range r.conns {
			c.end.set(e)
			c.drop()
		}
	}
}

// connections counts the live connections open.
func (h *liveHub) connections() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := 0
	for _, r := range h.rooms {
		n += len(r.conns)
	}
	return n
}
