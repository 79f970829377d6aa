package terminal

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// IsTerminal reports whether w is a terminal (a character device).
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// ProgressBar draws a one-line progress bar with an estimate of the time
// left on w, redrawing it in place on a terminal; on a file or a pipe it
// writes a line every ProgressEvery instead, so that a log stays short.
// It is safe for concurrent use.
type ProgressBar struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	drawn   bool
	printed time.Duration // elapsed time of the last line, off a terminal
}

// ProgressEvery is how often the progress is written off a terminal.
const ProgressEvery = 15 * time.Second

// NewProgressBar returns a progress bar on w; nil w draws nothing.
func NewProgressBar(w io.Writer) *ProgressBar {
	return &ProgressBar{w: w, tty: IsTerminal(w)}
}

// Draw shows done of total with a label, elapsed time after the start.
func (b *ProgressBar) Draw(label string, done, total uint64, elapsed time.Duration) {
	if b.w == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	frac := 0.0
	if total > 0 {
		frac = min(1, float64(done)/float64(total))
	}
	const width = 30
	fill := int(frac * width)
	eta := "--"
	if done > 0 && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * (1 - frac) / max(frac, 1e-9))
		eta = left.Round(time.Second).String()
	}
	if !b.tty {
		if b.drawn && elapsed-b.printed < ProgressEvery {
			return
		}
		b.printed = elapsed
		fmt.Fprintf(b.w, "%5.1f%%  %s  elapsed %v  left %s\n", 100*frac, label, elapsed.Round(time.Second), eta)
		b.drawn = true
		return
	}
	fmt.Fprintf(b.w, "\r[%s%s] %5.1f%%  %s  elapsed %v  left %s   ", strings.Repeat("#", fill), strings.Repeat(".", width-fill),
		100*frac, label, elapsed.Round(time.Second), eta)
	b.drawn = true
}

// End ends the bar's line, so that what follows starts on a line of its
// own.
func (b *ProgressBar) End() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.w != nil && b.drawn && b.tty {
		fmt.Fprintln(b.w)
	}
	b.drawn = false
}
