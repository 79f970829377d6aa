// Package server is the JSON HTTP API and the live WebSocket of the
// browser game (docs/api.md): it translates each request and live
// message into calls of the domains (package play for the games, lobby,
// account, players, analysis for the engine's work) over package store,
// and what they return into JSON; and it carries each change to the live
// connections here and, through the store's notices, on the other
// instances (docs/architecture.md).
//
// Every request that changes a game loads it under the game's lock and
// hands the change to package play, which checks it and commits it to the
// store before the answer. Bad input gets a 4xx answer whose JSON body
// says what is wrong (errors.go maps each error to its status, for HTTP
// and the live connection alike), and leaves the game as it was.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/endodoi/endodoi/analysis"
	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/bus"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/limits"
	"github.com/endodoi/endodoi/lobby"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/players"
	"github.com/endodoi/endodoi/store"
)

// Limits of the API: its own (package api) and the server's.
const (
	MaxBody         = api.MaxBody
	MaxAnalysisTime = api.MaxAnalysisTime
	MaxListed       = api.MaxListed
	MaxLaps         = api.MaxLaps
)

// Server answers the API's requests.
type Server struct {
	store store.Store
	table *play.Table // the games being played, over store
	log   *slog.Logger
	mux   *http.ServeMux
	guard http.Handler

	clock    clock.Clock       // the time of the games (Options.Clock)
	analysis *analysis.Service // the engine's searches and reviews (analysis.go)
	live     liveHub           // the live connections of the games watched now
	clocks   clockWatch        // the timers of the running clocks
	setups   setupGate         // the setups of players at work at once (admission.go)

	ctx  context.Context // ends when the server stops (Start)
	done chan struct{}   // closed when Start's work has finished

	// With a store that several instances share, bus carries the notices
	// between them (Options.Bus); notifier is the store, which reads the
	// games' revisions; instance names this one.
	bus      bus.Bus
	notifier store.Notifier
	instance string

	trustProxy bool // see Options

	// What each client holds and makes (clientlimits.go), and the
	// positions of the online games in play (analysis.go).
	clients   *limits.Clients
	positions livePositions

	metrics *meters // nil without Options.Metrics (metrics.go)

	accounts *accounts    // the accounts' routes (accounts.go)
	lobby    *lobby.Lobby // the lobby (package lobby; its routes in lobby.go)
	lobbyHub lobbyHub     // the lobby's connections here (lobbylive.go)

	players *players.Service // the players' standing (ratings.go)
	fitting sync.WaitGroup   // the fits of the first mover's advantage

	// signed keeps the live connections opened by accounts (revoke.go);
	// vigil whether it reaches its database and the others (vigil.go).
	signed signedConns
	vigil  vigil
	// requestTimeout bounds an API request other than a WebSocket's.
	requestTimeout time.Duration
}

// New returns a server over st with the default Options.
func New(st store.Store, log *slog.Logger) *Server { return NewWithOptions(st, log, Options{}) }

// NewWithOptions returns a server over st with the limits of o.
func NewWithOptions(st store.Store, log *slog.Logger, o Options) *Server {
	o = o.withDefaults()
	s := &Server{store: st, log: log, mux: http.NewServeMux(), clock: o.Clock,
		analysis: analysis.New(st, log, analysis.Options{Searches: o.Searches, SearchQueue: o.SearchQueue, SearchWait: o.SearchWait,
			SearchShare: o.SearchShare, AnalysisTime: o.AnalysisTime, MoveSearches: o.MoveSearches}),
		live: liveHub{rooms: map[string]*room{}, pending: map[string]bool{}, remote: map[string]map[string]remotePresence{}}, clocks: clockWatch{timers: map[string]flagTimer{}},
		ctx: context.Background(), trustProxy: o.TrustProxy, clients: limits.NewClients(o.ClientLimits),
		vigil: vigil{now: time.Now}, requestTimeout: MaxAnalysisTime + o.SearchWait + 5*time.Second}
	s.positions = livePositions{&s.analysis.Positions}
	analyses, computer, records := limits.NewLimiter(limits.Rate(o.AnalysisRate)), limits.NewLimiter(limits.Rate(o.ComputerRate)), limits.NewLimiter(limits.Rate(o.RecordRate))
	s.mux.HandleFunc("POST /api/games", s.creationLimited(s.createGame))
	s.mux.HandleFunc("GET /api/games", s.listGames)
	s.mux.HandleFunc("POST /api/games/import", s.limited(records, s.importGame))
	s.mux.HandleFunc("GET /api/games/{id}", s.game(false, s.getGame))
	s.mux.HandleFunc("POST /api/games/{id}/moves", s.game(true, s.playMove))
	s.mux.HandleFunc("POST /api/games/{id}/computer", s.limited(computer, s.searching(analysis.Moves, s.game(true, s.computerMove))))
	s.mux.HandleFunc("POST /api/games/{id}/takeback", s.game(true, s.takeback))
	s.mux.HandleFunc("GET /api/games/{id}/hint", s.limited(analyses, s.searching(analysis.Analyses, s.game(false, s.hint))))
	s.mux.HandleFunc("GET /api/games/{id}/record", s.game(false, s.exportRecord))
	s.mux.HandleFunc("POST /api/games/{id}/actions", s.game(true, s.actions))
	s.mux.HandleFunc("GET /api/games/{id}/live", s.liveLimited(s.liveGame))
	s.mux.HandleFunc("GET /api/join/{code}", s.peekInvite)
	s.mux.HandleFunc("POST /api/join/{code}", s.join)
	s.mux.HandleFunc("GET /api/online", s.listOnline)
	s.mux.HandleFunc("GET /api/series/{id}", s.getSeries)
	s.mux.HandleFunc("POST /api/series/{id}/next", s.nextGame)
	s.mux.HandleFunc("POST /api/analyze", s.limited(analyses, s.searching(analysis.Analyses, s.analyze)))
	s.mux.HandleFunc("POST /api/games/{id}/review", s.limited(analyses, s.game(false, s.startReview)))
	s.mux.HandleFunc("GET /api/games/{id}/review", s.game(false, s.getReview))
	s.mux.HandleFunc("POST /api/position", s.position)
	s.mux.HandleFunc("GET /api/tablebases", s.tablebaseStatus)
	s.mux.HandleFunc("POST /api/records/parse", s.limited(records, s.parseRecord))
	s.accountRoutes(o.Accounts)
	s.lobby = s.newLobby()
	s.lobbyRoutes()
	s.players = players.New(st, log)
	s.ratingRoutes()
	var notice func(play.Notice) string
	if n, ok := st.(sharedStore); ok {
		s.notifier, s.instance, notice = n, bus.NewInstance(), s.noticeOf
		if s.bus = o.Bus; s.bus == nil {
			s.bus = bus.NewPostgres(n)
		}
		if sn, ok := st.(noticeSender); ok && !s.bus.Transactional() {
			// The notice of a change is published once it has committed.
			sn.SendNotices(s.publish)
		}
	}
	s.metrics = newMeters(o.Metrics, s)
	if s.metrics != nil {
		s.analysis.Waited = s.metrics.SearchWaited
	}
	s.guard = s.metrics.instrument(s.guarded(s.mux))
	s.table = play.NewTable(st, notice)
	s.table.OnChange = s.observeChange
	s.table.Clock = s.clock
	s.table.ViewLaps = api.MaxViewLaps
	return s
}

// ServeHTTP implements http.Handler. A request other than a WebSocket's
// has requestTimeout to be answered: its context ends then, and what it
// waits for (the database, a search) fails, answered 503.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !isWebSocket(r) {
		ctx, cancel := context.WithTimeout(r.Context(), s.requestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
	}
	s.guard.ServeHTTP(w, r)
}

// reply answers with v and status, or fails with err when not nil.
func (s *Server) reply(w http.ResponseWriter, r *http.Request, status int, v any, err error) {
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, status, v)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// logPath is a request's path as the log shows it: an invite code seats
// whoever holds it, so it is left out.
func logPath(r *http.Request) string {
	if strings.HasPrefix(r.URL.Path, "/api/join/") {
		return "/api/join/{code}"
	}
	return r.URL.Path
}

// decode reads a JSON body of at most MaxBody bytes into v as api.Decode
// does.
func decode(w http.ResponseWriter, r *http.Request, v any, emptyOK bool) error {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBody))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return errorf(http.StatusRequestEntityTooLarge, "request body over %d bytes", MaxBody)
		}
		return errorf(http.StatusBadRequest, "reading the request body: %v", err)
	}
	return api.Decode(data, v, emptyOK)
}

func queryInt(r *http.Request, name string, def, lo, hi int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errorf(http.StatusBadRequest, "%s=%q: want a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// Start runs the server's own work until ctx ends: it gives the running
// clocks back the time the server was down, watches every running clock,
// records a heartbeat, and expires idle online games. Close waits for it
// to finish.
func (s *Server) Start(ctx context.Context) error {
	s.ctx = ctx
	s.analysis.Start(ctx)
	now := s.clock.Now()
	alive, ok, err := s.store.Alive(ctx)
	if err != nil {
		return err
	}
	if ok && now.Sub(alive) > outage {
		n, err := s.store.ResumeClocks(ctx, alive, now)
		if err != nil {
			return err
		}
		if n > 0 {
			s.log.Info("clocks given back the time the server was down", "games", n, "outage", now.Sub(alive).Round(time.Second))
		}
	}
	if err := s.store.SetAlive(ctx, now); err != nil {
		return err
	}
	ids, err := s.store.OpenOnlineGames(ctx, time.Time{})
	if err != nil {
		return err
	}
	for _, id := range ids {
		s.flag(id)
	}
	s.expireIdle(ctx)
	s.done = make(chan struct{})
	s.vigil.start()
	if s.bus != nil {
		s.log.Info("the instances sharing the database tell each other of their changes", "bus", s.bus.String())
		go func() {
			if err := s.bus.Listen(ctx, s.startNoticeWorkers(ctx)); err != nil {
				s.log.Error("listening to the other instances", "err", err)
			}
		}()
	}
	go s.background(ctx)
	s.startLobby(ctx)
	s.fitting.Go(func() { s.players.FitAdvantages(ctx) })
	return nil
}

func (s *Server) background(ctx context.Context) {
	defer close(s.done)
	if s.notifier != nil {
		// With other instances: check that it reaches the database and
		// hears them (vigil.go), and that its clients miss no change.
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			s.watchHealth(ctx)
		}()
		defer func() { <-watched }()
		synced := make(chan struct{})
		go func() {
			defer close(synced)
			s.syncLoop(ctx)
		}()
		defer func() { <-synced }()
	}
	beat := time.NewTicker(Heartbeat)
	defer beat.Stop()
	sweep := time.NewTicker(time.Hour)
	defer sweep.Stop()
	forget := time.NewTicker(time.Minute)
	defer forget.Stop()
	// With other instances: tell them who is connected here, and check
	// the clocks of every open game, whichever instance started them.
	shared := time.NewTicker(presenceRefresh)
	defer shared.Stop()
	// Alone on its database, nobody tells it of the accounts the
	// operator's command changes: it checks its connections' sign-ins. So
	// does an instance whose bus may lose notices (NATS, Redis): the
	// operator's command tells the database, and a revocation that
	// another instance told may be lost.
	signIns := time.NewTicker(signInCheck)
	defer signIns.Stop()
	if s.notifier == nil {
		shared.Stop()
	} else if s.bus.Transactional() {
		signIns.Stop()
	}
	for {
		select {
		case <-ctx.Done():
			s.clocks.stopAll()
			// The last heartbeat: the outage is counted from here.
			if err := s.store.SetAlive(context.WithoutCancel(ctx), s.clock.Now()); err != nil {
				s.log.Warn("recording the last heartbeat", "err", err)
			}
			return
		case <-beat.C:
			bctx, cancel := context.WithTimeout(ctx, 2*Heartbeat)
			if err := s.store.SetAlive(bctx, s.clock.Now()); err != nil && ctx.Err() == nil {
				s.log.Warn("recording the heartbeat", "err", err)
			}
			cancel()
		case <-sweep.C:
			s.expireIdle(ctx)
		case <-forget.C:
			s.table.Sweep() // the games idle in memory leave
		case <-shared.C:
			s.tellPresence()
			s.checkClocks(ctx)
		case <-signIns.C:
			s.recheckAll(ctx)
		}
	}
}

// Close waits for the work Start began to finish once its context has
// ended, after stopping the reviews under way (analysis.Service.Close): a
// review is made again on request. Started or not, no review starts
// afterwards.
func (s *Server) Close() {
	s.analysis.Close()
	s.lobbyHub.wg.Wait()
	s.fitting.Wait()
	if s.done != nil {
		<-s.done
	}
}
