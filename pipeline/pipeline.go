// Package pipeline is the one analysis pipeline shared by the check, replay
// and watch commands: a series goes in, a report comes out, built by a list
// of stages (analysis, stable trees, VM suite, ...) that each fill their
// part of the report.
package pipeline

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/series"
)

// Stage is one step of the pipeline. Run fills its part of r (the header
// and one PatchReport per patch, aligned with Patches(s), are already
// there). An error is recorded in the report and the next stages still run;
// only context cancellation stops the pipeline.
type Stage interface {
	// Name names the stage in logs and in recorded errors.
	Name() string
	// Run processes one series.
	Run(ctx context.Context, s *series.Series, r *report.Report) error
}

// Func adapts a function to a Stage, so wiring a stage is one line:
//
//	p.Stages = append(p.Stages, pipeline.Func("stable", st.Run))
func Func(name string, run func(ctx context.Context, s *series.Series, r *report.Report) error) Stage {
	return funcStage{name, run}
}

type funcStage struct {
	name string
	run  func(context.Context, *series.Series, *report.Report) error
}

func (f funcStage) Name() string { return f.name }
func (f funcStage) Run(ctx context.Context, s *series.Series, r *report.Report) error {
	return f.run(ctx, s, r)
}

// Pipeline runs its stages in order over each series.
type Pipeline struct {
	// Stages run in order.
	Stages []Stage
	// Log receives per-stage errors; nil discards them.
	Log *slog.Logger
}

// Run builds the report of one series: the header from the series, then
// every stage in order. A failing (or panicking) stage is recorded in
// r.Errors as source "stage <name>" and does not stop the others. Every
// finding has its stable id when Run returns (report.AssignIDs). Run
// returns an error only when ctx is done.
func (p *Pipeline) Run(ctx context.Context, s *series.Series) (*report.Report, error) {
	r := NewReport(s)
	log := p.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, st := range p.Stages {
		if err := ctx.Err(); err != nil {
			return r, err
		}
		if err := runStage(ctx, st, s, r); err != nil {
			if ctx.Err() != nil {
				return r, ctx.Err()
			}
			log.Warn("stage failed", "stage", st.Name(), "series", s.ID, "err", err)
			r.Errors = append(r.Errors, report.InputError{Source: "stage " + st.Name(), Err: err.Error()})
		}
	}
	report.AssignIDs(r)
	return r, nil
}

// RunAll runs p over every series of ss, up to workers of them at once (0
// or 1: one after the other), and returns their reports in the order of
// ss. Each series is run as by Run; the stages must be safe for
// concurrent use when workers is above 1. It returns ctx's error when
// ctx is done before every series ran (the reports then hold what ran).
func (p *Pipeline) RunAll(ctx context.Context, ss []*series.Series, workers int) ([]*report.Report, error) {
	reports := make([]*report.Report, len(ss))
	workers = min(max(workers, 1), len(ss))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				// Run returns an error only when ctx is done, which
				// the loop below sees too.
				reports[i], _ = p.Run(ctx, ss[i])
			}
		}()
	}
	for i := range ss {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	return reports, ctx.Err()
}

func runStage(ctx context.Context, st Stage, s *series.Series, r *report.Report) (err error) {
	defer func() {
		if e := recover(); e != nil {
			err = fmt.Errorf("panic: %v\n%s", e, debug.Stack())
		}
	}()
	return st.Run(ctx, s, r)
}

// Patches returns the patches of s in report order: the submitted patches,
// then the patches proposed inline in review. Report.Patches[i] belongs to
// Patches(s)[i].
func Patches(s *series.Series) []*series.Patch {
	out := make([]*series.Patch, 0, len(s.Patches)+len(s.Review))
	out = append(out, s.Patches...)
	return append(out, s.Review...)
}

// NewReport returns the report skeleton of s: header fields and one
// PatchReport per patch (see Patches), with empty Files/Funcs/Findings.
func NewReport(s *series.Series) *report.Report {
	r := &report.Report{
		SeriesID:   s.ID,
		Title:      s.Title,
		Author:     formatAddr(s.Author.Name, s.Author.Addr),
		Version:    s.Version,
		Total:      s.Total,
		Date:       s.Date,
		Incomplete: s.Incomplete,
	}
	switch {
	case s.Cover != nil:
		r.Subject = s.Cover.Subject.Raw
	case len(s.Patches) > 0 && s.Patches[0].Msg != nil:
		r.Subject = s.Patches[0].Msg.Subject.Raw
	}
	for _, p := range Patches(s) {
		pr := report.PatchReport{Number: p.Number, InReview: p.InReview, Files: []string{}, Funcs: []string{}, Findings: []report.Finding{}}
		if p.Msg != nil {
			pr.Subject = p.Msg.Subject.Raw
			pr.MessageID = p.Msg.MessageID
			pr.File = p.Msg.File
			pr.PatchID = diffcheck.PatchID(p.Msg.Diff)
		}
		r.Patches = append(r.Patches, pr)
	}
	return r
}

func formatAddr(name, addr string) string {
	switch {
	case name == "":
		return addr
	case addr == "":
		return name
	}
	return name + " <" + addr + ">"
}
