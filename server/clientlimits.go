package server

// Limits no single client can exhaust: its live connections, the games and
// invitations it creates, and (searchshare.go) its share of the engine.
// A client is what clientOf says: an IP address, or an IPv6 /64.

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"sync"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// ClientLimits bound what one client may hold or make at once; the zero
// value of a field means its default. The defaults leave room for a club
// whose players all reach the site through one address.
type ClientLimits struct {
	// LivePerClient is how many live connections (WebSockets) a client
	// may hold at once on this instance. Default 100.
	LivePerClient int
	// MaxLive is how many live connections this instance holds at once,
	// all clients together. Default: the open-file limit less a reserve
	// (fileReserve), so that a flood of connections never leaves the
	// listener without a descriptor for ordinary requests.
	MaxLive int
	// GamesPerHour is how many games (on one device or online) a client
	// may create an hour, refilled steadily. Default 300.
	GamesPerHour int
	// InvitesPerHour is how many online games a client may create an
	// hour. Default 60.
	InvitesPerHour int
	// OpenInvites is how many of a client's online games may wait for an
	// opponent at once on this instance. Default 20.
	OpenInvites int
	// SearchShare is how many searches one client may run at once.
	// Default: half the search slots, at least one.
	SearchShare int
	// AnalysisTime is the engine time a client's analyses and hints may
	// take a minute, refilled steadily. Default 30 s for each search of
	// its share.
	AnalysisTime time.Duration
	// MoveSearches are search slots kept for the computer's moves, beside
	// Options.Searches, so that analyses never make a game wait. Default 1.
	MoveSearches int
}

func (c ClientLimits) withDefaults(searches int) ClientLimits {
	pos := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pos(&c.LivePerClient, 100)
	pos(&c.MaxLive, maxLiveForFiles(openFileLimit()))
	pos(&c.GamesPerHour, 300)
	pos(&c.InvitesPerHour, 60)
	pos(&c.OpenInvites, 20)
	pos(&c.SearchShare, max(1, searches/2))
	pos(&c.MoveSearches, 1)
	if c.AnalysisTime <= 0 {
		c.AnalysisTime = time.Duration(c.SearchShare) * 30 * time.Second
	}
	return c
}

// maxLiveForFiles is the default MaxLive under an open-file limit of n
// (0 for unknown): every connection holds a descriptor, and the reserve
// keeps some for the listener, ordinary requests, the database and the
// endgame databases.
func maxLiveForFiles(n uint64) int {
	if n == 0 || n > 1<<30 {
		return 1 << 20
	}
	reserve := min(max(64, n/8), 4096)
	if n <= reserve+16 {
		return 16
	}
	return int(n - reserve)
}

// limitedClient reports whether client is held to ClientLimits. Clients
// on this machine (loopback) are not: the operator's own tools, and a
// server for one person. Behind a proxy, the limits therefore need
// Options.TrustProxy, which names the clients the proxy serves.
func limitedClient(client netip.Prefix) bool { return !client.Addr().IsLoopback() }

// clientLimits keeps what each client holds and has made.
type clientLimits struct {
	lim ClientLimits

	mu   sync.Mutex
	live map[netip.Prefix]int // live connections by client
	all  int                  // live connections of every client

	games, invites *rateLimiter

	openMu sync.Mutex
	open   map[netip.Prefix]*openInvites
}

// openInvites are a client's online games that waited for an opponent
// when last looked at; mu serialises the client's creations, so that
// requests sent at once cannot all pass the count.
type openInvites struct {
	mu  sync.Mutex
	ids []string
}

func newClientLimits(c ClientLimits) *clientLimits {
	perHour := func(n int) Rate { return Rate{PerSecond: float64(n) / 3600, Burst: n} }
	return &clientLimits{lim: c, live: map[netip.Prefix]int{},
		games: newRateLimiter(perHour(c.GamesPerHour)), invites: newRateLimiter(perHour(c.InvitesPerHour)),
		open: map[netip.Prefix]*openInvites{}}
}

// tooMany is a 429 answer that says when to try again.
func tooMany(wait time.Duration, format string, args ...any) error {
	return &api.Error{Status: http.StatusTooManyRequests, RetryAfter: int(wait/time.Second) + 1, Msg: fmt.Sprintf(format, args...)}
}

// waitText says a wait in words: seconds, or minutes when long.
func waitText(d time.Duration) string {
	if d >= 90*time.Second {
		return fmt.Sprintf("%d minutes", int(d.Round(time.Minute)/time.Minute))
	}
	return fmt.Sprintf("%d seconds", int(d/time.Second)+1)
}

// openLive counts a new live connection of client, or refuses it: over
// the client's share, 429; over the instance's, 503. The function
// returned ends the count.
func (l *clientLimits) openLive(client netip.Prefix) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.all >= l.lim.MaxLive {
		return nil, &api.Error{Status: http.StatusServiceUnavailable, RetryAfter: 10,
			Msg: "the server holds as many live connections as it can; try again in a moment"}
	}
	if !limitedClient(client) {
		client = netip.Prefix{} // counted in all alone
	} else if l.live[client] >= l.lim.LivePerClient {
		return nil, tooMany(10*time.Second, "too many live connections from your address (at most %d at once); close some pages and try again", l.lim.LivePerClient)
	}
	if client.IsValid() {
		l.live[client]++
	}
	l.all++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.all--
			if client.IsValid() {
				if l.live[client]--; l.live[client] <= 0 {
					delete(l.live, client)
				}
			}
		})
	}, nil
}

// liveLimited wraps the live connection's handler with the limits on
// live connections: a refusal is an HTTP answer, before the upgrade, and
// the count lasts as long as the connection.
func (s *Server) liveLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := s.cutOff(); err != nil {
			s.fail(w, r, err)
			return
		}
		done, err := s.clients.openLive(clientOf(r, s.trustProxy))
		if err != nil {
			s.fail(w, r, err)
			return
		}
		defer done()
		h(w, r)
	}
}

// creationLimited wraps POST /api/games with the client's games an hour:
// a creation refused (a bad request, or one over the client's other
// limits) gives its game back.
func (s *Server) creationLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		client := clientOf(r, s.trustProxy)
		if !limitedClient(client) {
			h(w, r)
			return
		}
		if ok, wait := s.clients.games.allow(client, time.Now()); !ok {
			s.fail(w, r, tooMany(wait, "too many games created from your address (at most %d an hour); try again in %s",
				s.clients.lim.GamesPerHour, waitText(wait)))
			return
		}
		cw := &codeWriter{ResponseWriter: w}
		h(cw, r)
		if cw.status >= 400 {
			s.clients.games.refund(client)
		}
	}
}

// codeWriter records the status a handler answers with.
type codeWriter struct {
	http.ResponseWriter
	status int
}

func (w *codeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *codeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer beneath.
func (w *codeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// maxOpenClients bounds the clients whose open invitations are kept; past
// it, the record of one client is forgotten (its invitations stop counting).
const maxOpenClients = maxClients

// createInvite creates online game sg for the client of r, within its
// invitations an hour and its invitations waiting for an opponent, and
// returns it with its creator's seat token (play.Table.CreateOnline); a
// creator signed in holds the seat with their account too.
func (s *Server) createInvite(r *http.Request, sg *game.Game, creator rules.Side, clock game.Clock, series int) (g *play.Game, token string, err error) {
	defer func() {
		if err == nil {
			s.claimSeat(r, token)
		}
	}()
	l := s.clients
	client := clientOf(r, s.trustProxy)
	if !limitedClient(client) {
		return s.table.CreateOnline(r.Context(), sg, creator, clock, series)
	}
	l.openMu.Lock()
	oi := l.open[client]
	if oi == nil {
		if len(l.open) >= maxOpenClients {
			for c := range l.open {
				delete(l.open, c)
				break
			}
		}
		oi = &openInvites{}
		l.open[client] = oi
	}
	l.openMu.Unlock()
	oi.mu.Lock()
	defer oi.mu.Unlock()
	if len(oi.ids) >= l.lim.OpenInvites {
		// Look again: the invitations taken up or ended meanwhile, here
		// or on another instance, no longer count.
		if err := s.pruneInvites(r.Context(), oi); err != nil {
			return nil, "", err
		}
		if len(oi.ids) >= l.lim.OpenInvites {
			return nil, "", tooMany(time.Minute, "%d of your online games are waiting for an opponent, the most one address may have; share their invitations, or abort some, before making more", len(oi.ids))
		}
	}
	if ok, wait := l.invites.allow(client, time.Now()); !ok {
		return nil, "", tooMany(wait, "too many online games created from your address (at most %d an hour); try again in %s", l.lim.InvitesPerHour, waitText(wait))
	}
	g, token, err = s.table.CreateOnline(r.Context(), sg, creator, clock, series)
	if err == nil {
		oi.ids = append(oi.ids, g.ID())
	}
	return g, token, err
}

// pruneInvites keeps, of oi's games, those still waiting for an opponent;
// the caller holds oi.mu.
func (s *Server) pruneInvites(ctx context.Context, oi *openInvites) error {
	keep := oi.ids[:0]
	for _, id := range oi.ids {
		sg, err := s.store.Game(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if sg.Online == nil {
			continue
		}
		if _, free := play.FreeSeat(sg.Online); free && sg.Online.End == "" && sg.Result == "*" {
			keep = append(keep, id)
		}
	}
	clear(oi.ids[len(keep):])
	oi.ids = keep
	return nil
}

// lowFileLimit is an open-file limit worth a warning: a public site
// holds a file for each live connection.
const lowFileLimit = 4096

// raiseFileLimit raises the open-file limit before the server starts, so
// that its default MaxLive follows, and warns when it is still low.
func raiseFileLimit(log *slog.Logger) {
	n, err := RaiseFileLimit()
	switch {
	case err != nil:
		log.Warn("raising the open-file limit", "limit", n, "err", err)
	case n > 0 && n < lowFileLimit:
		log.Warn("the open-file limit is low; raise the hard limit (LimitNOFILE) for more live connections", "limit", n, "max_live", maxLiveForFiles(n))
	}
}
