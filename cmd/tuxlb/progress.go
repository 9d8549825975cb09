package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"
)

// progressDelay is how long a run goes before its progress bar shows: a
// run that ends sooner prints nothing.
const progressDelay = 700 * time.Millisecond

// progressBar draws a run's progress on standard error when that is a
// terminal: `[=====>      ]  45%  1234567 of 2700000 requests`.
type progressBar struct {
	w     io.Writer
	on    bool
	start time.Time
	last  time.Time
	drawn bool
}

// newProgressBar returns a bar that draws on w when want is set and w is a
// terminal.
func newProgressBar(w io.Writer, want bool) *progressBar {
	return &progressBar{w: w, on: want && isTerminal(w), start: time.Now()}
}

// isTerminal says whether w is a terminal. It asks the terminal driver
// (golang.org/x/term): a character device such as /dev/null is not one.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// update is core.RunOptions.Progress.
func (p *progressBar) update(done, total int64) {
	if !p.on {
		return
	}
	now := time.Now()
	if now.Sub(p.start) < progressDelay || now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last, p.drawn = now, true
	fmt.Fprintf(p.w, "\r%s\x1b[K", progressLine(done, total, 30))
}

// progressLine is the text of the bar, width characters between brackets.
func progressLine(done, total int64, width int) string {
	if total <= 0 {
		return fmt.Sprintf("%d requests", done)
	}
	frac := min(float64(done)/float64(total), 1)
	n := int(frac * float64(width))
	bar := strings.Repeat("=", n)
	if n < width {
		bar += ">" + strings.Repeat(" ", width-n-1)
	}
	return fmt.Sprintf("[%s] %3d%%  %d of %d requests", bar, int(frac*100), done, total)
}

// done clears the bar.
func (p *progressBar) done() {
	if p.drawn {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
