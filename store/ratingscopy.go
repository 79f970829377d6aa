package store

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/endodoi/endodoi/play/game"
)

// The ratings in a copy of a store (Copy): every rating, change and
// advantage, as stored, after the games and accounts they refer to.

// ratingRows are the ratings of a store with their history and the
// advantages, as stored.
type ratingRows struct {
	Ratings    []ratingRow
	History    []game.RatingChange
	Advantages map[string]Advantage
}

// ratingRow is an account's rating in a category, as stored.
type ratingRow struct {
	AccountID, Category string
	game.Rating
	Games           int
	ProvisionalFrom time.Time
}

// ratingCopier is what a copy of the ratings needs of a store; both
// engines have it.
type ratingCopier interface {
	ratingRows(ctx context.Context) (ratingRows, error)
	restoreRatings(ctx context.Context, rr ratingRows) error
}

// ratingRows reads the ratings, their history and the advantages in one
// snapshot, each sorted by its key. A database older than the ratings has
// none.
func (c *core) ratingRows(ctx context.Context) (ratingRows, error) {
	rr := ratingRows{Advantages: map[string]Advantage{}}
	if c.version < ratingsVersion {
		return rr, nil
	}
	err := c.eng.read(ctx, func(q runner) error {
		if err := eachRow(ctx, q, `SELECT account_id, category, rating, rd, volatility, games, updated, provisional_from FROM ratings`,
			func(r row) error {
				var x ratingRow
				err := r.Scan(&x.AccountID, &x.Category, &x.Rating.Rating, &x.Deviation, &x.Volatility, &x.Games,
					timeCol{&x.At}, timeCol{&x.ProvisionalFrom})
				rr.Ratings = append(rr.Ratings, x)
				return err
			}); err != nil {
			return err
		}
		if err := eachRow(ctx, q, `SELECT `+historyCols+` FROM rating_history h`, func(r row) error {
			ch, err := scanChange(nil, r.Scan)
			if err == nil {
				rr.History = append(rr.History, *ch)
			}
			return err
		}); err != nil {
			return err
		}
		return eachRow(ctx, q, `SELECT category, advantage, stderr, games, updated FROM rating_advantages`, func(r row) error {
			var cat string
			var a Advantage
			err := r.Scan(&cat, &a.Advantage, &a.StdErr, &a.Games, timeCol{&a.Updated})
			rr.Advantages[cat] = a
			return err
		})
	})
	if err != nil {
		return ratingRows{}, fmt.Errorf("listing the ratings of %s: %w", c.eng.name(), err)
	}
	slices.SortFunc(rr.Ratings, func(a, b ratingRow) int {
		return strings.Compare(a.AccountID+" "+a.Category, b.AccountID+" "+b.Category)
	})
	slices.SortFunc(rr.History, func(a, b game.RatingChange) int {
		return strings.Compare(a.GameID+" "+a.AccountID, b.GameID+" "+b.AccountID)
	})
	return rr, nil
}

// restoreRatings stores the rows of rr as they are, a batch per
// transaction.
func (c *core) restoreRatings(ctx context.Context, rr ratingRows) error {
	insert := func(n int, one func(t *tx, i int) error) error {
		return c.insertBatches(ctx, "copying ratings", n, one)
	}
	if err := insert(len(rr.Ratings), func(t *tx, i int) error {
		x := rr.Ratings[i]
		_, err := t.exec(`INSERT INTO ratings (account_id, category, rating, rd, volatility, games, updated, provisional_from)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, x.AccountID, x.Category, x.Rating.Rating, x.Deviation, x.Volatility, x.Games,
			x.At, x.ProvisionalFrom)
		if err != nil {
			return fmt.Errorf("a rating of account %s: %w", x.AccountID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	if err := insert(len(rr.History), func(t *tx, i int) error {
		h := rr.History[i]
		_, err := t.exec(`INSERT INTO rating_history (game_id, account_id, category, side, moved_first, score, advantage,
			at, rating_before, rd_before, volatility_before, rating_after, rd_after, volatility_after)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			h.GameID, h.AccountID, h.Category, string(h.Side.Letter()), h.MovedFirst, h.Score, h.Advantage, h.At,
			h.Before.Rating, h.Before.Deviation, h.Before.Volatility, h.After.Rating, h.After.Deviation, h.After.Volatility)
		if err != nil {
			return fmt.Errorf("the change of game %s: %w", h.GameID, err)
		}
		return nil
	}); err != nil {
		return err
	}
	cats := slices.Sorted(maps.Keys(rr.Advantages))
	return insert(len(cats), func(t *tx, i int) error {
		a := rr.Advantages[cats[i]]
		_, err := t.exec(`INSERT INTO rating_advantages (category, advantage, stderr, games, updated) VALUES (?, ?, ?, ?, ?)`,
			cats[i], a.Advantage, a.StdErr, a.Games, a.Updated)
		return err
	})
}

// copyRatings copies the ratings of src into dst, which holds their games
// and accounts already, reads them back and compares them; it returns how
// many ratings and changes it copied.
func copyRatings(ctx context.Context, dst, src Store) (ratings, changes int, err error) {
	from, ok := src.(ratingCopier)
	if !ok {
		return 0, 0, fmt.Errorf("cannot list the ratings of a %T", src)
	}
	to, ok := dst.(ratingCopier)
	if !ok {
		return 0, 0, fmt.Errorf("cannot store ratings in a %T", dst)
	}
	rr, err := from.ratingRows(ctx)
	if err != nil {
		return 0, 0, err
	}
	if err := to.restoreRatings(ctx, rr); err != nil {
		return 0, 0, err
	}
	back, err := to.ratingRows(ctx)
	if err != nil {
		return 0, 0, err
	}
	if d := diffRatings(rr, back); d != "" {
		return 0, 0, fmt.Errorf("checking the copy: %s", d)
	}
	return len(rr.Ratings), len(rr.History), nil
}

// diffRatings describes the first difference between the rating rows a
// and their copy b, or returns "" when they are the same.
func diffRatings(a, b ratingRows) string {
	if len(a.Ratings) != len(b.Ratings) || len(a.History) != len(b.History) || len(a.Advantages) != len(b.Advantages) {
		return fmt.Sprintf("the copy holds %d ratings, %d changes and %d advantages; the source %d, %d and %d",
			len(b.Ratings), len(b.History), len(b.Advantages), len(a.Ratings), len(a.History), len(a.Advantages))
	}
	for i, x := range a.Ratings {
		y := b.Ratings[i]
		if x.AccountID != y.AccountID || x.Category != y.Category || x.Rating.Rating != y.Rating.Rating ||
			x.Deviation != y.Deviation || x.Volatility != y.Volatility || x.Games != y.Games || !x.At.Equal(y.At) ||
			!x.ProvisionalFrom.Equal(y.ProvisionalFrom) {
			return fmt.Sprintf("the rating of account %s in %s is copied otherwise", x.AccountID, x.Category)
		}
	}
	for i, x := range a.History {
		y := b.History[i]
		if x.GameID != y.GameID || x.AccountID != y.AccountID || x.Category != y.Category || x.Side != y.Side ||
			x.MovedFirst != y.MovedFirst || x.Score != y.Score || x.Advantage != y.Advantage || !x.At.Equal(y.At) ||
			x.Before != y.Before || x.After.Rating != y.After.Rating || x.After.Deviation != y.After.Deviation ||
			x.After.Volatility != y.After.Volatility {
			return fmt.Sprintf("the change of game %s for account %s is copied otherwise", x.GameID, x.AccountID)
		}
	}
	for cat, x := range a.Advantages {
		if y, ok := b.Advantages[cat]; !ok || x.Advantage != y.Advantage || x.StdErr != y.StdErr || x.Games != y.Games ||
			!x.Updated.Equal(y.Updated) {
			return fmt.Sprintf("the advantage of %s is copied otherwise", cat)
		}
	}
	return ""
}
