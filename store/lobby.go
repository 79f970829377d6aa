package store

// The lobby: open seeks and the places in the quick-pairing pools, the
// challenges to a named player, blocks, reports of games, bots, and the
// pairing that turns a seek, two pool places or a challenge into a game in
// one transaction, on both engines.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/lobby/seek"
	"github.com/endodoi/endodoi/rules"
)

// lobbyVersion is the schema version that has the lobby; presenceVersion
// the one that records who is in it.
const (
	lobbyVersion    = 6
	presenceVersion = 10
)

// errNoLobby answers the lobby's calls on a database older than it.
var errNoLobby = fmt.Errorf("this database has no lobby (schema version under %d): %w", lobbyVersion, ErrNotFound)

// ErrLimit and ErrBlocked are the lobby's (package seek): a change would
// take an account past one of the limits its caller set; one of two
// players blocks the other. Both wrap ErrConflict.
var (
	ErrLimit   = seek.ErrLimit
	ErrBlocked = seek.ErrBlocked
)

// AccountBot is the kind of a bot's account; a person's is "".
const AccountBot = "bot"

// CredentialBot is the kind of a bot's token: its ID is "bot:" and the
// token's hash, its Data empty.
const CredentialBot = "bot"

// Lobby is the store's lobby (lobby.go): the rows of package lobby,
// which declares what it needs of them.
type Lobby interface {
	// CreateBot stores a bot's account a with the hash of its token.
	CreateBot(ctx context.Context, a *Account, tokenHash string) error
	// BotAccount returns the active bot account whose token hashes to
	// hash (ErrNotFound if none).
	BotAccount(ctx context.Context, tokenHash string) (*Account, error)
	// SeatOwners returns the active accounts that own the seats given
	// (token hashes), by seat; seats without an owner, or whose owner is
	// disabled or deleted, are left out.
	SeatOwners(ctx context.Context, seats []string) (map[string]string, error)
	// LobbyPlayer returns the active account whose name key is key, as
	// the lobby shows it (ErrNotFound if none).
	LobbyPlayer(ctx context.Context, key string) (seek.Player, error)

	// AddSeek stores s, setting its Seen to its Created, unless its owner
	// has maxOpen open seeks already (pool places are not counted) or a
	// place in the same pool (ErrLimit, ErrExists), or is not an active
	// account (ErrNotFound).
	AddSeek(ctx context.Context, s *seek.Seek, maxOpen int, notice string) error
	// DeleteSeek removes seek id of account accountID ("" for any).
	DeleteSeek(ctx context.Context, id, accountID, notice string) error
	// Seek returns seek id; Seeks every seek and pool place of an active
	// account, oldest first.
	Seek(ctx context.Context, id string) (*seek.Seek, error)
	Seeks(ctx context.Context) ([]seek.Seek, error)
	// TouchLobby records that the accounts given hold lobby connections
	// at at: their seeks and places are seen, and they are present.
	TouchLobby(ctx context.Context, accountIDs []string, at time.Time) error
	// ExpireSeeks removes and returns the real-time seeks and pool places
	// (not correspondence) last seen before before.
	ExpireSeeks(ctx context.Context, before time.Time) ([]seek.Seek, error)
	// LobbyPlayers returns the active bots, and the other active accounts
	// present since since, at most limit of each, by name.
	LobbyPlayers(ctx context.Context, since time.Time, limit int) ([]seek.Present, error)
	// ForgetPresence forgets the accounts last present before before.
	ForgetPresence(ctx context.Context, before time.Time) error

	// AddChallenge stores c unless its target, its sender or the two
	// together are at their limits (ErrLimit), or one of them blocks the
	// other (ErrBlocked), or either is not an active account
	// (ErrNotFound).
	AddChallenge(ctx context.Context, c *seek.Challenge, limits seek.ChallengeLimits, notice string) error
	// LobbyChallenge returns challenge id.
	LobbyChallenge(ctx context.Context, id string) (*seek.Challenge, error)
	// LobbyChallenges returns the challenges to and from account id
	// between active accounts, oldest first.
	LobbyChallenges(ctx context.Context, accountID string) (incoming, outgoing []seek.Challenge, err error)
	// DeleteChallenge removes challenge id (ErrNotFound if gone).
	DeleteChallenge(ctx context.Context, id, notice string) error
	// DeleteChallengesTo removes and returns every challenge to account
	// accountID; the transaction sends the notice of what it removed.
	DeleteChallengesTo(ctx context.Context, accountID string, notice func([]seek.Challenge) string) ([]seek.Challenge, error)
	// ExpireChallenges removes and returns the challenges expired at now.
	ExpireChallenges(ctx context.Context, now time.Time) ([]seek.Challenge, error)

	// Withdraw removes and returns what account accountID has open in the
	// lobby: its seeks and pool places, the challenges it sent and was
	// sent, and when blocks, the blocks it made and those of it; the
	// transaction sends the notice of what it removed. InactiveInLobby
	// returns the accounts not active that have something open there.
	Withdraw(ctx context.Context, accountID string, blocks bool, notice func(seek.Withdrawn) string) (seek.Withdrawn, error)
	InactiveInLobby(ctx context.Context) ([]string, error)

	// Pair stores p (see seek.Pairing) and sets the game's Created and
	// Updated, and its ID unless set.
	Pair(ctx context.Context, p *seek.Pairing) error

	// Block makes account accountID block blocked, unless it blocks max
	// players already (ErrLimit), and removes and returns the challenges
	// between the two, whose notice the transaction sends. Unblock
	// undoes a block; Blocks lists whom accountID blocks, by name;
	// Blocked reports whether either of a and b blocks the other;
	// BlockedWith returns the accounts that accountID blocks or is
	// blocked by.
	Block(ctx context.Context, accountID, blocked string, max int, notice func([]seek.Challenge) string) ([]seek.Challenge, error)
	Unblock(ctx context.Context, accountID, blocked string) error
	Blocks(ctx context.Context, accountID string) ([]seek.Player, error)
	Blocked(ctx context.Context, a, b string) (bool, error)
	BlockedWith(ctx context.Context, accountID string) ([]string, error)

	// AddReport stores r, setting its ID and Created; a second report of
	// one game by one account is ErrExists. Reports lists the latest
	// reports, newest first.
	AddReport(ctx context.Context, r *seek.Report) error
	Reports(ctx context.Context, limit int) ([]seek.Report, error)
}

func (c *core) lobbyReady() error {
	if c.version < lobbyVersion {
		return errNoLobby
	}
	return nil
}

func (c *core) CreateBot(ctx context.Context, a *Account, tokenHash string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	a.Kind = AccountBot
	cred := Credential{ID: "bot:" + tokenHash, Kind: CredentialBot}
	return c.CreateAccount(ctx, a, []Credential{cred}, nil)
}

func (c *core) BotAccount(ctx context.Context, tokenHash string) (*Account, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	a, err := scanAccount(c.pool.queryRow(ctx, `SELECT `+c.accountSelect("a.")+`
		FROM credentials cr JOIN accounts a ON a.id = cr.account_id
		WHERE cr.id = ? AND cr.kind = ? AND a.status = '' AND a.kind = ?`, "bot:"+tokenHash, CredentialBot, AccountBot))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("bot token: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading a bot's account: %w", err)
	}
	return a, nil
}

func (c *core) SeatOwners(ctx context.Context, seats []string) (map[string]string, error) {
	out := map[string]string{}
	if c.version < accountsVersion || len(seats) == 0 {
		return out, nil
	}
	// A disabled or deleted account owns no seat it may act on.
	rs, err := c.pool.query(ctx, `SELECT so.seat, so.account_id FROM seat_owners so JOIN accounts a ON a.id = so.account_id
		WHERE a.status = '' AND so.seat IN (SELECT l.v FROM {list text} AS l)`, seats)
	if err != nil {
		return nil, fmt.Errorf("reading the owners of seats: %w", err)
	}
	for rs.Next() {
		var seat, id string
		if err := rs.Scan(&seat, &id); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the owners of seats: %w", err)
		}
		out[seat] = id
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the owners of seats: %w", err)
	}
	return out, nil
}

const seekCols = `s.id, s.account_id, a.name, a.kind, s.pool, s.holes, s.seeds, s.variant, s.clock_ms, s.increment_ms,
	s.per_move, s.rated, s.min_rating, s.max_rating, s.created, s.seen`

func scanSeek(r row) (seek.Seek, error) {
	var s seek.Seek
	var kind, variant string
	var clock, inc int64
	err := r.Scan(&s.ID, &s.Owner.ID, &s.Owner.Name, &kind, &s.Pool, &s.Holes, &s.Seeds, &variant, &clock, &inc,
		&s.Clock.PerMove, &s.Rated, &s.MinRating, &s.MaxRating, timeCol{&s.Created}, timeCol{&s.Seen})
	if err != nil {
		return s, err
	}
	s.Owner.Bot = kind == AccountBot
	s.Clock.Time, s.Clock.Increment = time.Duration(clock)*time.Millisecond, time.Duration(inc)*time.Millisecond
	if s.Variant, err = rules.ParseVariant(variant); err != nil {
		return s, fmt.Errorf("seek %s: stored variant: %w", s.ID, err)
	}
	return s, nil
}

func (c *core) AddSeek(ctx context.Context, s *seek.Seek, maxOpen int, notice string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	if s.ID == "" {
		s.ID = newID()
	}
	if s.Created.IsZero() {
		s.Created = now()
	}
	s.Created = s.Created.UTC().Truncate(time.Millisecond)
	s.Seen = s.Created
	return c.eng.write(ctx, "storing a seek", false, func(t *tx) error {
		// The account's row lock makes an account's seeks one at a
		// time, so that seeks sent at once cannot all pass the count.
		if err := t.activeAccount(s.Owner.ID); err != nil {
			return err
		}
		if s.Pool == "" {
			var n int
			if err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM seeks WHERE account_id = ? AND pool = ''`, s.Owner.ID).Scan(&n); err != nil {
				return err
			}
			if n >= maxOpen {
				return fmt.Errorf("%d open seeks, the most an account may have: %w", n, ErrLimit)
			}
		}
		n, err := t.exec(`INSERT INTO seeks (id, account_id, pool, holes, seeds, variant, clock_ms, increment_ms, per_move,
			rated, min_rating, max_rating, created, seen) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (pool, account_id) WHERE pool != '' DO NOTHING`,
			s.ID, s.Owner.ID, s.Pool, s.Holes, s.Seeds, s.Variant.String(), s.Clock.Time.Milliseconds(),
			s.Clock.Increment.Milliseconds(), s.Clock.PerMove, s.Rated, s.MinRating, s.MaxRating, s.Created, s.Seen)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("a place in pool %s: %w", s.Pool, ErrExists)
		}
		return t.notify(notice)
	})
}

func (c *core) DeleteSeek(ctx context.Context, id, accountID, notice string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	return c.eng.write(ctx, "removing a seek", false, func(t *tx) error {
		n, err := t.exec(`DELETE FROM seeks WHERE id = ? AND (account_id = ? OR ? = '')`, id, accountID, accountID)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("seek %s: %w", id, ErrNotFound)
		}
		return t.notify(notice)
	})
}

func (c *core) Seek(ctx context.Context, id string) (*seek.Seek, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	s, err := scanSeek(c.pool.queryRow(ctx, `SELECT `+seekCols+` FROM seeks s JOIN accounts a ON a.id = s.account_id
		WHERE s.id = ? AND a.status = ''`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("seek %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading seek %s: %w", id, err)
	}
	return &s, nil
}

func (c *core) Seeks(ctx context.Context) ([]seek.Seek, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	// The seeks of accounts disabled or deleted are not shown; a pairing
	// would refuse them too.
	return readSeeks(c.pool.query(ctx, `SELECT `+seekCols+` FROM seeks s JOIN accounts a ON a.id = s.account_id
		WHERE a.status = '' ORDER BY s.created, s.id`))
}

func readSeeks(rs rows, err error) ([]seek.Seek, error) {
	if err != nil {
		return nil, fmt.Errorf("reading the seeks: %w", err)
	}
	var out []seek.Seek
	for rs.Next() {
		s, err := scanSeek(rs)
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the seeks: %w", err)
		}
		out = append(out, s)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the seeks: %w", err)
	}
	return out, nil
}

func (c *core) TouchLobby(ctx context.Context, accountIDs []string, at time.Time) error {
	if err := c.lobbyReady(); err != nil || len(accountIDs) == 0 {
		return err
	}
	return c.eng.write(ctx, "recording who is in the lobby", true, func(t *tx) error {
		if _, err := t.exec(`UPDATE seeks SET seen = ? WHERE account_id IN (SELECT l.v FROM {list text} AS l)`, at, accountIDs); err != nil {
			return err
		}
		if c.version < presenceVersion {
			return nil
		}
		// (SQLite reads an upsert's SELECT only with a WHERE.)
		_, err := t.exec(`INSERT INTO lobby_presence (account_id, seen) SELECT l.v, ? FROM {list text} AS l WHERE true
			ON CONFLICT (account_id) DO UPDATE SET seen = excluded.seen`, at, accountIDs)
		return err
	})
}

func (c *core) LobbyPlayers(ctx context.Context, since time.Time, limit int) ([]seek.Present, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	var out []seek.Present
	read := func(query string, args ...any) error {
		rs, err := c.pool.query(ctx, query, args...)
		if err != nil {
			return err
		}
		for rs.Next() {
			var p seek.Present
			var kind string
			if err := rs.Scan(&p.ID, &p.Name, &kind, &p.Online); err != nil {
				rs.Close()
				return err
			}
			p.Bot = kind == AccountBot
			out = append(out, p)
		}
		return closeRows(rs)
	}
	present := `false`
	if c.version >= presenceVersion {
		present = `EXISTS (SELECT 1 FROM lobby_presence p WHERE p.account_id = a.id AND p.seen >= ?)`
	}
	// The bots by the index of bots (its condition is written out, for
	// SQLite to use it), then the people present by the index of times.
	args := []any{limit}
	if c.version >= presenceVersion {
		args = []any{since, limit}
	}
	if err := read(`SELECT a.id, a.name, a.kind, `+present+` FROM accounts a
		WHERE a.kind = 'bot' AND a.status = '' ORDER BY a.name_key LIMIT ?`, args...); err != nil {
		return nil, fmt.Errorf("reading the bots: %w", err)
	}
	if c.version >= presenceVersion {
		if err := read(`SELECT a.id, a.name, a.kind, true FROM lobby_presence p JOIN accounts a ON a.id = p.account_id
			WHERE p.seen >= ? AND a.kind != 'bot' AND a.status = '' ORDER BY a.name_key LIMIT ?`, since, limit); err != nil {
			return nil, fmt.Errorf("reading who is in the lobby: %w", err)
		}
	}
	return out, nil
}

func (c *core) ForgetPresence(ctx context.Context, before time.Time) error {
	if c.version < presenceVersion {
		return nil
	}
	return c.eng.write(ctx, "forgetting who was in the lobby", true, func(t *tx) error {
		_, err := t.exec(`DELETE FROM lobby_presence WHERE seen < ?`, before)
		return err
	})
}

func (c *core) LobbyPlayer(ctx context.Context, key string) (seek.Player, error) {
	var p seek.Player
	var kind string
	err := c.pool.queryRow(ctx, `SELECT id, name, kind FROM accounts WHERE name_key = ? AND status = ''`, key).Scan(&p.ID, &p.Name, &kind)
	if errors.Is(err, sql.ErrNoRows) {
		return p, fmt.Errorf("player %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return p, fmt.Errorf("reading player %q: %w", key, err)
	}
	p.Bot = kind == AccountBot
	return p, nil
}

func (c *core) ExpireSeeks(ctx context.Context, before time.Time) ([]seek.Seek, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	// Read first, so that a sweep that finds nothing writes nothing.
	out, err := readSeeks(c.pool.query(ctx, `SELECT `+seekCols+` FROM seeks s JOIN accounts a ON a.id = s.account_id
		WHERE s.seen < ? AND s.per_move = ? AND s.clock_ms > 0 ORDER BY s.id`, before, false))
	if err != nil || len(out) == 0 {
		return nil, err
	}
	err = c.eng.write(ctx, "removing the seeks of players gone", false, func(t *tx) error {
		// A seek seen again or taken meanwhile stays out.
		gone, err := ids(t.q.query(t.ctx, `DELETE FROM seeks WHERE id IN (SELECT l.v FROM {list text} AS l) AND seen < ?
			RETURNING id`, seekIDs(out), before))
		out = keepIDs(out, gone, func(s seek.Seek) string { return s.ID })
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func seekIDs(list []seek.Seek) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = s.ID
	}
	return out
}

// keepIDs keeps the items of list whose ID is among ids.
func keepIDs[T any](list []T, ids []string, id func(T) string) []T {
	set := make(map[string]bool, len(ids))
	for _, s := range ids {
		set[s] = true
	}
	out := list[:0]
	for _, x := range list {
		if set[id(x)] {
			out = append(out, x)
		}
	}
	return out
}

const challengeCols = `c.id, c.from_id, f.name, f.kind, c.to_id, tt.name, tt.kind, c.holes, c.seeds, c.variant, c.clock_ms,
	c.increment_ms, c.per_move, c.rated, c.side, c.created, c.expires`

const challengeFrom = ` FROM lobby_challenges c JOIN accounts f ON f.id = c.from_id JOIN accounts tt ON tt.id = c.to_id `

func scanChallenge(r row) (seek.Challenge, error) {
	var c seek.Challenge
	var fk, tk, variant string
	var clock, inc int64
	err := r.Scan(&c.ID, &c.From.ID, &c.From.Name, &fk, &c.To.ID, &c.To.Name, &tk, &c.Holes, &c.Seeds, &variant,
		&clock, &inc, &c.Clock.PerMove, &c.Rated, &c.Side, timeCol{&c.Created}, timeCol{&c.Expires})
	if err != nil {
		return c, err
	}
	c.From.Bot, c.To.Bot = fk == AccountBot, tk == AccountBot
	c.Clock.Time, c.Clock.Increment = time.Duration(clock)*time.Millisecond, time.Duration(inc)*time.Millisecond
	if c.Variant, err = rules.ParseVariant(variant); err != nil {
		return c, fmt.Errorf("challenge %s: stored variant: %w", c.ID, err)
	}
	return c, nil
}

func readChallenges(rs rows, err error) ([]seek.Challenge, error) {
	if err != nil {
		return nil, fmt.Errorf("reading challenges: %w", err)
	}
	var out []seek.Challenge
	for rs.Next() {
		c, err := scanChallenge(rs)
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading challenges: %w", err)
		}
		out = append(out, c)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading challenges: %w", err)
	}
	return out, nil
}

// blocked reports whether either of a and b blocks the other.
func (t *tx) blocked(a, b string) (bool, error) {
	var n int
	err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM blocks WHERE account_id = ? AND blocked_id = ?
		OR account_id = ? AND blocked_id = ?`, a, b, b, a).Scan(&n)
	return n > 0, err
}

func (c *core) AddChallenge(ctx context.Context, ch *seek.Challenge, limits seek.ChallengeLimits, notice string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	if ch.ID == "" {
		ch.ID = newID()
	}
	if ch.Created.IsZero() {
		ch.Created = now()
	}
	ch.Created = ch.Created.UTC().Truncate(time.Millisecond)
	return c.eng.write(ctx, "storing a challenge", false, func(t *tx) error {
		// Both accounts' row locks, in one order: the counts of each
		// hold until the challenge is stored.
		first, second := ch.From.ID, ch.To.ID
		if second < first {
			first, second = second, first
		}
		for _, id := range []string{first, second} {
			if err := t.activeAccount(id); err != nil {
				return err
			}
		}
		if b, err := t.blocked(ch.From.ID, ch.To.ID); err != nil {
			return err
		} else if b {
			return ErrBlocked
		}
		// The target's count is of what they see and may answer: the
		// challenges of active accounts, not expired.
		var in, out, pair int
		if err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM lobby_challenges c JOIN accounts f ON f.id = c.from_id
			WHERE c.to_id = ? AND c.expires > ? AND f.status = ''`, ch.To.ID, ch.Created).Scan(&in); err != nil {
			return err
		}
		if in >= limits.Incoming {
			return fmt.Errorf("%s has %d challenges waiting, the most one may have: %w", ch.To.Name, in, ErrLimit)
		}
		if err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM lobby_challenges WHERE from_id = ? AND expires > ?`,
			ch.From.ID, ch.Created).Scan(&out); err != nil {
			return err
		}
		if out >= limits.Outgoing {
			return fmt.Errorf("you have %d challenges waiting for an answer, the most one may have: %w", out, ErrLimit)
		}
		if err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM lobby_challenges WHERE from_id = ? AND to_id = ? AND expires > ?`,
			ch.From.ID, ch.To.ID, ch.Created).Scan(&pair); err != nil {
			return err
		}
		if pair >= limits.ToOne {
			return fmt.Errorf("you have %d challenges waiting for %s's answer, the most one may send one player: %w",
				pair, ch.To.Name, ErrLimit)
		}
		if _, err := t.exec(`INSERT INTO lobby_challenges (id, from_id, to_id, holes, seeds, variant, clock_ms, increment_ms,
			per_move, rated, side, created, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			ch.ID, ch.From.ID, ch.To.ID, ch.Holes, ch.Seeds, ch.Variant.String(), ch.Clock.Time.Milliseconds(),
			ch.Clock.Increment.Milliseconds(), ch.Clock.PerMove, ch.Rated, ch.Side, ch.Created, ch.Expires); err != nil {
			return err
		}
		return t.notify(notice)
	})
}

func (c *core) LobbyChallenge(ctx context.Context, id string) (*seek.Challenge, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	ch, err := scanChallenge(c.pool.queryRow(ctx, `SELECT `+challengeCols+challengeFrom+`WHERE c.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("challenge %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading challenge %s: %w", id, err)
	}
	return &ch, nil
}

func (c *core) LobbyChallenges(ctx context.Context, accountID string) (incoming, outgoing []seek.Challenge, err error) {
	if err := c.lobbyReady(); err != nil {
		return nil, nil, err
	}
	all, err := readChallenges(c.pool.query(ctx, `SELECT `+challengeCols+challengeFrom+`WHERE (c.to_id = ? OR c.from_id = ?)
		AND f.status = '' AND tt.status = '' ORDER BY c.created, c.id`, accountID, accountID))
	if err != nil {
		return nil, nil, err
	}
	for _, ch := range all {
		if ch.To.ID == accountID {
			incoming = append(incoming, ch)
		} else {
			outgoing = append(outgoing, ch)
		}
	}
	return incoming, outgoing, nil
}

func (c *core) DeleteChallenge(ctx context.Context, id, notice string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	return c.eng.write(ctx, "removing a challenge", false, func(t *tx) error {
		n, err := t.exec(`DELETE FROM lobby_challenges WHERE id = ?`, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("challenge %s: %w", id, ErrNotFound)
		}
		return t.notify(notice)
	})
}

func (c *core) ExpireChallenges(ctx context.Context, at time.Time) ([]seek.Challenge, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	out, err := readChallenges(c.pool.query(ctx, `SELECT `+challengeCols+challengeFrom+`WHERE c.expires <= ?
		ORDER BY c.id`, at))
	if err != nil || len(out) == 0 {
		return nil, err
	}
	err = c.eng.write(ctx, "removing expired challenges", false, func(t *tx) error {
		list := make([]string, len(out))
		for i, ch := range out {
			list[i] = ch.ID
		}
		// One answered meanwhile is not told as expired.
		gone, err := ids(t.q.query(t.ctx, `DELETE FROM lobby_challenges WHERE id IN (SELECT l.v FROM {list text} AS l)
			RETURNING id`, list))
		out = keepIDs(out, gone, func(c seek.Challenge) string { return c.ID })
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// goneChallenges reads the rows of a DELETE ... RETURNING id, from_id,
// to_id: the challenges removed, with their players' IDs alone.
func goneChallenges(rs rows, err error) ([]seek.Challenge, error) {
	if err != nil {
		return nil, err
	}
	var out []seek.Challenge
	for rs.Next() {
		var ch seek.Challenge
		if err := rs.Scan(&ch.ID, &ch.From.ID, &ch.To.ID); err != nil {
			rs.Close()
			return nil, err
		}
		out = append(out, ch)
	}
	return out, closeRows(rs)
}

func (c *core) DeleteChallengesTo(ctx context.Context, accountID string, notice func([]seek.Challenge) string) ([]seek.Challenge, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	var out []seek.Challenge
	err := c.eng.write(ctx, "declining challenges", false, func(t *tx) error {
		var err error
		out, err = goneChallenges(t.q.query(t.ctx, `DELETE FROM lobby_challenges WHERE to_id = ? RETURNING id, from_id, to_id`, accountID))
		if err != nil || len(out) == 0 {
			return err
		}
		return t.notify(notice(out))
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (c *core) Withdraw(ctx context.Context, accountID string, blocks bool, notice func(seek.Withdrawn) string) (seek.Withdrawn, error) {
	var w seek.Withdrawn
	if err := c.lobbyReady(); err != nil {
		return w, err
	}
	err := c.eng.write(ctx, "withdrawing from the lobby", false, func(t *tx) error {
		w = seek.Withdrawn{}
		rs, err := t.q.query(t.ctx, `DELETE FROM seeks WHERE account_id = ? RETURNING id, pool`, accountID)
		if err != nil {
			return err
		}
		for rs.Next() {
			sk := seek.Seek{Owner: seek.Player{ID: accountID}}
			if err := rs.Scan(&sk.ID, &sk.Pool); err != nil {
				rs.Close()
				return err
			}
			w.Seeks = append(w.Seeks, sk)
		}
		if err := closeRows(rs); err != nil {
			return err
		}
		if w.Challenges, err = goneChallenges(t.q.query(t.ctx, `DELETE FROM lobby_challenges WHERE from_id = ? OR to_id = ?
			RETURNING id, from_id, to_id`, accountID, accountID)); err != nil {
			return err
		}
		if c.version >= presenceVersion {
			if _, err := t.exec(`DELETE FROM lobby_presence WHERE account_id = ?`, accountID); err != nil {
				return err
			}
		}
		if blocks {
			if _, err := t.exec(`DELETE FROM blocks WHERE account_id = ? OR blocked_id = ?`, accountID, accountID); err != nil {
				return err
			}
		}
		if len(w.Seeks) == 0 && len(w.Challenges) == 0 {
			return nil
		}
		return t.notify(notice(w))
	})
	if err != nil {
		return seek.Withdrawn{}, err
	}
	return w, nil
}

func (c *core) InactiveInLobby(ctx context.Context) ([]string, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	list, err := ids(c.pool.query(ctx, `SELECT s.account_id FROM seeks s JOIN accounts a ON a.id = s.account_id WHERE a.status != ''
		UNION SELECT c.from_id FROM lobby_challenges c JOIN accounts a ON a.id = c.from_id WHERE a.status != ''
		UNION SELECT c.to_id FROM lobby_challenges c JOIN accounts a ON a.id = c.to_id WHERE a.status != ''`))
	if err != nil {
		return nil, fmt.Errorf("reading the accounts gone from the lobby: %w", err)
	}
	return list, nil
}

func (c *core) Pair(ctx context.Context, p *seek.Pairing) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	g := p.Game
	if g.Online == nil || g.Online.Seats[rules.South] == "" || g.Online.Seats[rules.North] == "" ||
		p.Owners[rules.South] == "" || p.Owners[rules.North] == "" {
		return fmt.Errorf("pairing: a game without both seats and their owners")
	}
	// The caller may have named the game already, in its notice.
	id := g.ID
	prepareGame(g)
	if ValidID(id) {
		g.ID = id
	}
	return c.eng.write(ctx, "pairing two players", false, func(t *tx) error {
		// Both accounts' row locks first, in one order, as AddSeek and
		// AddChallenge take them. Then what the game takes: of two
		// pairings racing for a seek, the second finds its row gone.
		first, second := p.Owners[rules.South], p.Owners[rules.North]
		if first == second {
			return fmt.Errorf("pairing an account with itself: %w", ErrConflict)
		}
		if second < first {
			first, second = second, first
		}
		for _, id := range []string{first, second} {
			if err := t.activeAccount(id); err != nil {
				return err
			}
		}
		for _, id := range p.Seeks {
			n, err := t.exec(`DELETE FROM seeks WHERE id = ?`, id)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("seek %s has been taken or withdrawn: %w", id, ErrConflict)
			}
		}
		if p.Challenge != "" {
			n, err := t.exec(`DELETE FROM lobby_challenges WHERE id = ?`, p.Challenge)
			if err != nil {
				return err
			}
			if n == 0 {
				return fmt.Errorf("challenge %s has been answered or withdrawn: %w", p.Challenge, ErrConflict)
			}
		}
		if b, err := t.blocked(first, second); err != nil {
			return err
		} else if b {
			return ErrBlocked
		}
		if err := t.insertGame(g, t.touch(), 1); err != nil {
			return err
		}
		for _, side := range []rules.Side{rules.South, rules.North} {
			if _, err := t.exec(`INSERT INTO seat_owners (seat, account_id, created) VALUES (?, ?, ?)`,
				g.Online.Seats[side], p.Owners[side], g.Created); err != nil {
				return err
			}
		}
		return t.notify(p.Notice)
	})
}

func (c *core) Block(ctx context.Context, accountID, blocked string, max int, notice func([]seek.Challenge) string) ([]seek.Challenge, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	if accountID == blocked {
		return nil, fmt.Errorf("blocking oneself: %w", ErrConflict)
	}
	var gone []seek.Challenge
	err := c.eng.write(ctx, "blocking a player", false, func(t *tx) error {
		gone = nil
		if err := t.activeAccount(accountID); err != nil {
			return err
		}
		added, err := t.exec(`INSERT INTO blocks (account_id, blocked_id, created) VALUES (?, ?, ?)
			ON CONFLICT (account_id, blocked_id) DO NOTHING`, accountID, blocked, now())
		if t.d.foreignKey(err) {
			return fmt.Errorf("account %s: %w", blocked, ErrNotFound)
		}
		if err != nil || added == 0 {
			return err // a block again changes nothing
		}
		var n int
		if err := t.q.queryRow(t.ctx, `SELECT COUNT(*) FROM blocks WHERE account_id = ?`, accountID).Scan(&n); err != nil {
			return err
		}
		if n > max {
			return fmt.Errorf("%d players blocked, the most one may block: %w", n-1, ErrLimit)
		}
		// The challenges between the two go: neither may accept them now.
		gone, err = goneChallenges(t.q.query(t.ctx, `DELETE FROM lobby_challenges WHERE from_id = ? AND to_id = ?
			OR from_id = ? AND to_id = ? RETURNING id, from_id, to_id`, accountID, blocked, blocked, accountID))
		if err != nil || len(gone) == 0 {
			return err
		}
		return t.notify(notice(gone))
	})
	if err != nil {
		return nil, err
	}
	return gone, nil
}

func (c *core) Unblock(ctx context.Context, accountID, blocked string) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	return c.eng.write(ctx, "unblocking a player", true, func(t *tx) error {
		n, err := t.exec(`DELETE FROM blocks WHERE account_id = ? AND blocked_id = ?`, accountID, blocked)
		if err == nil && n == 0 {
			err = fmt.Errorf("block: %w", ErrNotFound)
		}
		return err
	})
}

func (c *core) Blocks(ctx context.Context, accountID string) ([]seek.Player, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	rs, err := c.pool.query(ctx, `SELECT a.id, a.name, a.kind FROM blocks b JOIN accounts a ON a.id = b.blocked_id
		WHERE b.account_id = ? AND a.status != ? ORDER BY a.name_key`, accountID, AccountDeleted)
	if err != nil {
		return nil, fmt.Errorf("reading the blocks of account %s: %w", accountID, err)
	}
	var out []seek.Player
	for rs.Next() {
		var p seek.Player
		var kind string
		if err := rs.Scan(&p.ID, &p.Name, &kind); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the blocks of account %s: %w", accountID, err)
		}
		p.Bot = kind == AccountBot
		out = append(out, p)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the blocks of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) Blocked(ctx context.Context, a, b string) (bool, error) {
	if err := c.lobbyReady(); err != nil {
		return false, err
	}
	var n int
	err := c.pool.queryRow(ctx, `SELECT COUNT(*) FROM blocks WHERE account_id = ? AND blocked_id = ?
		OR account_id = ? AND blocked_id = ?`, a, b, b, a).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("reading blocks: %w", err)
	}
	return n > 0, nil
}

func (c *core) BlockedWith(ctx context.Context, accountID string) ([]string, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	list, err := ids(c.pool.query(ctx, `SELECT blocked_id FROM blocks WHERE account_id = ?
		UNION SELECT account_id FROM blocks WHERE blocked_id = ?`, accountID, accountID))
	if err != nil {
		return nil, fmt.Errorf("reading the blocks of account %s: %w", accountID, err)
	}
	return list, nil
}

func (c *core) AddReport(ctx context.Context, r *seek.Report) error {
	if err := c.lobbyReady(); err != nil {
		return err
	}
	r.ID = newID()
	r.Created = now()
	return c.eng.write(ctx, "storing a report", true, func(t *tx) error {
		n, err := t.exec(`INSERT INTO reports (id, game_id, account_id, reason, text, created) VALUES (?, ?, ?, ?, ?, ?)
			ON CONFLICT (game_id, account_id) DO NOTHING`, r.ID, r.GameID, r.By.ID, r.Reason, r.Text, r.Created)
		switch {
		case t.d.foreignKey(err):
			return fmt.Errorf("game %s: %w", r.GameID, ErrNotFound)
		case err != nil:
			return err
		case n == 0:
			return fmt.Errorf("a report of game %s by this account: %w", r.GameID, ErrExists)
		}
		return nil
	})
}

func (c *core) Reports(ctx context.Context, limit int) ([]seek.Report, error) {
	if err := c.lobbyReady(); err != nil {
		return nil, err
	}
	rs, err := c.pool.query(ctx, `SELECT r.id, r.game_id, r.account_id, a.name, a.kind, r.reason, r.text, r.created
		FROM reports r JOIN accounts a ON a.id = r.account_id ORDER BY r.created DESC, r.id LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the reports: %w", err)
	}
	var out []seek.Report
	for rs.Next() {
		var r seek.Report
		var kind string
		if err := rs.Scan(&r.ID, &r.GameID, &r.By.ID, &r.By.Name, &kind, &r.Reason, &r.Text, timeCol{&r.Created}); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the reports: %w", err)
		}
		r.By.Bot = kind == AccountBot
		out = append(out, r)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the reports: %w", err)
	}
	return out, nil
}
