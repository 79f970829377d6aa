package arena

import (
	"strings"
	"testing"
	"time"
)

func TestProgressPrinter(t *testing.T) {
	// Off a terminal: a line at each tenth of the games, none between.
	var b strings.Builder
	p := NewProgressPrinter(&b, false, 20)
	for played := 1; played <= 20; played++ {
		p.Update(Stats{Played: played, Total: 20, Wins: played, Elapsed: time.Second})
	}
	p.Finish()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 10 || !strings.HasPrefix(lines[0], "games 2/20  W-D-L 2-0-0  Elo ") || !strings.HasPrefix(lines[9], "games 20/20 ") ||
		!strings.HasSuffix(lines[9], "left 0s") {
		t.Errorf("%d lines:\n%s", len(lines), b.String())
	}

	// On a terminal: the line is rewritten, padded over a longer one, and
	// ended once.
	b.Reset()
	p = NewProgressPrinter(&b, true, 10)
	long := Stats{Played: 5, Total: 10, Wins: 3, Draws: 1, Losses: 1, Elapsed: 90 * time.Second}
	short := Stats{Played: 6, Total: 10, Wins: 3, Draws: 2, Losses: 1, Elapsed: time.Second}
	p.Update(long)
	p.Update(short)
	p.Finish()
	p.Finish()
	a, c := ProgressLine(long), ProgressLine(short)
	want := "\r" + a + "\r" + c + strings.Repeat(" ", max(0, len(a)-len(c))) + "\n"
	if b.String() != want {
		t.Errorf("terminal output %q, want %q", b.String(), want)
	}
	if !strings.Contains(a, "elapsed 1m30s") || !strings.Contains(a, "left 1m30s") {
		t.Errorf("line %q", a)
	}

	// Nothing drawn, nothing ended.
	b.Reset()
	NewProgressPrinter(&b, true, 10).Finish()
	if b.Len() != 0 {
		t.Errorf("a printer that drew nothing wrote %q", b.String())
	}
}
