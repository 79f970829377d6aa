package store

// The transaction core: the steps of every change, written once for both
// engines. An engine runs a change's steps in a transaction of its own
// making (SQLite's writer in a savepoint of its batch, PostgreSQL in a
// transaction on a pooled connection, see engine.write) and hands them a
// tx.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// tx is a change's transaction as its steps see it.
type tx struct {
	ctx context.Context
	q   runner
	d   *dialect
	// counted says that the engine numbers the changes itself (SQLite's
	// writer) and touched is the last number given out; otherwise the
	// database does (a sequence).
	counted bool
	touched int64
	// later, when not nil, gathers the change's notices instead of
	// sending them with the transaction: they are published once it has
	// committed (Postgres.SendNotices).
	later *[]string
}

func (t *tx) exec(query string, args ...any) (int64, error) { return t.q.exec(t.ctx, query, args...) }

// touch returns the parameter of dialect.touched for a change: the next
// number, or nil for the database's.
func (t *tx) touch() any {
	if !t.counted {
		return nil
	}
	t.touched++
	return t.touched
}

// touchAt returns the parameter of dialect.touched for a game copied at
// place touched, after which the order of changes goes on.
func (t *tx) touchAt(touched int64) any {
	t.touched = max(t.touched, touched)
	return touched
}

func (t *tx) insertSeries(id string, created time.Time, target int) error {
	_, err := t.exec(`INSERT INTO series (id, created, target) VALUES (?, ?, ?)`, id, created, target)
	return err
}

// insertGame stores g with its moves and online state, at place touched
// in the order of changes (tx.touch or tx.touchAt) and, for an online
// game, at revision rev: a new game is at revision 1, a copied one where
// it was.
func (t *tx) insertGame(g *game.Game, touched any, rev int64) error {
	side, level := computerColumns(g)
	var series, key any
	if g.SeriesID != "" {
		series = g.SeriesID
	}
	if g.ImportKey != "" {
		key = g.ImportKey
	}
	// An import key stored already leaves the row out rather than failing
	// the statement, which would end PostgreSQL's transaction; there the
	// statement waits for a racing import of the same key to commit or
	// not.
	n, err := t.exec(`INSERT INTO games (id, created, updated, south, north, start, variant, max_laps,
		computer_side, computer_level, series_id, result, moves, touched, import_key, rated, category)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, {touched}, ?, ?, ?)
		ON CONFLICT (import_key) DO NOTHING`,
		g.ID, g.Created, g.Updated, g.South, g.North, g.Start.String(), g.Rules.Variant.String(), g.Rules.Laps(),
		side, level, series, g.Result, len(g.Moves), touched, key, g.Rated, g.Category)
	switch {
	case t.d.foreignKey(err):
		return fmt.Errorf("series %s: %w", g.SeriesID, ErrNotFound)
	case err != nil:
		return err
	case n == 0:
		var id string
		if err := t.q.queryRow(t.ctx, `SELECT id FROM games WHERE import_key = ?`, key).Scan(&id); err != nil {
			return fmt.Errorf("finding the game with import key %q: %w", g.ImportKey, err)
		}
		g.ID = id
		return fmt.Errorf("game with import key %q: %w as %s", g.ImportKey, ErrExists, id)
	}
	if err := t.insertMoves(g.ID, 0, g.Moves); err != nil {
		return err
	}
	if g.Online == nil {
		return nil
	}
	g.Online.Rev = rev
	args := append([]any{g.ID, g.Online.Invite}, onlineArgs(g.Online)...)
	_, err = t.exec(`INSERT INTO online (game_id, invite, south_seat, north_seat, clock_ms, increment_ms, per_move,
		south_ms, north_ms, turn_start, end_reason, draw_offer, takeback_offer, rematch_offer, next_game, rev)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, append(args, rev)...)
	return err
}

// onlineArgs are the values of online's columns from south_seat to
// next_game.
func onlineArgs(o *game.Online) []any {
	return []any{o.Seats[rules.South], o.Seats[rules.North], o.Clock.Time.Milliseconds(), o.Clock.Increment.Milliseconds(),
		o.Clock.PerMove, o.Left[rules.South].Milliseconds(), o.Left[rules.North].Milliseconds(), o.TurnStart, o.End,
		o.DrawOffer, o.TakebackOffer, o.RematchOffer, o.Next}
}

// insertMoves stores moves as the moves of game id from number from on.
func (t *tx) insertMoves(id string, from int, moves []rules.Move) error {
	switch len(moves) {
	case 0:
		return nil
	case 1:
		_, err := t.exec(`INSERT INTO moves (game_id, ply, move) VALUES (?, ?, ?)`, id, from, moves[0].String())
		return err
	}
	text := make([]string, len(moves))
	for i, m := range moves {
		text[i] = m.String()
	}
	_, err := t.exec(`INSERT INTO moves (game_id, ply, move) SELECT ?, ? + l.i, l.v FROM {list text} AS l`,
		id, from, text)
	return err
}

func (t *tx) deleteMoves(id string, from int) error {
	_, err := t.exec(`DELETE FROM moves WHERE game_id = ? AND ply >= ?`, id, from)
	return err
}

// setMoves sets the move count of game id, which must be had, to n. The
// guarded UPDATE checks the count and moves it on in one statement, so
// the common case costs no read; on PostgreSQL it takes the game's row
// lock (see postgres.go).
func (t *tx) setMoves(id string, had, n int, result string, updated time.Time) error {
	k, err := t.exec(`UPDATE games SET moves = ?, result = ?, updated = ?, touched = {touched}
		WHERE id = ? AND moves = ?`, n, result, updated, t.touch(), id, had)
	if err != nil || k == 1 {
		return err
	}
	return t.missed(id, had)
}

// missed explains a guarded change of game id that changed nothing: no
// such game, or one that no longer has had moves. A game is never
// deleted, so a game found now was there then.
func (t *tx) missed(id string, had int) error {
	var stored int
	err := t.q.queryRow(t.ctx, `SELECT moves FROM games WHERE id = ?`, id).Scan(&stored)
	if errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("game %s has %d moves, not %d: %w", id, stored, had, ErrConflict)
}

// appendMove adds move number ply to game id, and sends notice (when not
// "") if it does.
func (t *tx) appendMove(id string, ply int, m rules.Move, result string, updated time.Time, notice string) error {
	if !t.d.oneStatementMove {
		if err := t.setMoves(id, ply, ply+1, result, updated); err != nil {
			return err
		}
		if err := t.insertMoves(id, ply, []rules.Move{m}); err != nil {
			return err
		}
		return t.notify(notice)
	}
	// One statement: the guarded UPDATE takes the game's lock, and the
	// INSERT adds the move only if it changed the game. The INSERT's
	// unique index sees every committed move, whatever the statement's
	// snapshot. The notice goes only if the move was added.
	const moved = `WITH moved AS (
			UPDATE games SET moves = ?, result = ?, updated = ?, touched = {touched}
			WHERE id = ? AND moves = ? RETURNING id)`
	var n int64
	var err error
	if notice == "" || t.d.notify == "" || t.later != nil {
		n, err = t.exec(moved+` INSERT INTO moves (game_id, ply, move) SELECT id, ?, ? FROM moved`,
			ply+1, result, updated, t.touch(), id, ply, ply, m.String())
		if n == 1 {
			t.notify(notice)
		}
	} else {
		n, err = t.exec(moved+`, added AS (
				INSERT INTO moves (game_id, ply, move) SELECT id, ?, ? FROM moved RETURNING game_id)
			SELECT {notify} FROM added`, ply+1, result, updated, t.touch(), id, ply, ply, m.String(), notice)
	}
	if err != nil || n == 1 {
		return err
	}
	return t.missed(id, ply)
}

// notify sends notice, when not "", at commit to the instances sharing
// the database.
func (t *tx) notify(notice string) error {
	if notice != "" && t.later != nil {
		*t.later = append(*t.later, notice)
		return nil
	}
	if notice == "" || t.d.notify == "" {
		return nil
	}
	_, err := t.exec(`SELECT {notify}`, notice)
	return err
}

// change makes c on game id, whose updated time becomes updated.
func (t *tx) change(id string, c *game.Change, updated time.Time) error {
	if isMove(c) {
		return t.appendMove(id, c.Ply, c.Moves[0], c.Result, updated, c.Notice)
	}
	if t.d.oneStatementMove && isOnlineMove(c) {
		return t.appendOnlineMove(id, c, updated)
	}
	if err := t.setMoves(id, c.Ply, c.From+len(c.Moves), c.Result, updated); err != nil {
		return err
	}
	if c.From < c.Ply {
		if err := t.deleteMoves(id, c.From); err != nil {
			return err
		}
	}
	if err := t.insertMoves(id, c.From, c.Moves); err != nil {
		return err
	}
	if c.South != nil || c.North != nil {
		if _, err := t.exec(`UPDATE games SET south = COALESCE(?, south), north = COALESCE(?, north) WHERE id = ?`,
			c.South, c.North, id); err != nil {
			return err
		}
	}
	if c.Online == nil {
		return t.notify(c.Notice)
	}
	if err := t.updateOnline(id, c.Rev, c.Online, c.ClocksOnly, c.Notice); err != nil {
		return err
	}
	// The ratings' step of a rated game's end runs in its transaction
	// (ratings.go).
	if c.Rate != nil {
		if err := c.Rate(&ratingTx{t: t, id: id}); err != nil {
			return err
		}
	}
	if c.Next == nil {
		return nil
	}
	return t.insertGame(c.Next, t.touch(), 1)
}

// isOnlineMove reports whether c appends one move to an online game and
// changes its clocks and offers alone.
func isOnlineMove(c *game.Change) bool {
	return c.Online != nil && c.ClocksOnly && c.South == nil && c.North == nil && c.From == c.Ply &&
		len(c.Moves) == 1 && c.Rate == nil && c.Next == nil
}

// appendOnlineMove makes c, a move of online game id (isOnlineMove), in
// one statement, which must run in a transaction. The guarded UPDATE of
// games comes first, taking the game's lock as every change does, then
// the guarded UPDATE of online (its revision), then the move is added
// and the notice sent. When the revision has moved on but not the moves
// (an offer made meanwhile), the statement changes the games row alone
// and answers no row: ErrConflict, and the transaction is rolled back.
func (t *tx) appendOnlineMove(id string, c *game.Change, updated time.Time) error {
	o := c.Online
	query := `WITH moved AS (
			UPDATE games SET moves = ?, result = ?, updated = ?, touched = {touched}
			WHERE id = ? AND moves = ? RETURNING id),
		clocked AS (
			UPDATE online SET south_ms = ?, north_ms = ?, turn_start = ?, draw_offer = ?, takeback_offer = ?, rev = ?
			WHERE game_id = (SELECT id FROM moved) AND rev = ? RETURNING game_id),
		added AS (
			INSERT INTO moves (game_id, ply, move) SELECT game_id, ?, ? FROM clocked RETURNING game_id)
		SELECT `
	args := []any{c.Ply + 1, c.Result, updated, t.touch(), id, c.Ply,
		o.Left[rules.South].Milliseconds(), o.Left[rules.North].Milliseconds(), o.TurnStart, o.DrawOffer,
		o.TakebackOffer, c.Rev + 1, c.Rev, c.Ply, c.Moves[0].String()}
	if c.Notice != "" && t.d.notify != "" && t.later == nil {
		query, args = query+`{notify} FROM added`, append(args, c.Notice)
	} else {
		query += `1 FROM added`
	}
	n, err := t.exec(query, args...)
	if err != nil {
		return err
	}
	if n != 1 {
		if err := t.missed(id, c.Ply); !errors.Is(err, ErrConflict) {
			return err
		}
		return fmt.Errorf("game %s has changed since revision %d: %w", id, c.Rev, ErrConflict)
	}
	o.Rev = c.Rev + 1
	if t.later != nil {
		return t.notify(c.Notice)
	}
	return nil
}

// updateOnline sets the online state of game id, which must be at
// revision rev, and sends notice with the same statement, only if the
// guard held.
func (t *tx) updateOnline(id string, rev int64, o *game.Online, clocksOnly bool, notice string) error {
	n := int64(0)
	if clocksOnly {
		// A move: the columns it changes alone, fewer to bind and write.
		var err error
		n, err = t.setOnline(`UPDATE online SET south_ms = ?, north_ms = ?, turn_start = ?, draw_offer = ?,
			takeback_offer = ?, rev = ? WHERE game_id = ? AND rev = ?`,
			[]any{o.Left[rules.South].Milliseconds(), o.Left[rules.North].Milliseconds(), o.TurnStart,
				o.DrawOffer, o.TakebackOffer, rev + 1, id, rev}, notice)
		if err != nil {
			return err
		}
	} else if t.d.setRewrites {
		// Most changes (a move, a clock, an offer) leave the seats as they
		// are: setting them anyway would rewrite both seats' index entries.
		// The seats are in the guard instead; a change of seat (or a
		// revision taken already) changes nothing here and is made, or
		// refused, below.
		var err error
		n, err = t.setOnline(`UPDATE online SET clock_ms = ?, increment_ms = ?, per_move = ?,
			south_ms = ?, north_ms = ?, turn_start = ?, end_reason = ?, draw_offer = ?, takeback_offer = ?,
			rematch_offer = ?, next_game = ?, rev = ? WHERE game_id = ? AND rev = ? AND south_seat = ? AND north_seat = ?`,
			append(onlineArgs(o)[2:], rev+1, id, rev, o.Seats[rules.South], o.Seats[rules.North]), notice)
		if err != nil {
			return err
		}
	}
	if n == 0 && !clocksOnly {
		var err error
		n, err = t.setOnline(`UPDATE online SET south_seat = ?, north_seat = ?, clock_ms = ?, increment_ms = ?,
			per_move = ?, south_ms = ?, north_ms = ?, turn_start = ?, end_reason = ?, draw_offer = ?, takeback_offer = ?,
			rematch_offer = ?, next_game = ?, rev = ? WHERE game_id = ? AND rev = ?`,
			append(onlineArgs(o), rev+1, id, rev), notice)
		if err != nil {
			return err
		}
	}
	if n != 1 {
		return fmt.Errorf("game %s has changed since revision %d: %w", id, rev, ErrConflict)
	}
	o.Rev = rev + 1
	if t.later != nil {
		return t.notify(notice)
	}
	return nil
}

// setOnline runs update, a guarded UPDATE of online with args, sending
// notice with the same statement where the dialect can, and returns the
// rows it changed.
func (t *tx) setOnline(update string, args []any, notice string) (int64, error) {
	if notice != "" && t.d.notify != "" && t.later == nil {
		update, args = update+` RETURNING {notify}`, append(args, notice)
	}
	return t.exec(update, args...)
}

// resumeClocks moves the start of every running clock on by the time
// between alive and now, and returns how many it moved.
func (t *tx) resumeClocks(alive, now time.Time) (int, error) {
	rs, err := t.q.query(t.ctx, `SELECT game_id, turn_start FROM online WHERE end_reason = '' AND {clock runs}
		ORDER BY game_id{lock rows}`)
	if err != nil {
		return 0, err
	}
	var ids []string
	var starts []time.Time
	for rs.Next() {
		var id string
		var start time.Time
		if err := rs.Scan(&id, timeCol{&start}); err != nil {
			rs.Close()
			return 0, fmt.Errorf("game %s: clock: %w", id, err)
		}
		ran := max(0, alive.Sub(start))
		ids = append(ids, id)
		starts = append(starts, now.Add(-ran))
	}
	if err := closeRows(rs); err != nil {
		return 0, err
	}
	if len(ids) == 0 {
		return 0, nil
	}
	_, err = t.exec(`UPDATE online SET turn_start = s.start, rev = rev + 1 FROM (SELECT ids.v AS id, starts.v AS start
		FROM {list text} AS ids JOIN {list timestamptz} AS starts ON ids.i = starts.i) AS s
		WHERE online.game_id = s.id`, ids, starts)
	return len(ids), err
}
