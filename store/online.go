package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/rules"
)

// Online is the state of a game played on two devices, beside its moves:
// who holds its seats, its clocks, its open offers and how it ended. The
// store keeps it as given; package server decides what it means.
type Online struct {
	Invite string    // the code that seats the second player
	Seats  [2]string // by rules.Side: the SHA-256 of the seat's token, in hex; "" while the seat is free
	Clock  Clock
	// Left is each side's time when the running clock started (at
	// TurnStart), or now when no clock runs.
	Left      [2]time.Duration
	TurnStart time.Time // when the running clock started; zero when none runs
	// End is how the game ended when not by the rules of play ("resign",
	// "timeout", "agreed", "aborted", "expired"), or "".
	End string
	// The side with an open offer ("s" or "n"), or "".
	DrawOffer, TakebackOffer, RematchOffer string
	Next                                   string // the next game of the series or the rematch
	// Rev counts the changes of the game, moves included; the store sets
	// it (1 for a new game, one more at each Update).
	Rev int64
}

// Clock is a time control: Time for the whole game with Increment added
// after each move, or Time for each move when PerMove; no clock when Time
// is zero.
type Clock struct {
	Time, Increment time.Duration
	PerMove         bool
}

// Change is a change of a stored game, made only if the game is still as
// the caller saw it: Ply moves and, for an online game, revision Rev.
type Change struct {
	Ply int   // the moves the caller saw
	Rev int64 // the revision the caller saw (online games)
	// Moves replace the game's moves from From on: a move appended is
	// From = Ply with one move, a takeback From < Ply with none.
	From   int
	Moves  []rules.Move
	Result string
	// South and North, when not nil, are the players' new names.
	South, North *string
	// Online, for an online game, is its new state; its Rev is set to
	// Rev+1.
	Online *Online
	// Next, when not nil, is the game that follows this one (a rematch,
	// the next game of a series), stored in the same transaction as the
	// change or not at all, so that of two racing requests for it only
	// one leaves a game. Update sets its ID, Created and Updated, and
	// Online.Next to its ID; Online must be set.
	Next *Game
	// Notice, when not "", is told to the instances listening on a
	// shared store (Notifier) by the change's own transaction: they hear
	// of the change if and only if it is committed. Other stores ignore
	// it.
	Notice string
	// At, when not zero, is when the change happened, for the game's
	// updated time: a flag falls at its deadline, however late the
	// server records it. Zero means now.
	At time.Time
}

// updated is the game's updated time after c.
func (c *Change) updated() time.Time {
	if c.At.IsZero() {
		return now()
	}
	return c.At.UTC().Truncate(time.Millisecond)
}

// Update changes game id as c says, or returns ErrConflict if the game
// has changed since the caller read it (ErrNotFound if there is none).
func (s *SQLite) Update(ctx context.Context, id string, c Change) error {
	if err := c.check(id); err != nil {
		return err
	}
	updated := c.updated()
	return s.write(ctx, "changing a game", func(t *wtx) error {
		if err := t.setMoves(id, c.Ply, c.From+len(c.Moves), c.Result, updated); err != nil {
			return err
		}
		if c.From < c.Ply {
			if _, err := t.s.stmts.deleteMoves.ExecContext(t.ctx, id, c.From); err != nil {
				return err
			}
		}
		if err := t.insertMoves(id, c.From, c.Moves); err != nil {
			return err
		}
		if c.South != nil || c.North != nil {
			if _, err := t.s.wc.ExecContext(t.ctx, `UPDATE games SET south = COALESCE(?, south), north = COALESCE(?, north)
				WHERE id = ?`, c.South, c.North, id); err != nil {
				return err
			}
		}
		if c.Online == nil {
			return nil
		}
		if err := t.updateOnline(id, c.Rev, c.Online); err != nil {
			return err
		}
		if c.Next == nil {
			return nil
		}
		return t.insertGame(c.Next)
	})
}

// check refuses a change that makes no sense, and readies its next game.
func (c *Change) check(id string) error {
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

func onlineArgs(o *Online) []any {
	var start string
	if !o.TurnStart.IsZero() {
		start = o.TurnStart.UTC().Format(timeFormat)
	}
	perMove := 0
	if o.Clock.PerMove {
		perMove = 1
	}
	return []any{o.Seats[rules.South], o.Seats[rules.North], o.Clock.Time.Milliseconds(), o.Clock.Increment.Milliseconds(),
		perMove, o.Left[rules.South].Milliseconds(), o.Left[rules.North].Milliseconds(), start, o.End, o.DrawOffer,
		o.TakebackOffer, o.RematchOffer, o.Next}
}

func (t *wtx) insertOnline(id string, o *Online, rev int64) error {
	o.Rev = rev
	args := append([]any{id, o.Invite}, onlineArgs(o)...)
	_, err := t.s.wc.ExecContext(t.ctx, `INSERT INTO online (game_id, invite, south_seat, north_seat, clock_ms,
		increment_ms, per_move, south_ms, north_ms, turn_start, end_reason, draw_offer, takeback_offer, rematch_offer,
		next_game, rev) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)`, append(args, rev)...)
	return err
}

func (t *wtx) updateOnline(id string, rev int64, o *Online) error {
	args := append(onlineArgs(o), rev+1, id, rev)
	res, err := t.s.wc.ExecContext(t.ctx, `UPDATE online SET south_seat = ?, north_seat = ?, clock_ms = ?,
		increment_ms = ?, per_move = ?, south_ms = ?, north_ms = ?, turn_start = ?, end_reason = ?, draw_offer = ?,
		takeback_offer = ?, rematch_offer = ?, next_game = ?, rev = ? WHERE game_id = ? AND rev = ?`, args...)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 1 {
		o.Rev = rev + 1
		return err
	}
	return fmt.Errorf("game %s has changed since revision %d: %w", id, rev, ErrConflict)
}

// readOnline reads the online state of game id, or nil for a game that is
// not online.
func (s *SQLite) readOnline(ctx context.Context, tx *sql.Tx, id string) (*Online, error) {
	if s.version < 3 {
		return nil, nil
	}
	o := &Online{}
	var clock, inc, south, north int64
	var perMove int
	var start string
	err := tx.QueryRowContext(ctx, `SELECT invite, south_seat, north_seat, clock_ms, increment_ms, per_move,
		south_ms, north_ms, turn_start, end_reason, draw_offer, takeback_offer, rematch_offer, next_game, rev
		FROM online WHERE game_id = ?`, id).Scan(&o.Invite, &o.Seats[rules.South], &o.Seats[rules.North], &clock, &inc,
		&perMove, &south, &north, &start, &o.End, &o.DrawOffer, &o.TakebackOffer, &o.RematchOffer, &o.Next, &o.Rev)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	o.Clock = Clock{Time: time.Duration(clock) * time.Millisecond, Increment: time.Duration(inc) * time.Millisecond, PerMove: perMove == 1}
	o.Left = [2]time.Duration{time.Duration(south) * time.Millisecond, time.Duration(north) * time.Millisecond}
	if start != "" {
		if o.TurnStart, err = parseTime("game "+id+": clock", start); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// GameByInvite returns the online game whose invite code is code.
func (s *SQLite) GameByInvite(ctx context.Context, code string) (*Game, error) {
	var g *Game
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		g, err = s.game(ctx, tx, `id = (SELECT game_id FROM online WHERE invite = ?)`, code)
		return err
	})
	if err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return nil, fmt.Errorf("invite: %w", ErrNotFound) // the code is a secret: not in messages
		}
		return nil, fmt.Errorf("reading the game of an invite: %w", err)
	}
	return g, nil
}

// OnlineGames lists the online games in progress, the most recently
// played first.
func (s *SQLite) OnlineGames(ctx context.Context, limit int) ([]Summary, error) {
	rows, err := s.r.QueryContext(ctx, `SELECT `+s.summaryColumns()+` FROM games
		WHERE id IN (SELECT game_id FROM online WHERE end_reason = '') AND result = '*'
		ORDER BY touched DESC LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("listing online games: %w", err)
	}
	list, err := scanSummaries(rows)
	if err != nil {
		return nil, fmt.Errorf("listing online games: %w", err)
	}
	return list, nil
}

// GamesByID returns the summaries of the games ids names that exist, in
// the order given.
func (s *SQLite) GamesByID(ctx context.Context, ids []string) ([]Summary, error) {
	out := make([]Summary, 0, len(ids))
	for _, id := range ids {
		rows, err := s.r.QueryContext(ctx, `SELECT `+s.summaryColumns()+` FROM games WHERE id = ?`, id)
		if err != nil {
			return nil, fmt.Errorf("reading game %s: %w", id, err)
		}
		list, err := scanSummaries(rows)
		if err != nil {
			return nil, fmt.Errorf("reading game %s: %w", id, err)
		}
		out = append(out, list...)
	}
	return out, nil
}

// OpenOnlineGames returns the IDs of the online games still in progress
// whose last change is before idle (all of them for a zero idle), the
// oldest first: the server watches their clocks and their expiry.
func (s *SQLite) OpenOnlineGames(ctx context.Context, idle time.Time) ([]string, error) {
	q := `SELECT g.id FROM games g JOIN online o ON o.game_id = g.id WHERE o.end_reason = '' AND g.result = '*'`
	var args []any
	if !idle.IsZero() {
		q += ` AND g.updated < ?`
		args = append(args, idle.UTC().Format(timeFormat))
	}
	rows, err := s.r.QueryContext(ctx, q+` ORDER BY g.touched`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing open online games: %w", err)
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("listing open online games: %w", err)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing open online games: %w", err)
	}
	return ids, nil
}

// ResumeClocks restarts the running clocks of a server that was last
// alive at alive and runs again at now: each clock keeps the time it had
// run while the server was up, and none of the time it was down. It
// returns how many clocks it resumed.
func (s *SQLite) ResumeClocks(ctx context.Context, alive, now time.Time) (int, error) {
	var n int64
	err := s.write(ctx, "giving the clocks back the outage", func(t *wtx) error {
		rows, err := t.s.wc.QueryContext(t.ctx, `SELECT game_id, turn_start FROM online WHERE end_reason = '' AND turn_start != ''`)
		if err != nil {
			return err
		}
		type shift struct{ id, start string }
		var shifts []shift
		for rows.Next() {
			var sh shift
			if err := rows.Scan(&sh.id, &sh.start); err != nil {
				rows.Close()
				return err
			}
			shifts = append(shifts, sh)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, sh := range shifts {
			start, err := parseTime("game "+sh.id+": clock", sh.start)
			if err != nil {
				return err
			}
			ran := max(0, alive.Sub(start))
			if _, err := t.s.wc.ExecContext(t.ctx, `UPDATE online SET turn_start = ?, rev = rev + 1 WHERE game_id = ?`,
				now.Add(-ran).UTC().Format(timeFormat), sh.id); err != nil {
				return err
			}
			n++
		}
		return nil
	})
	return int(n), err
}

// SeatExists reports whether some online game has a seat whose token
// hashes to hash, so that a token of another game can be told from one
// that was never given.
func (s *SQLite) SeatExists(ctx context.Context, hash string) (bool, error) {
	if s.version < 3 || hash == "" {
		return false, nil
	}
	var n int
	err := s.r.QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM online WHERE south_seat = ?) +
		(SELECT COUNT(*) FROM online WHERE north_seat = ?)`, hash, hash).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("looking up a seat: %w", err)
	}
	return n > 0, nil
}

// SetAlive records that the server was running at t.
func (s *SQLite) SetAlive(ctx context.Context, t time.Time) error {
	return s.write(ctx, "recording the server's heartbeat", func(w *wtx) error {
		_, err := w.s.wc.ExecContext(w.ctx, `INSERT INTO meta (key, value) VALUES ('alive', ?)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, t.UTC().Format(timeFormat))
		return err
	})
}

// Alive returns when the server was last recorded running, if ever.
func (s *SQLite) Alive(ctx context.Context) (time.Time, bool, error) {
	if s.version < 3 {
		return time.Time{}, false, nil
	}
	var v string
	err := s.r.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'alive'`).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading the server's heartbeat: %w", err)
	}
	t, err := parseTime("heartbeat", v)
	return t, err == nil, err
}
