package server

// The lobby (docs/api.md): open seeks, the quick-pairing pools and the
// games they make. Challenges, blocks and reports are in challenges.go,
// the lobby's live connection, its notices to the other instances and its
// sweeps in lobbylive.go. A game made in the lobby has both seats owned
// by the players' accounts, stored in the same transaction as the game
// and the removal of what it took (store.Pairing): of two players
// accepting one seek at once, on one instance or two, one makes the game
// and the other is told the seek has gone.

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// Limits of the lobby.
const (
	// MaxOpenSeeks is how many open seeks an account may have at once.
	MaxOpenSeeks = 3
	// MaxIncomingChallenges is how many challenges may wait for one
	// player's answer; MaxOutgoingChallenges for one challenger's.
	MaxIncomingChallenges = 20
	MaxOutgoingChallenges = 10
	// MaxBlocks is how many players an account may block.
	MaxBlocks = 500
	// LobbyCreationsPerHour is how many seeks, challenges and reports a
	// client may make an hour, refilled steadily.
	LobbyCreationsPerHour = 120
	// MaxRating bounds a seek's rating range.
	MaxRating = 4000
	// maxLobbySeeks bounds the seeks a lobby listing shows.
	maxLobbySeeks = 500
	// defaultRating is the rating of a player without one in a category.
	defaultRating = 1500
)

// Pool is a quick-pairing pool: 8 holes, 4 seeds, one time control.
type Pool struct {
	ID    string
	Clock game.Clock
}

// Pools are the lobby's pools.
var Pools = func() []Pool {
	var out []Pool
	for _, c := range []struct{ minutes, inc, days int }{{1, 0, 0}, {3, 2, 0}, {5, 3, 0}, {10, 5, 0}, {0, 0, 3}} {
		clock, _ := play.Clock(c.minutes, c.inc, c.days) // fixed values: they are valid
		id := fmt.Sprintf("8-%d+%d", c.minutes, c.inc)
		if c.days > 0 {
			id = fmt.Sprintf("8-%dd", c.days)
		}
		out = append(out, Pool{ID: id, Clock: clock})
	}
	return out
}()

const (
	poolHoles = 8
	poolSeeds = 4
)

func poolByID(id string) (Pool, bool) {
	for _, p := range Pools {
		if p.ID == id {
			return p, true
		}
	}
	return Pool{}, false
}

// categoryOf is the rating category of a game on holes with clock c.
func categoryOf(holes int, c game.Clock) string {
	return ratings.Category(holes, c)
}

// playerView is a player as the lobby shows it.
type playerView struct {
	Name        string   `json:"name"`
	Rating      *float64 `json:"rating"`
	Provisional bool     `json:"provisional"`
	Bot         bool     `json:"bot"`
}

type seekView struct {
	ID       string       `json:"id"`
	By       playerView   `json:"by"`
	Holes    int          `json:"holes"`
	Seeds    int          `json:"seeds"`
	Variant  string       `json:"variant"`
	Clock    clockRequest `json:"clock"`
	Rated    bool         `json:"rated"`
	Range    *[2]int      `json:"range"`
	Category string       `json:"category"`
	Created  time.Time    `json:"created"`
	Mine     bool         `json:"mine"`
}

type poolView struct {
	ID       string       `json:"id"`
	Holes    int          `json:"holes"`
	Seeds    int          `json:"seeds"`
	Clock    clockRequest `json:"clock"`
	Category string       `json:"category"`
	Waiting  int          `json:"waiting"`
	Mine     bool         `json:"mine"`
}

// lobbyClock is a clock as the lobby shows it: every field, zero when
// unused.
func lobbyClock(c game.Clock) clockRequest {
	if v := clockView(c); v != nil {
		return *v
	}
	return clockRequest{}
}

// ratingInfo is a player's rating in a category, as the lobby uses it.
type ratingInfo struct {
	rating      float64
	known       bool // false: no rating yet, counted as defaultRating
	provisional bool
}

// ratingsIn returns the ratings in category of the accounts ids; a
// player without one, or a store without ratings, counts as
// defaultRating.
func (s *Server) ratingsIn(ctx context.Context, category string, ids []string) map[string]ratingInfo {
	out := make(map[string]ratingInfo, len(ids))
	for _, id := range ids {
		out[id] = ratingInfo{rating: defaultRating, provisional: true}
	}
	rs, err := s.store.RatingsOf(ctx, category, ids)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.Warn("reading ratings for the lobby", "category", category, "err", err)
		}
		return out
	}
	params, now := ratings.Params(), time.Now()
	for id, r := range rs {
		out[id] = ratingInfo{rating: r.Rating, known: true, provisional: params.Provisional(r, now)}
	}
	return out
}

// newPlayerView is player p as the lobby shows them, with their rating
// ri: a new player's, provisional, for one without a rating.
func newPlayerView(p store.Player, ri ratingInfo) playerView {
	r := float64(shown(ri.rating))
	return playerView{Name: p.Name, Bot: p.Bot, Rating: &r, Provisional: ri.provisional || !ri.known}
}

func newSeekView(sk store.Seek, ri ratingInfo, me string) seekView {
	v := seekView{ID: sk.ID, By: newPlayerView(sk.Owner, ri), Holes: sk.Holes, Seeds: sk.Seeds,
		Variant: sk.Variant.String(), Clock: lobbyClock(sk.Clock), Rated: sk.Rated,
		Category: categoryOf(sk.Holes, sk.Clock), Created: sk.Created, Mine: me != "" && sk.Owner.ID == me}
	if sk.MinRating > 0 || sk.MaxRating > 0 {
		v.Range = &[2]int{sk.MinRating, sk.MaxRating}
	}
	return v
}

// seekViews are the views of seeks for account me ("" for nobody), each
// with its owner's rating in its category.
func (s *Server) seekViews(ctx context.Context, seeks []store.Seek, me string) []seekView {
	byCategory := map[string][]string{}
	for _, sk := range seeks {
		c := categoryOf(sk.Holes, sk.Clock)
		byCategory[c] = append(byCategory[c], sk.Owner.ID)
	}
	ratings := map[string]map[string]ratingInfo{}
	for c, ids := range byCategory {
		ratings[c] = s.ratingsIn(ctx, c, ids)
	}
	out := make([]seekView, 0, len(seeks))
	for _, sk := range seeks {
		out = append(out, newSeekView(sk, ratings[categoryOf(sk.Holes, sk.Clock)][sk.Owner.ID], me))
	}
	return out
}

// poolViews are the pools as account me sees them, from the places in
// them (the seeks with a pool).
func poolViews(places []store.Seek, me string) []poolView {
	waiting, mine := map[string]int{}, map[string]bool{}
	for _, sk := range places {
		if sk.Pool == "" {
			continue
		}
		waiting[sk.Pool]++
		if me != "" && sk.Owner.ID == me {
			mine[sk.Pool] = true
		}
	}
	out := make([]poolView, 0, len(Pools))
	for _, p := range Pools {
		out = append(out, poolView{ID: p.ID, Holes: poolHoles, Seeds: poolSeeds, Clock: lobbyClock(p.Clock),
			Category: categoryOf(poolHoles, p.Clock), Waiting: waiting[p.ID], Mine: mine[p.ID]})
	}
	return out
}

// lobbyState is the whole lobby as account me ("" for nobody) sees it:
// GET /api/lobby, and the first message of the lobby's live connection.
func (s *Server) lobbyState(ctx context.Context, me string) (map[string]any, error) {
	all, err := s.store.Seeks(ctx)
	if err != nil {
		return nil, err
	}
	var seeks []store.Seek
	for _, sk := range all {
		if sk.Pool == "" {
			seeks = append(seeks, sk)
		}
	}
	if len(seeks) > maxLobbySeeks {
		seeks = seeks[len(seeks)-maxLobbySeeks:]
	}
	out := map[string]any{"seeks": s.seekViews(ctx, seeks, me), "pools": poolViews(all, me)}
	if me != "" {
		in, outgoing, err := s.store.LobbyChallenges(ctx, me)
		if err != nil {
			return nil, err
		}
		out["challenges"] = map[string]any{"incoming": s.challengeViews(ctx, in), "outgoing": s.challengeViews(ctx, outgoing)}
	}
	return out, nil
}

// getLobby answers GET /api/lobby: anyone may look.
func (s *Server) getLobby(w http.ResponseWriter, r *http.Request) {
	me := ""
	if mayAsk(r) {
		if a, err := s.asker(r); err == nil {
			me = a.ID
		}
	}
	state, err := s.lobbyState(r.Context(), me)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, state)
}

// gameSettings are the settings of a game asked for in the lobby.
type gameSettings struct {
	Holes     int    `json:"holes"` // default 8
	Seeds     int    `json:"seeds"` // default 4
	Variant   string `json:"variant"`
	Minutes   int    `json:"minutes"`
	Increment int    `json:"increment"`
	Days      int    `json:"days"`
	Rated     bool   `json:"rated"`
}

// check reads the settings as a new game's creation does, and returns the
// game's rules and clock.
func (gs *gameSettings) check() (holes, seeds int, variant rules.Variant, clock game.Clock, err error) {
	holes, seeds = cmp(gs.Holes, rules.DefaultHoles), cmp(gs.Seeds, rules.DefaultStartSeeds)
	if _, err = rules.NewPosition(holes, seeds); err != nil {
		return 0, 0, 0, clock, errorf(http.StatusBadRequest, "%v", err)
	}
	if gs.Variant != "" {
		if variant, err = rules.ParseVariant(gs.Variant); err != nil {
			return 0, 0, 0, clock, errorf(http.StatusBadRequest, "%v", err)
		}
	}
	if clock, err = play.Clock(gs.Minutes, gs.Increment, gs.Days); err != nil {
		return 0, 0, 0, clock, err
	}
	return holes, seeds, variant, clock, nil
}

// seekRequest is the body of POST /api/lobby/seeks.
type seekRequest struct {
	gameSettings
	MinRating int `json:"min_rating"` // 0: no bound
	MaxRating int `json:"max_rating"`
}

// lobbyLimited wraps the lobby's creations with the client's creations
// an hour; clients on this machine are not limited (limitedClient).
func (s *Server) lobbyLimited(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if client := clientOf(r, s.trustProxy); limitedClient(client) {
			if ok, wait := s.lobby.creations.allow(client, time.Now()); !ok {
				s.fail(w, r, tooMany(wait, "too many seeks, challenges and reports from your address (at most %d an hour); try again in %s",
					LobbyCreationsPerHour, waitText(wait)))
				return
			}
		}
		h(w, r)
	}
}

// lobbyProblem maps the store's lobby answers to the API's.
func lobbyProblem(err error, taken string) error {
	switch {
	case errors.Is(err, store.ErrBlocked):
		return errorf(http.StatusForbidden, "this player does not take challenges from you")
	case errors.Is(err, store.ErrLimit):
		return tooMany(time.Minute, "%s", limitText(err))
	case errors.Is(err, store.ErrConflict) && taken != "":
		return errorf(http.StatusConflict, "%s", taken)
	}
	return err
}

// limitText is the message of an ErrLimit, without the sentinel's words.
func limitText(err error) string {
	msg := err.Error()
	if i := len(msg) - len(store.ErrLimit.Error()) - 2; i > 0 {
		return msg[:i]
	}
	return msg
}

func (s *Server) postSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	var req seekRequest
	if err := decode(w, r, &req, false); err != nil {
		s.fail(w, r, err)
		return
	}
	holes, seeds, variant, clock, err := req.check()
	if err == nil {
		err = checkRange(req.MinRating, req.MaxRating)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	sk := &store.Seek{ID: newID(), Owner: store.Player{ID: a.ID, Name: a.Name, Bot: a.Kind == store.AccountBot},
		Holes: holes, Seeds: seeds, Variant: variant, Clock: clock, Rated: req.Rated,
		MinRating: req.MinRating, MaxRating: req.MaxRating, Created: time.Now().UTC().Truncate(time.Millisecond)}
	ctx := r.Context()
	ri := s.ratingsIn(ctx, categoryOf(holes, clock), []string{a.ID})[a.ID]
	v := newSeekView(*sk, ri, "")
	outs := []lobbyOut{{Seek: &v, Owner: a.ID}}
	if err := s.store.AddSeek(ctx, sk, MaxOpenSeeks, s.lobbyNoticeText(outs)); err != nil {
		s.fail(w, r, lobbyProblem(err, ""))
		return
	}
	s.lobbyDeliver(outs)
	v.Mine = true
	writeJSON(w, http.StatusCreated, map[string]any{"seek": v})
}

// checkRange checks a seek's rating range: each bound 0 (none) or up to
// MaxRating, the lower not above the upper.
func checkRange(lo, hi int) error {
	switch {
	case lo < 0 || lo > MaxRating || hi < 0 || hi > MaxRating:
		return errorf(http.StatusBadRequest, "min_rating and max_rating: want 0 (no bound) to %d", MaxRating)
	case lo > 0 && hi > 0 && lo > hi:
		return errorf(http.StatusBadRequest, "min_rating %d is above max_rating %d", lo, hi)
	}
	return nil
}

// seekID reads the seek named in the path.
func seekID(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !store.ValidID(id) {
		return "", errorf(http.StatusNotFound, "no seek %q", clip(id))
	}
	return id, nil
}

func (s *Server) cancelSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	id, err := seekID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	outs := []lobbyOut{{Msg: mustMarshal(map[string]any{"type": "unseek", "id": id})}}
	if err := s.store.DeleteSeek(r.Context(), id, a.ID, s.lobbyNoticeText(outs)); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			err = errorf(http.StatusNotFound, "you have no seek %s", id)
		}
		s.fail(w, r, err)
		return
	}
	s.lobbyDeliver(outs)
	writeJSON(w, http.StatusOK, map[string]any{})
}

func (s *Server) acceptSeek(w http.ResponseWriter, r *http.Request, a *store.Account) {
	id, err := seekID(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	ctx := r.Context()
	sk, err := s.store.Seek(ctx, id)
	if err == nil && sk.Pool != "" {
		err = store.ErrNotFound
	}
	if errors.Is(err, store.ErrNotFound) {
		err = errorf(http.StatusNotFound, "no seek %s: it has been taken or withdrawn", id)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if sk.Owner.ID == a.ID {
		s.fail(w, r, errorf(http.StatusConflict, "this is your own seek"))
		return
	}
	if blocked, err := s.store.Blocked(ctx, a.ID, sk.Owner.ID); err != nil || blocked {
		if err == nil {
			err = errorf(http.StatusForbidden, "you cannot play this player")
		}
		s.fail(w, r, err)
		return
	}
	if sk.MinRating > 0 || sk.MaxRating > 0 {
		ri := s.ratingsIn(ctx, categoryOf(sk.Holes, sk.Clock), []string{a.ID})[a.ID]
		if sk.MinRating > 0 && ri.rating < float64(sk.MinRating) || sk.MaxRating > 0 && ri.rating > float64(sk.MaxRating) {
			s.fail(w, r, errorf(http.StatusForbidden, "your rating (%.0f) is outside this seek's range", ri.rating))
			return
		}
	}
	seeker := rules.Side(newRand().IntN(2))
	var owners [2]store.Player
	owners[seeker] = sk.Owner
	owners[seeker.Opponent()] = store.Player{ID: a.ID, Name: a.Name, Bot: a.Kind == store.AccountBot}
	pm := pairing{holes: sk.Holes, seeds: sk.Seeds, variant: sk.Variant, clock: sk.Clock, rated: sk.Rated,
		players: owners, seeks: []string{sk.ID}}
	pm.outs = []lobbyOut{{Msg: mustMarshal(map[string]any{"type": "unseek", "id": sk.ID})}}
	gameID, err := s.pair(ctx, &pm)
	if err != nil {
		s.fail(w, r, lobbyProblem(err, "this seek has been taken or withdrawn"))
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{"game": gameID, "side": string(seeker.Opponent().Letter())})
}

// pairing is a game to make in the lobby.
type pairing struct {
	holes, seeds int
	variant      rules.Variant
	clock        game.Clock
	rated        bool
	players      [2]store.Player // by side
	seeks        []string        // the seeks and pool places it takes
	challenge    string          // the challenge it takes, or ""
	outs         []lobbyOut      // what the lobby is told besides each player's "paired"
}

// pair makes the game of p, with its players' seats owned by their
// accounts, in one transaction with the removal of what it takes; then
// tells the lobby. It returns the game's ID.
func (s *Server) pair(ctx context.Context, p *pairing) (string, error) {
	g, err := play.Paired([2]string{p.players[rules.South].Name, p.players[rules.North].Name}, p.holes, p.seeds,
		rules.Rules{Variant: p.variant}, p.clock, p.rated)
	if err != nil {
		return "", err
	}
	// The game's ID is the store's to give; the notice, written before,
	// names it: the store takes it as set.
	g.ID = newID()
	outs := append([]lobbyOut{}, p.outs...)
	for _, side := range []rules.Side{rules.South, rules.North} {
		outs = append(outs, lobbyOut{To: p.players[side].ID,
			Msg: mustMarshal(map[string]any{"type": "paired", "game": g.ID, "side": string(side.Letter())})})
	}
	pr := &store.Pairing{Game: g, Owners: [2]string{p.players[rules.South].ID, p.players[rules.North].ID},
		Seeks: p.seeks, Challenge: p.challenge, Notice: s.lobbyNoticeText(outs)}
	if err := s.store.Pair(ctx, pr); err != nil {
		return "", err
	}
	s.log.Info("lobby pairing", "game", g.ID, "rated", g.Rated)
	s.lobbyDeliver(outs)
	return g.ID, nil
}

// poolRequest is the body of POST /api/lobby/pools/{id}/join.
type poolRequest struct {
	Rated bool `json:"rated"`
}

func (s *Server) joinPool(w http.ResponseWriter, r *http.Request, a *store.Account) {
	p, ok := poolByID(r.PathValue("id"))
	if !ok {
		s.fail(w, r, errorf(http.StatusNotFound, "no pool %q", clip(r.PathValue("id"))))
		return
	}
	var req poolRequest
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	if a.Kind == store.AccountBot {
		s.fail(w, r, errorf(http.StatusForbidden, "bots do not enter the pools: post a seek instead"))
		return
	}
	sk := &store.Seek{ID: newID(), Owner: store.Player{ID: a.ID, Name: a.Name}, Pool: p.ID, Holes: poolHoles,
		Seeds: poolSeeds, Clock: p.Clock, Rated: req.Rated}
	outs := []lobbyOut{{Pools: true}}
	if err := s.store.AddSeek(r.Context(), sk, MaxOpenSeeks, s.lobbyNoticeText(outs)); err != nil {
		if errors.Is(err, store.ErrExists) {
			err = errorf(http.StatusConflict, "you are in this pool already")
		}
		s.fail(w, r, err)
		return
	}
	s.lobbyDeliver(outs)
	s.lobby.kickMatcher()
	writeJSON(w, http.StatusOK, map[string]any{"pool": p.ID, "waiting": true})
}

func (s *Server) leavePool(w http.ResponseWriter, r *http.Request, a *store.Account) {
	p, ok := poolByID(r.PathValue("id"))
	if !ok {
		s.fail(w, r, errorf(http.StatusNotFound, "no pool %q", clip(r.PathValue("id"))))
		return
	}
	all, err := s.store.Seeks(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	outs := []lobbyOut{{Pools: true}}
	for _, sk := range all {
		if sk.Pool == p.ID && sk.Owner.ID == a.ID {
			err := s.store.DeleteSeek(r.Context(), sk.ID, a.ID, s.lobbyNoticeText(outs))
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				s.fail(w, r, err)
				return
			}
			s.lobbyDeliver(outs)
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{})
}

// Pool pairing: the gap in rating two waiting players accept grows with
// the time each has waited.
const (
	poolGapStart  = 100 // rating points at once
	poolGapGrowth = 50  // more points each second waited
)

func poolGap(waited time.Duration) float64 {
	return poolGapStart + poolGapGrowth*max(0, waited.Seconds())
}

// poolPairs chooses the pairs to make among the places waiting in one
// pool at now, each place at most once: the longest waiting first, each
// with the nearest in rating among those it and they accept (poolGap),
// rated with rated, never an account with itself or two players of whom
// one blocks the other.
func poolPairs(places []store.Seek, ratings map[string]ratingInfo, now time.Time, blocked func(a, b string) bool) [][2]int {
	order := make([]int, len(places))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return places[order[i]].Created.Before(places[order[j]].Created) })
	used := make([]bool, len(places))
	var pairs [][2]int
	for k, i := range order {
		if used[i] {
			continue
		}
		a := places[i]
		ra := ratings[a.Owner.ID].rating
		best, bestGap := -1, 0.0
		for _, j := range order[k+1:] {
			b := places[j]
			if used[j] || b.Rated != a.Rated || b.Owner.ID == a.Owner.ID {
				continue
			}
			gap := abs(ra - ratings[b.Owner.ID].rating)
			if gap > poolGap(now.Sub(a.Created)) || gap > poolGap(now.Sub(b.Created)) || best >= 0 && gap >= bestGap {
				continue
			}
			if blocked(a.Owner.ID, b.Owner.ID) {
				continue
			}
			best, bestGap = j, gap
		}
		if best >= 0 {
			used[i], used[best] = true, true
			pairs = append(pairs, [2]int{i, best})
		}
	}
	return pairs
}

// matchPools pairs the players waiting in the pools who accept each
// other (poolPairs). Every instance does this; the store settles races
// between them: a pair one of whose places another instance took is
// refused, and its other player waits for the next round.
func (s *Server) matchPools(ctx context.Context) {
	all, err := s.store.Seeks(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("reading the pools", "err", err)
		}
		return
	}
	byPool := map[string][]store.Seek{}
	for _, sk := range all {
		if sk.Pool != "" {
			byPool[sk.Pool] = append(byPool[sk.Pool], sk)
		}
	}
	now := time.Now()
	blocked := func(a, b string) bool {
		bl, err := s.store.Blocked(ctx, a, b)
		return err != nil || bl // unknown counts as blocked: try again next round
	}
	for _, p := range Pools {
		places := byPool[p.ID]
		if len(places) < 2 {
			continue
		}
		ids := make([]string, len(places))
		for i, sk := range places {
			ids[i] = sk.Owner.ID
		}
		ratings := s.ratingsIn(ctx, categoryOf(poolHoles, p.Clock), ids)
		pairs := poolPairs(places, ratings, now, blocked)
		// The pairs are disjoint: they are made several at once. Every
		// instance chooses the same pairs from the same places, so each
		// starts at a place of its own in the list, and they meet (and
		// conflict) only where their shares overlap.
		rng := newRand()
		from := 0
		if len(pairs) > 0 {
			from = rng.IntN(len(pairs))
		}
		var wg sync.WaitGroup
		gate := make(chan struct{}, poolPairsAtOnce)
		for i := range pairs {
			pr := pairs[(from+i)%len(pairs)]
			a, b := places[pr[0]], places[pr[1]]
			first := rules.Side(rng.IntN(2))
			var players [2]store.Player
			players[first], players[first.Opponent()] = a.Owner, b.Owner
			pm := pairing{holes: poolHoles, seeds: poolSeeds, clock: p.Clock, rated: a.Rated, players: players,
				seeks: []string{a.ID, b.ID}, outs: []lobbyOut{{Pools: true}}}
			gate <- struct{}{}
			wg.Go(func() {
				defer func() { <-gate }()
				if _, err := s.pair(ctx, &pm); err != nil && !errors.Is(err, store.ErrConflict) &&
					!errors.Is(err, store.ErrNotFound) && ctx.Err() == nil {
					s.log.Warn("pairing in a pool", "pool", p.ID, "err", err)
				}
			})
		}
		wg.Wait()
	}
}

// poolPairsAtOnce is how many of a round's pairings are made at once: each
// is a transaction, mostly waiting on the database.
const poolPairsAtOnce = 8

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
