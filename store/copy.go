package store

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// ErrNotEmpty: the destination of a copy already holds games, series or
// accounts.
var ErrNotEmpty = errors.New("the destination already holds games or accounts")

// inventory is what a store holds, listed in one snapshot for a copy.
type inventory struct {
	Games         []placed // in the order of creation
	Series        []string // by time of creation
	Moves, Online int
}

// placed is a game's ID and its place in the store-wide order of changes,
// which orders the listing of games.
type placed struct {
	ID      string
	Touched int64
}

// placedGame is a game to store as it is, at its place in the order of
// changes.
type placedGame struct {
	Game    *game.Game
	Touched int64
}

// copier is what Copy needs of a store beyond Store; both engines have it.
type copier interface {
	Store
	inventory(ctx context.Context) (inventory, error)
	// restore stores series and games as they are: their IDs, times,
	// revisions and places in the order of changes. The games come in
	// the order of their creation.
	restore(ctx context.Context, series []*game.Series, games []placedGame) error
	accountRows(ctx context.Context) (accountRows, error)
	restoreAccounts(ctx context.Context, ar accountRows) error
}

// CopyReport is what Copy copied.
type CopyReport struct {
	Games, Moves, Series, Online, Reviews int
	Alive                                 bool // the server's heartbeat was copied
	// The accounts, their credentials (password hashes and passkeys),
	// sessions (the signed-in browsers stay signed in), seats, blocks and
	// reports.
	Accounts, Credentials, Sessions, Seats, Blocks, Reports int
	// The ratings and their changes (ratingscopy.go).
	Ratings, RatingChanges int
}

// copyBatch is how many games one transaction of a copy stores.
const copyBatch = 200

// eachRow runs query in q and hands each row to scan: a listing of one
// table for a copy.
func eachRow(ctx context.Context, q runner, query string, scan func(row) error) error {
	rs, err := q.query(ctx, query)
	if err != nil {
		return err
	}
	for rs.Next() {
		if err := scan(rs); err != nil {
			rs.Close()
			return err
		}
	}
	return closeRows(rs)
}

// insertBatches stores n rows of a copy, one(t, i) storing row i, a batch
// of copyBatch rows per transaction; what names the writes ("copying
// accounts").
func (c *core) insertBatches(ctx context.Context, what string, n int, one func(t *tx, i int) error) error {
	for lo := 0; lo < n; lo += copyBatch {
		hi := min(lo+copyBatch, n)
		if err := c.eng.write(ctx, what, false, func(t *tx) error {
			for i := lo; i < hi; i++ {
				if err := one(t, i); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// Copy copies the games of src into dst: every game with its moves, its
// online state, import key and review, every series, every account with
// its credentials, sessions and seats, the ratings with their history and
// the advantages, and the server's heartbeat (not
// the pending passkey challenges, which last minutes).
// The games keep their IDs, times and revisions, and the listing its
// order. dst must hold no game, series or account (else ErrNotEmpty); no
// program should write to src meanwhile. After the copy, Copy reads both
// stores back and compares the counts and every game, series and account
// row field by field. progress, when not nil, hears how far the copy and the check are
// ("copying" or "checking", games done, games in all).
//
// A copy that fails leaves part of the games in dst: empty it before
// trying again.
func Copy(ctx context.Context, dst, src Store, progress func(stage string, done, total int)) (CopyReport, error) {
	from, ok := src.(copier)
	if !ok {
		return CopyReport{}, fmt.Errorf("copying games: cannot list the games of a %T", src)
	}
	to, ok := dst.(copier)
	if !ok {
		return CopyReport{}, fmt.Errorf("copying games: cannot store games as they are in a %T", dst)
	}
	if progress == nil {
		progress = func(string, int, int) {}
	}
	there, err := to.inventory(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	accountsThere, err := to.accountRows(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	if len(there.Games) > 0 || len(there.Series) > 0 || len(accountsThere.Accounts) > 0 {
		return CopyReport{}, fmt.Errorf("copying games: %w (%s, %s series, %s); copy into an empty database or folder",
			ErrNotEmpty, counted(len(there.Games), "game"), thousands(len(there.Series)), counted(len(accountsThere.Accounts), "account"))
	}
	inv, err := from.inventory(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	ar, err := from.accountRows(ctx)
	if err != nil {
		return CopyReport{}, err
	}
	rep := CopyReport{Games: len(inv.Games), Moves: inv.Moves, Series: len(inv.Series), Online: inv.Online,
		Accounts: len(ar.Accounts), Credentials: len(ar.Credentials), Sessions: len(ar.Sessions), Seats: len(ar.Seats),
		Blocks: len(ar.Blocks), Reports: len(ar.Reports)}

	// The series first, for the games to refer to.
	for chunk := range slices.Chunk(inv.Series, copyBatch) {
		var batch []*game.Series
		for _, id := range chunk {
			sr, err := src.Series(ctx, id)
			if err != nil {
				return rep, fmt.Errorf("copying games: %w", err)
			}
			batch = append(batch, sr)
		}
		if err := to.restore(ctx, batch, nil); err != nil {
			return rep, fmt.Errorf("copying games: %w", err)
		}
	}
	done := 0
	progress("copying", done, len(inv.Games))
	for chunk := range slices.Chunk(inv.Games, copyBatch) {
		batch := make([]placedGame, 0, len(chunk))
		for _, ref := range chunk {
			g, err := src.Game(ctx, ref.ID)
			if err != nil {
				return rep, fmt.Errorf("copying games: %w", err)
			}
			batch = append(batch, placedGame{Game: g, Touched: ref.Touched})
		}
		if err := to.restore(ctx, nil, batch); err != nil {
			return rep, fmt.Errorf("copying games: %w", err)
		}
		n, err := copyReviews(ctx, dst, src, chunk)
		rep.Reviews += n
		if err != nil {
			return rep, fmt.Errorf("copying games: %w", err)
		}
		done += len(chunk)
		progress("copying", done, len(inv.Games))
	}
	if err := to.restoreAccounts(ctx, ar); err != nil {
		return rep, fmt.Errorf("copying games: %w", err)
	}
	if rep.Ratings, rep.RatingChanges, err = copyRatings(ctx, dst, src); err != nil {
		return rep, fmt.Errorf("copying ratings: %w", err)
	}
	alive, ok, err := src.Alive(ctx)
	if err != nil {
		return rep, fmt.Errorf("copying games: %w", err)
	}
	if ok {
		if err := dst.SetAlive(ctx, alive); err != nil {
			return rep, fmt.Errorf("copying games: %w", err)
		}
		rep.Alive = true
	}
	if err := verifyCopy(ctx, to, from, inv, progress); err != nil {
		return rep, fmt.Errorf("checking the copy: %w", err)
	}
	return rep, nil
}

// verifyCopy compares dst with src, whose inventory before the copy was
// inv.
func verifyCopy(ctx context.Context, dst, src copier, inv inventory, progress func(string, int, int)) error {
	got, err := dst.inventory(ctx)
	if err != nil {
		return err
	}
	ids := func(refs []placed) []string {
		out := make([]string, len(refs))
		for i, r := range refs {
			out[i] = r.ID
		}
		return out
	}
	byTouched := func(refs []placed) []string {
		refs = slices.Clone(refs)
		slices.SortStableFunc(refs, func(a, b placed) int { return cmp.Compare(a.Touched, b.Touched) })
		return ids(refs)
	}
	switch {
	case len(got.Games) != len(inv.Games) || got.Moves != inv.Moves || len(got.Series) != len(inv.Series) ||
		got.Online != inv.Online:
		return fmt.Errorf("the copy holds %d games, %d moves, %d series and %d online games; the source %d, %d, %d and %d",
			len(got.Games), got.Moves, len(got.Series), got.Online, len(inv.Games), inv.Moves, len(inv.Series), inv.Online)
	case !slices.Equal(ids(got.Games), ids(inv.Games)):
		return errors.New("the copy's games differ from the source's, or come in another order of creation")
	case !slices.Equal(byTouched(got.Games), byTouched(inv.Games)):
		return errors.New("the copy lists the games in another order than the source")
	case !slices.Equal(got.Series, inv.Series):
		return errors.New("the copy's series differ from the source's")
	}
	for _, id := range inv.Series {
		a, err := src.Series(ctx, id)
		if err != nil {
			return err
		}
		b, err := dst.Series(ctx, id)
		if err != nil {
			return err
		}
		if d := diffSeries(a, b); d != "" {
			return fmt.Errorf("series %s: %s", id, d)
		}
	}
	progress("checking", 0, len(inv.Games))
	for i, ref := range inv.Games {
		a, err := src.Game(ctx, ref.ID)
		if err != nil {
			return err
		}
		b, err := dst.Game(ctx, ref.ID)
		if err != nil {
			return err
		}
		if d := diffGame(a, b); d != "" {
			return fmt.Errorf("game %s: %s", ref.ID, d)
		}
		if d, err := diffReview(ctx, dst, src, ref.ID); err != nil || d != "" {
			return errors.Join(err, fmt.Errorf("game %s: review: %s", ref.ID, d))
		}
		if (i+1)%copyBatch == 0 || i+1 == len(inv.Games) {
			progress("checking", i+1, len(inv.Games))
		}
	}
	a, aok, err := src.Alive(ctx)
	if err != nil {
		return err
	}
	b, bok, err := dst.Alive(ctx)
	if err != nil {
		return err
	}
	if aok != bok || !a.Equal(b) {
		return fmt.Errorf("the heartbeat is %v (%t) in the copy, %v (%t) in the source", b, bok, a, aok)
	}
	x, err := src.accountRows(ctx)
	if err != nil {
		return err
	}
	y, err := dst.accountRows(ctx)
	if err != nil {
		return err
	}
	if d := diffAccounts(x, y); d != "" {
		return errors.New(d)
	}
	return nil
}

// copyReviews copies the reviews of the games in refs, with their times,
// and returns how many it copied.
func copyReviews(ctx context.Context, dst, src Store, refs []placed) (int, error) {
	n := 0
	for _, ref := range refs {
		r, err := src.Review(ctx, ref.ID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if err := dst.SaveReview(ctx, r); err != nil {
			return n, err
		}
		n++
	}
	return n, nil
}

// diffReview describes how the review of game id differs in dst from src's,
// or returns "" when they are the same (or neither has one).
func diffReview(ctx context.Context, dst, src Store, id string) (string, error) {
	read := func(s Store) (*Review, error) {
		r, err := s.Review(ctx, id)
		if errors.Is(err, ErrNotFound) {
			return nil, nil
		}
		return r, err
	}
	a, err := read(src)
	if err != nil {
		return "", err
	}
	b, err := read(dst)
	if err != nil {
		return "", err
	}
	switch {
	case a == nil && b == nil:
		return "", nil
	case a == nil || b == nil:
		return fmt.Sprintf("in the source %t, in the copy %t", a != nil, b != nil), nil
	case a.Key != b.Key || string(a.Data) != string(b.Data) || !a.Created.Equal(b.Created):
		return "copied with another key, time or content", nil
	}
	return "", nil
}

// diffGame describes the first difference between the stored games a and
// b (a game and its copy), or returns "" when they are the same.
func diffGame(a, b *game.Game) string {
	var d differ
	d.str("ID", a.ID, b.ID)
	d.time("created", a.Created, b.Created)
	d.time("updated", a.Updated, b.Updated)
	d.str("south", a.South, b.South)
	d.str("north", a.North, b.North)
	d.str("start", a.Start.String(), b.Start.String())
	d.str("rules", fmt.Sprint(a.Rules), fmt.Sprint(b.Rules))
	d.str("moves", fmt.Sprint(a.Moves), fmt.Sprint(b.Moves))
	d.str("computer", computerText(a.Computer), computerText(b.Computer))
	d.str("series", a.SeriesID, b.SeriesID)
	d.str("result", a.Result, b.Result)
	d.str("import key", a.ImportKey, b.ImportKey)
	if (a.Online == nil) != (b.Online == nil) {
		d.str("online", fmt.Sprint(a.Online != nil), fmt.Sprint(b.Online != nil))
	} else if a.Online != nil {
		x, y := a.Online, b.Online
		d.str("invite", x.Invite, y.Invite)
		d.str("seats", fmt.Sprint(x.Seats), fmt.Sprint(y.Seats))
		d.str("clock", fmt.Sprint(x.Clock), fmt.Sprint(y.Clock))
		d.str("time left", fmt.Sprint(x.Left), fmt.Sprint(y.Left))
		d.time("turn start", x.TurnStart, y.TurnStart)
		d.str("end", x.End, y.End)
		d.str("offers", x.DrawOffer+"/"+x.TakebackOffer+"/"+x.RematchOffer, y.DrawOffer+"/"+y.TakebackOffer+"/"+y.RematchOffer)
		d.str("next game", x.Next, y.Next)
		d.str("revision", fmt.Sprint(x.Rev), fmt.Sprint(y.Rev))
	}
	return d.first
}

// diffSeries is diffGame for series.
func diffSeries(a, b *game.Series) string {
	var d differ
	d.str("ID", a.ID, b.ID)
	d.time("created", a.Created, b.Created)
	d.str("target", fmt.Sprint(a.Target), fmt.Sprint(b.Target))
	ids := func(sr *game.Series) string {
		var out []string
		for _, g := range sr.Games {
			out = append(out, g.ID)
		}
		return strings.Join(out, " ")
	}
	d.str("games", ids(a), ids(b))
	return d.first
}

func computerText(c *game.Computer) string {
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%c at level %d", c.Side.Letter(), c.Level)
}

// differ keeps the first difference it is shown.
type differ struct{ first string }

func (d *differ) str(what, a, b string) {
	if d.first == "" && a != b {
		d.first = fmt.Sprintf("%s %q, copied as %q", what, a, b)
	}
}

func (d *differ) time(what string, a, b time.Time) {
	if d.first == "" && (!a.Equal(b) || a.Location() != b.Location()) {
		d.first = fmt.Sprintf("%s %v, copied as %v", what, a, b)
	}
}

// inventory lists the games and series in one snapshot.
func (c *core) inventory(ctx context.Context) (inventory, error) {
	var inv inventory
	err := c.eng.read(ctx, func(q runner) error {
		rs, err := q.query(ctx, `SELECT id, touched FROM games ORDER BY {created}`)
		if err != nil {
			return err
		}
		for rs.Next() {
			var ref placed
			if err := rs.Scan(&ref.ID, &ref.Touched); err != nil {
				rs.Close()
				return err
			}
			inv.Games = append(inv.Games, ref)
		}
		if err := closeRows(rs); err != nil {
			return err
		}
		if inv.Series, err = ids(q.query(ctx, `SELECT id FROM series ORDER BY created, id`)); err != nil {
			return err
		}
		return q.queryRow(ctx, `SELECT (SELECT COUNT(*) FROM moves), (SELECT COUNT(*) FROM `+c.online+` o)`).Scan(
			&inv.Moves, &inv.Online)
	})
	if err != nil {
		return inventory{}, fmt.Errorf("listing the games of %s: %w", c.eng.name(), err)
	}
	return inv, nil
}

// restore stores series and games as they are, in one transaction, and
// moves the order of changes on past the games'.
func (c *core) restore(ctx context.Context, series []*game.Series, games []placedGame) error {
	return c.eng.write(ctx, "copying games", false, func(t *tx) error {
		for _, sr := range series {
			if err := t.insertSeries(sr.ID, sr.Created, sr.Target); err != nil {
				return fmt.Errorf("series %s: %w", sr.ID, err)
			}
		}
		for _, pg := range games {
			rev := int64(0)
			if pg.Game.Online != nil {
				rev = pg.Game.Online.Rev
			}
			if err := t.insertGame(pg.Game, t.touchAt(pg.Touched), rev); err != nil {
				return fmt.Errorf("game %s: %w", pg.Game.ID, err)
			}
		}
		if t.d.afterRestore == "" {
			return nil
		}
		_, err := t.exec(t.d.afterRestore)
		return err
	})
}
