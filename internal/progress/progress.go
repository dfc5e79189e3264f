// Package progress shows a long run's progress to a person: a bar on a terminal,
// a plain line every few seconds in a log.
//
//	bar := progress.New(os.Stderr, games, "games", 10*time.Second)
//	bar.Update(done, "")
//	bar.Finish()
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// Bar shows a long run's progress: a progress bar when the output is a
// terminal, otherwise a plain line every few seconds (for logs and CI). It
// is safe for concurrent use.
type Bar struct {
	mu        sync.Mutex // guards everything below
	bar       *progressbar.ProgressBar
	w         io.Writer
	every     time.Duration
	lastLine  time.Time
	done      int
	total     int
	desc      string
	finished  bool
	startTime time.Time
}

// New returns a progress display of total steps on w. A bar is drawn
// when w is a terminal; otherwise a plain line is printed at most every
// interval.
func New(w io.Writer, total int, unit string, interval time.Duration) *Bar {
	p := &Bar{w: w, every: interval, total: total, startTime: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionShowCount(),
			progressbar.OptionSetItsString(unit),
			progressbar.OptionShowIts(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionShowDescriptionAtLineEnd(),
			progressbar.OptionSetRenderBlankState(true),
		)
	}
	return p
}

// Update sets the steps done and the description (the run's current
// figures).
func (p *Bar) Update(done int, desc string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done, p.desc = done, desc
	if p.bar != nil {
		p.bar.Describe(desc)
		_ = p.bar.Set(done) // only fails on a closed writer
		return
	}
	if now := time.Now(); now.Sub(p.lastLine) >= p.every {
		p.lastLine = now
		p.line()
	}
}

// Finish ends the display with a final line.
func (p *Bar) Finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	p.finished = true
	if p.bar != nil {
		_ = p.bar.Exit()
		fmt.Fprintln(p.w)
	}
	p.line()
}

func (p *Bar) line() {
	fmt.Fprintf(p.w, "%s %d/%d %s\n", time.Since(p.startTime).Round(time.Second), p.done, p.total, p.desc)
}
