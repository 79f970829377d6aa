package store

// Ratings: each account's rating in each category, changed when a rated
// game ends, in the transaction that ends it (ratingTx: the rows the
// ratings' step of the change reads and writes); their history; the
// first mover's advantage fitted in each category; and the reads of
// profiles and leaderboards. Which games count, and how, is package
// ratings'.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/players/standing"
	"github.com/endodoi/endodoi/rules"
)

// ratingsVersion is the schema version that has the ratings.
const ratingsVersion = 7

// errNoRatings is the answer of a database opened read-only at a version
// older than the ratings.
var errNoRatings = fmt.Errorf("this database has no ratings (schema version under %d): %w", ratingsVersion, ErrNotFound)

// Ratings are the players' ratings, their history, the first mover's
// advantage, and the reads of profiles and leaderboards. The ratings
// change only when a rated game ends (Update).
type Ratings interface {
	// PlayerRatings returns account id's ratings, one per category it
	// played rated games in, ordered by category.
	PlayerRatings(ctx context.Context, accountID string) ([]PlayerRating, error)
	// RatingsOf returns the ratings in category of those of accountIDs
	// that have one there, by account.
	RatingsOf(ctx context.Context, category string, accountIDs []string) (map[string]game.Rating, error)
	// RatingHistory returns the latest limit changes of account id's
	// rating in category, oldest first.
	RatingHistory(ctx context.Context, accountID, category string, limit int) ([]game.RatingChange, error)
	// GameRatings returns who holds the seats of online game id, with
	// their ratings in its category and the game's change of them.
	GameRatings(ctx context.Context, id string) (*game.GameRatings, error)
	// Leaderboard returns the top limit ratings of category among the
	// accounts not deleted or disabled that played a rated game there at
	// or after activeSince and are not provisional at now.
	Leaderboard(ctx context.Context, category string, now, activeSince time.Time, limit int) ([]BoardEntry, error)
	// PlayerGames returns the online games in which account id holds a
	// seat, as f selects them, the latest made first.
	PlayerGames(ctx context.Context, accountID string, f PlayerGamesFilter) ([]PlayerGame, error)
	// SideRecords returns account id's wins, draws and losses in the
	// finished games in which it holds a seat, by side.
	SideRecords(ctx context.Context, accountID string) ([2]Record, error)
	// RatedCategories returns the categories that have rated games.
	RatedCategories(ctx context.Context) ([]string, error)
	// AdvantageGames returns the latest limit rated games of category as
	// the first mover's advantage is fitted from them.
	AdvantageGames(ctx context.Context, category string, limit int) ([]SidedGame, error)
	// SetAdvantage stores the first mover's advantage fitted in category
	// at at; the rated games that end afterwards use it. Advantages
	// returns the stored ones by category.
	SetAdvantage(ctx context.Context, category string, a Advantage) error
	Advantages(ctx context.Context) (map[string]Advantage, error)
}

// The values of the players' standing (package standing).
type (
	PlayerRating      = standing.PlayerRating
	BoardEntry        = standing.BoardEntry
	Record            = standing.Record
	Advantage         = standing.Advantage
	SidedGame         = standing.SidedGame
	PlayerGamesFilter = standing.PlayerGamesFilter
	GameCursor        = standing.GameCursor
	PlayerGame        = standing.PlayerGame
)

// ratingTx is the store's side of the ratings' step of a change that
// ends game id (game.Change.Rate): the rows of the game's players and
// their ratings, read, locked and written in the change's transaction.
// The game's row was locked by the guarded change before it (on
// PostgreSQL), so of two ends racing one changes the game and the other
// finds it changed; the history's key (game, account) makes a second
// change of a game's ratings fail the transaction all the same.
type ratingTx struct {
	t  *tx
	id string
}

var _ game.RatingTx = (*ratingTx)(nil)

func (r *ratingTx) Seats() (pending bool, seats [2]*game.SeatAccount, err error) {
	var rated, done bool
	var acc [2]nullAccount
	err = r.t.q.queryRow(r.t.ctx, `SELECT g.rated, EXISTS (SELECT 1 FROM rating_history h WHERE h.game_id = g.id),
		sa.id, sa.name, sa.kind, sa.status, na.id, na.name, na.kind, na.status
		FROM games g JOIN online o ON o.game_id = g.id
		LEFT JOIN seat_owners ss ON ss.seat = o.south_seat LEFT JOIN accounts sa ON sa.id = ss.account_id
		LEFT JOIN seat_owners ns ON ns.seat = o.north_seat LEFT JOIN accounts na ON na.id = ns.account_id
		WHERE g.id = ?`, r.id).Scan(append(append([]any{&rated, &done}, acc[rules.South].dest()...), acc[rules.North].dest()...)...)
	if err != nil {
		return false, seats, fmt.Errorf("reading the players of game %s: %w", r.id, err)
	}
	for side := range seats {
		if a := acc[side].account(); a != nil && a.Status != AccountDeleted {
			seats[side] = a
		}
	}
	return rated && !done, seats, nil
}

func (r *ratingTx) Advantage(category string) (float64, error) {
	advantage := 0.0
	err := r.t.q.queryRow(r.t.ctx, `SELECT advantage FROM rating_advantages WHERE category = ?`, category).Scan(&advantage)
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("reading the advantage of %s: %w", category, err)
	}
	return advantage, nil
}

func (r *ratingTx) RatedBetween(category, a, b string, since time.Time) (int, error) {
	var n int
	err := r.t.q.queryRow(r.t.ctx, `SELECT COUNT(*) FROM rating_history x JOIN rating_history y ON y.game_id = x.game_id
		WHERE x.account_id = ? AND x.category = ? AND x.at >= ? AND y.account_id = ?`, a, category, since, b).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("counting the rated games between two players: %w", err)
	}
	return n, nil
}

func (r *ratingTx) Unrate() error {
	_, err := r.t.exec(`UPDATE games SET rated = false WHERE id = ?`, r.id)
	return err
}

func (r *ratingTx) SaveRatings(changes [2]game.RatingChange, provisionalFrom [2]time.Time) error {
	for side, ch := range changes {
		a := ch.After
		if _, err := r.t.exec(`UPDATE ratings SET rating = ?, rd = ?, volatility = ?, games = games + 1, updated = ?,
			provisional_from = ? WHERE account_id = ? AND category = ?`,
			a.Rating, a.Deviation, a.Volatility, a.At, provisionalFrom[side], ch.AccountID, ch.Category); err != nil {
			return fmt.Errorf("storing a rating: %w", err)
		}
		b := ch.Before
		n, err := r.t.exec(`INSERT INTO rating_history (game_id, account_id, category, side, moved_first, score, advantage,
			at, rating_before, rd_before, volatility_before, rating_after, rd_after, volatility_after)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (game_id, account_id) DO NOTHING`,
			r.id, ch.AccountID, ch.Category, string(ch.Side.Letter()), ch.MovedFirst, ch.Score, ch.Advantage, ch.At,
			b.Rating, b.Deviation, b.Volatility, a.Rating, a.Deviation, a.Volatility)
		if err != nil {
			return fmt.Errorf("storing a rating's change: %w", err)
		}
		if n == 0 {
			return fmt.Errorf("game %s is rated already: %w", r.id, ErrConflict)
		}
	}
	return nil
}

// LockRatings returns the ratings in category of the accounts ids (by
// side), initial for one that has none, and keeps them from changing
// until the transaction ends: on PostgreSQL their rows are made
// if need be and locked, in the order of the accounts' IDs so that two
// games ending together with a player in common wait for each other
// rather than deadlock.
func (r *ratingTx) LockRatings(category string, ids [2]string, initial game.Rating) ([2]game.Rating, error) {
	t := r.t
	var out [2]game.Rating
	order := []string{ids[0], ids[1]}
	if order[1] < order[0] {
		order[0], order[1] = order[1], order[0]
	}
	for _, id := range order {
		if _, err := t.exec(`INSERT INTO ratings (account_id, category, rating, rd, volatility, games, updated, provisional_from)
			VALUES (?, ?, ?, ?, ?, 0, ?, ?) ON CONFLICT (account_id, category) DO NOTHING`,
			id, category, initial.Rating, initial.Deviation, initial.Volatility, initial.At, initial.At); err != nil {
			return out, fmt.Errorf("storing a new rating: %w", err)
		}
	}
	rs, err := t.q.query(t.ctx, `SELECT account_id, rating, rd, volatility, updated FROM ratings
		WHERE category = ? AND account_id IN (?, ?) ORDER BY account_id{lock rows}`, category, order[0], order[1])
	if err != nil {
		return out, fmt.Errorf("reading ratings: %w", err)
	}
	found := 0
	for rs.Next() {
		var id string
		var rt game.Rating
		if err := rs.Scan(&id, &rt.Rating, &rt.Deviation, &rt.Volatility, timeCol{&rt.At}); err != nil {
			rs.Close()
			return out, fmt.Errorf("reading ratings: %w", err)
		}
		for side := range ids {
			if ids[side] == id {
				out[side] = rt
				found++
			}
		}
	}
	if err := closeRows(rs); err != nil {
		return out, fmt.Errorf("reading ratings: %w", err)
	}
	if found != 2 {
		return out, fmt.Errorf("reading ratings: %d of 2 found", found)
	}
	return out, nil
}

func (c *core) PlayerRatings(ctx context.Context, accountID string) ([]PlayerRating, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT category, rating, rd, volatility, updated, games FROM ratings
		WHERE account_id = ? AND games > 0 ORDER BY category`, accountID)
	if err != nil {
		return nil, fmt.Errorf("reading the ratings of account %s: %w", accountID, err)
	}
	var out []PlayerRating
	for rs.Next() {
		var pr PlayerRating
		if err := rs.Scan(&pr.Category, &pr.Rating.Rating, &pr.Deviation, &pr.Volatility, timeCol{&pr.At}, &pr.Games); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the ratings of account %s: %w", accountID, err)
		}
		out = append(out, pr)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the ratings of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) RatingsOf(ctx context.Context, category string, accountIDs []string) (map[string]game.Rating, error) {
	out := map[string]game.Rating{}
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	if len(accountIDs) == 0 {
		return out, nil
	}
	rs, err := c.pool.query(ctx, `SELECT account_id, rating, rd, volatility, updated FROM ratings
		WHERE category = ? AND games > 0 AND account_id IN (SELECT l.v FROM {list text} AS l)`, category, accountIDs)
	if err != nil {
		return nil, fmt.Errorf("reading ratings in %s: %w", category, err)
	}
	for rs.Next() {
		var id string
		var r game.Rating
		if err := rs.Scan(&id, &r.Rating, &r.Deviation, &r.Volatility, timeCol{&r.At}); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading ratings in %s: %w", category, err)
		}
		out[id] = r
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading ratings in %s: %w", category, err)
	}
	return out, nil
}

const historyCols = `h.game_id, h.account_id, h.category, h.side, h.moved_first, h.score, h.advantage, h.at,
	h.rating_before, h.rd_before, h.volatility_before, h.rating_after, h.rd_after, h.volatility_after`

// scanChange reads the columns historyCols names, which may all be NULL
// (a join that found none): then it returns nil.
func scanChange(dest []any, scan func(dest ...any) error) (*game.RatingChange, error) {
	var gameID, acc, cat, side sql.NullString
	var first sql.NullBool
	var f [8]sql.NullFloat64
	var at time.Time
	err := scan(append(dest, &gameID, &acc, &cat, &side, &first, &f[0], &f[1], timeCol{&at},
		&f[2], &f[3], &f[4], &f[5], &f[6], &f[7])...)
	if err != nil || !gameID.Valid {
		return nil, err
	}
	ch := &game.RatingChange{GameID: gameID.String, AccountID: acc.String, Category: cat.String, MovedFirst: first.Bool,
		Score: f[0].Float64, Advantage: f[1].Float64, At: at,
		Before: game.Rating{Rating: f[2].Float64, Deviation: f[3].Float64, Volatility: f[4].Float64},
		After:  game.Rating{Rating: f[5].Float64, Deviation: f[6].Float64, Volatility: f[7].Float64, At: at}}
	ch.Side = rules.South
	if side.String == "n" {
		ch.Side = rules.North
	}
	return ch, nil
}

func (c *core) RatingHistory(ctx context.Context, accountID, category string, limit int) ([]game.RatingChange, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT `+historyCols+` FROM rating_history h
		WHERE h.account_id = ? AND h.category = ? ORDER BY h.at DESC, h.game_id DESC LIMIT ?`, accountID, category, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the rating history of account %s: %w", accountID, err)
	}
	var out []game.RatingChange
	for rs.Next() {
		ch, err := scanChange(nil, rs.Scan)
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the rating history of account %s: %w", accountID, err)
		}
		out = append(out, *ch)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the rating history of account %s: %w", accountID, err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// scanSeatAccount reads an account's id, name, kind and status, which
// may be NULL (no account): then it returns nil.
type nullAccount struct{ id, name, kind, status sql.NullString }

func (n *nullAccount) dest() []any { return []any{&n.id, &n.name, &n.kind, &n.status} }

func (n *nullAccount) account() *game.SeatAccount {
	if !n.id.Valid {
		return nil
	}
	return &game.SeatAccount{ID: n.id.String, Name: n.name.String, Bot: n.kind.String == AccountBot, Status: n.status.String}
}

// nullRating reads a rating's columns, which may be NULL.
type nullRating struct {
	r, rd, vol sql.NullFloat64
	at         time.Time
}

func (n *nullRating) dest() []any { return []any{&n.r, &n.rd, &n.vol, timeCol{&n.at}} }

func (n *nullRating) rating() *game.Rating {
	if !n.r.Valid {
		return nil
	}
	return &game.Rating{Rating: n.r.Float64, Deviation: n.rd.Float64, Volatility: n.vol.Float64, At: n.at}
}

func (c *core) GameRatings(ctx context.Context, id string) (*game.GameRatings, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT x.side, g.rated, g.category, a.id, a.name, a.kind, a.status,
		r.rating, r.rd, r.volatility, r.updated, COALESCE(r.games, 0), `+historyCols+`
		FROM (SELECT 's' AS side, o.south_seat AS seat, o.game_id FROM online o WHERE o.game_id = ?
			UNION ALL SELECT 'n', o.north_seat, o.game_id FROM online o WHERE o.game_id = ?) x
		JOIN games g ON g.id = x.game_id
		LEFT JOIN seat_owners so ON so.seat = x.seat
		LEFT JOIN accounts a ON a.id = so.account_id
		LEFT JOIN ratings r ON r.account_id = a.id AND r.category = g.category AND r.games > 0
		LEFT JOIN rating_history h ON h.game_id = g.id AND h.side = x.side`, id, id)
	if err != nil {
		return nil, fmt.Errorf("reading the players of game %s: %w", id, err)
	}
	gr := &game.GameRatings{}
	n := 0
	for rs.Next() {
		var side string
		var na nullAccount
		var nr nullRating
		var games int
		dest := append([]any{&side, &gr.Rated, &gr.Category}, na.dest()...)
		dest = append(append(dest, nr.dest()...), &games)
		ch, err := scanChange(dest, rs.Scan)
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the players of game %s: %w", id, err)
		}
		s := rules.South
		if side == "n" {
			s = rules.North
		}
		gr.Seats[s] = game.GameSeat{Account: na.account(), Rating: nr.rating(), Games: games, Change: ch}
		n++
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the players of game %s: %w", id, err)
	}
	if n == 0 {
		return nil, fmt.Errorf("online game %s: %w", id, ErrNotFound)
	}
	return gr, nil
}

func (c *core) Leaderboard(ctx context.Context, category string, now, activeSince time.Time, limit int) ([]BoardEntry, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT a.id, a.name, a.kind, r.rating, r.rd, r.volatility, r.updated, r.games
		FROM ratings r JOIN accounts a ON a.id = r.account_id
		WHERE r.category = ? AND r.games > 0 AND r.updated >= ? AND r.provisional_from > ? AND a.status = ''
		ORDER BY r.rating DESC, a.name_key LIMIT ?`, category, activeSince, now, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the leaderboard of %s: %w", category, err)
	}
	var out []BoardEntry
	for rs.Next() {
		var e BoardEntry
		var kind string
		if err := rs.Scan(&e.AccountID, &e.Name, &kind, &e.Rating.Rating, &e.Deviation, &e.Volatility, timeCol{&e.At},
			&e.Games); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the leaderboard of %s: %w", category, err)
		}
		e.Bot = kind == AccountBot
		out = append(out, e)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the leaderboard of %s: %w", category, err)
	}
	return out, nil
}

// mySeats selects the online games in which the account (the first two
// parameters, twice the same) holds a seat: the game, the account's side
// and the other seat.
const mySeats = `(SELECT o.game_id, 's' AS side, o.north_seat AS other FROM online o
		JOIN seat_owners so ON so.seat = o.south_seat WHERE so.account_id = ?
	UNION ALL SELECT o.game_id, 'n', o.south_seat FROM online o
		JOIN seat_owners so ON so.seat = o.north_seat WHERE so.account_id = ?) me`

// The conditions of a game's result from the player's side.
const (
	wonIt  = `(me.side = 's' AND g.result = '1-0' OR me.side = 'n' AND g.result = '0-1')`
	lostIt = `(me.side = 's' AND g.result = '0-1' OR me.side = 'n' AND g.result = '1-0')`
	drewIt = `g.result = '1/2-1/2'`
)

func (c *core) PlayerGames(ctx context.Context, accountID string, f PlayerGamesFilter) ([]PlayerGame, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	q := `SELECT g.id, g.created, g.updated, g.south, g.north, g.start, g.variant, g.moves, g.result, g.series_id,
		o.end_reason, me.side, g.rated, g.category, a.id, a.name, a.kind, a.status,
		COALESCE(oh.rating_before, r.rating), COALESCE(oh.rd_before, r.rd), COALESCE(oh.volatility_before, r.volatility),
		COALESCE(oh.at, r.updated), ` + historyCols + `
		FROM ` + mySeats + `
		JOIN games g ON g.id = me.game_id
		JOIN online o ON o.game_id = g.id
		LEFT JOIN seat_owners os ON os.seat = me.other
		LEFT JOIN accounts a ON a.id = os.account_id
		LEFT JOIN rating_history h ON h.game_id = g.id AND h.side = me.side
		LEFT JOIN rating_history oh ON oh.game_id = g.id AND oh.side != me.side
		LEFT JOIN ratings r ON r.account_id = a.id AND r.category = g.category AND r.games > 0
		WHERE true`
	args := []any{accountID, accountID}
	switch f.Result {
	case "":
	case "win":
		q += ` AND ` + wonIt
	case "loss":
		q += ` AND ` + lostIt
	case "draw":
		q += ` AND ` + drewIt
	default:
		return nil, fmt.Errorf("result %q: want win, draw or loss", f.Result)
	}
	if f.Side != "" {
		q += ` AND me.side = ?`
		args = append(args, f.Side)
	}
	if f.Category != "" {
		q += ` AND g.category = ?`
		args = append(args, f.Category)
	}
	if f.OpponentID != "" {
		q += ` AND a.id = ?`
		args = append(args, f.OpponentID)
	}
	if !f.Before.Created.IsZero() {
		q += ` AND (g.created < ? OR g.created = ? AND g.id < ?)`
		args = append(args, f.Before.Created, f.Before.Created, f.Before.ID)
	}
	q += ` ORDER BY g.created DESC, g.id DESC LIMIT ?`
	args = append(args, f.Limit)
	rs, err := c.pool.query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
	}
	var out []PlayerGame
	for rs.Next() {
		var pg PlayerGame
		var start, variant, side string
		var series, end sql.NullString
		var na nullAccount
		var nr nullRating
		dest := []any{&pg.ID, timeCol{&pg.Created}, timeCol{&pg.Updated}, &pg.South, &pg.North, &start, &variant,
			&pg.Moves, &pg.Result, &series, &end, &side, &pg.Rated, &pg.Category}
		dest = append(append(dest, na.dest()...), nr.dest()...)
		ch, err := scanChange(dest, rs.Scan)
		if err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
		}
		pg.SeriesID = series.String
		pg.Online, pg.End = true, end.String
		if err := decodeSummary(&pg.Summary, start, variant); err != nil {
			rs.Close()
			return nil, err
		}
		pg.Side = rules.South
		if side == "n" {
			pg.Side = rules.North
		}
		pg.Opponent, pg.OpponentRating, pg.Change = na.account(), nr.rating(), ch
		out = append(out, pg)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the games of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) SideRecords(ctx context.Context, accountID string) ([2]Record, error) {
	var out [2]Record
	if c.version < ratingsVersion {
		return out, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT me.side,
		COALESCE(SUM(CASE WHEN `+wonIt+` THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN `+drewIt+` THEN 1 ELSE 0 END), 0),
		COALESCE(SUM(CASE WHEN `+lostIt+` THEN 1 ELSE 0 END), 0)
		FROM `+mySeats+` JOIN games g ON g.id = me.game_id GROUP BY me.side`, accountID, accountID)
	if err != nil {
		return out, fmt.Errorf("counting the results of account %s: %w", accountID, err)
	}
	for rs.Next() {
		var side string
		var r Record
		if err := rs.Scan(&side, &r.Wins, &r.Draws, &r.Losses); err != nil {
			rs.Close()
			return out, fmt.Errorf("counting the results of account %s: %w", accountID, err)
		}
		if side == "n" {
			out[rules.North] = r
		} else {
			out[rules.South] = r
		}
	}
	if err := closeRows(rs); err != nil {
		return out, fmt.Errorf("counting the results of account %s: %w", accountID, err)
	}
	return out, nil
}

func (c *core) RatedCategories(ctx context.Context) ([]string, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	list, err := ids(c.pool.query(ctx, `SELECT DISTINCT category FROM ratings ORDER BY category`))
	if err != nil {
		return nil, fmt.Errorf("listing the rating categories: %w", err)
	}
	return list, nil
}

func (c *core) AdvantageGames(ctx context.Context, category string, limit int) ([]SidedGame, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT f.rating_before, f.rd_before, f.volatility_before,
		s.rating_before, s.rd_before, s.volatility_before, f.score
		FROM rating_history f JOIN rating_history s ON s.game_id = f.game_id AND s.account_id != f.account_id
		WHERE f.category = ? AND f.moved_first ORDER BY f.at DESC LIMIT ?`, category, limit)
	if err != nil {
		return nil, fmt.Errorf("reading the rated games of %s: %w", category, err)
	}
	var out []SidedGame
	for rs.Next() {
		var sg SidedGame
		if err := rs.Scan(&sg.First.Rating, &sg.First.Deviation, &sg.First.Volatility,
			&sg.Second.Rating, &sg.Second.Deviation, &sg.Second.Volatility, &sg.Score); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the rated games of %s: %w", category, err)
		}
		out = append(out, sg)
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the rated games of %s: %w", category, err)
	}
	return out, nil
}

func (c *core) SetAdvantage(ctx context.Context, category string, a Advantage) error {
	return c.eng.write(ctx, "storing the first mover's advantage", true, func(t *tx) error {
		_, err := t.exec(`INSERT INTO rating_advantages (category, advantage, stderr, games, updated) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (category) DO UPDATE SET advantage = excluded.advantage, stderr = excluded.stderr,
			games = excluded.games, updated = excluded.updated`, category, a.Advantage, a.StdErr, a.Games, a.Updated)
		return err
	})
}

func (c *core) Advantages(ctx context.Context) (map[string]Advantage, error) {
	if c.version < ratingsVersion {
		return nil, errNoRatings
	}
	rs, err := c.pool.query(ctx, `SELECT category, advantage, stderr, games, updated FROM rating_advantages`)
	if err != nil {
		return nil, fmt.Errorf("reading the advantages: %w", err)
	}
	out := map[string]Advantage{}
	for rs.Next() {
		var cat string
		var a Advantage
		if err := rs.Scan(&cat, &a.Advantage, &a.StdErr, &a.Games, timeCol{&a.Updated}); err != nil {
			rs.Close()
			return nil, fmt.Errorf("reading the advantages: %w", err)
		}
		out[cat] = a
	}
	if err := closeRows(rs); err != nil {
		return nil, fmt.Errorf("reading the advantages: %w", err)
	}
	return out, nil
}
