package lobby

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/endodoi/endodoi/account"
	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// ChallengeRequest is a challenge to send: to whom, the challenger's side
// ("s", "n" or "random", the default) and the game's settings.
type ChallengeRequest struct {
	Settings
	To   string `json:"to"`
	Side string `json:"side"`
}

// playerNamed returns the active account named name.
func (l *Lobby) playerNamed(ctx context.Context, name string) (seek.Player, error) {
	_, key, err := account.ParseUsername(name)
	if err != nil {
		return seek.Player{}, errorf(ErrNotFound, "no player %q", clip(name))
	}
	p, err := l.st.LobbyPlayer(ctx, key)
	if errors.Is(err, game.ErrNotFound) {
		return p, errorf(ErrNotFound, "no player %q", clip(name))
	}
	return p, err
}

// Challenge sends player me's challenge, within the limits of the
// challenges waiting for its target's answer, for me's answers, and for
// the target's from me; refused between players of whom one blocks the
// other.
func (l *Lobby) Challenge(ctx context.Context, me seek.Player, req ChallengeRequest) (ChallengeView, error) {
	holes, seeds, variant, clock, err := req.game()
	if err == nil {
		switch req.Side {
		case "":
			req.Side = "random"
		case "s", "n", "random":
		default:
			err = errorf(ErrBadRequest, "side %q: want \"s\", \"n\" or \"random\"", clip(req.Side))
		}
	}
	if err != nil {
		return ChallengeView{}, err
	}
	to, err := l.playerNamed(ctx, req.To)
	if err != nil {
		return ChallengeView{}, err
	}
	if to.ID == me.ID {
		return ChallengeView{}, errorf(ErrBadRequest, "you cannot challenge yourself")
	}
	life := ChallengeLife
	if clock.PerMove {
		life = CorrespondenceChallengeLife
	}
	now := l.now().UTC().Truncate(time.Millisecond)
	ch := &seek.Challenge{ID: newID(), From: me, To: to, Holes: holes, Seeds: seeds, Variant: variant, Clock: clock,
		Rated: req.Rated, Side: req.Side, Created: now, Expires: now.Add(life)}
	v := challengeView(ch, l.ratingsIn(ctx, ratings.Category(holes, clock), []string{me.ID, to.ID}))
	events := []Event{{To: to.ID, Kind: "challenge", Challenge: &v}, {To: me.ID, Kind: "challenge", Challenge: &v}}
	limits := seek.ChallengeLimits{Incoming: MaxIncomingChallenges, Outgoing: MaxOutgoingChallenges, ToOne: MaxChallengesToOne}
	if err := l.st.AddChallenge(ctx, ch, limits, l.noticeOf(events)); err != nil {
		return ChallengeView{}, refused(err, "")
	}
	l.tell(events)
	return v, nil
}

// challenge reads challenge id, unexpired.
func (l *Lobby) challenge(ctx context.Context, id string) (*seek.Challenge, error) {
	ch, err := l.st.LobbyChallenge(ctx, id)
	if errors.Is(err, game.ErrNotFound) {
		return nil, errorf(ErrNotFound, "no challenge %s: it has been answered, withdrawn or has expired", clip(id))
	}
	if err == nil && !ch.Expires.After(l.now()) {
		return nil, errorf(ErrNotFound, "challenge %s has expired", clip(id))
	}
	return ch, err
}

// AcceptChallenge makes the game of challenge id, which must be to player
// me: the challenger on the side they asked for.
func (l *Lobby) AcceptChallenge(ctx context.Context, me seek.Player, id string) (Paired, error) {
	ch, err := l.challenge(ctx, id)
	if err == nil && ch.To.ID != me.ID {
		err = errorf(ErrForbidden, "this challenge is not to you")
	}
	if err != nil {
		return Paired{}, err
	}
	from := rules.Side(rand.IntN(2))
	switch ch.Side {
	case "s":
		from = rules.South
	case "n":
		from = rules.North
	}
	var players [2]seek.Player
	players[from], players[from.Opponent()] = ch.From, ch.To
	p := pairing{holes: ch.Holes, seeds: ch.Seeds, variant: ch.Variant, clock: ch.Clock, rated: ch.Rated, players: players,
		challenge: ch.ID, events: challengeGone(ch.From.ID, ch.To.ID, ch.ID, GoneAccepted, "")}
	gameID, err := l.pair(ctx, &p)
	if err != nil {
		return Paired{}, refused(err, "this challenge has been answered or withdrawn")
	}
	return Paired{Game: gameID, Side: string(from.Opponent().Letter())}, nil
}

// DeclineChallenge declines challenge id to player me, with reason (at
// most MaxDeclineReason characters, or "").
func (l *Lobby) DeclineChallenge(ctx context.Context, me seek.Player, id, reason string) error {
	if !utf8.ValidString(reason) || utf8.RuneCountInString(reason) > MaxDeclineReason {
		return errorf(ErrBadRequest, "reason: at most %d characters of text", MaxDeclineReason)
	}
	ch, err := l.challenge(ctx, id)
	if err == nil && ch.To.ID != me.ID {
		err = errorf(ErrForbidden, "this challenge is not to you")
	}
	if err != nil {
		return err
	}
	return l.endChallenge(ctx, ch, GoneDeclined, reason)
}

// CancelChallenge withdraws player me's challenge id. A challenge that has
// gone already (answered, withdrawn, expired) is gone all the same: its
// challenger is told nothing new, and nothing is refused; only another's
// challenge is.
func (l *Lobby) CancelChallenge(ctx context.Context, me seek.Player, id string) error {
	ch, err := l.st.LobbyChallenge(ctx, id)
	switch {
	case errors.Is(err, game.ErrNotFound):
		return nil
	case err != nil:
		return err
	case ch.From.ID != me.ID:
		return errorf(ErrForbidden, "this challenge is not yours")
	}
	err = l.endChallenge(ctx, ch, GoneCancelled, "")
	if errors.Is(err, game.ErrNotFound) {
		return nil // answered meanwhile
	}
	return err
}

// endChallenge removes challenge ch, declined or cancelled, and tells its
// two players.
func (l *Lobby) endChallenge(ctx context.Context, ch *seek.Challenge, why, reason string) error {
	events := challengeGone(ch.From.ID, ch.To.ID, ch.ID, why, reason)
	if err := l.st.DeleteChallenge(ctx, ch.ID, l.noticeOf(events)); err != nil {
		if errors.Is(err, game.ErrNotFound) && why != GoneCancelled {
			return errorf(ErrNotFound, "no challenge %s: it has been answered, withdrawn or has expired", ch.ID)
		}
		return err
	}
	l.tell(events)
	return nil
}

// DeclineAll declines every challenge waiting for player me's answer, and
// tells each challenger; it returns how many it declined.
func (l *Lobby) DeclineAll(ctx context.Context, me seek.Player) (int, error) {
	var events []Event
	gone, err := l.st.DeleteChallengesTo(ctx, me.ID, func(list []seek.Challenge) string {
		events = nil
		for _, ch := range list {
			events = append(events, challengeGone(ch.From.ID, ch.To.ID, ch.ID, GoneDeclined, "")...)
		}
		return l.noticeOf(events)
	})
	if err != nil {
		return 0, err
	}
	l.tell(events)
	return len(gone), nil
}
