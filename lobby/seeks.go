package lobby

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// Settings are the settings of a game asked for in the lobby, as a seek
// or a challenge gives them.
type Settings struct {
	Holes     int    `json:"holes"` // default 8
	Seeds     int    `json:"seeds"` // default 4
	Variant   string `json:"variant"`
	Minutes   int    `json:"minutes"`
	Increment int    `json:"increment"`
	Days      int    `json:"days"`
	Rated     bool   `json:"rated"`
}

// game reads the settings as a new game's creation does: the board, the
// rules and the clock.
func (s *Settings) game() (holes, seeds int, variant rules.Variant, clock game.Clock, err error) {
	holes, seeds = orDefault(s.Holes, rules.DefaultHoles), orDefault(s.Seeds, rules.DefaultStartSeeds)
	if _, err = rules.NewPosition(holes, seeds); err != nil {
		return 0, 0, 0, clock, errorf(ErrBadRequest, "%v", err)
	}
	if s.Variant != "" {
		if variant, err = rules.ParseVariant(s.Variant); err != nil {
			return 0, 0, 0, clock, errorf(ErrBadRequest, "%v", err)
		}
	}
	if clock, err = play.Clock(s.Minutes, s.Increment, s.Days); err != nil {
		return 0, 0, 0, clock, errorf(ErrBadRequest, "%v", err)
	}
	return holes, seeds, variant, clock, nil
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// SeekRequest is a seek to post: the game's settings and a rating range.
type SeekRequest struct {
	Settings
	MinRating int `json:"min_rating"` // 0: no bound
	MaxRating int `json:"max_rating"`
}

// checkRange checks a seek's rating range: each bound 0 (none) or up to
// MaxRating, the lower not above the upper.
func checkRange(lo, hi int) error {
	switch {
	case lo < 0 || lo > MaxRating || hi < 0 || hi > MaxRating:
		return errorf(ErrBadRequest, "min_rating and max_rating: want 0 (no bound) to %d", MaxRating)
	case lo > 0 && hi > 0 && lo > hi:
		return errorf(ErrBadRequest, "min_rating %d is above max_rating %d", lo, hi)
	}
	return nil
}

// PostSeek posts a seek of player me, within MaxOpenSeeks, and tells the
// lobby; it returns the seek as its owner sees it.
func (l *Lobby) PostSeek(ctx context.Context, me seek.Player, req SeekRequest) (SeekView, error) {
	holes, seeds, variant, clock, err := req.game()
	if err == nil {
		err = checkRange(req.MinRating, req.MaxRating)
	}
	if err != nil {
		return SeekView{}, err
	}
	sk := &seek.Seek{ID: newID(), Owner: me, Holes: holes, Seeds: seeds, Variant: variant, Clock: clock, Rated: req.Rated,
		MinRating: req.MinRating, MaxRating: req.MaxRating, Created: l.now().UTC().Truncate(time.Millisecond)}
	r := l.ratingsIn(ctx, ratings.Category(holes, clock), []string{me.ID})[me.ID]
	v := seekView(sk, r, "")
	events := []Event{{Kind: "seek", Seek: &v, Owner: me.ID}}
	if err := l.st.AddSeek(ctx, sk, MaxOpenSeeks, l.noticeOf(events)); err != nil {
		return SeekView{}, refused(err, "")
	}
	l.tell(events)
	v.Mine = true
	return v, nil
}

// CancelSeek withdraws seek id of player me.
func (l *Lobby) CancelSeek(ctx context.Context, me seek.Player, id string) error {
	events := []Event{unseek(id)}
	if err := l.st.DeleteSeek(ctx, id, me.ID, l.noticeOf(events)); err != nil {
		if errors.Is(err, game.ErrNotFound) {
			return errorf(ErrNotFound, "you have no seek %s", clip(id))
		}
		return err
	}
	l.tell(events)
	return nil
}

// Paired is a game made in the lobby for the asker: its ID, and the side
// the asker plays ("s" or "n").
type Paired struct {
	Game string `json:"game"`
	Side string `json:"side"`
}

// AcceptSeek makes the game of seek id with player me, on sides drawn at
// random: refused for one's own seek, a seek of a player either blocks,
// and a rating outside the seek's range.
func (l *Lobby) AcceptSeek(ctx context.Context, me seek.Player, id string) (Paired, error) {
	sk, err := l.st.Seek(ctx, id)
	if err == nil && sk.Pool != "" {
		err = game.ErrNotFound
	}
	if errors.Is(err, game.ErrNotFound) {
		return Paired{}, errorf(ErrNotFound, "no seek %s: it has been taken or withdrawn", clip(id))
	}
	if err != nil {
		return Paired{}, err
	}
	if sk.Owner.ID == me.ID {
		return Paired{}, errorf(ErrConflict, "this is your own seek")
	}
	if blocked, err := l.st.Blocked(ctx, me.ID, sk.Owner.ID); err != nil {
		return Paired{}, err
	} else if blocked {
		return Paired{}, errorf(ErrForbidden, "you cannot play this player")
	}
	if sk.MinRating > 0 || sk.MaxRating > 0 {
		r := l.ratingsIn(ctx, ratings.Category(sk.Holes, sk.Clock), []string{me.ID})[me.ID].rating
		if sk.MinRating > 0 && r < float64(sk.MinRating) || sk.MaxRating > 0 && r > float64(sk.MaxRating) {
			return Paired{}, errorf(ErrForbidden, "your rating (%.0f) is outside this seek's range", r)
		}
	}
	seeker := rules.Side(rand.IntN(2))
	var players [2]seek.Player
	players[seeker], players[seeker.Opponent()] = sk.Owner, me
	p := pairing{holes: sk.Holes, seeds: sk.Seeds, variant: sk.Variant, clock: sk.Clock, rated: sk.Rated, players: players,
		seeks: []string{sk.ID}, events: []Event{unseek(sk.ID)}}
	gameID, err := l.pair(ctx, &p)
	if err != nil {
		return Paired{}, refused(err, "this seek has been taken or withdrawn")
	}
	return Paired{Game: gameID, Side: string(seeker.Opponent().Letter())}, nil
}
