package main

import (
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/autosel-bot/autosel-bot/index"
)

// progressBars draws progress bars with an ETA on a terminal (stderr) for
// long work the user waits for: indexing a kernel tree.
type progressBars struct {
	w     io.Writer
	once  sync.Once
	done  sync.Once
	p     *mpb.Progress
	bar   *mpb.Bar
	total int
}

// wantProgress decides whether to draw bars: setting is auto, always or
// never; auto draws them only when stderr is a terminal and the output is
// the text report (no bars on pipes, in CI logs or around machine
// formats).
func wantProgress(setting, format string, stderr io.Writer) bool {
	switch setting {
	case "always":
		return true
	case "never":
		return false
	}
	return format == "text" && isTerminal(stderr)
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func newProgressBars(w io.Writer) *progressBars { return &progressBars{w: w} }

// indexing is an index.Options.Progress callback: the first call draws
// the bar ("indexing 1234/55000 files  2% ETA 0:57").
func (pb *progressBars) indexing(done, total int) {
	pb.once.Do(func() {
		pb.total = total
		pb.p = mpb.New(mpb.WithOutput(pb.w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
		pb.bar = pb.p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name("indexing ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d files", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_MMSS)),
			mpb.BarRemoveOnComplete(),
		)
	})
	pb.bar.SetCurrent(int64(done))
	if done >= total {
		// Finish drawing before the report is printed.
		pb.done.Do(pb.p.Wait)
	}
}

// wait ends the bars (the index is ready or the command failed).
func (pb *progressBars) wait() {
	if pb == nil || pb.p == nil {
		return
	}
	if !pb.bar.Completed() {
		pb.bar.Abort(true)
	}
	pb.done.Do(pb.p.Wait)
}

// indexOptions are the options of the tree index: the configured cache
// directory and page cache and, when bars are drawn, the indexing progress.
func (a *app) indexOptions(log *slog.Logger) index.Options {
	o := index.Options{Logger: log, CacheDir: a.cfg.Index.CacheDir, PageCache: a.cfg.Index.PageCache()}
	if a.progress != nil {
		o.Progress = a.progress.indexing
	}
	return o
}
