package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
)

// run runs the command line and returns its status, standard output and
// standard error.
func run(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Run(context.Background(), args, Env{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

func vectorLines(t *testing.T, name string) (inputs, wants []string) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		in, want, ok := strings.Cut(sc.Text(), " => ")
		if !ok {
			continue
		}
		inputs = append(inputs, in)
		wants = append(wants, want)
	}
	if len(inputs) == 0 {
		t.Fatalf("no vectors in %s", name)
	}
	return inputs, wants
}

func TestApplyVectors(t *testing.T) {
	for _, tc := range []struct {
		file string
		args []string
	}{
		{"../../rules/testdata/moves.txt", []string{"apply"}},
		{"../../rules/testdata/moves-cross.txt", []string{"apply", "--variant", "cross", "--max-laps", "1000"}},
	} {
		inputs, wants := vectorLines(t, tc.file)
		code, out, errOut := run(t, strings.Join(inputs, "\n")+"\n", tc.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", tc.args, code, errOut)
		}
		got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		if len(got) != len(wants) {
			t.Fatalf("%v: %d output lines for %d input lines", tc.args, len(got), len(wants))
		}
		for i := range wants {
			g := got[i]
			if strings.HasPrefix(g, "illegal:") {
				g = "illegal"
			}
			if g != wants[i] {
				t.Errorf("%s: got %q, want %q", inputs[i], got[i], wants[i])
			}
		}
	}
}

func TestApplyUsage(t *testing.T) {
	for _, args := range [][]string{
		{"apply", "extra"},
		{"apply", "--variant", "nonsense"},
		{"apply", "--max-laps", "0"},
		{"apply", "--no-such-flag"},
	} {
		code, _, errOut := run(t, "", args...)
		if code != 2 || !strings.Contains(errOut, "usage: endodoi apply") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a usage line", args, code, errOut)
		}
	}
}

func TestPerftCommand(t *testing.T) {
	code, out, errOut := run(t, "", "perft", "4,4,4,4,4,4/4,4,4,4,4,4", "s", "0", "0", "5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "1 6\n2 28\n3 129\n4 610\n5 2886\n"
	if out != want {
		t.Errorf("got\n%s\nwant\n%s", out, want)
	}
	code, out, _ = run(t, "", "perft", "--divide", "2,2/2,2 s 0 0", "3")
	if code != 0 || !strings.HasPrefix(out, "1 2\n2 3\n3 4\n") {
		t.Errorf("divide: exit %d, output %q", code, out)
	}
	var sum int
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[3:] {
		var m string
		var c int
		if _, err := fmtSscan(line, &m, &c); err != nil {
			t.Fatalf("divide line %q: %v", line, err)
		}
		sum += c
	}
	if sum != 4 {
		t.Errorf("divided counts sum to %d, want 4", sum)
	}
	for _, args := range [][]string{
		{"perft"},
		{"perft", "start"},
		{"perft", "start", "0"},
		{"perft", "start", "x"},
		{"perft", "4,4/4 s 0 0", "3"},
	} {
		if code, _, errOut := run(t, "", args...); code != 2 || errOut == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and an error", args, code, errOut)
		}
	}
}

func TestShow(t *testing.T) {
	code, out, _ := run(t, "", "show", "1,2,3/4,5,6 n 7 8")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// North's row reads right to left, so C (6 seeds) stands above a.
	for _, want := range []string{
		"North  captured 8  (to move)",
		"C    B    A",
		"|  6 |  5 |  4 |",
		"|  1 |  2 |  3 |",
		"a    b    c",
		"South  captured 7\n",
		"Legal moves: A B C",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("show output lacks %q:\n%s", want, out)
		}
	}
	_, out, _ = run(t, "", "show", "0,0/1,1 s 0 5")
	if !strings.Contains(out, "South has no legal move") || !strings.Contains(out, "go to North") {
		t.Errorf("show of a finished position:\n%s", out)
	}
	if code, _, _ := run(t, "", "show", "bad"); code != 2 {
		t.Errorf("show bad: exit %d, want 2", code)
	}
}

func TestHelp(t *testing.T) {
	code, out, _ := run(t, "", "help")
	if code != 0 || !strings.Contains(out, "Commands:") {
		t.Fatalf("help: exit %d\n%s", code, out)
	}
	for name := range commands {
		if !strings.Contains(out, "  "+name+" ") {
			t.Errorf("help lacks %s", name)
		}
		code, out, _ := run(t, "", "help", name)
		if code != 0 || !strings.Contains(out, "Usage: endodoi "+name) || !strings.Contains(out, "Examples:") {
			t.Errorf("help %s: exit %d\n%s", name, code, out)
		}
		code, out2, _ := run(t, "", name, "-h")
		if code != 0 || out2 != out {
			t.Errorf("%s -h: exit %d, differs from help %s", name, code, name)
		}
	}
	if code, _, errOut := run(t, "", "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
	if code, _, _ := run(t, "", "help", "frobnicate"); code != 2 {
		t.Errorf("help for an unknown command: exit %d", code)
	}
}

func fmtSscan(s string, args ...any) (int, error) { return fmt.Sscan(s, args...) }
