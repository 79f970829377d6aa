package rules_test

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// The files in testdata come from an independent implementation of the
// rules; every line must agree.

func readLines(t *testing.T, name string) []string {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lines = append(lines, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(lines) == 0 {
		t.Fatalf("%s holds no vectors", name)
	}
	return lines
}

func testMoveVectors(t *testing.T, name string, r rules.Rules) {
	for _, line := range readLines(t, name) {
		input, want, ok := strings.Cut(line, " => ")
		if !ok {
			t.Fatalf("malformed vector %q", line)
		}
		cut := strings.LastIndexByte(input, ' ')
		p, err := rules.ParsePosition(input[:cut])
		if err != nil {
			t.Fatalf("vector %q: %v", line, err)
		}
		m, err := rules.ParseMove(input[cut+1:])
		if err != nil {
			t.Fatalf("vector %q: %v", line, err)
		}
		q, err := p.Play(m, r)
		got := q.String()
		if err != nil {
			got = "illegal"
		}
		if got != want {
			t.Errorf("%s %s: got %s (err %v), want %s", p, m, got, err, want)
		}
	}
}

func TestMoveVectors(t *testing.T) {
	testMoveVectors(t, "testdata/moves.txt", rules.DefaultRules())
}

func TestCrossMoveVectors(t *testing.T) {
	testMoveVectors(t, "testdata/moves-cross.txt", rules.Rules{Variant: rules.Cross, MaxLaps: 1000})
}

func TestPerftVectors(t *testing.T) {
	for _, line := range readLines(t, "testdata/perft.txt") {
		f := strings.Fields(line)
		if len(f) != 6 {
			t.Fatalf("malformed vector %q", line)
		}
		p := rules.MustParsePosition(strings.Join(f[:4], " "))
		depth, _ := strconv.Atoi(f[4])
		want, _ := strconv.ParseUint(f[5], 10, 64)
		if testing.Short() && want > 100_000 {
			continue
		}
		if got := rules.Perft(p, depth, rules.DefaultRules()); got != want {
			t.Errorf("perft(%s, %d) = %d, want %d", p, depth, got, want)
		}
	}
}
