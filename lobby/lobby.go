// Package lobby is where signed-in players find opponents (docs/api.md,
// Lobby): open seeks anyone may accept, quick-pairing pools that pair
// their players in waves, challenges to a named player, and the blocks
// and reports between players. It lists the bots and the people in the
// lobby, keeps each account within the lobby's limits, and removes what
// expires or what an account leaves behind.
//
// A game made in the lobby is made by package play (play.Paired) and
// stored by the lobby's store in one transaction with what it takes away
// (a seek, two pool places or a challenge), so that of two players taking
// one seek at once, on one instance or two, one gets the game. Every
// change is told as Events: to the other instances by a notice sent in
// the change's own transaction (Config.Notice), and to this instance's
// connections once it is stored (Config.Deliver).
//
// The package speaks no HTTP: package server decodes the requests, calls
// one method and encodes its answer, and carries the events to the lobby's
// live connections. Time is Config.Now's, so that expiry and the pools'
// waves are tested without waiting.
package lobby

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/play/game"
)

// Limits of the lobby.
const (
	// MaxOpenSeeks is how many open seeks an account may have at once.
	MaxOpenSeeks = 3
	// MaxIncomingChallenges is how many challenges may wait for one
	// player's answer, MaxOutgoingChallenges for one challenger's, and
	// MaxChallengesToOne for one challenger's to one player.
	MaxIncomingChallenges = 20
	MaxOutgoingChallenges = 10
	MaxChallengesToOne    = 3
	// MaxBlocks is how many players an account may block.
	MaxBlocks = 500
	// MaxRating bounds a seek's rating range.
	MaxRating = 4000
	// MaxDeclineReason and MaxReportText bound the texts of a decline
	// and a report, in characters.
	MaxDeclineReason = 200
	MaxReportText    = 2000
	// maxSeeksShown bounds the seeks the lobby shows, and maxPlayersShown
	// the bots and the people it lists, each.
	maxSeeksShown   = 500
	maxPlayersShown = 200
)

// Times of the lobby.
const (
	// Grace is how long a real-time seek or pool place outlives its
	// owner's last lobby connection (on any instance): a page reloading
	// keeps its seeks. A person is listed in the lobby as long.
	Grace = 6 * time.Second
	// Tick is how often Run pairs the pools and lists the players, and
	// sweep how often it removes what has expired.
	Tick  = time.Second
	sweep = 2 * time.Second
	// forgetAfter is how long the lobby remembers who was in it.
	forgetAfter = 10 * time.Minute
	// Challenges expire unanswered after ChallengeLife, correspondence
	// ones after CorrespondenceChallengeLife.
	ChallengeLife               = 10 * time.Minute
	CorrespondenceChallengeLife = 3 * 24 * time.Hour
)

// Store is what the lobby needs of the place its rows are kept (package
// store keeps them in SQLite or PostgreSQL). A write returns nil only once
// it is committed; errors.Is tells game.ErrNotFound, game.ErrConflict,
// game.ErrExists, seek.ErrLimit and seek.ErrBlocked apart. A notice given
// to a write is sent to the instances sharing the store by the write's own
// transaction.
type Store interface {
	// LobbyPlayer returns the active account whose name key is key.
	LobbyPlayer(ctx context.Context, key string) (seek.Player, error)
	// RatingsOf returns the ratings in category of those of accountIDs
	// that have one there, by account.
	RatingsOf(ctx context.Context, category string, accountIDs []string) (map[string]game.Rating, error)

	// AddSeek stores s unless its owner has maxOpen open seeks already
	// (seek.ErrLimit) or a place in the same pool (game.ErrExists).
	AddSeek(ctx context.Context, s *seek.Seek, maxOpen int, notice string) error
	// DeleteSeek removes seek id of account accountID ("" for any).
	DeleteSeek(ctx context.Context, id, accountID, notice string) error
	// Seek returns seek id; Seeks every seek and pool place of an active
	// account, oldest first.
	Seek(ctx context.Context, id string) (*seek.Seek, error)
	Seeks(ctx context.Context) ([]seek.Seek, error)
	// TouchLobby records that the accounts given hold lobby connections
	// at at; ExpireSeeks removes and returns the real-time seeks and pool
	// places last seen before before.
	TouchLobby(ctx context.Context, accountIDs []string, at time.Time) error
	ExpireSeeks(ctx context.Context, before time.Time) ([]seek.Seek, error)
	// LobbyPlayers returns the bots and the people present since since;
	// ForgetPresence forgets those last present before before.
	LobbyPlayers(ctx context.Context, since time.Time, limit int) ([]seek.Present, error)
	ForgetPresence(ctx context.Context, before time.Time) error

	// AddChallenge stores c within limits.
	AddChallenge(ctx context.Context, c *seek.Challenge, limits seek.ChallengeLimits, notice string) error
	// LobbyChallenge returns challenge id; LobbyChallenges those to and
	// from an account, between active accounts.
	LobbyChallenge(ctx context.Context, id string) (*seek.Challenge, error)
	LobbyChallenges(ctx context.Context, accountID string) (incoming, outgoing []seek.Challenge, err error)
	// DeleteChallenge removes challenge id; DeleteChallengesTo removes
	// and returns those to an account; ExpireChallenges removes and
	// returns those expired at now.
	DeleteChallenge(ctx context.Context, id, notice string) error
	DeleteChallengesTo(ctx context.Context, accountID string, notice func([]seek.Challenge) string) ([]seek.Challenge, error)
	ExpireChallenges(ctx context.Context, now time.Time) ([]seek.Challenge, error)

	// Withdraw removes and returns what an account has open in the lobby
	// (and, with blocks, its blocks both ways); InactiveInLobby returns
	// the accounts no longer active that have something open there.
	Withdraw(ctx context.Context, accountID string, blocks bool, notice func(seek.Withdrawn) string) (seek.Withdrawn, error)
	InactiveInLobby(ctx context.Context) ([]string, error)

	// Pair stores a pairing's game with what it takes, or nothing.
	Pair(ctx context.Context, p *seek.Pairing) error

	// Block, Unblock, Blocks, Blocked and BlockedWith keep who will not
	// play whom.
	Block(ctx context.Context, accountID, blocked string, max int, notice func([]seek.Challenge) string) ([]seek.Challenge, error)
	Unblock(ctx context.Context, accountID, blocked string) error
	Blocks(ctx context.Context, accountID string) ([]seek.Player, error)
	Blocked(ctx context.Context, a, b string) (bool, error)
	BlockedWith(ctx context.Context, accountID string) ([]string, error)

	// AddReport stores a report of a game.
	AddReport(ctx context.Context, r *seek.Report) error
}

// Config is what a Lobby needs.
type Config struct {
	Store Store
	// Now is the time; nil for time.Now.
	Now func() time.Time
	// Notice, when not nil, writes the notice of events for the other
	// instances sharing the store, sent by the change's transaction ("":
	// none).
	Notice func([]Event) string
	// Deliver, when not nil, tells this instance's lobby connections of
	// events once their change is stored.
	Deliver func([]Event)
	// Notify, when not nil, tells the other instances of events whose
	// change sent no notice of its own.
	Notify func([]Event)
	// Here, when not nil, returns the accounts that hold lobby
	// connections on this instance (Run records them as present).
	Here func() []string
	// Grace is how long a real-time seek outlives its owner's last lobby
	// connection; 0 for Grace.
	Grace time.Duration
	Log   *slog.Logger
}

// Lobby is the lobby of one instance; every instance sharing a store has
// its own, and they agree through the store. Its methods are safe for
// concurrent use.
type Lobby struct {
	st       Store
	now      func() time.Time
	notice   func([]Event) string
	deliver  func([]Event)
	notifyFn func([]Event)
	here     func() []string
	grace    time.Duration
	log      *slog.Logger

	kick chan struct{} // wakes Run for a wave of the pools

	mu      sync.Mutex
	players []Present // the players listed when last read
}

// New returns the lobby of c.
func New(c Config) *Lobby {
	l := &Lobby{st: c.Store, now: c.Now, notice: c.Notice, deliver: c.Deliver, notifyFn: c.Notify, here: c.Here,
		grace: c.Grace, log: c.Log, kick: make(chan struct{}, 1)}
	if l.now == nil {
		l.now = time.Now
	}
	if l.grace <= 0 {
		l.grace = Grace
	}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	return l
}

// SetGrace changes how long a real-time seek outlives its owner's last
// lobby connection, before Run starts: for tests.
func (l *Lobby) SetGrace(d time.Duration) { l.grace = d }

// GraceTime returns how long a real-time seek outlives its owner's last
// lobby connection.
func (l *Lobby) GraceTime() time.Duration { return l.grace }

// noticeOf is the notice of events for the other instances, or "".
func (l *Lobby) noticeOf(events []Event) string {
	if l.notice == nil || len(events) == 0 {
		return ""
	}
	return l.notice(events)
}

// tell delivers events to this instance's connections.
func (l *Lobby) tell(events []Event) {
	if l.deliver != nil && len(events) > 0 {
		l.deliver(events)
	}
}

// The kinds of error of a request to the lobby. Every error of this
// package about the request is an *Error of one of these kinds, with a
// message for the player; errors.Is tells the kind. Other errors are the
// store's.
var (
	// ErrBadRequest: the request is malformed or out of range.
	ErrBadRequest = errors.New("bad request")
	// ErrNotFound: no such player, seek, pool or challenge, or it has
	// gone.
	ErrNotFound = errors.New("not found")
	// ErrForbidden: the asker may not do this (another's challenge, a
	// player who blocks them, a rating outside a seek's range).
	ErrForbidden = errors.New("forbidden")
	// ErrConflict: the lobby has changed (a seek taken by another), or
	// the asker has done this already.
	ErrConflict = errors.New("conflict")
	// ErrTooMany: a limit of the lobby is reached; Error.Wait says when
	// to try again.
	ErrTooMany = errors.New("too many")
)

// Error is a refused request: its kind, what to tell the player, and,
// for ErrTooMany, how long to wait.
type Error struct {
	Kind error
	Msg  string
	Wait time.Duration
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error's kind.
func (e *Error) Unwrap() error { return e.Kind }

func errorf(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// refused maps the store's answers about the lobby's data to the lobby's
// errors: taken is the message of a conflict (a seek or challenge taken
// meanwhile), "" to keep the store's.
func refused(err error, taken string) error {
	switch {
	case errors.Is(err, seek.ErrBlocked):
		return errorf(ErrForbidden, "this player does not take challenges from you")
	case errors.Is(err, seek.ErrLimit):
		return &Error{Kind: ErrTooMany, Msg: limitText(err), Wait: time.Minute}
	case errors.Is(err, game.ErrConflict) && taken != "":
		return errorf(ErrConflict, "%s", taken)
	}
	return err
}

// limitText is the message of a seek.ErrLimit, without the sentinel's
// words.
func limitText(err error) string {
	msg := err.Error()
	if i := len(msg) - len(seek.ErrLimit.Error()) - 2; i > 0 {
		return msg[:i]
	}
	return msg
}

// newID returns a new seek's or challenge's ID, in the form of the
// store's IDs (16 lowercase hexadecimal digits), so that its event can
// name it before it is stored.
func newID() string {
	var b [8]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// clip shortens a client's text quoted in an error message.
func clip(s string) string {
	const max = 80
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
