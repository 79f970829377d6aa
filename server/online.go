package server

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net/http"
	"strings"
	"time"

	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

// How an online game ended when not by the rules of play (store.Online.End).
const (
	endResign  = "resign"
	endTimeout = "timeout"
	endAgreed  = "agreed"
	endAborted = "aborted"
	endExpired = "expired"
)

// IdleExpiry is how long an online game without a running clock may stay
// untouched before it expires.
const IdleExpiry = 30 * 24 * time.Hour

// clockRequest is a time control in a request: minutes for the game plus
// seconds a move, or days for each move.
type clockRequest struct {
	Minutes   int `json:"minutes"`
	Increment int `json:"increment"`
	Days      int `json:"days"`
}

func (c *clockRequest) clock() (store.Clock, error) {
	switch {
	case c == nil:
		return store.Clock{}, nil
	case c.Days != 0:
		if c.Minutes != 0 || c.Increment != 0 {
			return store.Clock{}, errorf(http.StatusBadRequest, "clock: give days, or minutes and increment, not both")
		}
		if c.Days != 1 && c.Days != 3 && c.Days != 7 {
			return store.Clock{}, errorf(http.StatusBadRequest, "clock: %d days a move; want 1, 3 or 7", c.Days)
		}
		return store.Clock{Time: time.Duration(c.Days) * 24 * time.Hour, PerMove: true}, nil
	case c.Minutes < 1 || c.Minutes > 180:
		return store.Clock{}, errorf(http.StatusBadRequest, "clock: %d minutes; want 1 to 180", c.Minutes)
	case c.Increment < 0 || c.Increment > 60:
		return store.Clock{}, errorf(http.StatusBadRequest, "clock: increment of %d seconds; want 0 to 60", c.Increment)
	}
	return store.Clock{Time: time.Duration(c.Minutes) * time.Minute, Increment: time.Duration(c.Increment) * time.Second}, nil
}

// newToken returns a seat's secret (128 random bits) and the hash the
// store keeps of it.
func newToken() (token, hash string) {
	var b [16]byte
	rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, hashToken(token)
}

func hashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newInvite returns an invite code: 60 random bits in lowercase base32.
func newInvite() string {
	var b [8]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:12]
}

func invitePath(code string) string { return "/#/join/" + code }

func watchPath(id string) string { return "/#/play/" + id }

// seatView is a seat given to its holder.
type seatView struct {
	Side  string `json:"side"`
	Token string `json:"token"`
}

// onlineGameRequest reads the online fields of a new game.
func (req *newGameRequest) online(sg *store.Game) (creator rules.Side, err error) {
	switch {
	case req.Computer != nil:
		return 0, errorf(http.StatusBadRequest, "an online game is between two people: no computer")
	case req.South != nil || req.North != nil:
		return 0, errorf(http.StatusBadRequest, "an online game takes the creator's name in name; the other player gives theirs on joining")
	case req.Position != "":
		return 0, errorf(http.StatusBadRequest, "an online game is played from the start: give holes and seeds, not a position")
	}
	clock, err := req.Clock.clock()
	if err != nil {
		return 0, err
	}
	creator, err = sideOrRandom(req.Side, "side")
	if err != nil {
		return 0, err
	}
	name, err := optionalName(req.Name, "the creator")
	if err != nil {
		return 0, errorf(http.StatusBadRequest, "%v", err)
	}
	if creator == rules.South {
		sg.South = name
	} else {
		sg.North = name
	}
	sg.Online = &store.Online{Invite: newInvite(), Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
	return creator, nil
}

// sideOrRandom reads "s", "n" or "random" (or nothing, for South).
func sideOrRandom(v, what string) (rules.Side, error) {
	if v == "random" {
		return rules.Side(mrand.IntN(2)), nil
	}
	if v == "" {
		return rules.South, nil
	}
	return parseSide(v, what)
}

// createOnline stores a new online game and gives its creator a seat.
func (s *Server) createOnline(w http.ResponseWriter, r *http.Request, req *newGameRequest, sg *store.Game) {
	creator, err := req.online(sg)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	token, hash := newToken()
	sg.Online.Seats[creator] = hash
	g, err := rules.NewGame(sg.Start, sg.Rules)
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "%v", err))
		return
	}
	if req.Series > 0 {
		err = s.store.CreateSeriesGame(r.Context(), req.Series, sg)
	} else {
		err = s.store.CreateGame(r.Context(), sg)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.view(r.Context(), &loaded{stored: sg, game: g})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	w.Header().Set("Location", "/api/games/"+sg.ID)
	writeJSON(w, http.StatusCreated, map[string]any{
		"game": v, "seat": seatView{Side: string(creator.Letter()), Token: token}, "invite": invitePath(sg.Online.Invite)})
}

// validInvite reports whether code has the form of an invite code.
func validInvite(code string) bool {
	if len(code) != 12 {
		return false
	}
	for _, c := range code {
		if !('a' <= c && c <= 'z' || '2' <= c && c <= '7') {
			return false
		}
	}
	return true
}

func (s *Server) inviteGame(r *http.Request) (*store.Game, error) {
	code := r.PathValue("code")
	if !validInvite(code) {
		return nil, errorf(http.StatusNotFound, "no invitation %q", clip(code))
	}
	sg, err := s.store.GameByInvite(r.Context(), code)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errorf(http.StatusNotFound, "no invitation %q: check the link", code)
	}
	return sg, err
}

// freeSeat returns the letter of the seat still free, or "".
func freeSeat(o *store.Online) string {
	for _, side := range []rules.Side{rules.South, rules.North} {
		if o.Seats[side] == "" {
			return string(side.Letter())
		}
	}
	return ""
}

func (s *Server) peekInvite(w http.ResponseWriter, r *http.Request) {
	sg, err := s.inviteGame(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"game": sg.ID, "free": freeSeat(sg.Online)})
}

// joinRequest is the body of POST /api/join/{code}.
type joinRequest struct {
	Name *string `json:"name"` // absent or null: no name
}

func (s *Server) join(w http.ResponseWriter, r *http.Request) {
	var req joinRequest
	if err := decode(w, r, &req, true); err != nil {
		s.fail(w, r, err)
		return
	}
	name, err := optionalName(req.Name, "the player")
	if err != nil {
		s.fail(w, r, errorf(http.StatusBadRequest, "%v", err))
		return
	}
	sg, err := s.inviteGame(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	defer s.games.lock(sg.ID)()
	l, err := s.load(r.Context(), sg.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	o := *l.stored.Online
	free := freeSeat(&o)
	if free == "" || s.over(l) {
		v, err := s.view(r.Context(), l)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"game": v, "seat": nil, "watch": watchPath(l.stored.ID)})
		return
	}
	side := rules.South
	if free == "n" {
		side = rules.North
	}
	token, hash := newToken()
	o.Seats[side] = hash
	ch := store.Change{Ply: l.game.Ply(), Rev: o.Rev, From: l.game.Ply(), Result: l.stored.Result, Online: &o,
		Notice: s.noticeOf(l, "join", &o)}
	if name != "" {
		if side == rules.South {
			ch.South = &name
		} else {
			ch.North = &name
		}
	}
	if err := s.store.Update(r.Context(), l.stored.ID, ch); err != nil {
		s.fail(w, r, err)
		return
	}
	l.stored.Online = &o
	if name != "" {
		if side == rules.South {
			l.stored.South = name
		} else {
			l.stored.North = name
		}
	}
	v, err := s.view(r.Context(), l)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	s.publish(l.stored.ID, "join", v, nil)
	writeJSON(w, http.StatusOK, map[string]any{"game": v, "seat": seatView{Side: free, Token: token}})
}

// over reports whether a game has ended, by the rules or otherwise.
func (s *Server) over(l *loaded) bool {
	return l.game.Over() || l.stored.Online != nil && l.stored.Online.End != ""
}

// bearer returns the token of a request's Authorization header.
func bearer(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) > 7 && strings.EqualFold(h[:7], "bearer ") {
		return strings.TrimSpace(h[7:])
	}
	return ""
}

// seatOf says which seat of the loaded online game token holds: 401 for
// no token or one never given, 403 for a token of another game.
func (s *Server) seatOf(ctx context.Context, l *loaded, token string) (rules.Side, error) {
	if token == "" {
		return 0, &apiError{status: http.StatusUnauthorized, msg: "this is an online game: only its players may change it (send the seat's token as Authorization: Bearer <token>)"}
	}
	hash := hashToken(token)
	for _, side := range []rules.Side{rules.South, rules.North} {
		if l.stored.Online.Seats[side] == hash {
			return side, nil
		}
	}
	known, err := s.store.SeatExists(ctx, hash)
	if err != nil {
		return 0, err
	}
	if known {
		return 0, errorf(http.StatusForbidden, "this seat belongs to another game")
	}
	return 0, &apiError{status: http.StatusUnauthorized, msg: "unknown seat token"}
}

// clockNow returns each side's time left at now, and whether the side to
// move has run out of it.
func clockNow(o *store.Online, toMove rules.Side, now time.Time) (left [2]time.Duration, flagged bool) {
	left = o.Left
	if o.TurnStart.IsZero() || o.Clock.Time == 0 {
		return left, false
	}
	left[toMove] -= now.Sub(o.TurnStart)
	if left[toMove] <= 0 {
		left[toMove] = 0
		return left, true
	}
	return left, false
}

// stopClock stops the running clock at now, keeping the time left.
func stopClock(o *store.Online, toMove rules.Side, now time.Time) {
	o.Left, _ = clockNow(o, toMove, now)
	o.TurnStart = time.Time{}
}

// startClock starts the clock of the side to move of a game at ply moves,
// from the third move on.
func startClock(o *store.Online, ply int, now time.Time) {
	if o.Clock.Time > 0 && ply >= 2 && o.End == "" {
		o.TurnStart = now
	} else {
		o.TurnStart = time.Time{}
	}
}

// deadline is when the running clock of game l falls, or zero.
func deadline(l *loaded) time.Time { return clockDeadline(l.stored.Online, l.game) }

// clockDeadline is when the running clock of online state o falls in game
// g, or zero.
func clockDeadline(o *store.Online, g *rules.Game) time.Time {
	if o == nil || o.TurnStart.IsZero() || o.Clock.Time == 0 || o.End != "" || g.Over() {
		return time.Time{}
	}
	return o.TurnStart.Add(o.Left[g.Position().ToMove()])
}

// timeIsUp ends game l if the side to move has run out of time: that side
// loses. It reports whether it did.
func (s *Server) timeIsUp(ctx context.Context, l *loaded, now time.Time) (bool, error) {
	o := l.stored.Online
	if o == nil || s.over(l) {
		return false, nil
	}
	toMove := l.game.Position().ToMove()
	if _, flagged := clockNow(o, toMove, now); !flagged {
		return false, nil
	}
	// The game ended when the flag fell, not when the server noticed.
	fell := o.TurnStart.Add(o.Left[toMove])
	n := *o
	stopClock(&n, toMove, now)
	n.End, n.DrawOffer, n.TakebackOffer = endTimeout, "", ""
	return true, s.saveOnlineAt(ctx, l, &n, rules.WinFor(toMove.Opponent()).Token(), endTimeout, fell)
}

// saveOnline stores a new online state of game l, without a change of
// moves, and tells the game's watchers.
func (s *Server) saveOnline(ctx context.Context, l *loaded, o *store.Online, result, event string) error {
	return s.saveOnlineAt(ctx, l, o, result, event, time.Now())
}

// saveOnlineAt is saveOnline for a change that happened at at: the
// game's updated time, as stored and as told.
func (s *Server) saveOnlineAt(ctx context.Context, l *loaded, o *store.Online, result, event string, at time.Time) error {
	at = at.UTC().Truncate(time.Millisecond)
	ch := store.Change{Ply: l.game.Ply(), Rev: l.stored.Online.Rev, From: l.game.Ply(), Result: result, Online: o, At: at,
		Notice: s.noticeOf(l, event, o)}
	if err := s.store.Update(ctx, l.stored.ID, ch); err != nil {
		return err
	}
	l.stored.Online, l.stored.Result, l.stored.Updated = o, result, at
	s.changed(ctx, l, event, nil)
	return nil
}

// changed tells the game's watchers of a committed change and reschedules
// its clock.
func (s *Server) changed(ctx context.Context, l *loaded, event string, sw *sowingView) {
	s.clocks.watch(s, l)
	if v, err := s.view(ctx, l); err == nil {
		s.publish(l.stored.ID, event, v, sw)
	}
}

// onlineMove plays move m of seat side in online game l.
func (s *Server) onlineMove(ctx context.Context, l *loaded, side rules.Side, m rules.Move, ply *int) (moveView, error) {
	if ply == nil {
		return moveView{}, errorf(http.StatusBadRequest, "give the number of moves you saw, as in {\"move\": \"c\", \"ply\": 12}")
	}
	if err := checkPly(ply, l); err != nil {
		return moveView{}, err
	}
	now := time.Now()
	if up, err := s.timeIsUp(ctx, l, now); up || err != nil {
		if err == nil {
			err = errorf(http.StatusConflict, "%s's time has run out: the game is over", l.game.Position().ToMove())
		}
		return moveView{}, err
	}
	if err := s.onlineOpen(l); err != nil {
		return moveView{}, err
	}
	if o := l.stored.Online; o.Seats[rules.South] == "" || o.Seats[rules.North] == "" {
		return moveView{}, errorf(http.StatusConflict, "waiting for your opponent to join: send them the invitation")
	}
	p := l.game.Position()
	if m.Side() != side {
		return moveView{}, errorf(http.StatusForbidden, "hole %s is %s's: you play %s", m, m.Side(), side)
	}
	if p.ToMove() != side {
		return moveView{}, errorf(http.StatusConflict, "it is %s's move", p.ToMove())
	}
	_, sw, err := p.Trace(m, l.game.Rules())
	if err != nil {
		return moveView{}, errorf(http.StatusUnprocessableEntity, "illegal move %s: %v", m, err)
	}
	had := l.game.Ply()
	if err := l.game.Play(m); err != nil {
		return moveView{}, errorf(http.StatusUnprocessableEntity, "illegal move: %v", err)
	}
	o := *l.stored.Online
	if !o.TurnStart.IsZero() {
		left, _ := clockNow(&o, side, now)
		o.Left[side] = left[side] + o.Clock.Increment
		if o.Clock.PerMove {
			o.Left[side] = o.Clock.Time
		}
	}
	o.DrawOffer, o.TakebackOffer = "", ""
	startClock(&o, l.game.Ply(), now)
	if l.game.Over() {
		o.TurnStart = time.Time{}
	}
	result := l.game.Result().Token()
	ch := store.Change{Ply: had, Rev: l.stored.Online.Rev, From: had, Moves: []rules.Move{m}, Result: result, Online: &o,
		Notice: s.noticeOf(l, "move", &o)}
	if err := s.store.Update(ctx, l.stored.ID, ch); err != nil {
		return moveView{}, err
	}
	l.stored.Online, l.stored.Result = &o, result
	l.stored.Moves = append(l.stored.Moves, m)
	l.stored.Updated = now.UTC()
	sv := newSowingView(sw)
	v, err := s.view(ctx, l)
	if err != nil {
		return moveView{}, err
	}
	s.clocks.watch(s, l)
	s.publish(l.stored.ID, "move", v, &sv)
	return moveView{Game: v, Sowing: sv}, nil
}

// onlineOpen refuses a change of a finished online game.
func (s *Server) onlineOpen(l *loaded) error {
	if o := l.stored.Online; o.End != "" {
		return errorf(http.StatusConflict, "the game is over (%s)", endText(o.End))
	}
	return notOver(l)
}

func endText(end string) string {
	switch end {
	case endResign:
		return "resigned"
	case endTimeout:
		return "lost on time"
	case endAgreed:
		return "drawn by agreement"
	case endAborted:
		return "aborted"
	case endExpired:
		return "expired"
	}
	return end
}

// actionRequest is the body of POST /api/games/{id}/actions.
type actionRequest struct {
	Action string `json:"action"`
	Ply    *int   `json:"ply"`
}

// act carries out an action of seat side in online game l.
func (s *Server) act(ctx context.Context, l *loaded, side rules.Side, action string, ply *int) (gameView, error) {
	if ply == nil {
		return gameView{}, errorf(http.StatusBadRequest, "give the number of moves you saw, as in {\"action\": \"resign\", \"ply\": 12}")
	}
	if err := checkPly(ply, l); err != nil {
		return gameView{}, err
	}
	now := time.Now()
	if up, err := s.timeIsUp(ctx, l, now); up || err != nil {
		if err == nil && action != "rematch" {
			err = errorf(http.StatusConflict, "%s's time has run out: the game is over", l.game.Position().ToMove())
		}
		if err != nil {
			return gameView{}, err
		}
	}
	o := *l.stored.Online
	me, them := string(side.Letter()), string(side.Opponent().Letter())
	toMove := l.game.Position().ToMove()
	result := l.stored.Result
	event := action
	open := s.onlineOpen(l)
	switch action {
	case "resign":
		if open != nil {
			return gameView{}, open
		}
		stopClock(&o, toMove, now)
		o.End, o.DrawOffer, o.TakebackOffer = endResign, "", ""
		result = rules.WinFor(side.Opponent()).Token()
	case "abort":
		if open != nil {
			return gameView{}, open
		}
		if l.game.Ply() >= 2 {
			return gameView{}, errorf(http.StatusConflict, "a game can be aborted only before its second move; resign instead")
		}
		stopClock(&o, toMove, now)
		o.End, o.DrawOffer, o.TakebackOffer = endAborted, "", ""
	case "draw-offer", "takeback-request":
		if open != nil {
			return gameView{}, open
		}
		offer := &o.DrawOffer
		if action == "takeback-request" {
			offer = &o.TakebackOffer
			if takebackPoint(l, side) < 0 {
				return gameView{}, errorf(http.StatusConflict, "you have no move to take back")
			}
		}
		if *offer == me {
			return gameView{}, errorf(http.StatusConflict, "you have made that offer already")
		}
		if *offer == them {
			return gameView{}, errorf(http.StatusConflict, "your opponent has made that offer: accept or decline it")
		}
		*offer = me
	case "draw-accept", "draw-decline", "takeback-accept", "takeback-decline":
		if open != nil {
			return gameView{}, open
		}
		offer := &o.DrawOffer
		if strings.HasPrefix(action, "takeback") {
			offer = &o.TakebackOffer
		}
		if *offer != them {
			return gameView{}, errorf(http.StatusConflict, "there is no offer of your opponent's to answer")
		}
		*offer = ""
		switch action {
		case "draw-accept":
			stopClock(&o, toMove, now)
			o.End, o.TakebackOffer = endAgreed, ""
			result = rules.Draw.Token()
		case "takeback-accept":
			return s.acceptTakeback(ctx, l, &o, side.Opponent(), now)
		}
	case "rematch":
		return s.rematch(ctx, l, &o, side)
	default:
		return gameView{}, errorf(http.StatusBadRequest, "action %q: want resign, abort, draw-offer, draw-accept, draw-decline, takeback-request, takeback-accept, takeback-decline or rematch", clip(action))
	}
	if err := s.saveOnline(ctx, l, &o, result, event); err != nil {
		return gameView{}, err
	}
	return s.view(ctx, l)
}

// takebackPoint is the ply before side's last move, or -1 if side has not
// moved.
func takebackPoint(l *loaded, side rules.Side) int {
	for i := l.game.Ply() - 1; i >= 0; i-- {
		if l.game.PositionAt(i).ToMove() == side {
			return i
		}
	}
	return -1
}

// acceptTakeback takes back the requester's last move, and the reply to
// it, so that it is the requester's move again.
func (s *Server) acceptTakeback(ctx context.Context, l *loaded, o *store.Online, requester rules.Side, now time.Time) (gameView, error) {
	to := takebackPoint(l, requester)
	if to < 0 {
		return gameView{}, errorf(http.StatusConflict, "there is no move to take back")
	}
	stopClock(o, l.game.Position().ToMove(), now)
	had := l.game.Ply()
	for l.game.Ply() > to {
		l.game.Undo()
	}
	o.DrawOffer, o.TakebackOffer = "", ""
	startClock(o, l.game.Ply(), now)
	result := l.game.Result().Token()
	ch := store.Change{Ply: had, Rev: l.stored.Online.Rev, From: to, Result: result, Online: o,
		Notice: s.noticeOf(l, "takeback", o)}
	if err := s.store.Update(ctx, l.stored.ID, ch); err != nil {
		return gameView{}, err
	}
	l.stored.Online, l.stored.Result, l.stored.Moves = o, result, l.stored.Moves[:to]
	s.changed(ctx, l, "takeback", nil)
	return s.view(ctx, l)
}

// rematch starts the next game of a series, or offers or accepts a
// rematch of a single game: the same board, rules, seats and rows, the
// other player moving first.
func (s *Server) rematch(ctx context.Context, l *loaded, o *store.Online, side rules.Side) (gameView, error) {
	if !s.over(l) {
		return gameView{}, errorf(http.StatusConflict, "the game is not over")
	}
	if o.Next != "" {
		return gameView{}, errorf(http.StatusConflict, "the next game has begun: %s", o.Next)
	}
	if o.Seats[rules.South] == "" || o.Seats[rules.North] == "" {
		return gameView{}, errorf(http.StatusConflict, "the other seat was never taken")
	}
	if l.stored.SeriesID == "" && o.RematchOffer != string(side.Opponent().Letter()) {
		if o.RematchOffer == string(side.Letter()) {
			return gameView{}, errorf(http.StatusConflict, "you have offered a rematch already")
		}
		o.RematchOffer = string(side.Letter())
		if err := s.saveOnline(ctx, l, o, l.stored.Result, "rematch-offer"); err != nil {
			return gameView{}, err
		}
		return s.view(ctx, l)
	}
	var next *store.Game
	var err error
	if l.stored.SeriesID != "" {
		next, err = s.next(ctx, l.stored.SeriesID, true)
	} else {
		next = &store.Game{South: l.stored.South, North: l.stored.North, Rules: l.stored.Rules,
			Start: l.stored.Start.WithToMove(l.stored.Start.ToMove().Opponent()), Result: "*"}
	}
	if err != nil {
		return gameView{}, err
	}
	c := o.Clock
	next.Online = &store.Online{Invite: newInvite(), Seats: o.Seats, Clock: c, Left: [2]time.Duration{c.Time, c.Time}}
	o.RematchOffer = ""
	if err := s.startNext(ctx, l, o, next); err != nil {
		return gameView{}, err
	}
	return s.view(ctx, l)
}

// startNext stores game next with the online state o of game l that names
// it, in one transaction: of two requests racing for it (on two
// instances), one starts it and the other is refused with 409, leaving no
// game behind. It tells the game's watchers.
func (s *Server) startNext(ctx context.Context, l *loaded, o *store.Online, next *store.Game) error {
	at := time.Now().UTC().Truncate(time.Millisecond)
	ch := store.Change{Ply: l.game.Ply(), Rev: l.stored.Online.Rev, From: l.game.Ply(), Result: l.stored.Result,
		Online: o, Next: next, At: at, Notice: s.noticeOf(l, "rematch", o)}
	if err := s.store.Update(ctx, l.stored.ID, ch); err != nil {
		if errors.Is(err, store.ErrConflict) {
			if now, lerr := s.load(ctx, l.stored.ID); lerr == nil && now.stored.Online != nil && now.stored.Online.Next != "" {
				return errorf(http.StatusConflict, "the next game has begun: %s", now.stored.Online.Next)
			}
		}
		return err
	}
	l.stored.Online, l.stored.Updated = o, at
	s.changed(ctx, l, "rematch", nil)
	return nil
}

// actions answers POST /api/games/{id}/actions: an action of a seat.
func (s *Server) actions(w http.ResponseWriter, r *http.Request, l *loaded) error {
	if l.stored.Online == nil {
		return s.localAction(w, r, l)
	}
	side, err := s.seatOf(r.Context(), l, bearer(r))
	if err != nil {
		return err
	}
	var req actionRequest
	if err := decode(w, r, &req, false); err != nil {
		return err
	}
	v, err := s.act(r.Context(), l, side, req.Action, req.Ply)
	if err == nil {
		writeJSON(w, http.StatusOK, v)
	}
	return err
}

// onlineView is the online part of a game as the API shows it.
type onlineView struct {
	Seats         sideFlags     `json:"seats"`
	Connected     sideFlags     `json:"connected"`
	Watchers      int           `json:"watchers"`
	Clock         *clockRequest `json:"clock"`
	Clocks        sideMillis    `json:"clocks"`
	Running       string        `json:"running"`
	DrawOffer     string        `json:"drawOffer"`
	TakebackOffer string        `json:"takebackOffer"`
	RematchOffer  string        `json:"rematchOffer"`
	Next          string        `json:"next"`
	End           string        `json:"end"`
	Rev           int64         `json:"rev"`
}

type sideFlags struct {
	South bool `json:"s"`
	North bool `json:"n"`
}

type sideMillis struct {
	South int64 `json:"s"`
	North int64 `json:"n"`
}

func clockView(c store.Clock) *clockRequest {
	switch {
	case c.Time == 0:
		return nil
	case c.PerMove:
		return &clockRequest{Days: int(c.Time / (24 * time.Hour))}
	}
	return &clockRequest{Minutes: int(c.Time / time.Minute), Increment: int(c.Increment / time.Second)}
}

func (s *Server) newOnlineView(l *loaded, now time.Time) *onlineView {
	o := l.stored.Online
	toMove := l.game.Position().ToMove()
	left, _ := clockNow(o, toMove, now)
	v := &onlineView{
		Seats:     sideFlags{o.Seats[rules.South] != "", o.Seats[rules.North] != ""},
		Clock:     clockView(o.Clock),
		Clocks:    sideMillis{left[rules.South].Milliseconds(), left[rules.North].Milliseconds()},
		DrawOffer: o.DrawOffer, TakebackOffer: o.TakebackOffer, RematchOffer: o.RematchOffer,
		Next: o.Next, End: o.End, Rev: o.Rev,
	}
	if !o.TurnStart.IsZero() && o.End == "" && !l.game.Over() {
		v.Running = string(toMove.Letter())
	}
	v.Connected, v.Watchers = s.live.presence(l.stored.ID)
	return v
}

// onlineStatus is the status and result of an online game that ended
// other than by the rules of play.
func onlineStatus(end string) string {
	switch end {
	case endResign:
		return "resigned"
	case endTimeout, endAgreed, endAborted, endExpired:
		return end
	}
	return ""
}

// expire ends an online game nobody touched for IdleExpiry: the side to
// move loses, or the game is aborted when its second seat was never taken.
func (s *Server) expire(ctx context.Context, l *loaded, now time.Time) error {
	o := *l.stored.Online
	if s.over(l) || !o.TurnStart.IsZero() || now.Sub(l.stored.Updated) < IdleExpiry {
		return nil
	}
	result := l.stored.Result
	o.DrawOffer, o.TakebackOffer = "", ""
	if o.Seats[rules.South] == "" || o.Seats[rules.North] == "" {
		o.End = endAborted
	} else {
		o.End = endExpired
		result = rules.WinFor(l.game.Position().ToMove().Opponent()).Token()
	}
	return s.saveOnline(ctx, l, &o, result, endExpired)
}

// terminationTag names how a game ended other than by the rules of play
// (online, or resigned on one device) in its record, whose
// result follows from the moves alone.
func terminationTag(l *loaded) (record.Tag, bool) {
	end := ""
	if o := l.stored.Online; o != nil {
		end = o.End
	} else if resigned(l) {
		end = endResign
	}
	if end == "" {
		return record.Tag{}, false
	}
	text := endText(end)
	if res, err := rules.ParseResult(l.stored.Result); err == nil {
		if side, ok := res.Winner(); ok {
			text += fmt.Sprintf("; %s won", side)
		}
	}
	return record.Tag{Name: "Termination", Value: text}, true
}
