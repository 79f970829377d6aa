package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/endodoi/endodoi/internal/terminal"
	"github.com/endodoi/endodoi/store"
)

// copyProgressMin is the number of games from which db copy shows its
// progress; smaller copies take a moment.
const copyProgressMin = 1000

// dbCopy copies the games of the store from into the store to, which must
// hold none, and checks the copy.
func dbCopy(ctx context.Context, env Env, from, to string) error {
	src, srcName, err := openCopySource(ctx, from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, dstName, err := openCopyDestination(ctx, to)
	if err != nil {
		return err
	}
	if srcName == dstName {
		dst.Close()
		return fmt.Errorf("copying %s: the source and the destination are the same database", srcName)
	}
	bar := terminal.NewProgressBar(env.Stderr)
	started := time.Now()
	copying := false
	rep, err := store.Copy(ctx, dst, src, func(stage string, done, total int) {
		copying = true
		if total >= copyProgressMin {
			bar.Draw(fmt.Sprintf("%s: %s of %s", stage, thousands(done), counted(total, "game")),
				uint64(done), uint64(total), time.Since(started))
		}
	})
	bar.End()
	// The copy's last writes are in once the store closes.
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing %s: %w", dstName, cerr)
	}
	if err != nil {
		if errors.Is(err, store.ErrNotEmpty) {
			return fmt.Errorf("not copying into %s: %w", dstName, err)
		}
		if copying {
			return fmt.Errorf("copying %s to %s: %w; %s may now hold part of the games: empty it, or choose another destination, before trying again",
				srcName, dstName, err, dstName)
		}
		return fmt.Errorf("copying %s to %s: %w", srcName, dstName, err)
	}
	fmt.Fprintf(env.Stdout, "copied %s (%s), %s series and %s from %s to %s in %v\n",
		counted(rep.Games, "game"), counted(rep.Moves, "move"), thousands(rep.Series),
		counted(rep.Online, "online game"), srcName, dstName, time.Since(started).Round(time.Millisecond))
	fmt.Fprintln(env.Stdout, "checked: the copy holds every game, move and series as the source does")
	return nil
}

// openCopySource opens the source of a copy: a PostgreSQL URL, or an
// SQLite file or the data folder holding one (games.db), which it reads
// without writing anything to it. It returns the store and its name for
// messages.
func openCopySource(ctx context.Context, from string) (store.Store, string, error) {
	if store.IsPostgresURL(from) {
		s, err := store.OpenPostgres(ctx, from)
		return s, store.RedactURL(from), err
	}
	if err := notOtherURL(from); err != nil {
		return nil, "", err
	}
	path := from
	fi, err := os.Stat(path)
	if err == nil && fi.IsDir() {
		path = filepath.Join(path, "games.db")
		_, err = os.Stat(path)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("no database at %s: give --from a data folder holding games.db, an SQLite file or a postgres:// URL", path)
	}
	if err != nil {
		return nil, "", fmt.Errorf("copying from %s: %w", from, err)
	}
	s, err := store.OpenReadOnly(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return s, s.Path(), nil
}

// openCopyDestination opens the destination of a copy: a PostgreSQL URL,
// an SQLite file, or a data folder (made if need be) for games.db; a path
// that does not exist and ends in .db is a file.
func openCopyDestination(ctx context.Context, to string) (store.Store, string, error) {
	if store.IsPostgresURL(to) {
		s, err := store.OpenPostgres(ctx, to)
		return s, store.RedactURL(to), err
	}
	if err := notOtherURL(to); err != nil {
		return nil, "", err
	}
	path := to
	fi, err := os.Stat(path)
	switch {
	case err == nil && fi.IsDir(), errors.Is(err, fs.ErrNotExist) && !strings.HasSuffix(path, ".db"):
		if err := os.MkdirAll(path, 0o755); err != nil {
			return nil, "", fmt.Errorf("copying to %s: %w", to, err)
		}
		path = filepath.Join(path, "games.db")
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return nil, "", fmt.Errorf("copying to %s: %w", to, err)
	}
	s, err := store.Open(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return s, s.Path(), nil
}

// notOtherURL refuses a URL of another kind of database than PostgreSQL,
// which would otherwise be taken for a folder's name.
func notOtherURL(s string) error {
	if scheme, _, ok := strings.Cut(s, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		return fmt.Errorf("database %s: want a postgres:// URL, a data folder or an SQLite file", store.RedactURL(s))
	}
	return nil
}
