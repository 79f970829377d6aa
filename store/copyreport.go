package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CopyProgressMin is the number of games from which CopyDatabase reports
// its progress; smaller copies take a moment.
const CopyProgressMin = 1000

// CopyDatabase copies the games and accounts of the database named from
// into the one named to (Copy), which must hold none, and returns what it copied once
// the copy is checked. from is a PostgreSQL URL, or an SQLite file or the
// data folder holding one (games.db), read without writing anything to
// it; to is a PostgreSQL URL, an SQLite file, or a data folder (made if
// need be) for games.db. progress, if not nil, receives the copy's
// progress for copies of CopyProgressMin games or more. The errors say
// what to do.
func CopyDatabase(ctx context.Context, from, to string, progress func(CopyProgress)) (CopySummary, error) {
	called := time.Now()
	src, srcName, err := openCopySource(ctx, from)
	if err != nil {
		return CopySummary{}, err
	}
	defer src.Close()
	dst, dstName, err := openCopyDestination(ctx, to)
	if err != nil {
		return CopySummary{}, err
	}
	if srcName == dstName {
		dst.Close()
		return CopySummary{}, fmt.Errorf("copying %s: the source and the destination are the same database", srcName)
	}
	started := time.Now()
	copying := false
	rep, err := Copy(ctx, dst, src, func(stage string, done, total int) {
		copying = true
		if progress != nil && total >= CopyProgressMin {
			progress(CopyProgress{Label: fmt.Sprintf("%s: %s of %s", stage, thousands(done), counted(total, "game")),
				Done: done, Total: total, Elapsed: time.Since(called)})
		}
	})
	// The copy's last writes are in once the store closes.
	if cerr := dst.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("closing %s: %w", dstName, cerr)
	}
	switch {
	case errors.Is(err, ErrNotEmpty):
		return CopySummary{}, fmt.Errorf("not copying into %s: %w", dstName, err)
	case err != nil && copying:
		return CopySummary{}, fmt.Errorf("copying %s to %s: %w; %s may now hold part of the games: empty it, or choose another destination, before trying again",
			srcName, dstName, err, dstName)
	case err != nil:
		return CopySummary{}, fmt.Errorf("copying %s to %s: %w", srcName, dstName, err)
	}
	return CopySummary{CopyReport: rep, From: srcName, To: dstName, Elapsed: time.Since(started)}, nil
}

// CopyProgress is how far CopyDatabase has got.
type CopyProgress struct {
	Label       string // the stage and its games, e.g. "copying: 1,000 of 5,000 games"
	Done, Total int    // games done and in all
	Elapsed     time.Duration
}

// CopySummary is what CopyDatabase copied, from where to where, and how
// long it took.
type CopySummary struct {
	CopyReport
	From, To string // the databases' names: paths, or URLs without their passwords
	Elapsed  time.Duration
}

// String says what was copied and that the copy was checked, on three
// lines.
func (s CopySummary) String() string {
	return fmt.Sprintf("copied %s (%s), %s series and %s from %s to %s in %v\n", counted(s.Games, "game"), counted(s.Moves, "move"),
		thousands(s.Series), counted(s.Online, "online game"), s.From, s.To, s.Elapsed.Round(time.Millisecond)) +
		fmt.Sprintf("with %s: %s (passwords and passkeys), %s and %s; %s and %s\n", counted(s.Accounts, "account"),
			counted(s.Credentials, "credential"), counted(s.Sessions, "session"), counted(s.Seats, "owned seat"),
			counted(s.Blocks, "block"), counted(s.Reports, "report")) +
		"checked: the copy holds every game, move, series and account as the source does"
}

// openCopySource opens the source of a copy: a PostgreSQL URL, or an
// SQLite file or the data folder holding one (games.db), which it reads
// without writing anything to it. It returns the store and its name for
// messages.
func openCopySource(ctx context.Context, from string) (Store, string, error) {
	if IsPostgresURL(from) {
		s, err := OpenPostgres(ctx, from)
		if err == nil {
			s.SetTimeout(0) // a copy reads whole tables at once
		}
		return s, RedactURL(from), err
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
	s, err := OpenReadOnly(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return s, s.Path(), nil
}

// openCopyDestination opens the destination of a copy: a PostgreSQL URL,
// an SQLite file, or a data folder (made if need be) for games.db; a path
// that does not exist and ends in .db is a file.
func openCopyDestination(ctx context.Context, to string) (Store, string, error) {
	if IsPostgresURL(to) {
		s, err := OpenPostgres(ctx, to)
		if err == nil {
			s.SetTimeout(0) // a copy writes whole tables at once
		}
		return s, RedactURL(to), err
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
	s, err := Open(ctx, path)
	if err != nil {
		return nil, "", err
	}
	return s, s.Path(), nil
}

// notOtherURL refuses a URL of another kind of database than PostgreSQL,
// which would otherwise be taken for a folder's name.
func notOtherURL(s string) error {
	if scheme, _, ok := strings.Cut(s, "://"); ok && !strings.ContainsAny(scheme, `/\`) {
		return fmt.Errorf("database %s: want a postgres:// URL, a data folder or an SQLite file", RedactURL(s))
	}
	return nil
}
