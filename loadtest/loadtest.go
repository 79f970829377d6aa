// Package loadtest drives concurrent games against a running endodoi server
// over its HTTP API (docs/api.md), for load and durability measurements.
//
// In online mode (Config.Online) each game is two clients, as two players
// on two devices, playing over WebSockets; see online.go.
//
// Each simulated game is one goroutine that plays both sides of a game
// between two people: it creates the game, then plays random legal moves,
// each sent with its ply, one request at a time; when the game ends it
// starts another. The run measures the answers' latency and, with Check,
// verifies afterwards that every acknowledged move is stored.
//
// A load test only ever talks to this computer: Run and Check refuse a
// server address whose host is not a loopback address (127.0.0.0/8 or ::1),
// and the connections are checked again when they are dialled.
package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Limits of a run.
const (
	MaxGames    = 10_000           // games played at once
	MaxDuration = 10 * time.Minute // of the load phase
	MaxRate     = 1000             // moves per second of one game
	// MaxOnlineRate is the most moves a second of one online game: the
	// server allows each live connection 20 messages a second.
	MaxOnlineRate = 20
	// MaxRequests bounds the requests of the load phase: the run stops
	// sending when it is reached, which also bounds the samples kept.
	MaxRequests = 5_000_000
)

// Defaults of a Config's zero fields.
const (
	DefaultURL              = "http://127.0.0.1:8080"
	DefaultTimeout          = 10 * time.Second
	DefaultProgressInterval = 5 * time.Second
)

// Config is a load test.
type Config struct {
	BaseURL  string        // the server, e.g. http://127.0.0.1:8080; DefaultURL if empty
	Games    int           // games played at once, 1 to MaxGames
	Rate     float64       // moves per second of each game (creating a game takes a move's turn); 0: each as soon as the last is answered
	Duration time.Duration // of the load phase, up to MaxDuration
	Holes    int           // holes per row of the games; rules.DefaultHoles if 0
	Seeds    int           // seeds per hole at the start; rules.DefaultStartSeeds if 0
	Check    bool          // after the load, fetch every game and look for its acknowledged moves
	Timeout  time.Duration // of one request; DefaultTimeout if 0
	Seed     uint64        // of the random moves and schedule phases, for reproducible runs

	// Online plays online games (docs/api.md, "Online play"): two clients
	// a game, each with its own seat and WebSocket, the side to move
	// sending its move over its connection; the run measures the time from
	// a move's sending to its arrival at the opponent. Rate must be above
	// 0 and at most MaxOnlineRate.
	Online bool
	// PeerURL, for an online run, is a second server sharing the first's
	// database: each game's second player joins and plays through it, so
	// that every move crosses from one server to the other.
	PeerURL string
	// Ramp spreads the online games' setups evenly over its length (less
	// than Duration); 0 spreads them over the first move interval.
	Ramp time.Duration
	// ExpectRestart says that the server is restarted during an online
	// run: dropped and refused connections are counted, and the clients
	// reconnect, but they do not make the run fail.
	ExpectRestart bool
	// Stop, if not nil, ends the load phase when it is closed, if that
	// comes before Duration; the moves in flight are still awaited and
	// the games checked, as at the end of Duration.
	Stop <-chan struct{}

	// Progress, if not nil, gets a line of figures every ProgressInterval
	// (DefaultProgressInterval if 0) during the load phase.
	Progress         io.Writer
	ProgressInterval time.Duration
}

// loadPhase is a context that ends with the load phase: after Duration,
// when Stop is closed, or with ctx.
func (cfg Config) loadPhase(ctx context.Context) (context.Context, context.CancelFunc) {
	stopCtx, stop := context.WithTimeout(ctx, cfg.Duration)
	if cfg.Stop != nil {
		go func() {
			select {
			case <-cfg.Stop:
				stop()
			case <-stopCtx.Done():
			}
		}()
	}
	return stopCtx, stop
}

// withDefaults fills in the zero fields and checks the bounds (Validate).
func (cfg Config) withDefaults() (Config, error) {
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultURL
	}
	if cfg.Holes == 0 {
		cfg.Holes = rules.DefaultHoles
	}
	if cfg.Seeds == 0 {
		cfg.Seeds = rules.DefaultStartSeeds
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.ProgressInterval == 0 {
		cfg.ProgressInterval = DefaultProgressInterval
	}
	if cfg.ProgressInterval < 0 {
		return cfg, fmt.Errorf("negative progress interval %v", cfg.ProgressInterval)
	}
	return cfg, cfg.Validate()
}

// Validate returns the error of the first value of cfg out of its bounds,
// naming it by the option of endodoi loadtest that sets it, or nil. It
// takes cfg as it is: the zero Holes, Seeds and Timeout that Run fills in
// are out of bounds here, as they are on the command line. Run fills them
// in, then validates.
func (cfg Config) Validate() error {
	switch {
	case cfg.Games < 1 || cfg.Games > MaxGames:
		return fmt.Errorf("--games %d out of range (1 to %d)", cfg.Games, MaxGames)
	case !(cfg.Rate >= 0 && cfg.Rate <= MaxRate): // also refuses NaN
		return fmt.Errorf("--rate %g out of range (0 to %d)", cfg.Rate, MaxRate)
	case cfg.Duration <= 0 || cfg.Duration > MaxDuration:
		return fmt.Errorf("--duration %v out of range (above 0, up to %v)", cfg.Duration, MaxDuration)
	case cfg.Holes < rules.MinHoles || cfg.Holes > rules.MaxHoles:
		return fmt.Errorf("--holes %d out of range (%d to %d)", cfg.Holes, rules.MinHoles, rules.MaxHoles)
	case cfg.Seeds < rules.MinStartSeeds || cfg.Seeds > rules.MaxStartSeeds:
		return fmt.Errorf("--seeds %d out of range (%d to %d)", cfg.Seeds, rules.MinStartSeeds, rules.MaxStartSeeds)
	case cfg.Timeout <= 0:
		return fmt.Errorf("--timeout %v: want a positive duration", cfg.Timeout)
	case !cfg.Online && (cfg.Ramp != 0 || cfg.ExpectRestart || cfg.PeerURL != ""):
		return errors.New("--peer, --ramp and --expect-restart go with --online")
	case cfg.Online && !(cfg.Rate > 0 && cfg.Rate <= MaxOnlineRate):
		return fmt.Errorf("--rate %g out of range with --online (above 0, up to %d: the server allows each connection %d messages a second)",
			cfg.Rate, MaxOnlineRate, MaxOnlineRate)
	case cfg.Ramp < 0 || cfg.Ramp > 0 && cfg.Ramp >= cfg.Duration:
		return fmt.Errorf("--ramp %v out of range (0 up to less than --duration %v)", cfg.Ramp, cfg.Duration)
	}
	return nil
}

// GameLog is one game a run created and the moves the server acknowledged
// in it, in order.
type GameLog struct {
	ID    string
	Moves []string
	// Strict (online games) says that Moves are all the moves of the game
	// but Pending, a move sent at ply len(Moves) that no one saw played:
	// the stored game may hold Pending after them, and nothing else.
	Strict  bool
	Pending string
}

// Run runs the load test cfg and returns its report. It stops sending at
// cfg.Duration, or when ctx is cancelled (the report then says
// Interrupted), and returns once every request has been answered or has
// failed. The error is for a config that cannot run; failed requests are
// counted in the report.
func Run(ctx context.Context, cfg Config) (*Report, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("load test: %w", err)
	}
	base, err := target(ctx, cfg.BaseURL)
	if err != nil {
		return nil, fmt.Errorf("load test: %w", err)
	}
	if cfg.Online {
		peer := base
		if cfg.PeerURL != "" {
			if peer, err = target(ctx, cfg.PeerURL); err != nil {
				return nil, fmt.Errorf("load test: %w", err)
			}
		}
		return runOnline(ctx, cfg, base, peer)
	}
	c := newClient(base, cfg.Games+checkWorkers, cfg.Timeout)
	defer c.close()

	stopCtx, stop := cfg.loadPhase(ctx)
	defer stop()
	r := &runner{cfg: cfg, c: c, ctx: ctx, stop: stopCtx.Done()}
	r.st.init()
	start := time.Now()
	var wg sync.WaitGroup
	logs := make([][]GameLog, cfg.Games)
	for i := range cfg.Games {
		p := &player{r: r, idx: i, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i)))}
		if cfg.Rate > 0 {
			p.interval = time.Duration(float64(time.Second) / cfg.Rate)
			// A random phase spreads the games' requests evenly over an interval.
			p.next = start.Add(time.Duration(p.rng.Int64N(int64(p.interval))))
		}
		wg.Go(func() { logs[i] = p.run() })
	}
	done := make(chan struct{})
	var pwg sync.WaitGroup
	if cfg.Progress != nil {
		pwg.Go(func() { r.progress(done, start) })
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(done)
	pwg.Wait()

	rep := r.report(elapsed)
	rep.Target = base
	for _, l := range logs {
		rep.Games = append(rep.Games, l...)
	}
	rep.Interrupted = ctx.Err() != nil
	if cfg.Check && !rep.Interrupted {
		res, err := check(ctx, c, rep.Games)
		if err != nil {
			rep.Interrupted = true
		} else {
			rep.Check = res
		}
	}
	return rep, nil
}

// runner is the state a run's games share.
type runner struct {
	cfg      Config
	c        *client
	ctx      context.Context // of the requests: a request in flight at the end of the run may finish
	stop     <-chan struct{} // closed at the end of the run
	requests atomic.Int64
	limitHit atomic.Bool
	st       stats
}

// player plays one game after another.
type player struct {
	r        *runner
	idx      int
	rng      *rand.Rand
	interval time.Duration // between requests; 0 for as fast as answers come
	next     time.Time     // when the next request is due
	failures int           // in a row, for the backoff
	games    []GameLog
}

// gameState is the game a player is playing.
type gameState struct {
	log   int // index in the player's games
	ply   int
	legal []string
}

// gameView is the part of the API's game that a player reads.
type gameView struct {
	ID         string   `json:"id"`
	Moves      []string `json:"moves"`
	LegalMoves []string `json:"legalMoves"`
	Status     string   `json:"status"`
}

func (p *player) run() []GameLog {
	var g *gameState
	for p.wait() {
		if g == nil {
			g = p.create()
		} else if !p.move(g) {
			g = nil // over or failed: the next request starts a new game
		}
	}
	return p.games
}

// wait waits until the next request is due and reports whether to send
// it: not after the end of the run nor beyond MaxRequests. A late request
// goes at once and the schedule restarts from it, so that late answers
// never turn into a burst of catching up.
func (p *player) wait() bool {
	at := p.next
	if now := time.Now(); at.Before(now) {
		at = now
	} else {
		t := time.NewTimer(at.Sub(now))
		defer t.Stop()
		select {
		case <-p.r.stop:
			return false
		case <-t.C:
		}
	}
	select {
	case <-p.r.stop:
		return false
	default:
	}
	if p.r.requests.Add(1) > MaxRequests {
		p.r.limitHit.Store(true)
		return false
	}
	p.next = at.Add(p.interval)
	return true
}

// create starts a new game and returns it, or nil if that failed.
func (p *player) create() *gameState {
	body, err := json.Marshal(map[string]any{
		"holes": p.r.cfg.Holes, "seeds": p.r.cfg.Seeds,
		"south": fmt.Sprintf("load %d S", p.idx), "north": fmt.Sprintf("load %d N", p.idx),
	})
	if err != nil {
		p.fail(answer{}, fmt.Errorf("encoding a new game: %w", err))
		return nil
	}
	p.r.st.add(func(s *stats) { s.creates++ })
	t0 := time.Now()
	a, err := p.r.c.do(p.r.ctx, http.MethodPost, "/api/games", body)
	lat := time.Since(t0)
	if err == nil && a.status != http.StatusCreated {
		p.fail(a, nil)
		return nil
	}
	var gv gameView
	if err == nil {
		if err = json.Unmarshal(a.body, &gv); err != nil || gv.ID == "" {
			err = &badAnswer{fmt.Sprintf("POST /api/games: answer %.100q has no game", a.body)}
		}
	}
	if err != nil {
		p.fail(a, err)
		return nil
	}
	p.failures = 0
	p.games = append(p.games, GameLog{ID: gv.ID})
	p.r.st.add(func(s *stats) { s.created++; s.createLat = append(s.createLat, lat) })
	if gv.Status != "playing" || len(gv.LegalMoves) == 0 {
		return nil // over at the start; cannot happen from a start position
	}
	return &gameState{log: len(p.games) - 1, ply: len(gv.Moves), legal: gv.LegalMoves}
}

// move plays a random legal move in g and reports whether the game goes
// on. After a failure the game is left: the failed move may or may not be
// stored, and the game's log keeps only what was acknowledged.
func (p *player) move(g *gameState) bool {
	m := g.legal[p.rng.IntN(len(g.legal))]
	body, err := json.Marshal(map[string]any{"move": m, "ply": g.ply})
	if err != nil {
		p.fail(answer{}, fmt.Errorf("encoding a move: %w", err))
		return false
	}
	log := &p.games[g.log]
	path := "/api/games/" + url.PathEscape(log.ID) + "/moves"
	p.r.st.add(func(s *stats) { s.offered++ })
	t0 := time.Now()
	a, err := p.r.c.do(p.r.ctx, http.MethodPost, path, body)
	lat := time.Since(t0)
	if err == nil && a.status != http.StatusOK {
		p.fail(a, nil)
		return false
	}
	var mv struct{ Game gameView }
	if err == nil {
		err = json.Unmarshal(a.body, &mv)
		// The answer must show the move at its ply: anything else would
		// make the acknowledged moves unknowable.
		if err != nil || len(mv.Game.Moves) != g.ply+1 || mv.Game.Moves[g.ply] != m {
			err = &badAnswer{fmt.Sprintf("POST %s %s: answer %.100q does not show the move", path, body, a.body)}
		}
	}
	if err != nil {
		p.fail(a, err)
		return false
	}
	p.failures = 0
	log.Moves = append(log.Moves, m)
	g.ply++
	g.legal = mv.Game.LegalMoves
	over := mv.Game.Status != "playing" || len(g.legal) == 0
	p.r.st.add(func(s *stats) {
		s.acked++
		s.moveLat = append(s.moveLat, lat)
		if over {
			s.finished++
		}
	})
	return !over
}

// fail counts a failed request, an error or else an answer with an error
// status, and delays the player's next request: by the answer's
// Retry-After, or by a backoff that grows with the failures in a row.
func (p *player) fail(a answer, err error) {
	if p.r.ctx.Err() != nil {
		return // the run was cancelled: not the server's failure
	}
	var kind, msg string
	if err != nil {
		kind, msg = errorKind(err), err.Error()
	} else {
		kind, msg = fmt.Sprintf("HTTP %d", a.status), fmt.Sprintf("%.200s", bytes.TrimSpace(a.body))
	}
	p.r.st.add(func(s *stats) {
		s.errors[kind]++
		if _, ok := s.firstErr[kind]; !ok {
			s.firstErr[kind] = msg
		}
	})
	p.failures++
	delay := a.retryAfter
	if delay == 0 {
		delay = min(50*time.Millisecond<<min(p.failures-1, 5), time.Second)
	}
	delay = min(delay, 5*time.Second)
	if until := time.Now().Add(delay); until.After(p.next) {
		p.next = until
	}
}

// stats are a run's counts and samples.
type stats struct {
	mu                  sync.Mutex
	creates, created    int64
	offered, acked      int64
	finished            int64
	moveLat, createLat  []time.Duration
	errors              map[string]int    // by kind: "HTTP 503", "timeout", ...
	firstErr            map[string]string // the first error of each kind
	progressAt, errorsN int               // moveLat index and error count at the last progress line
}

func (s *stats) init() {
	s.errors = map[string]int{}
	s.firstErr = map[string]string{}
}

// add changes the stats under their lock.
func (s *stats) add(f func(*stats)) {
	s.mu.Lock()
	f(s)
	s.mu.Unlock()
}

// progress writes a line of figures at every interval until done.
func (r *runner) progress(done <-chan struct{}, start time.Time) {
	t := time.NewTicker(r.cfg.ProgressInterval)
	defer t.Stop()
	last := start
	for {
		select {
		case <-done:
			return
		case now := <-t.C:
			s := &r.st
			s.mu.Lock()
			recent := slices.Clone(s.moveLat[s.progressAt:])
			s.progressAt = len(s.moveLat)
			acked := s.acked
			errs := 0
			for _, n := range s.errors {
				errs += n
			}
			s.mu.Unlock()
			// Rate and p99 are the last interval's; the counts are the run's.
			rate, p99 := interval(recent, now.Sub(last))
			last = now
			fmt.Fprintf(r.cfg.Progress, "%v: %s moves acked, %s/s, p99 %s, %s errors\n",
				now.Sub(start).Round(time.Second), group(acked), group(int64(rate+0.5)), p99, group(int64(errs)))
		}
	}
}

// report sums up the load phase.
func (r *runner) report(elapsed time.Duration) *Report {
	s := &r.st
	s.mu.Lock()
	defer s.mu.Unlock()
	rep := &Report{
		Games: nil, Rate: r.cfg.Rate, Concurrency: r.cfg.Games, Duration: r.cfg.Duration,
		Holes: r.cfg.Holes, Seeds: r.cfg.Seeds, Elapsed: elapsed,
		CreatesSent: s.creates, GamesCreated: s.created, GamesFinished: s.finished,
		Offered: s.offered, Acked: s.acked,
		Errors: s.errors, FirstErrors: s.firstErr,
		MoveLatency: summarize(s.moveLat), CreateLatency: summarize(s.createLat),
		RequestLimit: r.limitHit.Load(),
	}
	if elapsed > 0 {
		rep.Throughput = float64(s.acked) / elapsed.Seconds()
	}
	return rep
}

// interval returns the rate of the samples of a progress interval of
// length d, and their p99 ("-" for none); it sorts recent.
func interval(recent []time.Duration, d time.Duration) (float64, string) {
	slices.Sort(recent)
	p99 := "-"
	if len(recent) > 0 {
		p99 = ms(percentile(recent, 0.99))
	}
	return float64(len(recent)) / d.Seconds(), p99
}
