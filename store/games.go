package store

// Games and series: their changes and reads, the same on both engines.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// engine is what each database does its own way: running a change and
// reading a snapshot.
type engine interface {
	// write runs do as a change of its own, committed before it returns
	// nil: the data's answers (ErrConflict, ...) as they are, any other
	// failure wrapped in ErrUnsaved (or ErrBusy) and counted. A caller
	// whose ctx ends before the change has begun gets ctx's error and the
	// change is not made; once begun, it is seen through. With single,
	// do runs one statement, which needs no transaction around it.
	write(ctx context.Context, what string, single bool, do func(*tx) error) error
	// writeGame is write for a change of game id alone (its rows, and what
	// its end changes), which the engine may commit together with other
	// games' changes.
	writeGame(ctx context.Context, what, id string, single bool, do func(*tx) error) error
	// read runs do on one snapshot of the database.
	read(ctx context.Context, do func(runner) error) error
	// name names the database in messages (no password).
	name() string
}

// core is the store written once for both engines; SQLite and Postgres
// embed it.
type core struct {
	eng  engine
	d    *dialect
	pool runner // for reads of one statement
	// The schema as the reads see it: an SQLite database opened for
	// reading only may be of an older version.
	version  int
	keyCol   string // the games' import key, or NULL before version 2
	ratedCol string // the games' rated flag, or false before version 7
	catCol   string // the games' rating category, or '' before version 7
	online   string // the online table, or an empty one before version 3
}

// emptyOnline is an online table without rows, for the reads of a
// database older than online play.
const emptyOnline = `(SELECT NULL AS game_id, '' AS invite, '' AS south_seat, '' AS north_seat, 0 AS clock_ms,
	0 AS increment_ms, 0 AS per_move, 0 AS south_ms, 0 AS north_ms, '' AS turn_start, '' AS end_reason,
	'' AS draw_offer, '' AS takeback_offer, '' AS rematch_offer, '' AS next_game, 0 AS rev WHERE 0)`

func newCore(eng engine, d *dialect, pool runner, version int) core {
	c := core{eng: eng, d: d, pool: pool, version: version, keyCol: "g.import_key", online: "online", ratedCol: "g.rated",
		catCol: "g.category"}
	if version < 2 {
		c.keyCol = "NULL"
	}
	if version < ratingsVersion {
		c.ratedCol, c.catCol = "false", "''"
	}
	if version < 3 {
		c.online = emptyOnline
	}
	return c
}

// CreateSeries starts a series to target wins and returns its ID.
func (c *core) CreateSeries(ctx context.Context, target int) (string, error) {
	id := newID()
	err := c.eng.write(ctx, "creating a series", true, func(t *tx) error {
		return t.insertSeries(id, now(), target)
	})
	if err != nil {
		return "", err
	}
	return id, nil
}

// CreateSeriesGame starts a series to target wins with g as its first game,
// both or neither, and sets g.SeriesID, g.ID, g.Created and g.Updated.
func (c *core) CreateSeriesGame(ctx context.Context, target int, g *game.Game) error {
	g.SeriesID = newID()
	prepareGame(g)
	return c.eng.write(ctx, "creating a series", false, func(t *tx) error {
		if err := t.insertSeries(g.SeriesID, g.Created, target); err != nil {
			return err
		}
		return t.insertGame(g, t.touch(), 1)
	})
}

// CreateGame stores a new game with its moves and sets g.ID, and g.Created
// and g.Updated unless given (an imported game's). When g.ImportKey is set
// and a game with that key is stored already, it stores nothing, sets g.ID
// to that game's ID and returns an error wrapping ErrExists.
func (c *core) CreateGame(ctx context.Context, g *game.Game) error {
	prepareGame(g)
	return c.eng.writeGame(ctx, "creating a game", g.ID, false, func(t *tx) error { return t.insertGame(g, t.touch(), 1) })
}

// prepareGame gives g an ID, and its times unless it has them: now, or
// g.Created for a g.Updated that is not after it.
func prepareGame(g *game.Game) {
	g.ID = newID()
	if g.Created.IsZero() {
		g.Created = now()
	}
	g.Created = g.Created.UTC().Truncate(time.Millisecond)
	if g.Updated.Before(g.Created) {
		g.Updated = g.Created
	}
	g.Updated = g.Updated.UTC().Truncate(time.Millisecond)
	if g.Result == "" {
		g.Result = "*"
	}
}

// AppendMove adds move number ply (counted from 0) to game id and sets its
// result. It returns ErrConflict unless the game has exactly ply moves.
func (c *core) AppendMove(ctx context.Context, id string, ply int, m rules.Move, result string) error {
	updated := now()
	return c.eng.write(ctx, "storing a move", c.d.oneStatementMove, func(t *tx) error {
		return t.appendMove(id, ply, m, result, updated, "")
	})
}

// Truncate takes back the moves of game id from number ply on, for a game
// that has exactly had moves, and sets its result.
func (c *core) Truncate(ctx context.Context, id string, had, ply int, result string) error {
	if ply < 0 || ply > had {
		return fmt.Errorf("taking back to move %d of a game of %d moves: out of range", ply, had)
	}
	updated := now()
	return c.eng.write(ctx, "taking back moves", false, func(t *tx) error {
		if err := t.setMoves(id, had, ply, result, updated); err != nil {
			return err
		}
		return t.deleteMoves(id, ply)
	})
}

// gameQuery reads a game with its moves and online state in one
// statement, and so from one snapshot; the online columns are empty for a
// game not online, and online says which.
func (c *core) gameQuery(where string) string {
	return `SELECT g.id, g.created, g.updated, g.south, g.north, g.start, g.variant, g.max_laps,
	g.computer_side, g.computer_level, g.series_id, g.result, g.moves, ` + c.keyCol + `, ` + c.ratedCol + `, ` + c.catCol + `,
	COALESCE((SELECT string_agg(m.move, ' ' ORDER BY m.ply) FROM moves m WHERE m.game_id = g.id), ''),
	o.game_id IS NOT NULL, COALESCE(o.invite, ''), COALESCE(o.south_seat, ''), COALESCE(o.north_seat, ''),
	COALESCE(o.clock_ms, 0), COALESCE(o.increment_ms, 0), COALESCE(o.per_move, false), COALESCE(o.south_ms, 0),
	COALESCE(o.north_ms, 0), o.turn_start, COALESCE(o.end_reason, ''), COALESCE(o.draw_offer, ''),
	COALESCE(o.takeback_offer, ''), COALESCE(o.rematch_offer, ''), COALESCE(o.next_game, ''), COALESCE(o.rev, 0)
	FROM games g LEFT JOIN ` + c.online + ` o ON o.game_id = g.id WHERE ` + where
}

// game reads the game that where selects.
func (c *core) game(ctx context.Context, where string, arg any) (*game.Game, error) {
	g := &game.Game{}
	var start, variant, side, moves string
	var maxLaps, level, n int
	var series, key sql.NullString
	var online bool
	var o game.Online
	var clock, inc, south, north int64
	err := c.pool.queryRow(ctx, c.gameQuery(where), arg).Scan(&g.ID, timeCol{&g.Created}, timeCol{&g.Updated},
		&g.South, &g.North, &start, &variant, &maxLaps, &side, &level, &series, &g.Result, &n, &key, &g.Rated, &g.Category, &moves,
		&online, &o.Invite, &o.Seats[rules.South], &o.Seats[rules.North], &clock, &inc, &o.Clock.PerMove, &south,
		&north, timeCol{&o.TurnStart}, &o.End, &o.DrawOffer, &o.TakebackOffer, &o.RematchOffer, &o.Next, &o.Rev)
	if err != nil {
		return nil, err
	}
	g.SeriesID = series.String
	g.ImportKey = key.String
	if err := decodeGame(g, start, variant, maxLaps, side, level); err != nil {
		return nil, err
	}
	g.Moves = make([]rules.Move, 0, n)
	if moves != "" {
		for i, text := range strings.Split(moves, " ") {
			m, err := rules.ParseMove(text)
			if err != nil {
				return nil, fmt.Errorf("game %s: stored move %d: %w", g.ID, i+1, err)
			}
			g.Moves = append(g.Moves, m)
		}
	}
	if len(g.Moves) != n {
		return nil, fmt.Errorf("game %s: %d moves stored, %d counted", g.ID, len(g.Moves), n)
	}
	if online {
		o.Clock.Time, o.Clock.Increment = time.Duration(clock)*time.Millisecond, time.Duration(inc)*time.Millisecond
		o.Left = [2]time.Duration{time.Duration(south) * time.Millisecond, time.Duration(north) * time.Millisecond}
		g.Online = &o
	}
	return g, nil
}

// Game returns game id with its moves.
func (c *core) Game(ctx context.Context, id string) (*game.Game, error) {
	g, err := c.game(ctx, `g.id = ?`, id)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("game %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading game %s: %w", id, err)
	}
	return g, nil
}

// GameByImportKey returns the game stored under import key key.
func (c *core) GameByImportKey(ctx context.Context, key string) (*game.Game, error) {
	g, err := c.game(ctx, c.keyCol+` = ?`, key)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("game with import key %q: %w", key, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the game with import key %q: %w", key, err)
	}
	return g, nil
}

// summaryQuery selects games as summaries.
func (c *core) summaryQuery() string {
	return `SELECT g.id, g.created, g.updated, g.south, g.north, g.start, g.variant, g.moves, g.result,
	g.series_id, o.end_reason FROM games g LEFT JOIN ` + c.online + ` o ON o.game_id = g.id `
}

// summaries reads the summaries a query of summaryQuery selects.
func summaries(rs rows, err error) ([]game.Summary, error) {
	if err != nil {
		return nil, err
	}
	var out []game.Summary
	for rs.Next() {
		var sm game.Summary
		var start, variant string
		var series, end sql.NullString
		if err := rs.Scan(&sm.ID, timeCol{&sm.Created}, timeCol{&sm.Updated}, &sm.South, &sm.North, &start,
			&variant, &sm.Moves, &sm.Result, &series, &end); err != nil {
			rs.Close()
			return nil, err
		}
		sm.SeriesID = series.String
		sm.Online, sm.End = end.Valid, end.String
		if err := decodeSummary(&sm, start, variant); err != nil {
			rs.Close()
			return nil, err
		}
		out = append(out, sm)
	}
	return out, closeRows(rs)
}

// Games lists games, the most recently played first.
func (c *core) Games(ctx context.Context, limit, offset int) ([]game.Summary, error) {
	list, err := summaries(c.pool.query(ctx, c.summaryQuery()+`ORDER BY g.touched DESC LIMIT ? OFFSET ?`, limit, offset))
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	return list, nil
}

// GamesByID returns the summaries of the games ids names that exist, in
// the order given.
func (c *core) GamesByID(ctx context.Context, ids []string) ([]game.Summary, error) {
	list, err := summaries(c.pool.query(ctx, c.summaryQuery()+`WHERE g.id IN (SELECT l.v FROM {list text} AS l)`,
		ids))
	if err != nil {
		return nil, fmt.Errorf("reading %d games: %w", len(ids), err)
	}
	byID := make(map[string]game.Summary, len(list))
	for _, sm := range list {
		byID[sm.ID] = sm
	}
	out := make([]game.Summary, 0, len(list))
	for _, id := range ids {
		if sm, ok := byID[id]; ok {
			out = append(out, sm)
		}
	}
	return out, nil
}

// ids reads a query's single column of IDs.
func ids(rs rows, err error) ([]string, error) {
	if err != nil {
		return nil, err
	}
	var out []string
	for rs.Next() {
		var id string
		if err := rs.Scan(&id); err != nil {
			rs.Close()
			return nil, err
		}
		out = append(out, id)
	}
	return out, closeRows(rs)
}

// GameIDs returns the IDs of every stored game, oldest first.
func (c *core) GameIDs(ctx context.Context) ([]string, error) {
	list, err := ids(c.pool.query(ctx, `SELECT id FROM games ORDER BY {created}`))
	if err != nil {
		return nil, fmt.Errorf("listing games: %w", err)
	}
	return list, nil
}

// Series returns series id with its games.
func (c *core) Series(ctx context.Context, id string) (*game.Series, error) {
	sr := &game.Series{ID: id}
	err := c.eng.read(ctx, func(q runner) error {
		err := q.queryRow(ctx, `SELECT created, target FROM series WHERE id = ?`, id).Scan(timeCol{&sr.Created}, &sr.Target)
		if err != nil {
			return err
		}
		sr.Games, err = summaries(q.query(ctx, c.summaryQuery()+`WHERE g.series_id = ? ORDER BY g.{created}`, id))
		return err
	})
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("series %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("reading series %s: %w", id, err)
	}
	return sr, nil
}
