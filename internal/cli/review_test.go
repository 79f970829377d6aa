package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/grade"
	"github.com/endodoi/endodoi/record"
	"github.com/endodoi/endodoi/rules"
	"github.com/endodoi/endodoi/server"
	"github.com/endodoi/endodoi/store"
)

// middleGame plays the middle legal move from start until the game ends.
func middleGame(t *testing.T, start string) *rules.Game {
	t.Helper()
	g, err := rules.NewGame(rules.MustParsePosition(start), rules.DefaultRules())
	if err != nil {
		t.Fatal(err)
	}
	for !g.Over() {
		legal := g.LegalMoves()
		if err := g.Play(legal[len(legal)/2]); err != nil {
			t.Fatal(err)
		}
	}
	return g
}

// serverReview imports the record text into a browser-game server (with
// the endgame databases in tbDir, unless empty) and returns the review the
// page shows of it.
func serverReview(t *testing.T, text, tbDir string) *grade.Review {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	srv := server.New(st, slog.New(slog.NewTextHandler(io.Discard, nil)))
	defer srv.Close()
	if tbDir != "" {
		lib := egtb.NewLibrary(tbDir, egtb.LibraryOptions{})
		defer lib.Close()
		srv.UseTablebases(lib)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	call := func(method, path, body string, out any) {
		t.Helper()
		req, err := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := hs.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		raw, _ := io.ReadAll(resp.Body)
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
		}
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, path, err, raw)
		}
	}
	body, _ := json.Marshal(map[string]string{"record": text})
	var game struct{ ID string }
	call("POST", "/api/games/import", string(body), &game)
	var answer struct {
		Status string
		Review *grade.Review
	}
	call("POST", "/api/games/"+game.ID+"/review", "", &answer)
	for deadline := time.Now().Add(5 * time.Minute); answer.Status != "done"; time.Sleep(5 * time.Millisecond) {
		if answer.Status == "failed" || time.Now().After(deadline) {
			t.Fatalf("the server's review: %+v", answer)
		}
		call("GET", "/api/games/"+game.ID+"/review", "", &answer)
	}
	return answer.Review
}

// endodoi review gives the figures of the browser game's review of the
// same record: the same review in its JSON form, and in the table each
// move's grade and loss and each player's accuracy as the page shows
// them. With the same endgame databases, again the same.
func TestReviewAsTheServer(t *testing.T) {
	tbDir := t.TempDir()
	if _, err := egtb.Build(context.Background(), egtb.Options{Holes: 3, MaxSeeds: 8, Rules: rules.Rules{}, Dir: tbDir}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, start string
		tbDir       string
	}{
		{"no databases", "3,3,3,3/3,3,3,3 s 0 0", ""},
		{"databases", "3,2,3/2,3,2 s 0 0", tbDir},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := record.New(middleGame(t, tc.start))
			rec.South, rec.North = "Naserian", "Sironka"
			file := filepath.Join(t.TempDir(), "game.txt")
			if err := os.WriteFile(file, []byte(rec.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			want := serverReview(t, rec.String(), tc.tbDir)
			args := []string{"review", "--quiet", file}
			if tc.tbDir != "" {
				args = append(args, "--egtb", tc.tbDir)
			}
			code, out, errOut := run(t, "", append(args, "--json")...)
			if code != 0 || errOut != "" {
				t.Fatalf("review --json: exit %d, %s", code, errOut)
			}
			var got grade.Review
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatal(err)
			}
			a, _ := json.Marshal(&got)
			b, _ := json.Marshal(want)
			if !bytes.Equal(a, b) {
				t.Fatalf("endodoi review:\n%s\nthe server's review:\n%s", a, b)
			}

			code, out, errOut = run(t, "", args...)
			if code != 0 || errOut != "" {
				t.Fatalf("review: exit %d, %s", code, errOut)
			}
			lines := strings.Split(out, "\n")
			for _, p := range want.Plies {
				line := ""
				for _, l := range lines {
					if f := strings.Fields(l); len(f) > 3 && f[0] == strconv.Itoa(p.Ply) {
						line = l
					}
				}
				f := strings.Fields(line)
				i := 4
				if p.Forced {
					i = 5
				}
				if len(f) <= i+1 || f[2] != p.Move || f[3] != p.Label || f[i] != strconv.FormatFloat(p.Loss, 'f', -1, 64) || f[i+1] != p.Best {
					t.Errorf("ply %d: %q, want %s %s, %v lost, best %s", p.Ply, line, p.Move, p.Label, p.Loss, p.Best)
				}
			}
			for side, name := range map[string]string{"s": "South (Naserian)", "n": "North (Sironka)"} {
				pl := want.Players[side]
				w := name + ": every move was forced"
				if pl.Accuracy != nil {
					w = fmt.Sprintf("%s: accuracy %s%%;", name, strconv.FormatFloat(*pl.Accuracy, 'f', -1, 64))
				}
				if !strings.Contains(out, w) {
					t.Errorf("the review lacks %q:\n%s", w, out)
				}
			}
		})
	}
}

// The command's errors: a bad command line exits 2, a record it cannot
// grade 1, each with what is wrong.
func TestReviewErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.txt")
	if err := os.WriteFile(empty, []byte("[Holes \"6\"]\n[Seeds \"4\"]\n\n*\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"review"}, 2, "want one record file"},
		{[]string{"review", "a.txt", "b.txt"}, 2, "want one record file"},
		{[]string{"review", "--nodes", "0", empty}, 2, "--nodes 0 out of range"},
		{[]string{"review", filepath.Join(dir, "missing.txt")}, 1, "missing.txt"},
		{[]string{"review", empty}, 1, "no moves to review"},
		{[]string{"review", "-"}, 1, "standard input"},
		{[]string{"review", "--egtb", dir, empty}, 1, "no moves to review"},
	} {
		code, _, errOut := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", tc.args, code, errOut, tc.code, tc.want)
		}
	}
	// Databases missing for the board are noted, and the review goes on.
	g := middleGame(t, "2,1,1/1,2,1 s 0 0")
	code, out, errOut := run(t, record.New(g).String(), "review", "--egtb", dir, "--nodes", "2000", "-")
	if code != 0 || !strings.Contains(errOut, "no endgame database for 3 holes") || !strings.Contains(out, "moves graded") {
		t.Errorf("review without databases in --egtb: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, _ = run(t, "", "help", "review")
	if code != 0 || !strings.Contains(out, "--nodes") || !strings.Contains(out, "--egtb") || !strings.Contains(out, "endodoi review game.txt") {
		t.Errorf("help review: exit %d\n%s", code, out)
	}
}
