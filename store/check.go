package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// checkWritable returns an error wrapping ErrReadOnly when the database
// file at path, its -wal or -shm file, or its folder (where SQLite makes
// those two) cannot be written. A file without any write permission bit
// counts as read-only even for a user whom the system would let write.
func checkWritable(path string) error {
	dir := filepath.Dir(path)
	for _, p := range []string{path, path + "-wal", path + "-shm", dir} {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) && p != dir {
			continue
		}
		if err != nil {
			return fmt.Errorf("opening %s: %w", path, err)
		}
		if fi.Mode().Perm()&0o222 != 0 && canWrite(p) {
			continue
		}
		if p == dir {
			return fmt.Errorf("opening %s: %w: the folder %s is read-only, and the database needs to keep files beside it while it is open; make the folder writable or use another folder",
				path, ErrReadOnly, dir)
		}
		return fmt.Errorf("opening %s: %w: the file %s is read-only; make it writable (for example chmod u+w %s) or use a copy in a folder you can write to",
			path, ErrReadOnly, p, p)
	}
	return nil
}

// inspect reads the database at path without writing anything and
// returns its schema version and the first max problems SQLite's quick
// check finds (none when it is sound).
func inspect(ctx context.Context, path string, max int) (version int, problems []string, err error) {
	db, err := sql.Open("sqlite", roURI(path, "_pragma=busy_timeout(5000)"))
	if err != nil {
		return 0, nil, fmt.Errorf("opening %s: %w", path, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	problems, err = pragmaCheck(ctx, db, "quick_check", max)
	if err != nil {
		return 0, nil, fmt.Errorf("checking %s: %w", path, err)
	}
	if len(problems) > 0 {
		return 0, problems, nil
	}
	version, err = schemaVersion(ctx, db)
	if isDamage(err) {
		return 0, []string{err.Error()}, nil
	}
	if err != nil {
		return 0, nil, fmt.Errorf("checking %s: %w", path, err)
	}
	return version, nil, nil
}

// pragmaCheck runs PRAGMA quick_check or integrity_check and returns the
// problems it reports, a damaged file's error among them.
func pragmaCheck(ctx context.Context, db *sql.DB, pragma string, max int) ([]string, error) {
	rows, err := db.QueryContext(ctx, fmt.Sprintf(`PRAGMA %s(%d)`, pragma, max))
	if isDamage(err) {
		return []string{err.Error()}, nil
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var problems []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return nil, err
		}
		if line == "ok" {
			continue
		}
		// SQLite puts several findings in one row at times.
		for _, l := range strings.Split(line, "\n") {
			// "*** in database main ***" heads the list; it says nothing.
			if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "*** in database") {
				problems = append(problems, l)
			}
		}
	}
	if err := rows.Err(); isDamage(err) {
		problems = append(problems, err.Error())
	} else if err != nil {
		return nil, err
	}
	return problems, nil
}

// damagedError is the error for a database that fails the checks.
func damagedError(path string, problems []string) error {
	const show = 3
	quoted := make([]string, 0, show)
	for _, p := range problems[:min(show, len(problems))] {
		quoted = append(quoted, fmt.Sprintf("%q", p))
	}
	more := ""
	if len(problems) > show {
		more = fmt.Sprintf(" and %d more", len(problems)-show)
	}
	return fmt.Errorf("opening %s: %w: %s%s; nothing was written to it. Run 'endodoi db check' for a full report, and restore a backup (made with 'endodoi db backup')",
		path, ErrDamaged, strings.Join(quoted, ", "), more)
}

// CheckReport is what Check found.
type CheckReport struct {
	Version  int      // schema version, -1 if unreadable
	Problems []string // SQLite's integrity check's findings; none when sound
	Games    int
	Moves    int
	Series   int
}

// OK reports whether the check found nothing wrong.
func (r CheckReport) OK() bool { return len(r.Problems) == 0 }

// maxProblems bounds the problems a check lists.
const maxProblems = 100

// Check runs SQLite's full integrity check and counts the games, moves and
// series. Damage is reported in the CheckReport; the error is for a check
// that could not run.
func (s *SQLite) Check(ctx context.Context) (CheckReport, error) {
	rep := CheckReport{Version: s.version}
	var err error
	if rep.Problems, err = pragmaCheck(ctx, s.r, "integrity_check", maxProblems); err != nil {
		return rep, fmt.Errorf("checking %s: %w", s.path, err)
	}
	for _, c := range []struct {
		n     *int
		table string
	}{{&rep.Games, "games"}, {&rep.Moves, "moves"}, {&rep.Series, "series"}} {
		err := s.r.QueryRowContext(ctx, `SELECT COUNT(*) FROM `+c.table).Scan(c.n)
		if err != nil {
			if ctx.Err() != nil {
				return rep, fmt.Errorf("checking %s: %w", s.path, err)
			}
			rep.Problems = append(rep.Problems, fmt.Sprintf("counting %s: %v", c.table, err))
		}
	}
	return rep, nil
}

// Backup writes a consistent copy of the database to the new file path,
// while other connections, in this program or another, go on writing. It
// writes a temporary file in the same folder, checks it and then renames
// it, so that path is either a sound copy or absent.
func (s *SQLite) Backup(ctx context.Context, path string) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("backing up to %s: %w", path, err)
	}
	path = abs
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("backing up to %s: %w", path, fs.ErrExist)
	}
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+newID())
	defer os.Remove(tmp)
	if err := s.vacuumInto(ctx, tmp); err != nil {
		return fmt.Errorf("backing up to %s: %w", path, err)
	}
	if err := syncFile(tmp); err != nil {
		return fmt.Errorf("backing up to %s: %w", path, err)
	}
	_, problems, err := inspect(ctx, tmp, 5)
	if err != nil {
		return fmt.Errorf("backing up to %s: checking the copy: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("backing up to %s: the copy fails the check: %s", path, strings.Join(problems, "; "))
	}
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("backing up to %s: %w", path, fs.ErrExist)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("backing up to %s: %w", path, err)
	}
	// The rename is durable once the folder is synced; some systems cannot
	// sync a folder, and the copy is whole either way.
	_ = syncFile(filepath.Dir(path))
	return nil
}

// vacuumInto copies the database into the new file to with VACUUM INTO,
// which reads one snapshot of it and so never stops the writer.
func (s *SQLite) vacuumInto(ctx context.Context, to string) error {
	// A connection of its own: VACUUM INTO needs one that is not
	// query_only, and opening the source read-only writes nothing to it.
	db, err := sql.Open("sqlite", uri(s.path, "mode=ro", "_pragma=busy_timeout(10000)"))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	_, err = db.ExecContext(ctx, `VACUUM INTO ?`, to)
	return err
}

func syncFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
