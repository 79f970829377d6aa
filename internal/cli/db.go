package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/store"
)

var dbCommand = &command{
	name:    "db",
	summary: "check the games database, back it up while the game runs, or copy it to another database",
	usage:   "check [--data folder]\n       endodoi db backup [--data folder] FILE\n       endodoi db copy --from folder|URL --to URL|folder",
	examples: []string{
		"endodoi db check",
		"endodoi db backup ~/games-backup.db",
		"endodoi db check --data ./games",
		"endodoi db copy --from ~/.local/share/endodoi --to postgres://endodoi@db.example.org/endodoi",
		"endodoi db copy --from postgres://endodoi@db.example.org/endodoi --to ./games-copy",
	},
	setup: func(fs *flag.FlagSet) func(context.Context, Env, []string) error {
		data := fs.String("data", defaultDataDir(), "`folder` of the games database (games.db), as for endodoi serve")
		from := fs.String("from", "", "copy: the `source`, a data folder, an SQLite file or a postgres:// URL; stop the servers using it first")
		to := fs.String("to", "", "copy: the `destination`, a postgres:// URL, a data folder or an SQLite file; it must hold no games")
		return func(ctx context.Context, env Env, args []string) error {
			if len(args) == 0 {
				return usagef("want a subcommand: check, backup or copy")
			}
			ctx, stop := interruptible(ctx)
			defer stop()
			path := filepath.Join(*data, "games.db")
			sub, args := args[0], args[1:]
			switch sub {
			case "check":
				if len(args) > 0 {
					return usagef("check takes no arguments (got %q)", args[0])
				}
				return dbCheck(ctx, env.Stdout, path)
			case "backup":
				if len(args) != 1 {
					return usagef("backup wants one FILE to write the copy to")
				}
				return dbBackup(ctx, env.Stdout, path, args[0])
			case "copy":
				if len(args) > 0 {
					return usagef("copy takes no arguments (got %q); give --from and --to", args[0])
				}
				if *from == "" || *to == "" {
					return usagef("copy wants --from and --to")
				}
				return dbCopy(ctx, env, *from, *to)
			}
			return usagef("unknown subcommand %q: want check, backup or copy", sub)
		}
	},
}

// openForCheck opens the database at path for reading only, with an error
// that says where the database was looked for.
func openForCheck(ctx context.Context, path string) (*store.SQLite, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("no database at %s (choose the folder with --data)", path)
	}
	return store.OpenReadOnly(ctx, path)
}

// dbCheck reports on the database at path without writing to it: SQLite's
// integrity check, the schema version, the counts, and whether every
// game's stored moves replay under the rules.
func dbCheck(ctx context.Context, w io.Writer, path string) error {
	st, err := openForCheck(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	fmt.Fprintf(w, "database: %s\n", st.Path())
	version := "unreadable"
	if v := st.Version(); v >= 0 {
		version = strconv.Itoa(v)
	}
	fmt.Fprintf(w, "schema version: %s\n", version)
	rep, err := st.Check(ctx)
	if err != nil {
		return err
	}
	var wrong []string
	if rep.OK() {
		fmt.Fprintln(w, "integrity: ok")
	} else {
		fmt.Fprintf(w, "integrity: %s\n", counted(len(rep.Problems), "problem"))
		for _, p := range rep.Problems {
			fmt.Fprintf(w, "  %s\n", p)
		}
		wrong = append(wrong, counted(len(rep.Problems), "integrity problem"))
	}
	fmt.Fprintf(w, "games: %s, moves: %s, series: %s\n", thousands(rep.Games), thousands(rep.Moves), thousands(rep.Series))
	ids, err := st.GameIDs(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(w, "replay: cannot list the games: %v\n", err)
		wrong = append(wrong, "the games cannot be listed")
	}
	bad := 0
	for _, id := range ids {
		if err := replayStored(ctx, st, id); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			bad++
			fmt.Fprintf(w, "  %v\n", err)
		}
	}
	if err == nil {
		if bad == 0 {
			fmt.Fprintf(w, "replay: all %s replay\n", counted(len(ids), "game"))
		} else {
			fmt.Fprintf(w, "replay: the moves of %d of %s do not replay\n", bad, counted(len(ids), "game"))
			wrong = append(wrong, counted(bad, "game")+" whose moves do not replay")
		}
	}
	if len(wrong) > 0 {
		return fmt.Errorf("database damaged: %s; restore a backup (made with 'endodoi db backup') or keep this file for the games that replay", strings.Join(wrong, ", "))
	}
	fmt.Fprintf(w, "database ok: %s, %s\n", counted(rep.Games, "game"), counted(rep.Moves, "move"))
	return nil
}

// replayStored reads game id and plays its moves from its start.
func replayStored(ctx context.Context, st *store.SQLite, id string) error {
	sg, err := st.Game(ctx, id)
	if err != nil {
		return err
	}
	g, err := rules.NewGame(sg.Start, sg.Rules)
	if err != nil {
		return fmt.Errorf("game %s: %w", id, err)
	}
	for i, m := range sg.Moves {
		if err := g.Play(m); err != nil {
			return fmt.Errorf("game %s: stored move %d (%s): %w", id, i+1, m, err)
		}
	}
	return nil
}

// dbBackup copies the database at path to the new file to.
func dbBackup(ctx context.Context, w io.Writer, path, to string) error {
	st, err := openForCheck(ctx, path)
	if err != nil {
		return err
	}
	defer st.Close()
	if err := st.Backup(ctx, to); err != nil {
		return err
	}
	fi, err := os.Stat(to)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	abs, _ := filepath.Abs(to)
	fmt.Fprintf(w, "backed up %s to %s (%s bytes)\n", st.Path(), abs, thousands(int(fi.Size())))
	return nil
}

// counted writes n, in groups of three digits, and the noun, in the
// plural unless n is 1.
func counted(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
