package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// updated is the game's updated time after c.
func changeUpdated(c *game.Change) time.Time {
	if c.At.IsZero() {
		return now()
	}
	return c.At.UTC().Truncate(time.Millisecond)
}

// Update changes game id as c says, or returns ErrConflict if the game
// has changed since the caller read it (ErrNotFound if there is none).
func (co *core) Update(ctx context.Context, id string, c game.Change) error {
	if err := checkChange(&c, id); err != nil {
		return err
	}
	updated := changeUpdated(&c)
	what, single := "changing a game", false
	if isMove(&c) && co.d.oneStatementMove {
		what, single = "storing a move", true
	}
	do := func(t *tx) error { return t.change(id, &c, updated) }
	if c.Rate != nil {
		// A rated end locks its players' ratings, which the ends of their
		// other games lock too. Gathered with other games' changes, two
		// instances' transactions could each hold what the other waits
		// for (one a game's row, the other a player's rating) until
		// PostgreSQL broke the circle, and those waiting behind them ran
		// out of time. Alone, it holds its players' ratings only for its
		// own commit.
		return co.eng.write(ctx, what, single, do)
	}
	return co.eng.writeGame(ctx, what, id, single, do)
}

// isMove reports whether c appends one move and changes nothing else.
func isMove(c *game.Change) bool {
	return c.Online == nil && c.South == nil && c.North == nil && c.From == c.Ply && len(c.Moves) == 1
}

// check refuses a change that makes no sense, and readies its next game.
func checkChange(c *game.Change, id string) error {
	if c.From < 0 || c.From > c.Ply {
		return fmt.Errorf("changing game %s from move %d of %d: out of range", id, c.From, c.Ply)
	}
	if len(c.Notice) > MaxNotice {
		return fmt.Errorf("changing game %s: a notice of %d bytes, over %d", id, len(c.Notice), MaxNotice)
	}
	if c.Next != nil {
		if c.Online == nil {
			return fmt.Errorf("changing game %s: a next game without the online state that names it", id)
		}
		prepareGame(c.Next)
		c.Online.Next = c.Next.ID
	}
	return nil
}

// GameByInvite returns the online game whose invite code is code.
func (c *core) GameByInvite(ctx context.Context, code string) (*game.Game, error) {
	g, err := c.game(ctx, `o.invite = ?`, code)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("invite: %w", ErrNotFound) // the code is a secret: not in messages
	}
	if err != nil {
		return nil, fmt.Errorf("reading the game of an invite: %w", err)
	}
	return g, nil
}

// OnlineGames lists the online games in progress, the most recently
// played first.
func (c *core) OnlineGames(ctx context.Context, limit int) ([]game.Summary, error) {
	list, err := summaries(c.pool.query(ctx, c.summaryQuery()+`WHERE o.end_reason = '' AND g.result = '*'
		ORDER BY g.touched DESC LIMIT ?`, limit))
	if err != nil {
		return nil, fmt.Errorf("listing online games: %w", err)
	}
	return list, nil
}

// OpenOnlineGames returns the IDs of the online games still in progress
// whose last change is before idle (all of them for a zero idle), the
// oldest first: the server watches their clocks and their expiry.
func (c *core) OpenOnlineGames(ctx context.Context, idle time.Time) ([]string, error) {
	q := `SELECT g.id FROM games g JOIN ` + c.online + ` o ON o.game_id = g.id WHERE o.end_reason = '' AND g.result = '*'`
	var args []any
	if !idle.IsZero() {
		q += ` AND g.updated < ?`
		args = append(args, idle)
	}
	list, err := ids(c.pool.query(ctx, q+` ORDER BY g.touched`, args...))
	if err != nil {
		return nil, fmt.Errorf("listing open online games: %w", err)
	}
	return list, nil
}

// ResumeClocks restarts the running clocks of a server that was last
// alive at alive and runs again at now: each clock keeps the time it had
// run while the server was up, and none of the time it was down. It
// returns how many clocks it resumed.
func (c *core) ResumeClocks(ctx context.Context, alive, now time.Time) (int, error) {
	var n int
	err := c.eng.write(ctx, "giving the clocks back the outage", false, func(t *tx) error {
		var err error
		n, err = t.resumeClocks(alive, now)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// SeatExists reports whether some online game has a seat whose token
// hashes to hash, so that a token of another game can be told from one
// that was never given.
func (c *core) SeatExists(ctx context.Context, hash string) (bool, error) {
	if c.version < 3 || hash == "" {
		return false, nil
	}
	var found bool
	err := c.pool.queryRow(ctx, `SELECT EXISTS (SELECT 1 FROM online WHERE south_seat = ?)
		OR EXISTS (SELECT 1 FROM online WHERE north_seat = ?)`, hash, hash).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("looking up a seat: %w", err)
	}
	return found, nil
}

// SetAlive records that the server was running at t.
func (c *core) SetAlive(ctx context.Context, t time.Time) error {
	return c.eng.write(ctx, "recording the server's heartbeat", true, func(w *tx) error {
		_, err := w.exec(`INSERT INTO meta (key, value) VALUES ('alive', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, t.UTC().Format(timeFormat))
		return err
	})
}

// Alive returns when the server was last recorded running, if ever.
func (c *core) Alive(ctx context.Context) (time.Time, bool, error) {
	if c.version < 3 {
		return time.Time{}, false, nil
	}
	var v string
	err := c.pool.queryRow(ctx, `SELECT value FROM meta WHERE key = 'alive'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading the server's heartbeat: %w", err)
	}
	t, err := parseTime("heartbeat", v)
	return t, err == nil, err
}
