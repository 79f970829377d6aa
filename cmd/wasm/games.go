package main

// The games played on this device when the server cannot be reached, or
// when there is none: the API's answers for them (docs/api.md), made by
// package play over a store in memory, exactly as the server makes its
// own. The page keeps the games in IndexedDB: each answer carries the
// records it changed ("saved"), which the worker stores before the page
// sees the answer, and the worker hands them back at start ("keep").

import (
	"context"
	crand "crypto/rand"
	"encoding/hex"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/engine"
	"github.com/endodoi/endodoi/internal/clock"
	"github.com/endodoi/endodoi/internal/gameview"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/play/memory"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
)

// localPrefix starts the ID of every game of this device, so that the page
// knows which requests are this module's to answer.
const localPrefix = "local-"

// deviceGame is a game of this device as IndexedDB keeps it: the form the
// page has always kept, so that games kept by an earlier version play on.
type deviceGame struct {
	ID       string        `json:"id"`
	Key      string        `json:"key"` // the game's own import key, sent in its record's Offline tag
	Start    string        `json:"start"`
	Variant  string        `json:"variant"`
	MaxLaps  int           `json:"maxLaps"`
	South    string        `json:"south"`
	North    string        `json:"north"`
	Computer *api.Computer `json:"computer"`
	Moves    []string      `json:"moves"`
	Resigned string        `json:"resigned"` // the side that resigned, "s" or "n", or ""
	Created  time.Time     `json:"created"`
	Updated  time.Time     `json:"updated"`
	// Sent is the server's ID of the game once it holds it, "refused" for
	// a record the server will never take, "" before.
	Sent string `json:"sent"`
}

// refused marks a game the server will not take: kept here, not sent again.
const refused = "refused"

// games are the games of this device.
type games struct {
	store  *memory.Store
	table  *play.Table
	sent   map[string]string // by ID: deviceGame.Sent
	choose func(ctx context.Context, b *rules.Game, level int) (rules.Move, error)
	search func(ctx context.Context, b *rules.Game, lim engine.Limits) (engine.Result, error)
	// changed are the IDs of the games changed by the request being
	// answered.
	changed []string
}

func newGames(choose func(ctx context.Context, b *rules.Game, level int) (rules.Move, error),
	search func(ctx context.Context, b *rules.Game, lim engine.Limits) (engine.Result, error), c clock.Clock) *games {
	st := memory.New()
	st.Clock = c
	st.IDPrefix = localPrefix
	gs := &games{store: st, sent: map[string]string{}, choose: choose, search: search}
	st.Saved = func(g *game.Game) { gs.changed = append(gs.changed, g.ID) }
	gs.table = play.NewTable(st, nil)
	gs.table.Clock = c
	gs.table.ViewLaps = api.MaxViewLaps
	return gs
}

// keptView answers keep: how many games it took, and why it left out
// those it could not read.
type keptView struct {
	Kept    int               `json:"kept"`
	Refused map[string]string `json:"refused,omitempty"`
}

// keep takes back the games the page kept, as they are there now.
func (gs *games) keep(list []deviceGame) keptView {
	var v keptView
	for _, d := range list {
		g, err := d.game()
		if err == nil {
			err = gs.store.Put(g)
		}
		if err != nil {
			if v.Refused == nil {
				v.Refused = map[string]string{}
			}
			v.Refused[d.ID] = err.Error()
			continue
		}
		gs.sent[d.ID] = d.Sent
		gs.table.Forget(d.ID) // as kept there now, not as played here before
		v.Kept++
	}
	return v
}

// game is d as play keeps it.
func (d *deviceGame) game() (*game.Game, error) {
	g := &game.Game{ID: d.ID, South: d.South, North: d.North, ImportKey: d.Key, Created: d.Created, Updated: d.Updated}
	var err error
	if g.Start, err = rules.ParsePosition(d.Start); err != nil {
		return nil, err
	}
	if d.Variant != "" {
		if g.Rules.Variant, err = rules.ParseVariant(d.Variant); err != nil {
			return nil, err
		}
	}
	g.Rules.MaxLaps = d.MaxLaps
	g.Rules = g.Rules.Canonical()
	for _, text := range d.Moves {
		m, err := rules.ParseMove(text)
		if err != nil {
			return nil, err
		}
		g.Moves = append(g.Moves, m)
	}
	if c := d.Computer; c != nil {
		side, err := api.ParseSide(c.Side, "computer side")
		if err != nil {
			return nil, err
		}
		g.Computer = &game.Computer{Side: side, Level: c.Level}
	}
	b, err := rules.NewGame(g.Start, g.Rules)
	if err != nil {
		return nil, err
	}
	for _, m := range g.Moves {
		if err := b.Play(m); err != nil {
			return nil, err
		}
	}
	g.Result = b.Result().Token()
	switch d.Resigned {
	case "s":
		g.Result = rules.NorthWins.Token()
	case "n":
		g.Result = rules.SouthWins.Token()
	}
	return g, nil
}

// deviceGameOf is game g as the page keeps it.
func (gs *games) deviceGameOf(g *play.Game) deviceGame {
	info := g.Info()
	d := deviceGame{ID: info.ID, Key: info.ImportKey, Start: info.Start.String(), Variant: info.Rules.Variant.String(),
		MaxLaps: info.Rules.Laps(), South: info.South, North: info.North, Moves: []string{},
		Created: info.Created, Updated: info.Updated, Sent: gs.sent[info.ID]}
	if c := info.Computer; c != nil {
		d.Computer = &api.Computer{Side: string(c.Side.Letter()), Level: c.Level}
	}
	for _, m := range g.Board().Moves() {
		d.Moves = append(d.Moves, m.String())
	}
	if g.End() == play.EndResign {
		res, _ := rules.ParseResult(g.Result())
		if winner, ok := res.Winner(); ok {
			d.Resigned = string(winner.Opponent().Letter())
		}
	}
	return d
}

// apiRequest is a request of the API for this device's games.
type apiRequest struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Body   string `json:"body"` // the body's text, as it would go to the server
}

// apiAnswer is its answer: a status and a body as the server's, or the
// text of a record; the games the request changed, for the page to keep;
// and NeedsServer, naming what needs the server ("online", "series",
// "review"), for a request only the server can answer.
type apiAnswer struct {
	Status      int          `json:"status"`
	Body        any          `json:"body,omitempty"`
	Text        string       `json:"text,omitempty"`
	Saved       []deviceGame `json:"saved,omitempty"`
	NeedsServer string       `json:"needsServer,omitempty"`
}

// answer answers req as the server would, for the games of this device.
func (gs *games) answer(ctx context.Context, req apiRequest) apiAnswer {
	gs.changed = gs.changed[:0]
	out, err := gs.route(ctx, req)
	if err != nil {
		out = gs.refusal(err)
	}
	for _, id := range slices.Compact(gs.changed) {
		if g, err := gs.table.Load(ctx, id); err == nil {
			out.Saved = append(out.Saved, gs.deviceGameOf(g))
		}
	}
	return out
}

// needsServer is a request that only the server can answer.
type needsServer string

func (n needsServer) Error() string { return "this needs the server: " + string(n) }

// refusal is the answer of a refused request.
func (gs *games) refusal(err error) apiAnswer {
	var ns needsServer
	if errors.As(err, &ns) {
		return apiAnswer{Status: 503, NeedsServer: string(ns), Body: api.ErrorBody{Error: err.Error()}}
	}
	e, ok := api.Problem(err)
	if !ok {
		e = api.Error{Status: api.StatusInternalServerError, Msg: err.Error()}
	}
	return apiAnswer{Status: e.Status, Body: api.ErrorBody{Error: e.Msg}}
}

// route answers the request of the API that req is.
func (gs *games) route(ctx context.Context, req apiRequest) (apiAnswer, error) {
	u, err := url.Parse(req.Path)
	if err != nil {
		return apiAnswer{}, api.Errorf(api.StatusBadRequest, "path %q: %v", play.Clip(req.Path), err)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/") // "api", "games", id, what
	if len(parts) < 2 || parts[0] != "api" || parts[1] != "games" {
		return apiAnswer{}, needsServer("")
	}
	body := []byte(req.Body)
	switch {
	case len(parts) == 2 && req.Method == "POST":
		return gs.create(ctx, body)
	case len(parts) == 2 && req.Method == "GET":
		return gs.list(ctx, u.Query())
	case len(parts) < 3 || !strings.HasPrefix(parts[2], localPrefix):
		return apiAnswer{}, needsServer("")
	}
	id, what := parts[2], ""
	if len(parts) > 3 {
		what = parts[3]
	}
	var out apiAnswer
	err = gs.table.With(ctx, id, func(g *play.Game) error {
		var err error
		out, err = gs.gameRequest(ctx, g, req.Method+" "+what, body, u.Query())
		return err
	})
	return out, err
}

// gameRequest answers request what ("POST moves", ...) on game g.
func (gs *games) gameRequest(ctx context.Context, g *play.Game, what string, body []byte, q url.Values) (apiAnswer, error) {
	switch what {
	case "GET ":
		return gs.view(ctx, g, api.StatusOK)
	case "POST moves":
		var req api.Move
		if err := api.Decode(body, &req, false); err != nil {
			return apiAnswer{}, err
		}
		ch, err := gs.table.Move(ctx, g, play.Device, req.Move, req.Ply)
		if err != nil {
			return apiAnswer{}, err
		}
		return moveAnswer(ch), nil
	case "POST computer":
		var req api.Ply
		if err := api.Decode(body, &req, true); err != nil {
			return apiAnswer{}, err
		}
		ch, err := gs.table.ComputerMove(ctx, g, req.Ply, gs.choose)
		if err != nil {
			return apiAnswer{}, err
		}
		return moveAnswer(ch), nil
	case "POST takeback":
		var req api.Ply
		if err := api.Decode(body, &req, false); err != nil {
			return apiAnswer{}, err
		}
		ch, err := gs.table.Takeback(ctx, g, req.Ply)
		if err != nil {
			return apiAnswer{}, err
		}
		return changeAnswer(ch), nil
	case "POST actions":
		var req api.Action
		if err := api.Decode(body, &req, false); err != nil {
			return apiAnswer{}, err
		}
		ch, err := gs.table.Act(ctx, g, play.Device, req.Action, req.Ply)
		if err != nil {
			return apiAnswer{}, err
		}
		return changeAnswer(ch), nil
	case "GET record":
		return gs.record(g, q.Get("format"))
	case "GET hint":
		return gs.hint(ctx, g)
	}
	return apiAnswer{}, needsServer("review")
}

func moveAnswer(ch play.Change) apiAnswer {
	return apiAnswer{Status: api.StatusOK, Body: api.MoveAnswer{Game: api.NewGameView(&ch.State), Sowing: gameview.NewSowing(*ch.Sowing)}}
}

func changeAnswer(ch play.Change) apiAnswer {
	return apiAnswer{Status: api.StatusOK, Body: api.NewGameView(&ch.State)}
}

// hint answers with the engine's best move for the side to move, found
// as the server finds it.
func (gs *games) hint(ctx context.Context, g *play.Game) (apiAnswer, error) {
	if err := g.CanHint(); err != nil {
		return apiAnswer{}, err
	}
	b := g.Board()
	res, err := gs.search(ctx, b, api.HintLimits)
	if err != nil {
		return apiAnswer{}, err
	}
	return apiAnswer{Status: api.StatusOK, Body: api.NewLine(b.Position(), res.Move, res.Score, res.Exact, res.PV)}, nil
}

// view answers with game g as it stands.
func (gs *games) view(ctx context.Context, g *play.Game, status int) (apiAnswer, error) {
	st, err := gs.table.State(ctx, g)
	if err != nil {
		return apiAnswer{}, err
	}
	return apiAnswer{Status: status, Body: api.NewGameView(&st)}, nil
}

// create makes a new game of this device; an online game or a series
// needs the server.
func (gs *games) create(ctx context.Context, body []byte) (apiAnswer, error) {
	var req api.NewGame
	if err := api.Decode(body, &req, true); err != nil {
		return apiAnswer{}, err
	}
	sg, err := req.Game()
	switch {
	case err != nil:
		return apiAnswer{}, err
	case req.Online:
		return apiAnswer{}, needsServer("online")
	case req.Series != 0:
		return apiAnswer{}, needsServer("series")
	}
	sg.ImportKey = randomHex(16)
	g, _, err := gs.table.Create(ctx, sg, nil, 0)
	if err != nil {
		return apiAnswer{}, err
	}
	return gs.view(ctx, g, api.StatusCreated)
}

// list answers with the games of this device that the server does not
// hold, the most recently changed first.
func (gs *games) list(ctx context.Context, q url.Values) (apiAnswer, error) {
	if q.Has("ids") {
		return apiAnswer{Status: api.StatusOK, Body: map[string][]api.Summary{"games": {}}}, nil // online games: the server's
	}
	limit, err := queryInt(q, "limit", 50, 1, api.MaxListed)
	if err != nil {
		return apiAnswer{}, err
	}
	offset, err := queryInt(q, "offset", 0, 0, 1<<30)
	if err != nil {
		return apiAnswer{}, err
	}
	views := []api.Summary{}
	for _, sm := range gs.store.Games() {
		if s := gs.sent[sm.ID]; s != "" && s != refused {
			continue
		}
		if offset > 0 {
			offset--
			continue
		}
		if len(views) == limit {
			break
		}
		g, err := gs.table.Load(ctx, sm.ID)
		if err != nil {
			return apiAnswer{}, err
		}
		views = append(views, api.FullSummary(sm, g))
	}
	return apiAnswer{Status: api.StatusOK, Body: map[string][]api.Summary{"games": views}}, nil
}

func queryInt(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, api.Errorf(api.StatusBadRequest, "%s=%q: want a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// record answers with game g's record, in the text or the JSON form, with
// its Offline tag: the key that makes the server store it once however
// often it is sent.
func (gs *games) record(g *play.Game, format string) (apiAnswer, error) {
	rec := recordOf(g)
	switch format {
	case "", "text":
		return apiAnswer{Status: api.StatusOK, Text: rec.String()}, nil
	case "json":
		data, err := rec.MarshalJSON()
		if err != nil {
			return apiAnswer{}, err
		}
		return apiAnswer{Status: api.StatusOK, Text: string(data) + "\n"}, nil
	}
	return apiAnswer{}, api.Errorf(api.StatusBadRequest, "format %q: want text or json", play.Clip(format))
}

// recordOf is game g's record with its Offline tag, dated when it was last
// played (the server's import keeps that time).
func recordOf(g *play.Game) *record.Record {
	rec := g.Record()
	rec.Date = g.Info().Updated.UTC().Format("2006-01-02T15:04:05.000Z07:00")
	if key := g.Info().ImportKey; key != "" {
		rec.Extra = append(rec.Extra, record.Tag{Name: "Offline", Value: key})
	}
	return rec
}

// outboxGame is a game to send to the server: its record, and whether it
// is still being played here.
type outboxGame struct {
	ID      string    `json:"id"`
	Updated time.Time `json:"updated"`
	Playing bool      `json:"playing"`
	Record  string    `json:"record"`
}

// outbox lists the games of this device not yet sent, the oldest change
// first.
func (gs *games) outbox(ctx context.Context) ([]outboxGame, error) {
	out := []outboxGame{}
	list := gs.store.Games()
	slices.Reverse(list)
	for _, sm := range list {
		if gs.sent[sm.ID] != "" {
			continue
		}
		g, err := gs.table.Load(ctx, sm.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, outboxGame{ID: sm.ID, Updated: sm.Updated, Playing: !g.Over(), Record: recordOf(g).String()})
	}
	return out, nil
}

// markSent records what the server made of game id: its ID there, or
// refused.
func (gs *games) markSent(ctx context.Context, id, sent string) (apiAnswer, error) {
	g, err := gs.table.Load(ctx, id)
	if err != nil {
		return apiAnswer{}, err
	}
	gs.sent[id] = sent
	return apiAnswer{Status: api.StatusOK, Saved: []deviceGame{gs.deviceGameOf(g)}}, nil
}

// searchBest is the best move in game b within lim, with the proven
// values, as the server's analyses search.
func (h *handler) searchBest(ctx context.Context, b *rules.Game, lim engine.Limits) (engine.Result, error) {
	e, err := h.engine(b.Rules(), true)
	if err != nil {
		return engine.Result{}, err
	}
	return e.Search(ctx, b.Position(), b.History(), lim, nil)
}

// choose is the computer's move at a level as this module plays it.
func (h *handler) choose(ctx context.Context, b *rules.Game, level int) (rules.Move, error) {
	res, err := h.levelSearch(ctx, b, level, 0)
	if err != nil {
		return rules.NoMove, err
	}
	if res.Move == rules.NoMove {
		return rules.NoMove, errors.New("the computer has no legal move")
	}
	return res.Move, nil
}

// randomHex is n random bytes in hexadecimal.
func randomHex(n int) string {
	b := make([]byte, n)
	crand.Read(b)
	return hex.EncodeToString(b)
}
