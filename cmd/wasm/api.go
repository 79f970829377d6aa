// Command wasm is the rules and the engine for the browser: built with
// GOOS=js GOARCH=wasm, it runs in a Web Worker (web/static/js/engine-worker.js)
// so that the page can play with no server, with the answers the server gives.
//
// It answers requests, JSON objects with an "op", one at a time:
//
//	{"op":"game","position":P,"moves":[...]}          the game from P after the moves: positions, legal moves, status, result, score, sowings
//	{"op":"play","position":P,"moves":[...],"move":M}  the same game after one more move, and how that move sowed
//	{"op":"search","position":P,"moves":[...],"level":L}              the computer's move at a level, as the server chooses it (levels 8 to 10 within time caps: browserLevels)
//	{"op":"search","position":P,"moves":[...],"depth":D,"timeMs":T,"nodes":N,"book":B}  a search within limits: best move, score and line
//	{"op":"perft","position":P,"depth":D}              the number of move sequences of each length up to D
//	{"op":"hello"}                                     the limits this build knows
//
// Every request may give "variant" ("standard" or "cross") and "maxLaps"
// (0: the default). An answer that failed is {"error": "..."}.
//
// Built for another system, it reads the same requests from its standard
// input, one a line, and writes the answers one a line: a way to compare
// and to time the two builds on the same requests.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// Bounds of a request: a page asks for no more, and a runaway request
// would freeze the worker. The moves of a game and its lap cap are the
// server's (record.MaxMoves, api.MaxLaps).
const (
	maxPerftDepth = 16
	maxMoveTime   = time.Minute
)

// browserLevels replaces the server's settings of the levels that search
// deep (engine.Level: 8 to depth 10, 9 for 100 ms, 10 for 1 s). In the
// browser the engine runs at about 0.4 of the server's speed, and on a slow
// phone slower still: each of these levels stops at its time cap, so that
// it answers within 2 s anywhere. Each searches at least as deep and as long
// as the one below it, so their order of strength stays; level 9 gets a
// depth rather than 100 ms, which on a slow device would fall below level 8.
var browserLevels = map[int]engine.Limits{
	8:  {Depth: 10, MoveTime: 1200 * time.Millisecond},
	9:  {Depth: 12, MoveTime: 1200 * time.Millisecond},
	10: {MoveTime: 1500 * time.Millisecond},
}

type request struct {
	Op       string   `json:"op"`
	Position string   `json:"position"`
	Moves    []string `json:"moves"`
	Move     string   `json:"move"`
	Variant  string   `json:"variant"`
	MaxLaps  int      `json:"maxLaps"`

	Level  int    `json:"level"`
	Depth  int    `json:"depth"`
	TimeMs int    `json:"timeMs"`
	Nodes  uint64 `json:"nodes"`
	Book   bool   `json:"book"`
	Seed   uint64 `json:"seed"` // the noise of levels 1 and 2; 0: a random one

	// The games of this device (games.go): a request of the API, the
	// games the page kept, and what the server made of a game sent.
	API   apiRequest   `json:"api"`
	Games []deviceGame `json:"games"`
	Game  string       `json:"game"` // the game's ID ("id" is the worker's, of each call)
	Sent  string       `json:"sent"`
}

// playView answers a move: the game after it, as the server's API shows
// its board (docs/api.md), and how the move sowed.
type playView struct {
	Game   gameview.Board  `json:"game"`
	Sowing gameview.Sowing `json:"sowing"`
}

type searchView struct {
	Move      string   `json:"move"` // "" when the side to move has no legal move
	Score     float64  `json:"score"`
	Exact     bool     `json:"exact"`
	Final     float64  `json:"final"` // the expected final margin from South's view, as the server's
	Depth     int      `json:"depth"`
	Nodes     uint64   `json:"nodes"`
	ElapsedMs float64  `json:"elapsedMs"`
	PV        []string `json:"pv"`
}

type perftView struct {
	Counts []uint64 `json:"counts"` // Counts[d-1]: sequences of d moves
}

type helloView struct {
	Go       string   `json:"go"`
	MinHoles int      `json:"minHoles"`
	MaxHoles int      `json:"maxHoles"`
	MinLevel int      `json:"minLevel"`
	MaxLevel int      `json:"maxLevel"`
	MaxLaps  int      `json:"maxLaps"`
	MaxDepth int      `json:"maxDepth"`
	MaxPerft int      `json:"maxPerftDepth"`
	MaxMoves int      `json:"maxMoves"`
	Threads  int      `json:"threads"`
	HashMiB  int      `json:"hashMiB"`
	Variants []string `json:"variants"`
}

type errorView struct {
	Error string `json:"error"`
}

// handler answers requests. Its engines, one per rule set and kind, are
// kept from one search to the next; each search starts from an empty
// table, as the server's do.
type handler struct {
	engines map[engineKey]*engine.Engine
	games   *games // the games of this device (games.go)
}

type engineKey struct {
	rules rules.Rules
	book  bool
}

func newHandler(c clock.Clock) *handler {
	h := &handler{engines: make(map[engineKey]*engine.Engine)}
	h.games = newGames(h.choose, h.searchBest, c)
	return h
}

// handle answers one request, given and answered as JSON.
func (h *handler) handle(ctx context.Context, in []byte) []byte {
	v, err := h.answer(ctx, in)
	if err != nil {
		return errorJSON(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return errorJSON(fmt.Errorf("encoding the answer: %w", err))
	}
	return out
}

func errorJSON(err error) []byte {
	out, _ := json.Marshal(errorView{Error: err.Error()})
	return out
}

func (h *handler) answer(ctx context.Context, in []byte) (any, error) {
	var req request
	if err := json.Unmarshal(in, &req); err != nil {
		return nil, fmt.Errorf("reading the request: %w", err)
	}
	switch req.Op {
	case "hello":
		return hello(), nil
	case "game":
		g, sowings, err := replay(req)
		if err != nil {
			return nil, err
		}
		return gameview.NewBoard(g, sowings), nil
	case "play":
		return playOne(req)
	case "search":
		return h.search(ctx, req)
	case "perft":
		return perft(req)
	case "api":
		return h.games.answer(ctx, req.API), nil
	case "keep":
		return h.games.keep(req.Games), nil
	case "outbox":
		list, err := h.games.outbox(ctx)
		return map[string][]outboxGame{"games": list}, err
	case "sent":
		return h.games.markSent(ctx, req.Game, req.Sent)
	}
	return nil, fmt.Errorf("unknown op %q", req.Op)
}

func hello() helloView {
	v := helloView{
		Go: runtime.Version(), MinHoles: rules.MinHoles, MaxHoles: rules.MaxHoles,
		MinLevel: engine.MinLevel, MaxLevel: engine.MaxLevel, MaxLaps: api.MaxLaps,
		MaxDepth: engine.MaxDepth, MaxPerft: maxPerftDepth, MaxMoves: record.MaxMoves,
		Threads: 1, HashMiB: api.SearchHashMiB,
	}
	for _, vr := range rules.Variants() {
		v.Variants = append(v.Variants, vr.String())
	}
	return v
}

// ruleSet returns the request's rules.
func ruleSet(req request) (rules.Rules, error) {
	r := rules.DefaultRules()
	if req.Variant != "" {
		v, err := rules.ParseVariant(req.Variant)
		if err != nil {
			return r, err
		}
		r.Variant = v
	}
	if req.MaxLaps < 0 || req.MaxLaps > api.MaxLaps {
		return r, fmt.Errorf("maxLaps %d out of range (1 to %d)", req.MaxLaps, api.MaxLaps)
	}
	if req.MaxLaps > 0 {
		r.MaxLaps = req.MaxLaps
	}
	return r, r.Validate()
}

// replay returns the game from the request's position after its moves,
// and how each move sowed.
func replay(req request) (*rules.Game, []rules.Sowing, error) {
	r, err := ruleSet(req)
	if err != nil {
		return nil, nil, err
	}
	start, err := rules.ParsePosition(req.Position)
	if err != nil {
		return nil, nil, fmt.Errorf("position: %w", err)
	}
	if len(req.Moves) > record.MaxMoves {
		return nil, nil, fmt.Errorf("%d moves: at most %d", len(req.Moves), record.MaxMoves)
	}
	g, err := rules.NewGame(start, r)
	if err != nil {
		return nil, nil, err
	}
	sowings := make([]rules.Sowing, 0, len(req.Moves)+1)
	for i, s := range req.Moves {
		sw, err := playMove(g, s)
		if err != nil {
			return nil, nil, fmt.Errorf("move %d: %w", i+1, err)
		}
		sowings = append(sowings, sw)
	}
	return g, sowings, nil
}

func playMove(g *rules.Game, s string) (rules.Sowing, error) {
	m, err := rules.ParseMove(s)
	if err != nil {
		return rules.Sowing{}, err
	}
	if g.Over() {
		return rules.Sowing{}, fmt.Errorf("move %s: %w", m, rules.ErrGameOver)
	}
	if err := checkMove(g.Position(), m, g.Rules()); err != nil {
		return rules.Sowing{}, err
	}
	return g.PlayTraced(m)
}

// checkMove explains an illegal move in the words the server uses.
func checkMove(p rules.Position, m rules.Move, r rules.Rules) error {
	if _, err := p.Play(m, r); err != nil {
		return errors.New(rules.DescribeMoveError(p, m, err))
	}
	return nil
}

func playOne(req request) (playView, error) {
	g, sowings, err := replay(req)
	if err != nil {
		return playView{}, err
	}
	sw, err := playMove(g, req.Move)
	if err != nil {
		return playView{}, err
	}
	sowings = append(sowings, sw)
	return playView{Game: gameview.NewBoard(g, sowings), Sowing: gameview.NewSowing(sw)}, nil
}

func (h *handler) engine(r rules.Rules, book bool) (*engine.Engine, error) {
	k := engineKey{rules: r.Canonical(), book: book}
	if e := h.engines[k]; e != nil {
		e.NewGame()
		return e, nil
	}
	e, err := engine.New(engine.Config{Rules: k.rules, HashMiB: api.SearchHashMiB, Book: book})
	if err != nil {
		return nil, err
	}
	h.engines[k] = e
	return e, nil
}

func (h *handler) search(ctx context.Context, req request) (searchView, error) {
	g, _, err := replay(req)
	if err != nil {
		return searchView{}, err
	}
	if g.Over() {
		return searchView{}, fmt.Errorf("search: %w", rules.ErrGameOver)
	}
	var res engine.Result
	if req.Level != 0 {
		if req.Depth != 0 || req.TimeMs != 0 || req.Nodes != 0 {
			return searchView{}, errors.New("search: a level or limits, not both")
		}
		if res, err = h.levelSearch(ctx, g, req.Level, req.Seed); err != nil {
			return searchView{}, err
		}
	} else {
		lim := engine.Limits{Depth: req.Depth, MoveTime: time.Duration(req.TimeMs) * time.Millisecond, Nodes: req.Nodes}
		switch {
		case lim.Depth < 0 || lim.Depth > engine.MaxDepth:
			return searchView{}, fmt.Errorf("search: depth %d out of range (1 to %d)", lim.Depth, engine.MaxDepth)
		case lim.MoveTime < 0 || lim.MoveTime > maxMoveTime:
			return searchView{}, fmt.Errorf("search: timeMs %d out of range (1 to %d)", req.TimeMs, maxMoveTime.Milliseconds())
		case lim == engine.Limits{}:
			return searchView{}, errors.New("search: a level, a depth, a time or nodes")
		}
		e, err := h.engine(g.Rules(), req.Book)
		if err != nil {
			return searchView{}, err
		}
		res, err = e.Search(ctx, g.Position(), g.History(), lim, nil)
		if err != nil {
			return searchView{}, err
		}
	}
	v := searchView{
		Score: res.Score.Seeds(), Exact: res.Exact, Final: rules.FinalMargin(g.Position(), res.Score.Seeds(), 1), Depth: res.Depth, Nodes: res.Nodes,
		ElapsedMs: float64(res.Elapsed.Microseconds()) / 1000, PV: []string{},
	}
	if res.Move != rules.NoMove {
		v.Move = res.Move.String()
	}
	for _, m := range res.PV {
		v.PV = append(v.PV, m.String())
	}
	return v, nil
}

// levelSearch is the computer's move at level in game g, as this module
// plays it: the server's levels, but for the deepest ones' time caps
// (browserLevels); seed is the noise of the weakest levels (0: a random
// one).
func (h *handler) levelSearch(ctx context.Context, g *rules.Game, level int, seed uint64) (engine.Result, error) {
	if _, err := engine.Level(level); err != nil {
		return engine.Result{}, err
	}
	e, err := h.engine(g.Rules(), level >= api.PerfectLevel)
	if err != nil {
		return engine.Result{}, err
	}
	if seed == 0 {
		seed = rand.Uint64()
	}
	if lim, ok := browserLevels[level]; ok {
		return e.Search(ctx, g.Position(), g.History(), lim, nil)
	}
	return e.PlayLevel(ctx, g.Position(), g.History(), level, rand.New(rand.NewPCG(seed, seed)))
}

func perft(req request) (perftView, error) {
	g, _, err := replay(req)
	if err != nil {
		return perftView{}, err
	}
	if req.Depth < 1 || req.Depth > maxPerftDepth {
		return perftView{}, fmt.Errorf("perft: depth %d out of range (1 to %d)", req.Depth, maxPerftDepth)
	}
	counts := make([]uint64, req.Depth+1)
	rules.PerftCounts(g.Position(), g.Rules(), counts)
	return perftView{Counts: counts[1:]}, nil
}
