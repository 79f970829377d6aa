// Package bot connects an engine that speaks the engine protocol
// (docs/engine-protocol.md) to an endodoi server as a bot account
// (docs/bots.md): it keeps the lobby's live socket open, reconnecting
// with backoff for as long as it runs, accepts the challenges within its
// Policy and declines the others, saying why, and plays each accepted game
// over the game's live socket on its clock, one engine process a game.
//
// Moves are sent with the number of moves seen (the API's ply guard), so
// that a move is never played twice whatever drops and retries happen;
// after a drop the game is taken up again from the server's state. The bot
// never resigns.
package bot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/endodoi/endodoi/rules"
)

// Config is what a bot needs.
type Config struct {
	// Server is the site's address, such as https://example.org.
	Server string
	// Token is the bot account's token, as endodoi admin bot printed it.
	// It is sent only to Server, and never logged.
	Token string
	// Engine is the engine to play with.
	Engine EngineConfig
	// Policy says which challenges to accept.
	Policy Policy
	// MaxGames is how many games the bot plays at once (at least 1):
	// challenges beyond are declined.
	MaxGames int
	// Timing shares out the clock.
	Timing Timing
	// Log receives what the bot does; nil discards it.
	Log *slog.Logger
	// HTTPClient is used for every request; nil uses one with a timeout
	// of 30 seconds for plain requests.
	HTTPClient *http.Client
	// Backoff paces reconnections; zero uses DefaultBackoff.
	Backoff Backoff
}

// Backoff paces reconnections: the first waits about Min, each one after
// twice as long up to Max, each wait drawn at random between half and all
// of that, so that many bots cut off at once do not come back at once.
type Backoff struct{ Min, Max time.Duration }

// DefaultBackoff waits from 1 second up to 1 minute.
var DefaultBackoff = Backoff{Min: time.Second, Max: time.Minute}

// Delay is the wait before reconnection attempt n (0 for the first).
func (b Backoff) Delay(n int) time.Duration {
	d := b.Min
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	if d <= 1 {
		return d
	}
	return d/2 + rand.N(d/2+1)
}

// steady is how long a connection must last for the next drop to be
// reconnected after the shortest wait again.
const steady = 30 * time.Second

// Bot is a running bot.
type Bot struct {
	cfg Config
	api *client
	log *slog.Logger

	name string // the account's name, once known
	// resumeRefused: the server refused to list the bot's games once.
	resumeRefused bool
	// ctx is Run's: games and answers to challenges outlive the lobby
	// connection that brought them.
	ctx context.Context

	mu       sync.Mutex
	games    map[string]bool // the games being played
	reserved int             // slots held by acceptances under way
	seen     map[string]bool // challenges answered or being answered
	wg       sync.WaitGroup
}

// ErrUnauthorized is returned by Run when the server does not take the
// bot's token: made by mistake, disabled or deleted.
var ErrUnauthorized = errors.New("the server does not take the bot's token (401): check it, or make a new one with endodoi admin bot")

// Run runs the bot until ctx ends (then it returns nil, having stopped
// its engines) or the server refuses its token (ErrUnauthorized). Every
// other failure is logged and retried.
func Run(ctx context.Context, cfg Config) error {
	b, err := newBot(cfg)
	if err != nil {
		return err
	}
	if err := b.probe(ctx); err != nil {
		return err
	}
	b.ctx = ctx
	return b.supervise(ctx)
}

func newBot(cfg Config) (*Bot, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if cfg.MaxGames < 1 {
		return nil, fmt.Errorf("at most %d games at once: want at least 1", cfg.MaxGames)
	}
	if cfg.Engine.Level < 0 || cfg.Engine.Level > 10 {
		return nil, fmt.Errorf("level %d: want 1 to 10, or 0 for the clock's time", cfg.Engine.Level)
	}
	if cfg.Timing == (Timing{}) {
		cfg.Timing = DefaultTiming()
	}
	if cfg.Backoff == (Backoff{}) {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.Backoff.Min <= 0 || cfg.Backoff.Max < cfg.Backoff.Min {
		return nil, fmt.Errorf("backoff from %v to %v: want 0 < min <= max", cfg.Backoff.Min, cfg.Backoff.Max)
	}
	if !cfg.Policy.Rated && !cfg.Policy.Casual {
		return nil, errors.New("neither rated nor casual games: the bot would accept nothing")
	}
	if len(cfg.Policy.Holes) == 0 || len(cfg.Policy.Seeds) == 0 || len(cfg.Policy.Variants) == 0 || len(cfg.Policy.Clocks) == 0 {
		return nil, errors.New("the policy names no boards, seeds, variants or clocks: the bot would accept nothing")
	}
	for _, v := range cfg.Policy.Variants {
		if _, err := rules.ParseVariant(v); err != nil {
			return nil, fmt.Errorf("variant %q: %w", v, err)
		}
	}
	api, err := newClient(cfg.Server, cfg.Token, cfg.HTTPClient)
	if err != nil {
		return nil, err
	}
	return &Bot{cfg: cfg, api: api, log: cfg.Log, games: map[string]bool{}, seen: map[string]bool{}}, nil
}

// probe starts the engine once, to fail early on a command that is not an
// engine and to learn whether it plays the Cross-Endodoi rules, and asks
// the server who the bot is.
func (b *Bot) probe(ctx context.Context) error {
	eng := NewEngine(b.cfg.Engine, b.log)
	defer eng.Close()
	variants, err := eng.Declares(ctx, "Variant")
	if err != nil {
		return fmt.Errorf("the engine: %w", err)
	}
	if !variants {
		var only []string
		for _, v := range b.cfg.Policy.Variants {
			if v == rules.Standard.String() {
				only = append(only, v)
			}
		}
		if len(only) == 0 {
			return errors.New("the engine declares no Variant option, so it plays the standard rules only, which the bot is told not to accept")
		}
		if len(only) < len(b.cfg.Policy.Variants) {
			b.log.Warn("the engine declares no Variant option: accepting the standard rules only")
		}
		b.cfg.Policy.Variants = only
	}
	b.log.Info("engine ready", "engine", eng.Name())

	var me struct {
		Account *struct {
			Name string `json:"name"`
			Bot  bool   `json:"bot"`
		} `json:"account"`
	}
	err = b.api.do(ctx, http.MethodGet, "/api/me", nil, &me)
	switch {
	case statusOf(err) == http.StatusUnauthorized:
		return ErrUnauthorized
	case err != nil:
		// The server may be down for now: the lobby's loop retries.
		b.log.Warn("cannot ask the server who the bot is", "err", err)
	case me.Account == nil:
		// A server that does not name bots here: a wrong token shows
		// as a 401 of the lobby's socket.
		b.log.Warn("the server does not say whose the token is")
	default:
		b.name = me.Account.Name
		if !me.Account.Bot {
			b.log.Warn("the token is a player's account, not a bot's: make one with endodoi admin bot", "name", b.name)
		}
		b.log.Info("signed in", "name", b.name)
	}
	return nil
}

// supervise keeps the lobby's socket open until ctx ends, then waits for
// the games to stop.
func (b *Bot) supervise(ctx context.Context) error {
	defer b.wg.Wait()
	for attempt := 0; ; attempt++ {
		b.resume()
		began := time.Now()
		err := b.lobby(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if errors.Is(err, ErrUnauthorized) {
			return err
		}
		if time.Since(began) >= steady {
			attempt = 0
		}
		wait := b.cfg.Backoff.Delay(attempt)
		var ae *APIError
		if errors.As(err, &ae) && ae.RetryAfter > wait {
			wait = ae.RetryAfter
		}
		b.log.Warn("lobby connection lost; reconnecting", "err", err, "in", wait.Round(time.Millisecond))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// resume takes up the account's online games in play: after the bot's own
// restart, or games begun while its lobby socket was down.
func (b *Bot) resume() {
	ctx := b.ctx
	var list struct {
		Games []myGame `json:"games"`
	}
	if err := b.api.do(ctx, http.MethodGet, "/api/me/games?limit=200", nil, &list); err != nil {
		level := slog.LevelWarn
		if statusOf(err) != 0 {
			// The server's answer stays the same: say it once.
			if b.resumeRefused {
				level = slog.LevelDebug
			}
			b.resumeRefused = true
		}
		if ctx.Err() == nil {
			b.log.Log(ctx, level, "cannot list the bot's games to take up those in play", "err", err)
		}
		return
	}
	for _, g := range list.Games {
		if !g.Online || g.Status != "playing" || g.End != "" {
			continue
		}
		if side, ok := parseSide(g.Side); ok {
			b.startGame(g.ID, side, false)
		}
	}
}

// lobby holds one connection to the lobby's live socket and answers what
// it brings, until it drops.
func (b *Bot) lobby(ctx context.Context) error {
	ws, resp, err := websocket.Dial(ctx, b.api.liveURL("/api/lobby/live"),
		&websocket.DialOptions{HTTPClient: b.api.http, HTTPHeader: b.api.header()})
	if err != nil {
		if resp != nil {
			if resp.StatusCode == http.StatusUnauthorized {
				return ErrUnauthorized
			}
			ae := &APIError{Method: http.MethodGet, Path: "/api/lobby/live", Status: resp.StatusCode, Message: http.StatusText(resp.StatusCode)}
			if s := resp.Header.Get("Retry-After"); s != "" {
				if d, err := time.ParseDuration(s + "s"); err == nil && d > 0 {
					ae.RetryAfter = min(d, time.Hour)
				}
			}
			return ae
		}
		return fmt.Errorf("connecting to the lobby: %w", err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(MaxAnswer)
	b.log.Info("in the lobby")
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go keepAlive(ctx, ws)
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			return fmt.Errorf("the lobby's socket: %w", err)
		}
		var m lobbyMessage
		if err := json.Unmarshal(data, &m); err != nil {
			b.log.Warn("a lobby message the bot cannot read", "err", err)
			continue
		}
		switch m.Type {
		case "lobby":
			if m.Challenges != nil {
				for i := range m.Challenges.Incoming {
					b.challenged(&m.Challenges.Incoming[i])
				}
			}
		case "challenge":
			if m.Challenge != nil {
				b.challenged(m.Challenge)
			}
		case "challenge-gone":
			b.forget(m.ID)
		case "paired":
			if side, ok := parseSide(m.Side); ok {
				b.startGame(m.Game, side, false)
			}
		}
	}
}

// Pings keep a connection known alive both ways: a connection that
// answers none within pingWait is closed and made again.
const (
	pingEvery = 30 * time.Second
	pingWait  = 15 * time.Second
)

// keepAlive pings ws until ctx ends, and closes it when a ping goes
// unanswered, so that a connection cut without a word is noticed.
func keepAlive(ctx context.Context, ws *websocket.Conn) {
	t := time.NewTicker(pingEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			pctx, cancel := context.WithTimeout(ctx, pingWait)
			err := ws.Ping(pctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				ws.CloseNow()
				return
			}
		}
	}
}

// maxSeen bounds the challenges remembered as answered.
const maxSeen = 4096

// maxReason bounds a decline's reason, in bytes: the server takes 200
// characters.
const maxReason = 190

// challenged answers a challenge to the bot, once.
func (b *Bot) challenged(ch *Challenge) {
	ctx := b.ctx
	if b.name != "" && ch.To.Name != "" && ch.To.Name != b.name {
		return // the bot's own challenge, not one to it
	}
	if ch.ID == "" || len(ch.ID) > 64 {
		b.log.Warn("a challenge with no usable ID", "id", clip(ch.ID, 64))
		return
	}
	b.mu.Lock()
	if b.seen[ch.ID] {
		b.mu.Unlock()
		return
	}
	if len(b.seen) >= maxSeen {
		clear(b.seen)
	}
	b.seen[ch.ID] = true
	ok, reason := b.cfg.Policy.Decide(ch)
	if ok && len(b.games)+b.reserved >= b.cfg.MaxGames {
		ok, reason = false, fmt.Sprintf("this bot is playing as many games as it may (%d): try again later", b.cfg.MaxGames)
	}
	if ok {
		b.reserved++
	}
	b.mu.Unlock()
	log := b.log.With("challenge", ch.ID, "from", clip(ch.From.Name, 50), "holes", ch.Holes, "seeds", ch.Seeds,
		"variant", clip(ch.Variant, 20), "clock", ch.Clock.String(), "rated", ch.Rated)
	b.wg.Go(func() {
		path := "/api/challenges/" + url.PathEscape(ch.ID)
		if !ok {
			reason = clip(reason, maxReason)
			err := b.api.do(ctx, http.MethodPost, path+"/decline", map[string]string{"reason": reason}, nil)
			if err != nil {
				log.Warn("declining a challenge", "err", err)
				b.forget(ch.ID)
				return
			}
			log.Info("challenge declined", "reason", reason)
			return
		}
		var got struct {
			Game string `json:"game"`
			Side string `json:"side"`
		}
		err := b.api.do(ctx, http.MethodPost, path+"/accept", nil, &got)
		side, sideOK := parseSide(got.Side)
		switch {
		case err != nil:
			log.Warn("accepting a challenge", "err", err)
		case !sideOK || !validGameID(got.Game):
			log.Error("the server's answer to an acceptance names no game or side", "game", clip(got.Game, 40), "side", clip(got.Side, 5))
		default:
			log.Info("challenge accepted", "game", got.Game, "side", got.Side)
			b.startGame(got.Game, side, true)
			return
		}
		b.mu.Lock()
		b.reserved--
		b.mu.Unlock()
		b.forget(ch.ID)
	})
}

// forget lets a challenge whose answer failed be answered again when the
// lobby lists it next (at the next connection), if it is still there.
func (b *Bot) forget(id string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.seen, id)
}

// startGame plays game id as side, unless it is being played already;
// reserved says the game takes a slot held for it.
func (b *Bot) startGame(id string, side rules.Side, reserved bool) {
	ctx := b.ctx
	b.mu.Lock()
	defer b.mu.Unlock()
	if reserved {
		b.reserved--
	}
	if !validGameID(id) {
		b.log.Warn("a game ID that is not one", "game", clip(id, 40))
		return
	}
	if b.games[id] || ctx.Err() != nil {
		return
	}
	b.games[id] = true
	b.wg.Go(func() {
		defer func() {
			b.mu.Lock()
			delete(b.games, id)
			b.mu.Unlock()
		}()
		b.play(ctx, id, side)
	})
}

// Playing returns how many games the bot plays now.
func (b *Bot) Playing() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.games)
}
