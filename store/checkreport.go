package store

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/endodoi/endodoi/rules"
)

// WriteCheck writes a report on the database to w, writing nothing to the
// database: its path and schema version, SQLite's integrity check (Check),
// the counts of games, moves and series, and whether every game's stored
// moves replay under the rules. A damaged database returns an error that
// says what is wrong and what to do; an error that stops the check is
// returned as it is.
func (s *SQLite) WriteCheck(ctx context.Context, w io.Writer) error {
	fmt.Fprintf(w, "database: %s\n", s.Path())
	version := "unreadable"
	if v := s.Version(); v >= 0 {
		version = strconv.Itoa(v)
	}
	fmt.Fprintf(w, "schema version: %s\n", version)
	rep, err := s.Check(ctx)
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
	ids, err := s.GameIDs(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return err
		}
		fmt.Fprintf(w, "replay: cannot list the games: %v\n", err)
		wrong = append(wrong, "the games cannot be listed")
	}
	bad := 0
	for _, id := range ids {
		if err := ReplayGame(ctx, s, id); err != nil {
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

// ReplayGame reads game id from st and plays its stored moves from its
// start under its rules; the error names the game and the first move that
// is not legal.
func ReplayGame(ctx context.Context, st Store, id string) error {
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

// WriteBackup backs the database up to the new file to (Backup) and
// writes to w where the copy is and its size.
func (s *SQLite) WriteBackup(ctx context.Context, w io.Writer, to string) error {
	if err := s.Backup(ctx, to); err != nil {
		return err
	}
	fi, err := os.Stat(to)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	abs, _ := filepath.Abs(to)
	fmt.Fprintf(w, "backed up %s to %s (%s bytes)\n", s.Path(), abs, thousands(int(fi.Size())))
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
