package store

// The PostgreSQL engine, for many server instances on one database.
//
// Each write is one transaction (or one statement) on a pooled
// connection, committed before the call returns; the database server
// gathers the commits that arrive together into one flush of its log, as
// SQLite's writer does by hand. Transactions run at READ COMMITTED and
// rest on row locks: a change of a game begins with the guarded UPDATE of
// its games row (WHERE moves = the count the caller saw), which takes the
// row's lock and, when another transaction changed the row meanwhile,
// waits for it to end and checks the guard again on the row as committed.
// Of two racing moves one changes the row and the other finds the count
// moved on: ErrConflict. The statements after that UPDATE see the
// database as it is under the lock. Serialization failures and deadlocks,
// which these transactions should not meet, are retried a few times and
// then answered with ErrBusy, as is a lock held longer than busyWindow.

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/endodoi/endodoi/rules"
)

// Postgres is a store in a PostgreSQL database, which many programs may
// share. It is safe for concurrent use.
type Postgres struct {
	pool    *pgxpool.Pool
	where   string // the database, for messages: no password
	version int

	mu       sync.RWMutex // guards closed against the writes starting
	closed   bool
	writes   sync.WaitGroup // writes under way
	failures atomic.Int64
}

// pgWriteTimeout bounds a write once begun, when the database server stops
// answering.
const pgWriteTimeout = 30 * time.Second

// pgRetries is how many times a write is tried that fails on a
// serialization failure or a deadlock.
const pgRetries = 5

// OpenPostgres connects to the PostgreSQL database at url (postgres://...
// or postgresql://..., or a key=value connection string) and brings its
// schema up to date; the database must exist. Several programs may open
// the same database at the same moment: one of them updates the schema.
// A database made by a newer version of the program is refused,
// unchanged.
//
// The url may set pool_max_conns (by default 4 connections a CPU, at
// least 8) and PostgreSQL settings such as lock_timeout.
func OpenPostgres(ctx context.Context, url string) (*Postgres, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's message shows the URL without its password.
		return nil, fmt.Errorf("opening a PostgreSQL database: %w", err)
	}
	cc := cfg.ConnConfig
	where := fmt.Sprintf("the PostgreSQL database %q on %s", cc.Database, hostPort(cc.Host, cc.Port))
	params := cc.RuntimeParams
	for k, v := range map[string]string{
		"application_name": "endodoi",
		// A write waits for a row another program holds locked as long
		// as a write on SQLite waits for the file's lock.
		"lock_timeout": strconv.FormatInt(busyWindow.Milliseconds(), 10),
		// Acknowledged means on the disk, whatever the server's default.
		"synchronous_commit": "on",
	} {
		if _, ok := params[k]; !ok {
			params[k] = v
		}
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = int32(max(8, 4*runtime.GOMAXPROCS(0)))
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("opening %s: %w", where, err)
	}
	p := &Postgres{pool: pool, where: where}
	conn, err := pool.Acquire(ctx)
	if err == nil {
		p.version, err = pgMigrate(ctx, conn.Conn(), where, latestVersion)
		conn.Release()
		if err != nil {
			pool.Close()
			return nil, err
		}
		return p, nil
	}
	pool.Close()
	var ce *pgconn.ConnectError
	switch {
	case pgCode(err) == pgNoDatabase:
		return nil, fmt.Errorf("opening %s: it does not exist; create it first (createdb %s): %w", where, cc.Database, err)
	case errors.As(err, &ce):
		return nil, fmt.Errorf("opening %s: cannot connect (is the database server running, and the URL right?): %w", where, err)
	}
	return nil, fmt.Errorf("opening %s: %w", where, err)
}

// hostPort writes a host and port for messages; a host starting with a
// slash is a Unix socket's folder.
func hostPort(host string, port uint16) string {
	if strings.HasPrefix(host, "/") {
		return host
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(int(port))
}

// String names the database, without the password.
func (p *Postgres) String() string { return p.where }

// Version returns the database's schema version.
func (p *Postgres) Version() int { return p.version }

// WriteFailures returns how many writes failed since OpenPostgres for a
// reason other than the data (ErrConflict, ErrNotFound, ErrExists): the
// database server unreachable, a lock held elsewhere. Zero means every
// write the store accepted is in the database.
func (p *Postgres) WriteFailures() int64 { return p.failures.Load() }

// Close finishes the writes under way, then closes the connections.
// Writes asked for afterwards fail.
func (p *Postgres) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	p.mu.Unlock()
	p.writes.Wait()
	p.pool.Close()
	return nil
}

// pgExec is what a write runs its statements on: a transaction, or a
// connection for a write of one statement.
type pgExec interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// write runs do in a transaction (or, unless inTx, as it is: do then runs
// one statement, a transaction of its own) and answers as SQLite's writer
// does: nil once committed, the data's answers (ErrConflict, ...) as they
// are, and any other failure wrapped in ErrUnsaved and counted. A caller
// whose ctx ends while it waits for a connection gets ctx's error and the
// change is not made; once begun, the change is seen through. A
// connection lost while committing leaves the outcome unknown to the
// database's client: the answer is then ErrUnsaved though the change may
// be in, and the caller's next guarded change (its ply, its revision)
// finds out which.
func (p *Postgres) write(ctx context.Context, what string, inTx bool, do func(context.Context, pgExec) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	p.mu.RLock()
	if p.closed {
		p.mu.RUnlock()
		return fmt.Errorf("%s: %w", what, errClosed)
	}
	p.writes.Add(1)
	p.mu.RUnlock()
	defer p.writes.Done()
	conn, err := p.pool.Acquire(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%s: %w", what, ctx.Err())
		}
		return p.failed(what, err)
	}
	defer conn.Release()
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), pgWriteTimeout)
	defer cancel()
	pause := time.Millisecond
	for try := 1; ; try++ {
		if inTx {
			err = pgx.BeginFunc(wctx, conn, func(tx pgx.Tx) error { return do(wctx, tx) })
		} else {
			err = do(wctx, conn)
		}
		if c := pgCode(err); c != pgSerialization && c != pgDeadlock || try == pgRetries {
			break
		}
		time.Sleep(pause)
		pause *= 4
	}
	if err == nil || expected(err) {
		return err
	}
	switch pgCode(err) {
	case pgSerialization, pgDeadlock, pgLockNotAvailable:
		err = fmt.Errorf("%w (%w)", ErrBusy, err)
	}
	return p.failed(what, err)
}

// failed counts a write that failed for a reason of the storage.
func (p *Postgres) failed(what string, err error) error {
	p.failures.Add(1)
	return fmt.Errorf("%s: %w: %w", what, ErrUnsaved, err)
}

// pgTime is a time as the store keeps it: to the millisecond, in UTC,
// like SQLite's text.
func pgTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// CreateSeries starts a series to target wins and returns its ID.
func (p *Postgres) CreateSeries(ctx context.Context, target int) (string, error) {
	id := newID()
	err := p.write(ctx, "creating a series", false, func(ctx context.Context, q pgExec) error {
		_, err := q.Exec(ctx, `INSERT INTO series (id, created, target) VALUES ($1, $2, $3)`, id, now(), target)
		return err
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// CreateSeriesGame starts a series to target wins with g as its first game,
// both or neither, and sets g.SeriesID, g.ID, g.Created and g.Updated.
func (p *Postgres) CreateSeriesGame(ctx context.Context, target int, g *Game) error {
	g.SeriesID = newID()
	prepareGame(g)
	return p.write(ctx, "creating a series", true, func(ctx context.Context, q pgExec) error {
		_, err := q.Exec(ctx, `INSERT INTO series (id, created, target) VALUES ($1, $2, $3)`, g.SeriesID, g.Created, target)
		if err != nil {
			return err
		}
		return pgInsertGame(ctx, q, g, nil, 1)
	})
}

// CreateGame stores a new game with its moves and sets g.ID, g.Created and
// g.Updated. When g.ImportKey is set and a game with that key is stored
// already, it stores nothing, sets g.ID to that game's ID and returns an
// error wrapping ErrExists.
func (p *Postgres) CreateGame(ctx context.Context, g *Game) error {
	prepareGame(g)
	return p.write(ctx, "creating a game", true, func(ctx context.Context, q pgExec) error {
		return pgInsertGame(ctx, q, g, nil, 1)
	})
}

// pgInsertGame stores g with its moves and online state, at place touched
// in the order of changes (the next place when nil) and, for an online
// game, at revision rev.
func pgInsertGame(ctx context.Context, q pgExec, g *Game, touched *int64, rev int64) error {
	side, level := computerColumns(g)
	var series, key *string
	if g.SeriesID != "" {
		series = &g.SeriesID
	}
	if g.ImportKey != "" {
		key = &g.ImportKey
	}
	// An import key stored already leaves the row out rather than failing
	// the transaction, which waits for a racing import of the same key to
	// commit or not.
	tag, err := q.Exec(ctx, `INSERT INTO games (id, created, updated, south, north, start, variant, max_laps,
		computer_side, computer_level, series_id, result, moves, touched, import_key)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, COALESCE($14, nextval('touched')), $15)
		ON CONFLICT (import_key) DO NOTHING`,
		g.ID, pgTime(g.Created), pgTime(g.Updated), g.South, g.North, g.Start.String(), g.Rules.Variant.String(),
		g.Rules.Laps(), side, level, series, g.Result, len(g.Moves), touched, key)
	switch {
	case pgCode(err) == pgForeignKeyViolation:
		return fmt.Errorf("series %s: %w", g.SeriesID, ErrNotFound)
	case err != nil:
		return err
	case tag.RowsAffected() == 0:
		var id string
		if err := q.QueryRow(ctx, `SELECT id FROM games WHERE import_key = $1`, key).Scan(&id); err != nil {
			return fmt.Errorf("finding the game with import key %q: %w", g.ImportKey, err)
		}
		g.ID = id
		return fmt.Errorf("game with import key %q: %w as %s", g.ImportKey, ErrExists, id)
	}
	if err := pgInsertMoves(ctx, q, g.ID, 0, g.Moves); err != nil {
		return err
	}
	if g.Online == nil {
		return nil
	}
	g.Online.Rev = rev
	args := append([]any{g.ID, g.Online.Invite}, pgOnlineArgs(g.Online)...)
	_, err = q.Exec(ctx, `INSERT INTO online (game_id, invite, south_seat, north_seat, clock_ms, increment_ms, per_move,
		south_ms, north_ms, turn_start, end_reason, draw_offer, takeback_offer, rematch_offer, next_game, rev)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)`, append(args, rev)...)
	return err
}

// pgOnlineArgs are the values of online's columns from south_seat to
// next_game.
func pgOnlineArgs(o *Online) []any {
	var start *time.Time
	if !o.TurnStart.IsZero() {
		t := pgTime(o.TurnStart)
		start = &t
	}
	return []any{o.Seats[rules.South], o.Seats[rules.North], o.Clock.Time.Milliseconds(), o.Clock.Increment.Milliseconds(),
		o.Clock.PerMove, o.Left[rules.South].Milliseconds(), o.Left[rules.North].Milliseconds(), start, o.End,
		o.DrawOffer, o.TakebackOffer, o.RematchOffer, o.Next}
}

// pgInsertMoves stores moves as the moves of game id from number from on,
// in one statement.
func pgInsertMoves(ctx context.Context, q pgExec, id string, from int, moves []rules.Move) error {
	if len(moves) == 0 {
		return nil
	}
	text := make([]string, len(moves))
	for i, m := range moves {
		text[i] = m.String()
	}
	_, err := q.Exec(ctx, `INSERT INTO moves (game_id, ply, move)
		SELECT $1, $2 + t.i - 1, t.m FROM unnest($3::text[]) WITH ORDINALITY AS t(m, i)`, id, from, text)
	return err
}

// pgSetMoves sets the move count of game id, which must be had, to n,
// taking the game's row lock (see the top of this file).
func pgSetMoves(ctx context.Context, q pgExec, id string, had, n int, result string, updated time.Time) error {
	tag, err := q.Exec(ctx, `UPDATE games SET moves = $1, result = $2, updated = $3, touched = nextval('touched')
		WHERE id = $4 AND moves = $5`, n, result, updated, id, had)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	return pgMissed(ctx, q, id, had)
}

// pgMissed explains a guarded change of game id that changed nothing: no
// such game, or one that no longer has had moves. A game is never
// deleted, so a game found now was there then.
func pgMissed(ctx context.Context, q pgExec, id string, had int) error {
	var stored int
	err := q.QueryRow(ctx, `SELECT moves FROM games WHERE id = $1`, id).Scan(&stored)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return err
	}
	return fmt.Errorf("game %s has %d moves, not %d: %w", id, stored, had, ErrConflict)
}

// AppendMove adds move number ply (counted from 0) to game id and sets its
// result. It returns ErrConflict unless the game has exactly ply moves.
func (p *Postgres) AppendMove(ctx context.Context, id string, ply int, m rules.Move, result string) error {
	updated := now()
	return p.write(ctx, "storing a move", false, func(ctx context.Context, q pgExec) error {
		return pgAppend(ctx, q, id, ply, m, result, updated, "")
	})
}

// pgAppend adds move number ply to game id in one statement, so one round
// trip: the guarded UPDATE takes the game's lock, and the INSERT adds the
// move only if it changed the game. The INSERT's unique index sees every
// committed move, whatever the statement's snapshot. A notice, when
// given, is sent by the same statement, only if the move was added.
func pgAppend(ctx context.Context, q pgExec, id string, ply int, m rules.Move, result string, updated time.Time, notice string) error {
	const move = `WITH moved AS (
			UPDATE games SET moves = $3 + 1, result = $4, updated = $5, touched = nextval('touched')
			WHERE id = $1 AND moves = $3 RETURNING id)`
	var tag pgconn.CommandTag
	var err error
	if notice == "" {
		tag, err = q.Exec(ctx, move+` INSERT INTO moves (game_id, ply, move) SELECT id, $3, $2 FROM moved`,
			id, m.String(), ply, result, updated)
	} else {
		tag, err = q.Exec(ctx, move+`, added AS (
				INSERT INTO moves (game_id, ply, move) SELECT id, $3, $2 FROM moved RETURNING game_id)
			SELECT pg_notify($6, $7) FROM added`, id, m.String(), ply, result, updated, noticeChannel, notice)
	}
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 1 {
		return nil
	}
	return pgMissed(ctx, q, id, ply)
}

// Truncate takes back the moves of game id from number ply on, for a game
// that has exactly had moves, and sets its result.
func (p *Postgres) Truncate(ctx context.Context, id string, had, ply int, result string) error {
	if ply < 0 || ply > had {
		return fmt.Errorf("taking back to move %d of a game of %d moves: out of range", ply, had)
	}
	updated := now()
	return p.write(ctx, "taking back moves", true, func(ctx context.Context, q pgExec) error {
		if err := pgSetMoves(ctx, q, id, had, ply, result, updated); err != nil {
			return err
		}
		_, err := q.Exec(ctx, `DELETE FROM moves WHERE game_id = $1 AND ply >= $2`, id, ply)
		return err
	})
}

// Update changes game id as c says, or returns ErrConflict if the game
// has changed since the caller read it (ErrNotFound if there is none).
func (p *Postgres) Update(ctx context.Context, id string, c Change) error {
	if err := c.check(id); err != nil {
		return err
	}
	updated := c.updated()
	if c.Online == nil && c.South == nil && c.North == nil && c.From == c.Ply && len(c.Moves) == 1 {
		// A move of a game played on one device: one statement.
		return p.write(ctx, "storing a move", false, func(ctx context.Context, q pgExec) error {
			return pgAppend(ctx, q, id, c.Ply, c.Moves[0], c.Result, updated, c.Notice)
		})
	}
	return p.write(ctx, "changing a game", true, func(ctx context.Context, q pgExec) error {
		if err := pgSetMoves(ctx, q, id, c.Ply, c.From+len(c.Moves), c.Result, updated); err != nil {
			return err
		}
		if c.From < c.Ply {
			if _, err := q.Exec(ctx, `DELETE FROM moves WHERE game_id = $1 AND ply >= $2`, id, c.From); err != nil {
				return err
			}
		}
		if err := pgInsertMoves(ctx, q, id, c.From, c.Moves); err != nil {
			return err
		}
		if c.South != nil || c.North != nil {
			if _, err := q.Exec(ctx, `UPDATE games SET south = COALESCE($1, south), north = COALESCE($2, north)
				WHERE id = $3`, c.South, c.North, id); err != nil {
				return err
			}
		}
		if c.Online == nil {
			if c.Notice == "" {
				return nil
			}
			_, err := q.Exec(ctx, `SELECT pg_notify($1, $2)`, noticeChannel, c.Notice)
			return err
		}
		// The notice goes with the guarded UPDATE, in the same round trip,
		// and only if the guard held; PostgreSQL delivers it at commit.
		update := `UPDATE online SET south_seat = $1, north_seat = $2, clock_ms = $3, increment_ms = $4,
			per_move = $5, south_ms = $6, north_ms = $7, turn_start = $8, end_reason = $9, draw_offer = $10,
			takeback_offer = $11, rematch_offer = $12, next_game = $13, rev = $14 WHERE game_id = $15 AND rev = $16`
		args := append(pgOnlineArgs(c.Online), c.Rev+1, id, c.Rev)
		if c.Notice != "" {
			update += ` RETURNING pg_notify($17, $18)`
			args = append(args, noticeChannel, c.Notice)
		}
		tag, err := q.Exec(ctx, update, args...)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("game %s has changed since revision %d: %w", id, c.Rev, ErrConflict)
		}
		c.Online.Rev = c.Rev + 1
		if c.Next != nil {
			return pgInsertGame(ctx, q, c.Next, nil, 1)
		}
		return nil
	})
}

// ResumeClocks restarts the running clocks of a server that was last
// alive at alive and runs again at now: each clock keeps the time it had
// run while the server was up, and none of the time it was down. It
// returns how many clocks it resumed.
func (p *Postgres) ResumeClocks(ctx context.Context, alive, now time.Time) (int, error) {
	var n int
	err := p.write(ctx, "giving the clocks back the outage", true, func(ctx context.Context, q pgExec) error {
		rows, err := q.Query(ctx, `SELECT game_id, turn_start FROM online
			WHERE end_reason = '' AND turn_start IS NOT NULL ORDER BY game_id FOR UPDATE`)
		if err != nil {
			return err
		}
		var ids []string
		var starts []time.Time
		var id string
		var start time.Time
		_, err = pgx.ForEachRow(rows, []any{&id, &start}, func() error {
			ran := max(0, alive.Sub(start))
			ids = append(ids, id)
			starts = append(starts, pgTime(now.Add(-ran)))
			return nil
		})
		if err != nil {
			return err
		}
		n = len(ids)
		if n == 0 {
			return nil
		}
		_, err = q.Exec(ctx, `UPDATE online SET turn_start = s.start, rev = rev + 1
			FROM unnest($1::text[], $2::timestamptz[]) AS s(id, start) WHERE online.game_id = s.id`, ids, starts)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// SetAlive records that the server was running at t.
func (p *Postgres) SetAlive(ctx context.Context, t time.Time) error {
	return p.write(ctx, "recording the server's heartbeat", false, func(ctx context.Context, q pgExec) error {
		_, err := q.Exec(ctx, `INSERT INTO meta (key, value) VALUES ('alive', $1)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value`, t.UTC().Format(timeFormat))
		return err
	})
}

// pgGameQuery reads a game with its moves and online state in one
// statement, and so from one snapshot. The online columns are empty for a
// game not online; online says which.
const pgGameQuery = `SELECT g.id, g.created, g.updated, g.south, g.north, g.start, g.variant, g.max_laps,
	g.computer_side, g.computer_level, g.series_id, g.result, g.moves, g.import_key,
	ARRAY(SELECT m.move FROM moves m WHERE m.game_id = g.id ORDER BY m.ply),
	o.game_id IS NOT NULL, COALESCE(o.invite, ''), COALESCE(o.south_seat, ''), COALESCE(o.north_seat, ''),
	COALESCE(o.clock_ms, 0), COALESCE(o.increment_ms, 0), COALESCE(o.per_move, false), COALESCE(o.south_ms, 0),
	COALESCE(o.north_ms, 0), o.turn_start, COALESCE(o.end_reason, ''), COALESCE(o.draw_offer, ''),
	COALESCE(o.takeback_offer, ''), COALESCE(o.rematch_offer, ''), COALESCE(o.next_game, ''), COALESCE(o.rev, 0)
	FROM games g LEFT JOIN online o ON o.game_id = g.id WHERE `

// game reads the game that where selects.
func (p *Postgres) game(ctx context.Context, where string, arg any) (*Game, error) {
	g := &Game{}
	var start, variant, side string
	var maxLaps, level, n int
	var series, key *string
	var moves []string
	var online bool
	var o Online
	var clock, inc, south, north int64
	var turnStart *time.Time
	err := p.pool.QueryRow(ctx, pgGameQuery+where, arg).Scan(&g.ID, &g.Created, &g.Updated, &g.South, &g.North,
		&start, &variant, &maxLaps, &side, &level, &series, &g.Result, &n, &key, &moves,
		&online, &o.Invite, &o.Seats[rules.South], &o.Seats[rules.North], &clock, &inc, &o.Clock.PerMove, &south,
		&north, &turnStart, &o.End, &o.DrawOffer, &o.TakebackOffer, &o.RematchOffer, &o.Next, &o.Rev)
	if err != nil {
		return nil, err
	}
	g.Created, g.Updated = g.Created.UTC(), g.Updated.UTC()
	if series != nil {
		g.SeriesID = *series
	}
	if key != nil {
		g.ImportKey = *key
	}
	if err := g.decode(start, variant, maxLaps, side, level); err != nil {
		return nil, err
	}
	g.Moves = make([]rules.Move, len(moves))
	for i, text := range moves {
		if g.Moves[i], err = rules.ParseMove(text); err != nil {
			return nil, fmt.Errorf("game %s: stored move %d: %w", g.ID, i+1, err)
		}
	}
	if len(g.Moves) != n {
		return nil, fmt.Errorf("game %s: %d moves stored, %d counted", g.ID, len(g.Moves), n)
	}
	if online {
		o.Clock.Time, o.Clock.Increment = time.Duration(clock)*time.Millisecond, time.Duration(inc)*time.Millisecond
		o.Left = [2]time.Duration{time.Duration(south) * time.Millisecond, time.Duration(north) * time.Millisecond}
		if turnStart != nil {
			o.TurnStart = turnStart.UTC()
		}
		g.Online = &o
	}
	return g, nil
}

// Game returns game id with its moves.
func (p *Postgres) Game(ctx context.Context, id string) (*Game, error) {
	g, err := p.game(ctx, `g.id = $1`, id)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	return g, nil
}

// GameByImportKey returns the game stored under import key key.
func (p *Postgres) GameByImportKey(ctx context.Context, key string) (*Game, error) {
	g, err := p.game(ctx, `g.import_key = $1`, key)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("game with import key %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the game with import key %q: %w", key, err)
	}
	return g, nil
}

// GameByInvite returns the online game whose invite code is code.
func (p *Postgres) GameByInvite(ctx context.Context, code string) (*Game, error) {
	g, err := p.game(ctx, `o.invite = $1`, code)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("invite: %w", ErrNotFound) // the code is a secret: not in messages
	}
	if err != nil {
		return nil, fmt.Errorf("reading the game of an invite: %w", err)
	}
	return g, nil
}

// pgSummaryQuery selects games as summaries.
const pgSummaryQuery = `SELECT g.id, g.created, g.updated, g.south, g.north, g.start, g.variant, g.moves, g.result,
	g.series_id, o.end_reason FROM games g LEFT JOIN online o ON o.game_id = g.id `

// pgSummaries reads the summaries a query of pgSummaryQuery selects.
func pgSummaries(rows pgx.Rows) ([]Summary, error) {
	var out []Summary
	var sm Summary
	var start, variant string
	var series, end *string
	_, err := pgx.ForEachRow(rows, []any{&sm.ID, &sm.Created, &sm.Updated, &sm.South, &sm.North, &start, &variant,
		&sm.Moves, &sm.Result, &series, &end}, func() error {
		s := sm
		s.Created, s.Updated = s.Created.UTC(), s.Updated.UTC()
		s.SeriesID, s.Online, s.End = "", end != nil, ""
		if series != nil {
			s.SeriesID = *series
		}
		if end != nil {
			s.End = *end
		}
		if err := s.decode(start, variant); err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// Games lists games, the most recently played first.
func (p *Postgres) Games(ctx context.Context, limit, offset int) ([]Summary, error) {
	rows, err := p.pool.Query(ctx, pgSummaryQuery+`ORDER BY g.touched DESC LIMIT $1 OFFSET $2`, limit, offset)
	if err == nil {
		var list []Summary
		if list, err = pgSummaries(rows); err == nil {
			return list, nil
		}
	}
	return nil, fmt.Errorf("listing games: %w", err)
}

// GamesByID returns the summaries of the games ids names that exist, in
// the order given.
func (p *Postgres) GamesByID(ctx context.Context, ids []string) ([]Summary, error) {
	rows, err := p.pool.Query(ctx, pgSummaryQuery+`WHERE g.id = ANY($1)`, ids)
	var list []Summary
	if err == nil {
		list, err = pgSummaries(rows)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %d games: %w", len(ids), err)
	}
	byID := make(map[string]Summary, len(list))
	for _, sm := range list {
		byID[sm.ID] = sm
	}
	out := make([]Summary, 0, len(list))
	for _, id := range ids {
		if sm, ok := byID[id]; ok {
			out = append(out, sm)
		}
	}
	return out, nil
}

// OnlineGames lists the online games in progress, the most recently
// played first.
func (p *Postgres) OnlineGames(ctx context.Context, limit int) ([]Summary, error) {
	rows, err := p.pool.Query(ctx, pgSummaryQuery+`WHERE o.end_reason = '' AND g.result = '*'
		ORDER BY g.touched DESC LIMIT $1`, limit)
	if err == nil {
		var list []Summary
		if list, err = pgSummaries(rows); err == nil {
			return list, nil
		}
	}
	return nil, fmt.Errorf("listing online games: %w", err)
}

// pgIDs reads a query's single column of IDs.
func pgIDs(ctx context.Context, q pgExec, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

// GameIDs returns the IDs of every stored game, oldest first.
func (p *Postgres) GameIDs(ctx context.Context) ([]string, error) {
	ids, err := pgIDs(ctx, p.pool, `SELECT id FROM games ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	return ids, nil
}

// OpenOnlineGames returns the IDs of the online games still in progress
// whose last change is before idle (all of them for a zero idle), the
// oldest first.
func (p *Postgres) OpenOnlineGames(ctx context.Context, idle time.Time) ([]string, error) {
	q := `SELECT g.id FROM games g JOIN online o ON o.game_id = g.id WHERE o.end_reason = '' AND g.result = '*'`
	var args []any
	if !idle.IsZero() {
		q += ` AND g.updated < $1`
		args = append(args, pgTime(idle))
	}
	ids, err := pgIDs(ctx, p.pool, q+` ORDER BY g.touched`, args...)
	if err != nil {
		return nil, fmt.Errorf("listing open online games: %w", err)
	}
	return ids, nil
}

// Series returns series id with its games.
func (p *Postgres) Series(ctx context.Context, id string) (*Series, error) {
	sr := &Series{ID: id}
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			err := tx.QueryRow(ctx, `SELECT created, target FROM series WHERE id = $1`, id).Scan(&sr.Created, &sr.Target)
			if err != nil {
				return err
			}
			sr.Created = sr.Created.UTC()
			rows, err := tx.Query(ctx, pgSummaryQuery+`WHERE g.series_id = $1 ORDER BY g.seq`, id)
			if err != nil {
				return err
			}
			sr.Games, err = pgSummaries(rows)
			return err
		})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("series %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	return sr, nil
}

// SeatExists reports whether some online game has a seat whose token
// hashes to hash.
func (p *Postgres) SeatExists(ctx context.Context, hash string) (bool, error) {
	if hash == "" {
		return false, nil
	}
	var found bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM online WHERE south_seat = $1)
		OR EXISTS (SELECT 1 FROM online WHERE north_seat = $1)`, hash).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("looking up a seat: %w", err)
	}
	return found, nil
}

// Alive returns when the server was last recorded running, if ever.
func (p *Postgres) Alive(ctx context.Context) (time.Time, bool, error) {
	var v string
	err := p.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = 'alive'`).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("reading the server's heartbeat: %w", err)
	}
	t, err := parseTime("heartbeat", v)
	return t, err == nil, err
}

// inventory lists the games and series in one snapshot.
func (p *Postgres) inventory(ctx context.Context) (inventory, error) {
	var inv inventory
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly},
		func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, `SELECT id, touched FROM games ORDER BY seq`)
			if err != nil {
				return err
			}
			var ref placed
			if _, err := pgx.ForEachRow(rows, []any{&ref.ID, &ref.Touched}, func() error {
				inv.Games = append(inv.Games, ref)
				return nil
			}); err != nil {
				return err
			}
			if inv.Series, err = pgIDs(ctx, tx, `SELECT id FROM series ORDER BY created, id`); err != nil {
				return err
			}
			return tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM moves), (SELECT COUNT(*) FROM online)`).Scan(
				&inv.Moves, &inv.Online)
		})
	if err != nil {
		return inventory{}, fmt.Errorf("listing the games of %s: %w", p.where, err)
	}
	return inv, nil
}

// restore stores series and games as they are, in one transaction, and
// moves the order of changes on past the games'.
func (p *Postgres) restore(ctx context.Context, series []*Series, games []placedGame) error {
	return p.write(ctx, "copying games", true, func(ctx context.Context, q pgExec) error {
		for _, sr := range series {
			if _, err := q.Exec(ctx, `INSERT INTO series (id, created, target) VALUES ($1, $2, $3)`,
				sr.ID, pgTime(sr.Created), sr.Target); err != nil {
				return fmt.Errorf("series %s: %w", sr.ID, err)
			}
		}
		for _, pg := range games {
			rev := int64(0)
			if pg.Game.Online != nil {
				rev = pg.Game.Online.Rev
			}
			if err := pgInsertGame(ctx, q, pg.Game, &pg.Touched, rev); err != nil {
				return fmt.Errorf("game %s: %w", pg.Game.ID, err)
			}
		}
		_, err := q.Exec(ctx, `SELECT setval('touched', GREATEST((SELECT COALESCE(MAX(touched), 0) FROM games),
			(SELECT last_value FROM touched), 1))`)
		return err
	})
}
