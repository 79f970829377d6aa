package lobby

import (
	"context"
	"errors"
	"time"

	"github.com/endodoi/endodoi/api"
	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
)

// The lobby as it is shown (docs/api.md, Lobby): its values carry the
// API's JSON names, and package server encodes them as they are.

// Player is a player as the lobby shows them, with their rating in the
// category of what is shown: a new player's, provisional, for one without
// a rating there.
type Player struct {
	Name        string   `json:"name"`
	Rating      *float64 `json:"rating"`
	Provisional bool     `json:"provisional"`
	Bot         bool     `json:"bot"`
}

// Clock is a time control as the lobby shows it (the API's, every field
// given, zero when unused).
type Clock = api.Clock

// SeekView is a seek as the lobby shows it.
type SeekView struct {
	ID       string    `json:"id"`
	By       Player    `json:"by"`
	Holes    int       `json:"holes"`
	Seeds    int       `json:"seeds"`
	Variant  string    `json:"variant"`
	Clock    Clock     `json:"clock"`
	Rated    bool      `json:"rated"`
	Range    *[2]int   `json:"range"`
	Category string    `json:"category"`
	Created  time.Time `json:"created"`
	// Mine says the seek is the asker's.
	Mine bool `json:"mine"`
	// Owner is the account of the seek's owner, for the connections that
	// must not see it.
	Owner string `json:"-"`
}

// PoolView is a pool as an account sees it.
type PoolView struct {
	ID       string `json:"id"`
	Holes    int    `json:"holes"`
	Seeds    int    `json:"seeds"`
	Clock    Clock  `json:"clock"`
	Category string `json:"category"`
	Waiting  int    `json:"waiting"`
	Mine     bool   `json:"mine"`
}

// ChallengeView is a challenge as the lobby shows it.
type ChallengeView struct {
	ID       string    `json:"id"`
	From     Player    `json:"from"`
	To       Player    `json:"to"`
	Holes    int       `json:"holes"`
	Seeds    int       `json:"seeds"`
	Variant  string    `json:"variant"`
	Clock    Clock     `json:"clock"`
	Rated    bool      `json:"rated"`
	Side     string    `json:"side"`
	Category string    `json:"category"`
	Created  time.Time `json:"created"`
	Expires  time.Time `json:"expires"`
}

// Present is a player listed in the lobby, who may be challenged: a bot,
// or a person with a lobby connection now.
type Present struct {
	Name   string `json:"name"`
	Bot    bool   `json:"bot"`
	Online bool   `json:"online"`
	// ID is the player's account, for the connections that must not see
	// them.
	ID string `json:"-"`
}

// Challenges are an account's challenges, each way.
type Challenges struct {
	Incoming []ChallengeView `json:"incoming"`
	Outgoing []ChallengeView `json:"outgoing"`
}

// State is the whole lobby as an account sees it (GET /api/lobby, and the
// first message of the lobby's connection).
type State struct {
	Seeks      []SeekView  `json:"seeks"`
	Pools      []PoolView  `json:"pools"`
	Players    []Present   `json:"players"`
	Challenges *Challenges `json:"challenges,omitempty"`
	// Hidden are the accounts the asker blocks or is blocked by: neither
	// sees what the other posts.
	Hidden []string `json:"-"`
}

// clockOf is clock c as the lobby shows it.
func clockOf(c game.Clock) Clock {
	if v := api.ClockOf(c); v != nil {
		return *v
	}
	return Clock{}
}

// rated is a player's rating in a category as the lobby uses it.
type rated struct {
	rating      float64
	provisional bool
}

// ratingsIn returns the ratings in category of the accounts ids; a player
// without one, or a store without ratings, has a new player's,
// provisional.
func (l *Lobby) ratingsIn(ctx context.Context, category string, ids []string) map[string]rated {
	p := ratings.Params()
	out := make(map[string]rated, len(ids))
	for _, id := range ids {
		out[id] = rated{rating: p.InitialRating, provisional: true}
	}
	rs, err := l.st.RatingsOf(ctx, category, ids)
	if err != nil {
		if !errors.Is(err, game.ErrNotFound) {
			l.log.Warn("reading ratings for the lobby", "category", category, "err", err)
		}
		return out
	}
	now := l.now()
	for id, r := range rs {
		out[id] = rated{rating: r.Rating, provisional: p.Provisional(r, now)}
	}
	return out
}

// playerOf is player p as the lobby shows them, rated r.
func playerOf(p seek.Player, r rated) Player {
	shown := float64(int64(r.rating + 0.5))
	return Player{Name: p.Name, Bot: p.Bot, Rating: &shown, Provisional: r.provisional}
}

func seekView(sk *seek.Seek, r rated, me string) SeekView {
	v := SeekView{ID: sk.ID, By: playerOf(sk.Owner, r), Holes: sk.Holes, Seeds: sk.Seeds, Variant: sk.Variant.String(),
		Clock: clockOf(sk.Clock), Rated: sk.Rated, Category: ratings.Category(sk.Holes, sk.Clock), Created: sk.Created,
		Mine: me != "" && sk.Owner.ID == me, Owner: sk.Owner.ID}
	if sk.MinRating > 0 || sk.MaxRating > 0 {
		v.Range = &[2]int{sk.MinRating, sk.MaxRating}
	}
	return v
}

// seekViews are the views of seeks for account me ("" for nobody), each
// with its owner's rating in its category.
func (l *Lobby) seekViews(ctx context.Context, seeks []seek.Seek, me string) []SeekView {
	byCategory := map[string][]string{}
	for _, sk := range seeks {
		c := ratings.Category(sk.Holes, sk.Clock)
		byCategory[c] = append(byCategory[c], sk.Owner.ID)
	}
	rs := map[string]map[string]rated{}
	for c, ids := range byCategory {
		rs[c] = l.ratingsIn(ctx, c, ids)
	}
	out := make([]SeekView, 0, len(seeks))
	for i := range seeks {
		sk := &seeks[i]
		out = append(out, seekView(sk, rs[ratings.Category(sk.Holes, sk.Clock)][sk.Owner.ID], me))
	}
	return out
}

func challengeView(ch *seek.Challenge, rs map[string]rated) ChallengeView {
	return ChallengeView{ID: ch.ID, From: playerOf(ch.From, rs[ch.From.ID]), To: playerOf(ch.To, rs[ch.To.ID]),
		Holes: ch.Holes, Seeds: ch.Seeds, Variant: ch.Variant.String(), Clock: clockOf(ch.Clock), Rated: ch.Rated,
		Side: ch.Side, Category: ratings.Category(ch.Holes, ch.Clock), Created: ch.Created, Expires: ch.Expires}
}

func (l *Lobby) challengeViews(ctx context.Context, list []seek.Challenge) []ChallengeView {
	out := make([]ChallengeView, 0, len(list))
	for i := range list {
		ch := &list[i]
		out = append(out, challengeView(ch, l.ratingsIn(ctx, ratings.Category(ch.Holes, ch.Clock), []string{ch.From.ID, ch.To.ID})))
	}
	return out
}

// State returns the whole lobby as account me ("" for nobody) sees it:
// the seeks (but those of players me blocks or is blocked by), the pools,
// the players listed, and me's challenges.
func (l *Lobby) State(ctx context.Context, me string) (*State, error) {
	all, err := l.st.Seeks(ctx)
	if err != nil {
		return nil, err
	}
	st := &State{}
	hidden := map[string]bool{}
	if me != "" {
		if st.Hidden, err = l.st.BlockedWith(ctx, me); err != nil {
			return nil, err
		}
		for _, id := range st.Hidden {
			hidden[id] = true
		}
	}
	var seeks []seek.Seek
	for _, sk := range all {
		if sk.Pool == "" && !hidden[sk.Owner.ID] {
			seeks = append(seeks, sk)
		}
	}
	if len(seeks) > maxSeeksShown {
		seeks = seeks[len(seeks)-maxSeeksShown:]
	}
	st.Seeks = l.seekViews(ctx, seeks, me)
	st.Pools = poolViews(all, me)
	players, err := l.Players(ctx)
	if err != nil {
		return nil, err
	}
	st.Players = Visible(players, me, hidden)
	if me != "" {
		in, out, err := l.st.LobbyChallenges(ctx, me)
		if err != nil {
			return nil, err
		}
		st.Challenges = &Challenges{Incoming: l.challengeViews(ctx, in), Outgoing: l.challengeViews(ctx, out)}
	}
	return st, nil
}

// Visible are the players of list that account me may see and challenge:
// not me, nor those hidden from me.
func Visible(list []Present, me string, hidden map[string]bool) []Present {
	out := make([]Present, 0, len(list))
	for _, p := range list {
		if p.ID != me && !hidden[p.ID] {
			out = append(out, p)
		}
	}
	return out
}

// Players returns the players the lobby lists: the bots, online or not,
// and the people with a lobby connection on any instance.
func (l *Lobby) Players(ctx context.Context) ([]Present, error) {
	list, err := l.st.LobbyPlayers(ctx, l.now().Add(-l.grace), maxPlayersShown)
	if err != nil {
		return nil, err
	}
	out := make([]Present, 0, len(list))
	for _, p := range list {
		out = append(out, Present{Name: p.Name, Bot: p.Bot, Online: p.Online, ID: p.ID})
	}
	return out, nil
}
