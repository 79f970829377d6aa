package arena

import (
	"fmt"
	"io"
	"strings"
)

// ProgressPrinter shows a match's progress (ProgressLine) as Run reports
// it: on a terminal one line, rewritten in place; elsewhere, in a log or a
// pipe, a line at every tenth of the games, so that the log stays short.
type ProgressPrinter struct {
	w       io.Writer
	tty     bool
	total   int
	decile  int // tenths of the games reported so far (not on a terminal)
	lastLen int // length of the line on the terminal
}

// NewProgressPrinter returns a printer on w, a terminal or not, of a match
// of total games.
func NewProgressPrinter(w io.Writer, tty bool, total int) *ProgressPrinter {
	return &ProgressPrinter{w: w, tty: tty, total: max(total, 1)}
}

// Update shows the match's state.
func (p *ProgressPrinter) Update(st Stats) {
	line := ProgressLine(st)
	if p.tty {
		pad := ""
		if n := p.lastLen - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.lastLen = len(line)
		return
	}
	if d := st.Played * 10 / p.total; d > p.decile {
		p.decile = d
		fmt.Fprintln(p.w, line)
	}
}

// Finish ends the terminal's progress line, once, so that what follows
// starts on a line of its own.
func (p *ProgressPrinter) Finish() {
	if p.tty && p.lastLen > 0 {
		fmt.Fprintln(p.w)
		p.lastLen = 0
	}
}
