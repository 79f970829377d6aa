package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/play/game"
	"github.com/endodoi/endodoi/rules"
)

// legalGames stores n games of up to ten legal moves each, and returns
// the moves stored.
func legalGames(t *testing.T, s Store, n int) int {
	t.Helper()
	start, _ := rules.NewPosition(6, 4)
	total := 0
	for i := range n {
		g, err := rules.NewGame(start, rules.DefaultRules())
		if err != nil {
			t.Fatal(err)
		}
		for j := 0; j < 10 && !g.Over(); j++ {
			legal := g.LegalMoves()
			if err := g.Play(legal[(i+j)%len(legal)]); err != nil {
				t.Fatal(err)
			}
		}
		newGame(t, s, &game.Game{Start: start, Moves: g.Moves()})
		total += g.Ply()
	}
	return total
}

func TestWriteCheck(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "games.db")
	s := open(t, path)
	played := legalGames(t, s, 3)
	ro, err := OpenReadOnly(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	var b strings.Builder
	if err := ro.WriteCheck(ctx, &b); err != nil {
		t.Fatalf("check of a sound database: %v\n%s", err, b.String())
	}
	want := fmt.Sprintf("database: %s\nschema version: %d\nintegrity: ok\ngames: 3, moves: %d, series: 0\nreplay: all 3 games replay\ndatabase ok: 3 games, %d moves\n",
		ro.Path(), latestVersion, played, played)
	if b.String() != want {
		t.Errorf("report\n%s\nwant\n%s", b.String(), want)
	}

	// A game whose stored moves are not legal: North's hole with South to
	// move.
	start, _ := rules.NewPosition(6, 4)
	bad := newGame(t, s, &game.Game{Start: start, Moves: moves(t, "A")})
	if err := ReplayGame(ctx, s, bad.ID); err == nil || !strings.Contains(err.Error(), "game "+bad.ID+": stored move 1 (A): ") {
		t.Errorf("replay of a game with an illegal move: %v", err)
	}
	s.Close()
	b.Reset()
	err = ro.WriteCheck(ctx, &b)
	if err == nil || err.Error() != "database damaged: 1 game whose moves do not replay; restore a backup (made with 'endodoi db backup') or keep this file for the games that replay" {
		t.Errorf("check with a game that does not replay: %v", err)
	}
	for _, line := range []string{"  game " + bad.ID + ": stored move 1 (A): ", "replay: the moves of 1 of 4 games do not replay\n"} {
		if !strings.Contains(b.String(), line) {
			t.Errorf("report lacks %q:\n%s", line, b.String())
		}
	}
	if strings.Contains(b.String(), "database ok") {
		t.Errorf("a damaged database reported ok:\n%s", b.String())
	}
}

func TestWriteBackup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := open(t, filepath.Join(dir, "games.db"))
	defer s.Close()
	fill(t, s, 2)
	to := filepath.Join(dir, "backup.db")
	var b strings.Builder
	if err := s.WriteBackup(ctx, &b, to); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(to)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("backed up %s to %s (%s bytes)\n", s.Path(), to, thousands(int(fi.Size()))); b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
	if err := s.WriteBackup(ctx, &b, to); err == nil {
		t.Error("a backup over an existing file was written")
	}
}

func TestThousandsAndCounted(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0"}, {7, "7"}, {999, "999"}, {1000, "1,000"}, {1234567, "1,234,567"}, {-1234, "-1,234"}, {-999, "-999"}} {
		if got := thousands(tc.n); got != tc.want {
			t.Errorf("thousands(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 games"}, {1, "1 game"}, {2, "2 games"}, {12345, "12,345 games"}} {
		if got := counted(tc.n, "game"); got != tc.want {
			t.Errorf("counted(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
