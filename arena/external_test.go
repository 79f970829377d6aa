package arena

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// buildEndodoi builds the endodoi command into a temporary directory.
func buildEndodoi(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "endodoi")
	goTool := filepath.Join(runtime.GOROOT(), "bin", "go")
	cmd := exec.Command(goTool, "build", "-o", bin, "./cmd/endodoi")
	cmd.Dir = ".." // the module root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building endodoi: %v\n%s", err, out)
	}
	return bin
}

func writeScript(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestExternalPlayers(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("needs /bin/sh")
	}
	dir := t.TempDir()
	bin := buildEndodoi(t, dir)

	t.Run("endodoi engine", func(t *testing.T) {
		for _, r := range []rules.Rules{{}, {Variant: rules.Cross, MaxLaps: 500}} {
			cfg := Config{Rules: r, Holes: 4, Seeds: 4, Games: 2, OpeningPlies: 2, Seed: 5}
			ext := mustSpec(t, "cmd="+bin+" engine;depth=2")
			st, err := Run(testContext(t), cfg, ext.Factory(r, 1), mustSpec(t, "depth=2,hash=1").Factory(r, 2), nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Played != 2 || st.Wins+st.Draws+st.Losses != 2 || st.ForfeitsA+st.ForfeitsB != 0 {
				t.Errorf("%v: stats %+v", r, st)
			}
			// Same engine, same depth, fresh tables: each pair is even.
			if st.Pairs[2] != 1 {
				t.Errorf("%v: pairs %v, want the pair split evenly", r, st.Pairs)
			}
		}
	})

	// A bot that answers its handshake and readyok but plays a hole the
	// 4-hole board does not have.
	liar := writeScript(t, dir, "liar.sh", `while read cmd rest; do
  case "$cmd" in
  endodoi) echo "id name liar"; echo endodoiok;;
  isready) echo readyok;;
  go) echo "bestmove p";;
  quit) exit 0;;
  esac
done
`)
	// A bot whose bestmove is no move at all, after an error.
	scrawler := writeScript(t, dir, "scrawler.sh", `while read cmd rest; do
  case "$cmd" in
  endodoi) echo endodoiok;;
  isready) echo readyok;;
  go) echo "info string error: confused"; echo "bestmove 7";;
  quit) exit 0;;
  esac
done
`)
	// A bot that never answers "go".
	mute := writeScript(t, dir, "mute.sh", `while read cmd rest; do
  case "$cmd" in
  endodoi) echo endodoiok;;
  isready) echo readyok;;
  quit) exit 0;;
  esac
done
`)
	garbage := writeScript(t, dir, "garbage.sh", "echo garbage\n")
	quitter := writeScript(t, dir, "quitter.sh", "exit 3\n")
	for _, tc := range []struct {
		spec, reason string
	}{
		{"cmd=" + garbage + ";depth=1", "the program exited"},
		{"cmd=" + quitter + ";depth=1", "the program exited (exit status 3)"},
		{"cmd=" + liar + ";depth=1", "illegal bestmove p (no such hole"},
		{"cmd=" + scrawler + ";depth=1", `bad bestmove line "bestmove 7" after error: confused`},
		{"cmd=" + mute + ";depth=1;timeout=100ms", "no bestmove within 100ms"},
		{"cmd=" + mute + ";time=10ms;timeout=100ms", "no bestmove within 100ms"},
	} {
		t.Run(filepath.Base(tc.spec), func(t *testing.T) {
			r := rules.Rules{}
			cfg := Config{Rules: r, Holes: 4, Seeds: 4, Games: 4, OpeningPlies: 2, Seed: 5}
			st, err := Run(testContext(t), cfg, mustSpec(t, tc.spec).Factory(r, 1), mustSpec(t, "baseline=1").Factory(r, 2), nil)
			if err != nil {
				t.Fatal(err)
			}
			if st.Played != 4 || st.Losses != 4 || st.ForfeitsA != 4 || st.ForfeitsB != 0 {
				t.Errorf("stats %+v: want 4 forfeited losses", st)
			}
			if len(st.ForfeitNotes) == 0 || !strings.Contains(st.ForfeitNotes[0], tc.reason) {
				t.Errorf("forfeit notes %q, want one mentioning %q", st.ForfeitNotes, tc.reason)
			}
		})
	}

	t.Run("variant not declared", func(t *testing.T) {
		r := rules.Rules{Variant: rules.Cross}
		cfg := Config{Rules: r, Holes: 4, Seeds: 4, Games: 2, OpeningPlies: 2}
		st, err := Run(testContext(t), cfg, mustSpec(t, "cmd="+liar).Factory(r, 1), mustSpec(t, "baseline=1").Factory(r, 2), nil)
		if err != nil {
			t.Fatal(err)
		}
		if st.ForfeitsA != 2 || len(st.ForfeitNotes) == 0 || !strings.Contains(st.ForfeitNotes[0], "no Variant option") {
			t.Errorf("stats %+v", st)
		}
	})
}
