package loadtest

import (
	"context"
	crand "crypto/rand"
	"encoding/base32"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
)

// Lobby mode (docs/api.md, "Lobby"): each client is a signed-in player
// on a device of its own. It signs up, opens a lobby connection, joins a
// pool and waits for the pairing; then it plays the game it was paired
// into over the game's WebSocket with its session (no seat token), a
// random legal move on each of its turns, until the game ends. The run
// measures the pairing delay (join → paired) and the time a move takes to
// reach the opponent; with Check it verifies afterwards that every client
// was paired once and that each rated game changed both players' ratings
// exactly once.
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
	// lobbyPassword is the password of the run's accounts: they are made
	// fresh for each run and are of no use after it.
	lobbyPassword = "loadtest-lobby-player"
	// silenceLimit is how long a game connection may bring nothing before
	// the client takes it for dead and opens another.
	silenceLimit = 45 * time.Second
	// maxRefusals is how many of its moves in a row a client lets the
	// server refuse before it reopens the connection to resync.
	maxRefusals = 3
)

// LobbyConfig is a lobby load test.
type LobbyConfig struct {
	// Servers are the instances, sharing one database: client i signs up
	// and plays through Servers[i % len], and fails over to the next.
	Servers  []string
	Clients  int           // players, 2 to MaxLobbyClients
	Pool     string        // the pool they all join; DefaultPool if empty
	Rated    bool          // join the pool rated
	Rate     float64       // a player moves 1/Rate seconds after its turn comes; DefaultLobbyRate if 0
	Duration time.Duration // cap of the sign-ups, and again of the pairing and play
	Ramp     time.Duration // the joins are spread over this time (less than Duration)
	Races    float64       // share of the games whose end is raced (0 to 1)
	Check    bool          // afterwards check the pairings and the ratings
	Timeout  time.Duration // of one request or dial; DefaultTimeout if 0
	Seed     uint64        // of the moves and the races
	// Names is the prefix of the accounts' names (up to 8 letters or
	// digits); a random one if empty, so that runs do not collide.
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
	ctx      context.Context
	category atomic.Pointer[string] // the pool's category, from the first lobby message

	mu    sync.Mutex
	games map[string]*sharedGame
	st    lstats
}

// lstats are the counts and samples of a lobby run, under lobbyRunner.mu.
type lstats struct {
	signedUp, joined, paired, pairedTwice int
	finished, raced                       int
	moves, refused, reconnects            int64
	pairDelay, moveLat, signupLat         []time.Duration
	errors, disconnects                   map[string]int
	firstErr, firstDisc                   map[string]string
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

// sharedGame is a paired game as its two clients share it, to measure
// the moves' delivery and to race its end.
type sharedGame struct {
	id     string
	raceAt int         // the ply from which the end is raced; -1 for none
	race   [2]chan int // by side (sideIndex): the mover tells its opponent the ply it moves at, to resign at it

	mu      sync.Mutex
	sent    map[int]sentMove // by ply
	players []pairing        // the clients told of it
}

type sentMove struct {
	side string
	at   time.Time
}

// pairing is a client's paired message.
type pairing struct {
	client int
	side   string
}

// lobbyPlayer is one client.
type lobbyPlayer struct {
	r      *lobbyRunner
	idx    int
	name   string
	cookie string
	rng    *rand.Rand

	mu      sync.Mutex
	server  int // the server it talks to now
	lobby   *websocket.Conn
	paired  chan pairMsg
	games   []string // the games it was told of, in order
	joined  time.Time
	result  *playerResult
	dropped chan struct{} // closed when the lobby connection drops
}

type pairMsg struct {
	game, side string
	at         time.Time
}

// playerResult is how a client saw its game end.
type playerResult struct {
	game, side, status string
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
}

type ratingDiff struct {
	Before int `json:"before"`
	After  int `json:"after"`
	Diff   int `json:"diff"`
}

// lobbyMsg is a message of the lobby or a game's live connection.
type lobbyMsg struct {
	Type  string          `json:"type"`
	Game  json.RawMessage `json:"game"`
	Side  string          `json:"side"`
	Event string          `json:"event"`
	Pools []struct {
		ID       string `json:"id"`
		Category string `json:"category"`
	} `json:"pools"`
	Status int    `json:"status"`
	Error  string `json:"error"`
}

// RunLobby runs the lobby load test cfg and returns its report. The error
// is for a config that cannot run; failures are counted in the report.
func RunLobby(ctx context.Context, cfg LobbyConfig) (*LobbyReport, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("lobby load test: %w", err)
	}
	r := &lobbyRunner{cfg: cfg, ctx: ctx, games: map[string]*sharedGame{}}
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
	rep := &LobbyReport{Servers: r.servers, Clients: cfg.Clients, Pool: cfg.Pool, Rated: cfg.Rated,
		Rate: cfg.Rate, Races: cfg.Races, Duration: cfg.Duration, Names: cfg.Names}

	players := make([]*lobbyPlayer, cfg.Clients)
	for i := range players {
		players[i] = &lobbyPlayer{r: r, idx: i, name: fmt.Sprintf("%s-%d", cfg.Names, i), server: i % len(r.servers),
			rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))), paired: make(chan pairMsg, 4)}
	}

	// Sign-ups, a few at once: each hashes a password.
	t0 := time.Now()
	sctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	next := atomic.Int64{}
	var wg sync.WaitGroup
	for range cfg.SignupAtOnce {
		wg.Go(func() {
			for i := next.Add(1) - 1; i < int64(len(players)) && sctx.Err() == nil; i = next.Add(1) - 1 {
				players[i].signUp(sctx)
			}
		})
	}
	wg.Wait()
	cancel()
	rep.SignupTime = time.Since(t0)
	if ctx.Err() != nil {
		rep.Interrupted = true
		rep.fill(r, players)
		return rep, nil
	}

	// Pairing and play, within the duration.
	t0 = time.Now()
	pctx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if cfg.Progress != nil {
		pwg.Go(func() { r.progress(done, t0) })
	}
	for i, p := range players {
		if p.cookie == "" {
			continue
		}
		delay := time.Duration(0)
		if cfg.Ramp > 0 {
			delay = cfg.Ramp * time.Duration(i) / time.Duration(len(players))
		}
		wg.Go(func() { p.run(pctx, delay) })
	}
	wg.Wait()
	rep.Elapsed = time.Since(t0)
	rep.TimedOut = pctx.Err() != nil && ctx.Err() == nil
	// The lobby connections stay open to the end, so that a second
	// pairing would be seen.
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

// signUp makes the client's account and keeps its session cookie,
// trying again after a refusal for too many sign-ups or a busy server.
func (p *lobbyPlayer) signUp(ctx context.Context) {
	r := p.r
	body, _ := json.Marshal(map[string]string{"name": p.name, "password": lobbyPassword})
	path := "/api/account/signup"
	for attempt := 0; ctx.Err() == nil; attempt++ {
		t0 := time.Now()
		a, err := r.clients[p.server].do(ctx, http.MethodPost, path, body)
		switch {
		case err == nil && a.status == http.StatusConflict && attempt > 0 && path != "/api/account/signin":
			// A sign-up whose answer was lost may have made the
			// account: sign in to it.
			path = "/api/account/signin"
			continue
		case err != nil:
			if ctx.Err() != nil {
				return
			}
			r.disconnect(errorKind(err), fmt.Sprintf("sign-up of %s: %v", p.name, err))
			p.server = (p.server + 1) % len(r.servers)
		case a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable:
			// Wait as told, and try again.
		case a.status != http.StatusOK && a.status != http.StatusCreated:
			r.error(fmt.Sprintf("sign-up HTTP %d", a.status), fmt.Sprintf("%s: %.200s", p.name, a.body))
			return
		default:
			for _, c := range (&http.Response{Header: a.header}).Cookies() {
				if c.Name == "endodoi_session" && c.Value != "" {
					p.cookie = c.Name + "=" + c.Value
				}
			}
			if p.cookie == "" {
				r.error("sign-up without a session", fmt.Sprintf("%s: %.200s", p.name, a.body))
				return
			}
			lat := time.Since(t0)
			r.add(func(s *lstats) { s.signedUp++; s.signupLat = append(s.signupLat, lat) })
			return
		}
		d := a.retryAfter
		if d == 0 {
			d = min(100*time.Millisecond<<min(attempt, 5), 3*time.Second)
		}
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
}

// run joins the pool, waits for the pairing and plays the game.
func (p *lobbyPlayer) run(ctx context.Context, delay time.Duration) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(delay):
	}
	var pm pairMsg
	for waiting := true; waiting; {
		if !p.openLobby(ctx) {
			return
		}
		p.mu.Lock()
		dropped := p.dropped
		p.mu.Unlock()
		if !p.join(ctx) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case pm = <-p.paired:
			waiting = false
		case <-dropped:
			// Lost the lobby connection before the pairing: the place
			// goes with it; open another and join again.
		}
	}
	p.mu.Lock()
	joined := p.joined
	p.mu.Unlock()
	delay = pm.at.Sub(joined)
	p.r.add(func(s *lstats) { s.paired++; s.pairDelay = append(s.pairDelay, delay) })
	p.play(ctx, pm.game, pm.side)
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

// openLobby opens the client's lobby connection and reads it until it
// drops or the run ends: the pairings go to p.paired.
func (p *lobbyPlayer) openLobby(ctx context.Context) bool {
	conn, ok := p.dial(ctx, "/api/lobby/live")
	if !ok {
		return false
	}
	dropped := make(chan struct{})
	p.mu.Lock()
	p.lobby, p.dropped = conn, dropped
	p.mu.Unlock()
	go func() {
		defer close(dropped)
		err := p.readLobby(conn)
		p.mu.Lock()
		closing := p.lobby != conn
		p.mu.Unlock()
		if !closing && ctx.Err() == nil {
			p.r.disconnect(errorKind(err), fmt.Sprintf("lobby connection of %s: %v", p.name, err))
		}
	}()
	return true
}

// readLobby reads the lobby connection's messages until it fails.
func (p *lobbyPlayer) readLobby(conn *websocket.Conn) error {
	r := p.r
	for {
		// The run's end closes the connection: no deadline of its own.
		var msg lobbyMsg
		if err := wsjson.Read(context.Background(), conn, &msg); err != nil {
			return err
		}
		at := time.Now()
		switch msg.Type {
		case "lobby":
			for _, pl := range msg.Pools {
				if pl.ID == r.cfg.Pool && pl.Category != "" {
					cat := pl.Category
					r.category.CompareAndSwap(nil, &cat)
				}
			}
		case "paired":
			var game string
			if err := json.Unmarshal(msg.Game, &game); err != nil || game == "" {
				r.error("bad paired message", fmt.Sprintf("%s: %.200s", p.name, msg.Game))
				continue
			}
			p.mu.Lock()
			first := len(p.games) == 0
			p.games = append(p.games, game)
			p.mu.Unlock()
			g := r.game(game)
			g.mu.Lock()
			g.players = append(g.players, pairing{p.idx, msg.Side})
			g.mu.Unlock()
			if !first {
				r.add(func(s *lstats) { s.pairedTwice++ })
				continue
			}
			p.paired <- pairMsg{game, msg.Side, at}
		case "error":
			r.error(fmt.Sprintf("lobby error %d", msg.Status), msg.Error)
		}
	}
}

// closeLobby closes the client's lobby connection at the end of the run.
func (p *lobbyPlayer) closeLobby() {
	p.mu.Lock()
	conn := p.lobby
	p.lobby = nil
	p.mu.Unlock()
	if conn != nil {
		conn.Close(websocket.StatusNormalClosure, "")
	}
}

// join joins the pool; already being in it is fine.
func (p *lobbyPlayer) join(ctx context.Context) bool {
	r := p.r
	body, _ := json.Marshal(map[string]bool{"rated": r.cfg.Rated})
	path := "/api/lobby/pools/" + url.PathEscape(r.cfg.Pool) + "/join"
	for attempt := 0; ctx.Err() == nil; attempt++ {
		p.mu.Lock()
		i := p.server
		if p.joined.IsZero() {
			p.joined = time.Now()
		}
		p.mu.Unlock()
		a, err := r.clients[i].doAs(ctx, http.MethodPost, path, body, p.cookie)
		switch {
		case err != nil:
			if ctx.Err() != nil {
				return false
			}
			r.disconnect(errorKind(err), fmt.Sprintf("joining %s: %v", r.cfg.Pool, err))
		case a.status == http.StatusOK:
			r.add(func(s *lstats) { s.joined++ })
			return true
		case a.status == http.StatusConflict:
			return true // in it already: the join before went through
		case a.status == http.StatusTooManyRequests || a.status == http.StatusServiceUnavailable:
		default:
			r.error(fmt.Sprintf("join HTTP %d", a.status), fmt.Sprintf("%s: %.200s", p.name, a.body))
			return false
		}
		d := a.retryAfter
		if d == 0 {
			d = min(100*time.Millisecond<<min(attempt, 5), 3*time.Second)
		}
		select {
		case <-ctx.Done():
		case <-time.After(d):
		}
	}
	return false
}

// game returns the shared record of the game id, made on first use.
func (r *lobbyRunner) game(id string) *sharedGame {
	r.mu.Lock()
	defer r.mu.Unlock()
	g := r.games[id]
	if g == nil {
		g = &sharedGame{id: id, raceAt: -1, race: [2]chan int{make(chan int, 1), make(chan int, 1)}, sent: map[int]sentMove{}}
		// The draw depends on the game alone, so that both clients agree.
		h := rand.New(rand.NewPCG(r.cfg.Seed, hashString(id)))
		if h.Float64() < r.cfg.Races {
			g.raceAt = 6 + h.IntN(30)
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
