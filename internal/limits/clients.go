package limits

// Limits no single client can exhaust: its live connections, the games
// and invitations it creates.

import (
	"context"
	"net/netip"
	"sync"
	"time"

	"github.com/endodoi/endodoi/api"
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
	// (MaxLiveForFiles), so that a flood of connections never leaves the
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
	// the server's search slots, so that analyses never make a game wait.
	// Default 1.
	MoveSearches int
}

// WithDefaults returns c with its defaults for a server of searches
// search slots.
func (c ClientLimits) WithDefaults(searches int) ClientLimits {
	pos := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	pos(&c.LivePerClient, 100)
	pos(&c.MaxLive, MaxLiveForFiles(OpenFileLimit()))
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

// MaxLiveForFiles is the default MaxLive under an open-file limit of n
// (0 for unknown): every connection holds a descriptor, and the reserve
// keeps some for the listener, ordinary requests, the database and the
// endgame databases.
func MaxLiveForFiles(n uint64) int {
	if n == 0 || n > 1<<30 {
		return 1 << 20
	}
	reserve := min(max(64, n/8), 4096)
	if n <= reserve+16 {
		return 16
	}
	return int(n - reserve)
}

// Clients keeps what each client holds and has made.
type Clients struct {
	lim ClientLimits

	mu   sync.Mutex
	live map[netip.Prefix]int // live connections by client
	all  int                  // live connections of every client

	games, invites *Limiter

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

// NewClients returns the record of clients held to c, whose defaults
// are set (WithDefaults).
func NewClients(c ClientLimits) *Clients {
	return &Clients{lim: c, live: map[netip.Prefix]int{},
		games: NewLimiter(PerHour(c.GamesPerHour)), invites: NewLimiter(PerHour(c.InvitesPerHour)),
		open: map[netip.Prefix]*openInvites{}}
}

// Limits returns the limits the clients are held to.
func (l *Clients) Limits() ClientLimits { return l.lim }

// OpenLive counts a new live connection of client, or refuses it: over
// the client's share, 429; over the instance's, 503. The function
// returned ends the count.
func (l *Clients) OpenLive(client netip.Prefix) (func(), error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.all >= l.lim.MaxLive {
		return nil, &api.Error{Status: api.StatusServiceUnavailable, RetryAfter: 10,
			Msg: "the server holds as many live connections as it can; try again in a moment"}
	}
	if !Limited(client) {
		client = netip.Prefix{} // counted in all alone
	} else if l.live[client] >= l.lim.LivePerClient {
		return nil, TooMany(10*time.Second, "too many live connections from your address (at most %d at once); close some pages and try again", l.lim.LivePerClient)
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

// CreateGame takes one of the games client may create an hour, or
// refuses with a 429; RefundGame gives it back, for a creation refused
// all the same.
func (l *Clients) CreateGame(client netip.Prefix, now time.Time) error {
	if ok, wait := l.games.Allow(client, now); !ok {
		return TooMany(wait, "too many games created from your address (at most %d an hour); try again in %s",
			l.lim.GamesPerHour, WaitText(wait))
	}
	return nil
}

// RefundGame gives client back the game CreateGame took.
func (l *Clients) RefundGame(client netip.Prefix) { l.games.Refund(client) }

// Invite creates an online game for client with create, which returns
// its ID, within the client's invitations an hour and its invitations
// waiting for an opponent. waiting says whether a game the client made
// before still waits for one (here or on another instance).
func (l *Clients) Invite(ctx context.Context, client netip.Prefix, waiting func(ctx context.Context, id string) (bool, error),
	create func() (string, error)) error {
	l.openMu.Lock()
	oi := l.open[client]
	if oi == nil {
		if len(l.open) >= MaxClients {
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
		if err := oi.prune(ctx, waiting); err != nil {
			return err
		}
		if len(oi.ids) >= l.lim.OpenInvites {
			return TooMany(time.Minute, "%d of your online games are waiting for an opponent, the most one address may have; share their invitations, or abort some, before making more", len(oi.ids))
		}
	}
	if ok, wait := l.invites.Allow(client, time.Now()); !ok {
		return TooMany(wait, "too many online games created from your address (at most %d an hour); try again in %s", l.lim.InvitesPerHour, WaitText(wait))
	}
	id, err := create()
	if err == nil {
		oi.ids = append(oi.ids, id)
	}
	return err
}

// prune keeps, of oi's games, those still waiting for an opponent; the
// caller holds oi.mu.
func (oi *openInvites) prune(ctx context.Context, waiting func(ctx context.Context, id string) (bool, error)) error {
	keep := oi.ids[:0]
	for _, id := range oi.ids {
		ok, err := waiting(ctx, id)
		if err != nil {
			return err
		}
		if ok {
			keep = append(keep, id)
		}
	}
	clear(oi.ids[len(keep):])
	oi.ids = keep
	return nil
}
