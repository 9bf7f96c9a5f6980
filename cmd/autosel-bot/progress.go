package main

import (
	"context"
	"io"
	"log/slog"
	"os"
	"sync"
	"time"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/stageprogress"
)

// progressBars draws progress bars with an ETA on a terminal (stderr) for
// long work the user waits for: indexing a kernel tree, then the rules'
// struct typing and summaries of it (stageprogress). The stages run one
// after the other; each gets its bar, removed when it completes.
type progressBars struct {
	w   io.Writer
	mu  sync.Mutex
	cur *stageBar
	// last is the stage whose bar completed last: a repeated final call
	// for it draws nothing.
	last string
}

// stageBar is the bar of one stage, in a container of its own.
type stageBar struct {
	name string
	p    *mpb.Progress
	bar  *mpb.Bar
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
func (pb *progressBars) indexing(done, total int) { pb.stage("indexing", done, total) }

// stage is a stageprogress.Func: the first call of a stage ends the bar
// of the stage before it and draws its own ("struct typing 1234/55000
// files  2% ETA 0:57"); its last (done == total) finishes drawing it
// before anything else is printed.
func (pb *progressBars) stage(name string, done, total int) {
	pb.mu.Lock()
	defer pb.mu.Unlock()
	if pb.cur == nil || pb.cur.name != name {
		if pb.cur == nil && done >= total && name == pb.last {
			return
		}
		pb.end()
		p := mpb.New(mpb.WithOutput(pb.w), mpb.WithWidth(40), mpb.WithRefreshRate(150*time.Millisecond), mpb.WithAutoRefresh())
		bar := p.AddBar(int64(total),
			mpb.PrependDecorators(decor.Name(name+" ", decor.WCSyncSpaceR), decor.CountersNoUnit("%d/%d files", decor.WCSyncWidth)),
			mpb.AppendDecorators(decor.Percentage(decor.WC{W: 5}), decor.Name(" ETA "), decor.AverageETA(decor.ET_STYLE_MMSS)),
			mpb.BarRemoveOnComplete(),
		)
		pb.cur = &stageBar{name: name, p: p, bar: bar}
	}
	pb.cur.bar.SetCurrent(int64(done))
	if done >= total {
		pb.cur.bar.SetTotal(int64(total), true)
		pb.cur.p.Wait()
		pb.last, pb.cur = name, nil
	}
}

// end stops the bar being drawn, complete or not.
func (pb *progressBars) end() {
	if pb.cur == nil {
		return
	}
	if !pb.cur.bar.Completed() {
		pb.cur.bar.Abort(true)
	}
	pb.cur.p.Wait()
	pb.cur = nil
}

// wait ends the bars (the work is done or the command failed).
func (pb *progressBars) wait() {
	if pb == nil {
		return
	}
	pb.mu.Lock()
	defer pb.mu.Unlock()
	pb.end()
}

// stages returns ctx carrying the bars' stage callback for the rules'
// whole-tree stages; without bars, ctx.
func (pb *progressBars) stages(ctx context.Context) context.Context {
	if pb == nil {
		return ctx
	}
	return stageprogress.WithFunc(ctx, pb.stage)
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
