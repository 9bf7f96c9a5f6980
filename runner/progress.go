package runner

import (
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
)

// progress follows a build's make output.
type progress interface {
	// Step is called for every kbuild step line ("  CC      fs/pipe.o").
	Step(line string)
	// Done ends the display.
	Done(ok bool)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// newProgress returns a progress bar on w when it is a terminal, and
// periodic log lines otherwise. estimate is the expected number of steps
// (0 when unknown).
func newProgress(w io.Writer, label string, estimate int64, log *slog.Logger) progress {
	if w != nil && isTerminal(w) {
		return newBarProgress(w, label, estimate)
	}
	return &logProgress{log: log, label: label, start: time.Now(), last: time.Now()}
}

type barProgress struct {
	p     *mpb.Progress
	bar   *mpb.Bar
	steps int64
	total int64
	cur   string
}

func newBarProgress(w io.Writer, label string, estimate int64, opts ...mpb.ContainerOption) *barProgress {
	if estimate <= 0 {
		estimate = 100
	}
	b := &barProgress{total: estimate}
	b.p = mpb.New(append([]mpb.ContainerOption{mpb.WithOutput(w), mpb.WithWidth(40), mpb.WithRefreshRate(200 * time.Millisecond)}, opts...)...)
	b.bar = b.p.AddBar(estimate,
		mpb.PrependDecorators(decor.Name(label+" ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d", decor.WCSyncWidth)),
		mpb.AppendDecorators(decor.Elapsed(decor.ET_STYLE_GO), decor.Name(" "), decor.Any(func(decor.Statistics) string { return b.cur })),
	)
	return b
}

func (b *barProgress) Step(line string) {
	b.steps++
	f := strings.Fields(line)
	if len(f) >= 2 {
		b.cur = f[len(f)-1]
	}
	if b.steps >= b.total {
		b.total = b.steps + b.steps/10 + 1
		b.bar.SetTotal(b.total, false)
	}
	b.bar.Increment()
}

func (b *barProgress) Done(ok bool) {
	if ok {
		b.bar.SetTotal(b.steps, true)
	} else {
		b.bar.Abort(false)
	}
	b.p.Wait()
}

type logProgress struct {
	log   *slog.Logger
	label string
	steps int
	start time.Time
	last  time.Time
}

func (l *logProgress) Step(line string) {
	l.steps++
	if time.Since(l.last) >= 30*time.Second {
		l.last = time.Now()
		l.log.Info("build progress", "what", l.label, "steps", l.steps,
			"elapsed", time.Since(l.start).Round(time.Second).String(), "last", strings.TrimSpace(line))
	}
}

func (l *logProgress) Done(ok bool) {
	l.log.Info("build finished", "what", l.label, "ok", ok, "steps", l.steps,
		"elapsed", time.Since(l.start).Round(100*time.Millisecond).String())
}

// isStepLine reports whether a make output line is a kbuild step.
func isStepLine(l string) bool {
	if len(l) < 4 || l[0] != ' ' || l[1] != ' ' {
		return false
	}
	f := strings.Fields(l)
	if len(f) < 2 {
		return false
	}
	for _, r := range f[0] {
		if (r < 'A' || r > 'Z') && (r < '0' || r > '9') && r != '_' && r != '-' {
			return false
		}
	}
	return true
}
