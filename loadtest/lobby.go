package loadtest

import (
	"context"
	crand "crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
)

// Lobby mode (docs/api.md, "Lobby"): each client is a signed-in player
// on a device of its own. Before the clock starts, every client signs up
// (or signs in to the account of the same name that an earlier run with
// the same Names made). Then, for Duration, each client opens a lobby
// connection, joins a pool and waits for its pairing; it plays the game
// it was paired into over the game's WebSocket with its session (no seat
// token), a random legal move on each of its turns, until the game ends,
// and joins the pool again. When Duration ends no one joins any more: the
// games under way are played out, and the players still waiting paired,
// for at most PlayOut; the games still being played then are cut off and
// counted, not failed. The run measures the pairing delay (join →
// paired) and the time a move takes to reach the opponent; with Check it
// verifies afterwards that no client was paired into a game it did not
// wait for, that every move a client saw is stored and every stored move
// was sent by a client at its ply, and that each rated game changed both
// players' ratings exactly once.
//
// A share of the games (LobbyConfig.Races) end in a race: at a chosen ply
// the side to move sends its move while its opponent resigns, at once.
// With several servers, each client plays through its own one and moves to
// the next when that one stops answering.

// Limits and defaults of a lobby run.
const (
	MaxLobbyClients     = 5000
	DefaultPool         = "8-3+2"
	DefaultLobbyRate    = 1.0
	DefaultSignupAtOnce = 2
	MaxSignupAtOnce     = 64
	// DefaultPlayOut is how long the games under way at the end of the
	// duration may take to end: at a move a second a player, an 8-hole
	// game takes under a minute, and rarely over three.
	DefaultPlayOut = 5 * time.Minute
	// lobbyPassword is the password of the run's accounts: they are made
	// for load tests and are of no use elsewhere.
	lobbyPassword = "loadtest-lobby-player"
	// silenceLimit is how long a game connection may bring nothing before
	// the client takes it for dead and opens another.
	silenceLimit = 45 * time.Second
	// maxRefusals is how many of its moves in a row a client lets the
	// server refuse before it reopens the connection to resync.
	maxRefusals = 3
	// aloneCheck is how often, once the duration is over, a client
	// waiting in the pool looks whether anyone else still waits.
	aloneCheck = 250 * time.Millisecond
)

// LobbyConfig is a lobby load test.
type LobbyConfig struct {
	// Servers are the instances, sharing one database: client i signs up
	// and plays through Servers[i % len], and fails over to the next.
	Servers []string
	Clients int     // players, 2 to MaxLobbyClients
	Pool    string  // the pool they all join; DefaultPool if empty
	Rated   bool    // join the pool rated
	Rate    float64 // a player moves 1/Rate seconds after its turn comes; DefaultLobbyRate if 0
	// Duration is how long the clients join the pool and play, again
	// after each game; it starts once every client is signed in.
	Duration time.Duration
	// PlayOut is how long, after Duration, the games under way may take
	// to end (DefaultPlayOut if 0); those still being played then are cut
	// off, and counted.
	PlayOut time.Duration
	Ramp    time.Duration // the first joins are spread over this time (less than Duration)
	Races   float64       // share of the games whose end is raced (0 to 1)
	Check   bool          // afterwards check the pairings, the moves and the ratings
	Timeout time.Duration // of one request or dial; DefaultTimeout if 0
	Seed    uint64        // of the moves and the races
	// Names is the prefix of the accounts' names (up to 8 letters or
	// digits); a random one if empty, so that runs do not collide. The
	// accounts an earlier run made with the same prefix are signed in
	// to instead of being made again.
	Names string
	// SignupAtOnce is how many sign-ups are sent at once
	// (DefaultSignupAtOnce if 0): each hashes a password on the server.
	SignupAtOnce int

	Progress         io.Writer
	ProgressInterval time.Duration
}

// Validate returns the error of the first value of cfg out of its bounds,
// named by the option of endodoi loadtest that sets it.
func (cfg LobbyConfig) Validate() error {
	switch {
	case len(cfg.Servers) == 0:
		return errors.New("--server: no server")
	case len(cfg.Servers) > 16:
		return fmt.Errorf("--server: %d servers, at most 16", len(cfg.Servers))
	case cfg.Clients < 2 || cfg.Clients > MaxLobbyClients:
		return fmt.Errorf("--clients %d out of range (2 to %d)", cfg.Clients, MaxLobbyClients)
	case !validPoolID(cfg.Pool):
		return fmt.Errorf("--pool %q: want a pool's id such as %s", cfg.Pool, DefaultPool)
	case !(cfg.Rate > 0 && cfg.Rate <= MaxOnlineRate):
		return fmt.Errorf("--rate %g out of range with --lobby (above 0, up to %d)", cfg.Rate, MaxOnlineRate)
	case cfg.Duration <= 0 || cfg.Duration > MaxDuration:
		return fmt.Errorf("--duration %v out of range (above 0, up to %v)", cfg.Duration, MaxDuration)
	case cfg.PlayOut <= 0 || cfg.PlayOut > MaxDuration:
		return fmt.Errorf("--play-out %v out of range (above 0, up to %v)", cfg.PlayOut, MaxDuration)
	case cfg.Ramp < 0 || cfg.Ramp > 0 && cfg.Ramp >= cfg.Duration:
		return fmt.Errorf("--ramp %v out of range (0 up to less than --duration %v)", cfg.Ramp, cfg.Duration)
	case !(cfg.Races >= 0 && cfg.Races <= 1):
		return fmt.Errorf("--races %g out of range (0 to 1)", cfg.Races)
	case cfg.Timeout <= 0:
		return fmt.Errorf("--timeout %v: want a positive duration", cfg.Timeout)
	case !validNamePrefix(cfg.Names):
		return fmt.Errorf("--names %q: want up to 8 letters or digits", cfg.Names)
	case cfg.SignupAtOnce < 1 || cfg.SignupAtOnce > MaxSignupAtOnce:
		return fmt.Errorf("--signups-at-once %d out of range (1 to %d)", cfg.SignupAtOnce, MaxSignupAtOnce)
	}
	return nil
}

func validPoolID(id string) bool {
	if id == "" || len(id) > 16 {
		return false
	}
	for _, c := range id {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

func validNamePrefix(p string) bool {
	if len(p) > 8 {
		return false
	}
	for _, c := range p {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func (cfg LobbyConfig) withDefaults() (LobbyConfig, error) {
	if cfg.Pool == "" {
		cfg.Pool = DefaultPool
	}
	if cfg.Rate == 0 {
		cfg.Rate = DefaultLobbyRate
	}
	if cfg.PlayOut == 0 {
		cfg.PlayOut = DefaultPlayOut
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.SignupAtOnce == 0 {
		cfg.SignupAtOnce = DefaultSignupAtOnce
	}
	if cfg.ProgressInterval <= 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.Names == "" {
		var b [5]byte
		crand.Read(b[:])
		cfg.Names = "lt" + strings.ToLower(base32.StdEncoding.EncodeToString(b[:]))[:6]
	}
	return cfg, cfg.Validate()
}

// lobbyRunner is the state the clients of a lobby run share.
type lobbyRunner struct {
	cfg      LobbyConfig
	servers  []string
	clients  []*client // by server
	category string    // the pool's, read before the clock starts
	// over is closed when the duration ends: from then on no client
	// joins the pool again.
	over chan struct{}
	// waiting counts the clients waiting for a pairing (lobbyPlayer.waiting).
	waiting atomic.Int64

	mu    sync.Mutex
	games map[string]*sharedGame
	made  int // games made: the raced ones are spread evenly over them
	st    lstats
}

// lstats are the counts and samples of a lobby run, under lobbyRunner.mu.
type lstats struct {
	signedUp, signedIn            int
	joined, paired, pairedTwice   int
	listed, left                  int
	finished, gamesEnded, raced   int
	moves, refused, reconnects    int64
	syncs                         int64 // games asked for again after a gap
	pairDelay, moveLat, signupLat []time.Duration
	errors, disconnects           map[string]int
	firstErr, firstDisc           map[string]string
}

func (r *lobbyRunner) add(f func(*lstats)) {
	r.mu.Lock()
	f(&r.st)
	r.mu.Unlock()
}

func (r *lobbyRunner) error(kind, msg string) {
	r.add(func(s *lstats) {
		s.errors[kind]++
		if _, ok := s.firstErr[kind]; !ok {
			s.firstErr[kind] = fmt.Sprintf("%.300s", msg)
		}
	})
}

// disconnect counts a dropped connection or a failed dial: the client
// reconnects, so it fails the run only if the game is then not finished.
func (r *lobbyRunner) disconnect(kind, msg string) {
	r.add(func(s *lstats) {
		s.disconnects[kind]++
		if _, ok := s.firstDisc[kind]; !ok {
			s.firstDisc[kind] = fmt.Sprintf("%.300s", msg)
		}
	})
}

// durationOver reports whether the duration has ended.
func (r *lobbyRunner) durationOver() bool {
	select {
	case <-r.over:
		return true
	default:
		return false
	}
}

// sharedGame is a paired game as its two clients share it: to measure
// the moves' delivery, to race its end, and to check its moves.
type sharedGame struct {
	id     string
	raceAt int         // the ply from which the end is raced; -1 for none
	race   [2]chan int // by side (sideIndex): the mover tells its opponent the ply it moves at, to resign at it

	mu   sync.Mutex
	sent map[int][]sentMove // by ply: every move a client sent there
	// seen is the longest list of moves a client saw in a game message;
	// every message's moves must be a prefix of it, or it of theirs.
	seen []string
	// replaced counts the moves seen that a later message had changed:
	// lost, as a move the server took and then forgot is.
	replaced      int
	firstReplaced string
	players       []pairing // the clients paired into it
	ended         int       // its clients that saw it end
}

type sentMove struct {
	side, move string
	at         time.Time
}

// pairing is a client's pairing into a game.
type pairing struct {
	client int
	side   string
}

// observe takes the moves of a game message a client received.
func (g *sharedGame) observe(moves []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	same := 0
	for same < len(moves) && same < len(g.seen) && moves[same] == g.seen[same] {
		same++
	}
	switch {
	case same < len(moves) && same < len(g.seen):
		// A move seen before is not there any more: the server replaced it.
		g.replaced += len(g.seen) - same
		if g.firstReplaced == "" {
			g.firstReplaced = fmt.Sprintf("game %s: move %s at ply %d was seen, then %s there", g.id, g.seen[same], same, moves[same])
		}
		g.seen = append([]string(nil), moves...)
	case len(moves) > len(g.seen):
		g.seen = append(g.seen, moves[len(g.seen):]...)
	}
}

// lobbyPlayer is one client.
type lobbyPlayer struct {
	r      *lobbyRunner
	idx    int
	name   string
	cookie string
	// before is the set of games in the account's rating history before
	// the run: an account of an earlier run has played some. Nil for a
	// new account.
	before map[string]bool
	rng    *rand.Rand

	mu       sync.Mutex
	server   int // the server it talks to now
	lobby    *websocket.Conn
	dropped  chan struct{} // closed when the lobby connection drops
	paired   chan pairMsg  // the pairings it accepted, for run
	waiting  bool          // it joined the pool and waits for its pairing
	joinedAt time.Time     // of the join it waits on
	games    []playerGame  // the games it was paired into, in order
	listed   map[string]bool
	results  map[string]string // by game: the status it saw the game end with
}

type pairMsg struct {
	game, side string
	at         time.Time
	listed     bool // found by listing the account's games, not told
}

// playerGame is a game a client was paired into, and its side.
type playerGame struct {
	id, side string
}

// lobbyGame is the part of a game the lobby clients read.
type lobbyGame struct {
	ID           string                `json:"id"`
	Moves        []string              `json:"moves"`
	LegalMoves   []string              `json:"legalMoves"`
	ToMove       string                `json:"toMove"`
	Status       string                `json:"status"`
	End          string                `json:"end"`
	Rated        bool                  `json:"rated"`
	RatingChange map[string]ratingDiff `json:"rating_change"`
	Updated      time.Time             `json:"updated"`
	Online       *struct {
		Rev int64 `json:"rev"`
	} `json:"online"`
}

// Rev is the online game's revision.
func (g *lobbyGame) Rev() int64 {
	if g.Online == nil {
		return 0
	}
	return g.Online.Rev
}

// gameMsg is a message of a game's live connection.
type gameMsg struct {
	Type   string     `json:"type"`
	Game   *lobbyGame `json:"game"`
	Event  string     `json:"event"`
	Status wireStatus `json:"status"`
	Error  string     `json:"error"`
	moveFields
}

type ratingDiff struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Diff   int `json:"diff"`
}

// lobbyMsg is a message of the lobby or a game's live connection.
type lobbyMsg struct {
	Type   string          `json:"type"`
	Game   json.RawMessage `json:"game"`
	Side   string          `json:"side"`
	Event  string          `json:"event"`
	Status int             `json:"status"`
	Error  string          `json:"error"`
}

// RunLobby runs the lobby load test cfg and returns its report. The error
// is for a config that cannot run, or a server without the pool;
// failures are counted in the report.
func RunLobby(ctx context.Context, cfg LobbyConfig) (*LobbyReport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("lobby load test: %w", err)
	}
	r := &lobbyRunner{cfg: cfg, games: map[string]*sharedGame{}, over: make(chan struct{})}
	r.st.errors, r.st.firstErr = map[string]int{}, map[string]string{}
	r.st.disconnects, r.st.firstDisc = map[string]int{}, map[string]string{}
	for _, s := range cfg.Servers {
		base, err := target(ctx, s)
		if err != nil {
			return nil, fmt.Errorf("lobby load test: %w", err)
		}
		r.servers = append(r.servers, base)
		// Two live connections a client, and a few requests.
		c := newClient(base, 2*cfg.Clients/len(cfg.Servers)+checkWorkers, cfg.Timeout)
		defer c.close()
		r.clients = append(r.clients, c)
	}
	if err := r.readPool(ctx); err != nil {
		return nil, fmt.Errorf("lobby load test: %w", err)
	}
	rep := &LobbyReport{Servers: r.servers, Clients: cfg.Clients, Pool: cfg.Pool, Category: r.category,
		Rated: cfg.Rated, Rate: cfg.Rate, Races: cfg.Races, Duration: cfg.Duration, PlayOut: cfg.PlayOut, Names: cfg.Names}

	players := make([]*lobbyPlayer, cfg.Clients)
	for i := range players {
		players[i] = &lobbyPlayer{r: r, idx: i, name: fmt.Sprintf("%s-%d", cfg.Names, i), server: i % len(r.servers),
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), paired: make(chan pairMsg, 4),
			listed: map[string]bool{}, results: map[string]string{}}
	}

	// Before the clock: every client's account, a few at once (each
	// hashes a password), and the rating histories of those of an
	// earlier run.
	t0 := time.Now()
	ready := r.signUpAll(ctx, players)
	rep.SignupTime = time.Since(t0)
	if ctx.Err() != nil || !ready {
		rep.Interrupted = ctx.Err() != nil
		rep.fill(r, players)
		return rep, nil
	}

	// The clock: joins, pairings and games for the duration, then the
	// games under way played out, within the cap.
	rep.Started = true
	t0 = time.Now()
	cctx, cancel := context.WithTimeout(ctx, cfg.Duration+cfg.PlayOut)
	defer cancel()
	over := time.AfterFunc(cfg.Duration, func() { close(r.over) })
	defer over.Stop()
	done := make(chan struct{})
	var pwg, wg sync.WaitGroup
	if cfg.Progress != nil {
		pwg.Go(func() { r.progress(done, t0) })
	}
	for i, p := range players {
		delay := time.Duration(0)
		if cfg.Ramp > 0 {
			delay = cfg.Ramp * time.Duration(i) / time.Duration(len(players))
		}
		wg.Go(func() { p.run(cctx, delay) })
	}
	wg.Wait()
	rep.Elapsed = time.Since(t0)
	rep.Capped = cctx.Err() != nil && ctx.Err() == nil
	rep.WaitingAtEnd = int(r.waiting.Load())
	// The lobby connections stay open to the end, so that a pairing no
	// client waited for would be seen.
	for _, p := range players {
		wg.Go(p.closeLobby)
	}
	wg.Wait()
	close(done)
	pwg.Wait()
	rep.Interrupted = ctx.Err() != nil
	rep.fill(r, players)
	if cfg.Check && !rep.Interrupted {
		rep.Check = r.check(ctx, players)
	}
	return rep, nil
}

// readPool reads the pool's category from the lobby, on the first server
// that answers: it names the ratings the check reads, and a pool the
// server does not have is found before anything else is sent.
func (r *lobbyRunner) readPool(ctx context.Context) error {
	var last error
	for _, c := range r.clients {
		a, err := c.do(ctx, http.MethodGet, "/api/lobby", nil)
		if err != nil {
			last = fmt.Errorf("reading the lobby of %s: %w", c.base, err)
			continue
		}
		if a.status != http.StatusOK {
			last = fmt.Errorf("reading the lobby of %s: HTTP %d %.200s", c.base, a.status, a.body)
			continue
		}
		var lobby struct {
			Pools []struct {
				ID       string `json:"id"`
				Category string `json:"category"`
			} `json:"pools"`
		}
		if err := json.Unmarshal(a.body, &lobby); err != nil {
			return fmt.Errorf("reading the lobby of %s: %w", c.base, err)
		}
		var ids []string
		for _, p := range lobby.Pools {
			if p.ID == r.cfg.Pool && p.Category != "" {
				r.category = p.Category
				return nil
			}
			ids = append(ids, p.ID)
		}
		return fmt.Errorf("--pool %s: %s has no such pool (its pools: %s)", r.cfg.Pool, c.base, strings.Join(ids, ", "))
	}
	return last
}

// run joins the pool, waits for the pairing and plays the game, again
// and again until the duration is over.
func (p *lobbyPlayer) run(ctx context.Context, delay time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	for {
		pm, ok := p.waitPairing(ctx)
		if !ok {
			return
		}
		p.play(ctx, pm.game, pm.side)
		if ctx.Err() != nil || p.r.durationOver() {
			return
		}
	}
}

// wsURL is the WebSocket address of path on server i.
func (r *lobbyRunner) wsURL(i int, path string) string {
	return "ws" + strings.TrimPrefix(r.servers[i], "http") + path
}

// dial opens a WebSocket at path as the client, on its server or, failing
// that, the next ones in turn.
func (p *lobbyPlayer) dial(ctx context.Context, path string) (*websocket.Conn, bool) {
	r := p.r
	backoff := reconnectMin
	for ctx.Err() == nil {
		p.mu.Lock()
		i := p.server
		p.mu.Unlock()
		dctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		conn, resp, err := websocket.Dial(dctx, r.wsURL(i, path), &websocket.DialOptions{
			HTTPClient: r.clients[i].http,
			HTTPHeader: http.Header{"Origin": {r.servers[i]}, "Cookie": {p.cookie}},
		})
		cancel()
		if err == nil {
			conn.SetReadLimit(maxAnswer)
			return conn, true
		}
		if ctx.Err() != nil {
			break
		}
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols && resp.StatusCode != http.StatusBadGateway &&
			resp.StatusCode != http.StatusServiceUnavailable {
			r.error(fmt.Sprintf("dial HTTP %d", resp.StatusCode), fmt.Sprintf("GET %s: %v", path, err))
		} else {
			r.disconnect(errorKind(err), fmt.Sprintf("dialling %s: %v", r.wsURL(i, path), err))
			p.mu.Lock()
			p.server = (i + 1) % len(r.servers)
			p.mu.Unlock()
		}
		d := backoff/2 + time.Duration(p.rng.Int64N(int64(backoff/2)+1))
		backoff = min(2*backoff, reconnectMax)
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	return nil, false
}

// game returns the shared record of the game id, made on first use.
func (r *lobbyRunner) game(id string) *sharedGame {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.games[id]
	if g == nil {
		g = &sharedGame{id: id, raceAt: -1, race: [2]chan int{make(chan int, 1), make(chan int, 1)}, sent: map[int][]sentMove{}}
		// The share of raced games is met exactly, not drawn: of the
		// first n games, ⌊n·Races⌋ are raced, so that a small run races
		// some. The ply is drawn from the game, early enough that a game
		// of random moves is still under way.
		n := float64(r.made)
		r.made++
		if math.Floor((n+1)*r.cfg.Races) > math.Floor(n*r.cfg.Races) {
			h := rand.New(rand.NewPCG(r.cfg.Seed, hashString(id)))
			g.raceAt = 6 + h.IntN(16)
		}
		r.games[id] = g
	}
	return g
}

// sideIndex is 0 for South, 1 for North.
func sideIndex(side string) int {
	if side == "n" {
		return 1
	}
	return 0
}

func hashString(s string) uint64 {
	h := uint64(14695981039346656037) // FNV-1a
	for i := range len(s) {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
