package server

// The server's metrics (package internal/metrics), as the server counts
// them: each API request labelled by the route it matched (the pattern,
// never the path, which holds game IDs and invite codes), its method
// among a few known ones and its status code; the moves, the searches'
// waits and the notices heard. Each server registers them in a registry
// of its own (Options.Metrics); package serve serves that registry on an
// address of its own, never on the site's.

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/endodoi/endodoi/internal/metrics"
	"github.com/endodoi/endodoi/play"
)

// meters are a server's metrics; a nil *meters counts nothing, for a
// server without them.
type meters struct{ *metrics.Metrics }

// newMeters registers the metrics of s in reg; nil without reg.
func newMeters(reg prometheus.Registerer, s *Server) *meters {
	src := metrics.Sources{Live: s.live.counts, Slots: s.analysis.Slots, Bus: s.bus}
	if m := metrics.New(reg, s.store, src, s.log); m != nil {
		return &meters{m}
	}
	return nil
}

// instrument counts the requests next answers, and times them.
func (m *meters) instrument(next http.Handler) http.Handler {
	if m == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, m: m, r: r}
		next.ServeHTTP(sw, r)
		if sw.code == http.StatusSwitchingProtocols {
			return // counted as it was upgraded
		}
		code := sw.code
		if code == 0 {
			code = http.StatusOK
		}
		// The router has set r.Pattern on this very request.
		m.Request(routeOf(r), methodOf(r.Method), code, time.Since(start))
	})
}

// routeOf is the route a request matched: its pattern without the
// method, or "unmatched" for the requests the router or the guard refused.
func routeOf(r *http.Request) string {
	p := r.Pattern
	if p == "" {
		return "unmatched"
	}
	if _, path, ok := strings.Cut(p, " "); ok {
		return path
	}
	return p
}

// methodOf is a request's method as a label: a client may send any.
func methodOf(m string) string {
	switch m {
	case http.MethodGet, http.MethodPost, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodOptions,
		http.MethodPatch:
		return m
	}
	return "other"
}

// statusWriter notes the status code of an answer. With metrics m, a
// live connection is counted as it is upgraded, not when it ends,
// perhaps hours later.
type statusWriter struct {
	http.ResponseWriter
	code int
	m    *meters
	r    *http.Request
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 || w.code != http.StatusSwitchingProtocols && w.code < 200 {
		w.code = code
		if code == http.StatusSwitchingProtocols && w.m != nil {
			w.m.Upgraded(routeOf(w.r), methodOf(w.r.Method))
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController and the WebSocket upgrade reach the
// connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// observeChange is the table's OnChange: it counts the moves, then tells
// the live clients (changed).
func (s *Server) observeChange(ctx context.Context, g *play.Game, c play.Change) {
	s.metrics.changed(g, c)
	s.changed(ctx, g, c)
}

// changed counts change c of game g if it is a move.
func (m *meters) changed(g *play.Game, c play.Change) {
	if m != nil {
		m.Changed(g, c)
	}
}

// noticeSent is the time a notice is sent, as it carries it: Unix
// microseconds.
func noticeSent() int64 { return time.Now().UnixMicro() }

// noticeHeard observes the lag of a notice sent at sent (noticeSent),
// handled at now.
func (m *meters) noticeHeard(sent int64, now time.Time) {
	if m != nil {
		m.NoticeHeard(sent, now)
	}
}

// counts counts the live connections by role, and the games they watch.
func (h *liveHub) counts() (players, spectators, pending, games int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, r := range h.rooms {
		players += r.seats[0] + r.seats[1]
		pending += r.fresh
		spectators += len(r.conns) - r.seats[0] - r.seats[1] - r.fresh
	}
	return players, spectators, pending, len(h.rooms)
}
