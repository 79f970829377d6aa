package cli

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/egtb"
	"github.com/endodoi/endodoi/rules"
)

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestEGTBCommands(t *testing.T) {
	dir := t.TempDir()
	code, out, errOut := run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", dir)
	if code != 0 || !strings.Contains(out, "built 3 holes a row, 0 to 6 seeds") {
		t.Fatalf("build: exit %d\n%s\n%s", code, out, errOut)
	}
	// A build that would need more memory than allowed is refused before
	// it starts, with what it would need.
	empty := t.TempDir()
	code, _, errOut = run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", empty, "--memory", "1e-9", "--quiet")
	if code != 1 || !strings.Contains(errOut, "needs about") || !strings.Contains(errOut, "more than") {
		t.Fatalf("build with --memory 1e-9: exit %d, %q", code, errOut)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Errorf("a refused build left %d files", len(entries))
	}
	// Again: every count is read back, nothing is solved.
	code, out, _ = run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", dir, "--quiet")
	if code != 0 || !strings.Contains(out, "7 counts were already built") {
		t.Errorf("second build: exit %d\n%s", code, out)
	}

	code, out, errOut = run(t, "", "egtb", "probe", "--dir", dir, "2,0,1/0,1,1 s 3 4")
	if code != 0 || !strings.Contains(out, "value: ") || !strings.Contains(out, "solved: ") || !strings.Contains(out, "line: ") {
		t.Errorf("probe: exit %d\n%s\n%s", code, out, errOut)
	}
	// Every move's value is listed, the best marked.
	for _, m := range []string{"* a  +1  (captures 3)", "  c  -3"} {
		if !strings.Contains(out, m) {
			t.Errorf("probe output lacks %q:\n%s", m, out)
		}
	}

	code, _, errOut = run(t, "", "egtb", "probe", "--dir", dir, "2,0,1/0,1,3 s 3 4")
	if code != 1 || !strings.Contains(errOut, "has 7 seeds on the board") || !strings.Contains(errOut, "at most 6") {
		t.Errorf("probe beyond the databases: exit %d, %q", code, errOut)
	}
	code, _, errOut = run(t, "", "egtb", "probe", "--dir", dir, "--variant", "cross", "2,0,1/0,1,1 s 3 4")
	if code != 1 || !strings.Contains(errOut, "no endgame database") || !strings.Contains(errOut, "egtb build") {
		t.Errorf("probe under other rules: exit %d, %q", code, errOut)
	}

	code, out, errOut = run(t, "", "egtb", "verify", "--holes", "3", "--dir", dir, "--quiet")
	if code != 0 || !strings.Contains(out, "all 7 counts verified") {
		t.Errorf("verify: exit %d\n%s\n%s", code, out, errOut)
	}
	// A wrong value, with its checksums fixed, is caught by verify.
	path := filepath.Join(dir, egtb.FileName(3, 5, rules.DefaultRules()))
	data, _ := os.ReadFile(path)
	tb, _ := egtb.Open(dir, 3, rules.DefaultRules())
	values, _ := tb.Values(5)
	bad := append([]int8(nil), values...)
	bad[100] += 2
	writeValues(t, dir, 3, 5, bad)
	code, out, _ = run(t, "", "egtb", "verify", "--holes", "3", "--seeds", "5", "--dir", dir, "--quiet")
	if code != 1 || !strings.Contains(out, "WRONG") {
		t.Errorf("verify of a wrong value: exit %d\n%s", code, out)
	}
	os.WriteFile(path, data, 0o644)

	for _, args := range [][]string{
		{"egtb"},
		{"egtb", "frobnicate"},
		{"egtb", "build", "--holes", "3"},
		{"egtb", "build", "--holes", "1", "--max-seeds", "3"},
		{"egtb", "build", "--holes", "3", "--max-seeds", "200"},
		{"egtb", "build", "--holes", "3", "--max-seeds", "6", "--memory", "0"},
		{"egtb", "probe"},
		{"egtb", "probe", "1,2/3"},
		{"egtb", "verify"},
	} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// writeValues rewrites a database file with the given values and sound
// checksums.
func writeValues(t *testing.T, dir string, holes, n int, values []int8) {
	t.Helper()
	if err := egtb.WriteFile(dir, holes, n, rules.DefaultRules(), values); err != nil {
		t.Fatal(err)
	}
}

func TestEGTBBuildInterrupted(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	dir := t.TempDir()
	code := Run(ctx, []string{"egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", dir}, Env{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
	if code != 1 || !strings.Contains(errOut.String(), "interrupted") {
		t.Errorf("cancelled build: exit %d, %q", code, errOut.String())
	}
	// The same command again finishes the job.
	if code, out, errOut := run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", dir, "--quiet"); code != 0 || !strings.Contains(out, "built") {
		t.Errorf("resumed build: exit %d\n%s\n%s", code, out, errOut)
	}
}

func TestSolve(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"solve", "--quiet", "2", "1"}, "value +4"},
		{[]string{"solve", "--quiet", "3", "2"}, "value -2"},
		{[]string{"solve", "--quiet", "2", "2"}, "value 0"},
		{[]string{"solve", "--quiet", "2,0,1/0,1,1 n 3 4"}, "value "},
	} {
		code, out, errOut := run(t, "", tc.args...)
		if code != 0 || !strings.HasPrefix(lastLine(out), tc.want) || !strings.Contains(out, "principal variation") {
			t.Errorf("%v: exit %d\n%s\n%s", tc.args, code, out, errOut)
		}
	}
	// Too big for --memory: a search with the databases.
	dir := t.TempDir()
	if code, _, errOut := run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "8", "--dir", dir, "--quiet"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := run(t, "", "solve", "--quiet", "--memory", "0.000001", "--egtb", dir, "--time", "5s", "--hash", "16", "--bounds-table", "8", "3", "2")
	if code != 0 || lastLine(out) != "value -2" || !strings.Contains(out, "method: search") {
		t.Errorf("solve by search: exit %d\n%s\n%s", code, out, errOut)
	}
	// With a checkpoint and a certificate; the certificate verifies, and
	// one altered does not.
	cert := filepath.Join(t.TempDir(), "3x2.cert")
	cp := filepath.Join(t.TempDir(), "cp")
	code, out, errOut = run(t, "", "solve", "--quiet", "--memory", "0.000001", "--egtb", dir, "--time", "5s", "--hash", "16", "--bounds-table", "8",
		"--checkpoint", cp, "--certificate", cert, "3", "2")
	if code != 0 || lastLine(out) != "value -2" || !strings.Contains(out, "certificate: "+cert) {
		t.Fatalf("solve with a certificate: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(cp, "checkpoint.json")); err != nil {
		t.Errorf("no checkpoint written: %v", err)
	}
	// Again, resumed from the checkpoint, by the bounds alone.
	code, out, errOut = run(t, "", "solve", "--quiet", "--memory", "0.000001", "--egtb", dir, "--time", "5s", "--bounds-table", "8",
		"--checkpoint", cp, "--engine=false", "3", "2")
	if code != 0 || lastLine(out) != "value -2" || !strings.Contains(out, "resumed from the checkpoint") || strings.Contains(out, "engine search") {
		t.Errorf("solve resumed without the engine: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "", "solve", "--egtb", dir, "--bounds-table", "8", "--verify", cert)
	if code != 0 || lastLine(out) != "verified -2" {
		t.Errorf("verify: exit %d\n%s\n%s", code, out, errOut)
	}
	text, err := os.ReadFile(cert)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(cert + ".partial"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unfinished certificate left beside the whole one: %v", err)
	}
	// Stopped after some claims held: the same command goes on from its
	// unfinished certificate, to one that holds its claims and verifies.
	lines := strings.SplitAfter(string(text), "\n")
	firstClaim := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "claim ") })
	if firstClaim < 0 || firstClaim+1 >= len(lines) {
		t.Fatalf("a certificate of fewer than two claims:\n%s", text)
	}
	again := filepath.Join(t.TempDir(), "3x2.cert")
	if err := os.WriteFile(again+".partial", []byte(strings.Join(lines[:firstClaim+1], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "solve", "--quiet", "--memory", "0.000001", "--egtb", dir, "--bounds-table", "8",
		"--checkpoint", cp, "--engine=false", "--certificate", again, "3", "2")
	if code != 0 || !strings.Contains(out, "going on from the unfinished certificate "+again+".partial") {
		t.Fatalf("solve with an unfinished certificate: exit %d\n%s\n%s", code, out, errOut)
	}
	if made, err := os.ReadFile(again); err != nil || !strings.Contains(string(made), lines[firstClaim]) {
		t.Errorf("the certificate gone on from an unfinished one: %v\n%s\nwant %s in it", err, made, lines[firstClaim])
	}
	if code, out, errOut := run(t, "", "solve", "--egtb", dir, "--bounds-table", "8", "--verify", again); code != 0 || lastLine(out) != "verified -2" {
		t.Errorf("verify of the certificate gone on from an unfinished one: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(again + ".partial"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the unfinished certificate left beside the whole one: %v", err)
	}
	// One of another value is refused.
	other := strings.Replace(strings.Join(lines[:firstClaim+1], ""), "value -2", "value +2", 1)
	if err := os.WriteFile(again+".partial", []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errOut = run(t, "", "solve", "--quiet", "--memory", "0.000001", "--egtb", dir, "--bounds-table", "8",
		"--checkpoint", cp, "--engine=false", "--certificate", again, "3", "2")
	if code != 1 || !strings.Contains(errOut, "delete it to start again") {
		t.Errorf("solve with an unfinished certificate of another value: exit %d\n%s\n%s", code, out, errOut)
	}
	if err := os.WriteFile(cert, []byte(strings.Replace(string(text), "value -2", "value +2", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errOut = run(t, "", "solve", "--egtb", dir, "--bounds-table", "8", "--verify", cert); code != 1 || !strings.Contains(errOut, "does not hold") {
		t.Errorf("verify of an altered certificate: exit %d\n%s\n%s", code, out, errOut)
	}
	for _, args := range [][]string{{"solve"}, {"solve", "1", "1"}, {"solve", "3", "2", "--memory", "0"}, {"solve", "--hash", "0", "3", "2"}, {"solve", "--bounds-table", "0", "3", "2"}, {"solve", "--bounds-table", "16385", "3", "2"}, {"solve", "x"},
		{"solve", "--certificate", "x.cert", "3", "2"}, {"solve", "--verify", cert, "3", "2"}} {
		if code, _, _ := run(t, "", args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

func TestAnalyzeWithEGTB(t *testing.T) {
	dir := t.TempDir()
	if code, _, errOut := run(t, "", "egtb", "build", "--holes", "3", "--max-seeds", "6", "--dir", dir, "--quiet"); code != 0 {
		t.Fatal(errOut)
	}
	code, out, errOut := run(t, "", "analyze", "--egtb", dir, "--multipv", "all", "2,0,1/0,1,1 s 3 4")
	if code != 0 || !strings.Contains(out, "tablebase: value") || !strings.Contains(out, "exact  (solved: ") {
		t.Errorf("analyze in the databases: exit %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = run(t, "", "analyze", "--egtb", dir, "--depth", "30", "2,2,2/2,2,2 s 0 0")
	if code != 0 || !strings.Contains(out, "tablebase: holds up to 6 seeds") || !strings.Contains(out, "solved: ") {
		t.Errorf("analyze above the databases: exit %d\n%s\n%s", code, out, errOut)
	}
}
