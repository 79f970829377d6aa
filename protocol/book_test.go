package protocol

import (
	"context"
	"strings"
	"testing"
)

// Out of the box, with no databases, the engine knows that the
// traditional 2×6×4 start is a South win by 8, from the opening book.
func TestSixHoleStartIsExact(t *testing.T) {
	input := strings.NewReader("endodoi\nposition startpos 6 4\ngo movetime 2000\n")
	lines, err := runServe(t, context.Background(), input)
	if err != nil {
		t.Fatal(err)
	}
	var info string
	for _, l := range lines {
		if strings.HasPrefix(l, "info ") {
			info = l
		}
	}
	if !strings.Contains(info, " score +8 exact ") {
		t.Fatalf("last info %q, want score +8 exact; all: %q", info, lines)
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "bestmove ") {
		t.Fatalf("last line %q", last)
	}
}
