package play

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/ratings"
	"github.com/endodoi/endodoi/rules"
)

// Seats: who may change a game. A game played on one device belongs to
// whoever has it open; each seat of an online game is held by a secret
// token, the second given through the game's invitation.

// Seat is who asks for a change: a player of an online game, by the side
// their token holds, or, for a game played on one device, whoever has it
// open (Device).
type Seat struct {
	Side     rules.Side
	device   bool
	computer bool
}

// Device is the seat of whoever has a game played on one device open: its
// moves, like the game, belong to them.
var Device = Seat{device: true}

// computer is the seat of the computer, playing its move on the device of
// the person it plays against.
var computer = Seat{device: true, computer: true}

// newToken returns a seat's secret (128 random bits) and the hash the
// store keeps of it.
func newToken() (token, hash string) {
	var b [16]byte
	rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token)
}

// HashToken is the hash the store keeps of a seat's token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// newInvite returns an invite code: 60 random bits in lowercase base32.
func newInvite() string {
	var b [8]byte
	rand.Read(b[:])
	return strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))[:12]
}

// ValidInvite reports whether code has the form of an invite code.
func ValidInvite(code string) bool {
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

// CreateOnline stores the new online game sg, with the time control clock
// and with series > 0 the series to that many wins that it starts, and
// seats its creator on side creator: it returns the game and the seat's
// token.
func (t *Table) CreateOnline(ctx context.Context, sg *game.Game, creator rules.Side, clock game.Clock, series int) (*Game, string, error) {
	sg.Online = &game.Online{Invite: newInvite(), Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
	token, hash := newToken()
	sg.Online.Seats[creator] = hash
	g, _, err := t.Create(ctx, sg, nil, series)
	if err != nil {
		return nil, "", err
	}
	return g, token, nil
}

// FreeSeat returns the side whose seat is still free, if one is.
func FreeSeat(o *game.Online) (rules.Side, bool) {
	for _, side := range []rules.Side{rules.South, rules.North} {
		if o.Seats[side] == "" {
			return side, true
		}
	}
	return 0, false
}

// Join gives the free seat of online game g to a player named name (""
// for none): it returns the seat's side and its token, or "" when there
// is no seat to give, because both are taken or the game is over.
func (t *Table) Join(ctx context.Context, g *Game, name string) (rules.Side, string, error) {
	o := *g.info.Online
	side, free := FreeSeat(&o)
	if !free || g.Over() {
		return 0, "", nil
	}
	token, hash := newToken()
	o.Seats[side] = hash
	ply := g.board.Ply()
	e := edit{event: "join", had: ply, from: ply, result: g.info.Result, online: &o}
	if name != "" {
		if side == rules.South {
			e.south = &name
		} else {
			e.north = &name
		}
	}
	if _, err := t.commit(ctx, g, e); err != nil {
		return 0, "", err
	}
	return side, token, nil
}

// SeatOf says which seat of game g token holds: for a game played on one
// device, Device, whatever the token; for an online game, ErrNoSeat for no
// token or one never given, ErrNotYourSeat for a token of another game.
func (t *Table) SeatOf(ctx context.Context, g *Game, token string) (Seat, error) {
	o := g.info.Online
	if o == nil {
		return Device, nil
	}
	if token == "" {
		return Seat{}, errorf(ErrNoSeat, "this is an online game: only its players may change it (send the seat's token as Authorization: Bearer <token>)")
	}
	hash := HashToken(token)
	for _, side := range []rules.Side{rules.South, rules.North} {
		if o.Seats[side] == hash {
			return Seat{Side: side}, nil
		}
	}
	known, err := t.store.SeatExists(ctx, hash)
	if err != nil {
		return Seat{}, err
	}
	if known {
		return Seat{}, errorf(ErrNotYourSeat, "this seat belongs to another game")
	}
	return Seat{}, errorf(ErrNoSeat, "unknown seat token")
}

// SeatOfAccount says which seat of online game g account accountID owns
// (an account that claimed it, or a game paired in the lobby): ErrNoSeat
// when it owns neither. An account that owns both acts as the side to
// move.
func (t *Table) SeatOfAccount(ctx context.Context, g *Game, accountID string) (Seat, error) {
	o := g.info.Online
	if o == nil {
		return Device, nil
	}
	owners, err := t.store.SeatOwners(ctx, []string{o.Seats[rules.South], o.Seats[rules.North]})
	if err != nil {
		return Seat{}, err
	}
	toMove := g.board.Position().ToMove()
	for _, side := range []rules.Side{toMove, toMove.Opponent()} {
		if h := o.Seats[side]; h != "" && owners[h] == accountID {
			return Seat{Side: side}, nil
		}
	}
	return Seat{}, errorf(ErrNoSeat, "you hold no seat in this game")
}

// Paired returns a new online game, not yet stored, between two accounts
// paired in the lobby: names are the players' by side, the board has
// holes holes a row of seeds seeds under r, with clock; rated asks for a
// rated game. Each seat is the hash of a token nobody is given, since its
// account acts on it.
func Paired(names [2]string, holes, seeds int, r rules.Rules, clock game.Clock, rated bool) (*game.Game, error) {
	start, err := rules.NewPosition(holes, seeds)
	if err != nil {
		return nil, errorf(ErrBadRequest, "%v", err)
	}
	o := &game.Online{Invite: newInvite(), Clock: clock, Left: [2]time.Duration{clock.Time, clock.Time}}
	_, o.Seats[rules.South] = newToken()
	_, o.Seats[rules.North] = newToken()
	return &game.Game{South: names[rules.South], North: names[rules.North], Start: start, Rules: r.Canonical(),
		Result: "*", Online: o, Rated: rated, Category: ratings.Category(holes, clock)}, nil
}
