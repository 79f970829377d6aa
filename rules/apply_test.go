package rules_test

import (
	"context"
	"strings"
	"testing"

	"github.com/endodoi/endodoi/rules"
)

// applyAll runs ApplyLines on input and returns its output lines.
func applyAll(t *testing.T, input string, r rules.Rules) []string {
	t.Helper()
	var out strings.Builder
	if err := rules.ApplyLines(context.Background(), strings.NewReader(input), &out, r); err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
}

func TestApplyLinesVectors(t *testing.T) {
	for _, tc := range []struct {
		file string
		r    rules.Rules
	}{
		{"testdata/moves.txt", rules.DefaultRules()},
		{"testdata/moves-cross.txt", rules.Rules{Variant: rules.Cross, MaxLaps: 1000}},
	} {
		var inputs, wants []string
		for _, line := range readLines(t, tc.file) {
			in, want, _ := strings.Cut(line, " => ")
			inputs, wants = append(inputs, in), append(wants, want)
		}
		got := applyAll(t, strings.Join(inputs, "\n")+"\n", tc.r)
		if len(got) != len(wants) {
			t.Fatalf("%s: %d output lines for %d input lines", tc.file, len(got), len(wants))
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

func TestApplyLinesBadInput(t *testing.T) {
	tests := []struct {
		line string
		want string // prefix of the answer
	}{
		{"", "illegal: empty line"},
		{"   ", "illegal: empty line"},
		{"c", "illegal: malformed line"},
		{"4,4/4,4 s 0 0", "illegal: malformed position"},
		{"4,4/4,4 s 0 0 cc", "illegal: malformed move"},
		{"4,4/4,4 x 0 0 a", "illegal: malformed position"},
		{"4,4/4 s 0 0 a", "illegal: malformed position"},
		{"04,4/4,4 s 0 0 a", "illegal: malformed position"},
		{"4,4/4,4 s 0 0 A", "illegal: wrong side: hole A is North's, but South is to move"},
		{"4,4/4,4 s 0 0 c", "illegal: no such hole: c"},
		{"0,4/4,4 s 0 0 a", "illegal: empty hole: a"},
		{"2,0/2,1 s 0 0 a", "illegal: endless sowing"},
		{"4,4/4,4 s 0 0 a\r", "0,5/5,0 n 6 0"},
		{"  4,4/4,4 s 0 0 a  ", "0,5/5,0 n 6 0"},
		{"4,4/4,4 s 0 0 a", "0,5/5,0 n 6 0"},
		{"4,4/4,4 s 0 0 \x00", "illegal: malformed move"},
	}
	var in strings.Builder
	for _, tc := range tests {
		in.WriteString(tc.line + "\n")
	}
	in.WriteString(strings.Repeat("9", 100_000) + "\n")
	in.WriteString("4,4/4,4 s 0 0 b") // no final newline
	got := applyAll(t, in.String(), rules.DefaultRules())
	if len(got) != len(tests)+2 {
		t.Fatalf("%d output lines for %d input lines:\n%s", len(got), len(tests)+2, strings.Join(got, "\n"))
	}
	for i, tc := range tests {
		if !strings.HasPrefix(got[i], tc.want) {
			t.Errorf("%q: got %q, want prefix %q", tc.line, got[i], tc.want)
		}
	}
	if got[len(tests)] != "illegal: line longer than 64 KiB" {
		t.Errorf("long line: got %q", got[len(tests)])
	}
	if got[len(tests)+1] != "5,0/0,5 n 6 0" {
		t.Errorf("last line without newline: got %q", got[len(tests)+1])
	}
}

func TestApplyLinesCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out strings.Builder
	if err := rules.ApplyLines(ctx, strings.NewReader("4,4/4,4 s 0 0 a\n"), &out, rules.DefaultRules()); err != context.Canceled || out.Len() != 0 {
		t.Errorf("cancelled: %v, output %q", err, out.String())
	}
}

func FuzzApplyLine(f *testing.F) {
	for _, s := range []string{"4,4/4,4 s 0 0 a", "2,0/2,1 s 0 0 a", "", "x", "4,4/4,4 n 0 0 B", "65535,0/0,0 s 0 0 a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		out := string(rules.ApplyLine(nil, []byte(line), rules.DefaultRules()))
		if strings.ContainsAny(out, "\n") {
			t.Fatalf("answer spans lines: %q", out)
		}
		if strings.HasPrefix(out, "illegal: ") {
			return
		}
		if _, err := rules.ParsePosition(out); err != nil {
			t.Fatalf("answer %q is neither illegal nor a position: %v", out, err)
		}
	})
}
