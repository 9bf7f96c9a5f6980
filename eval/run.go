package eval

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// Options configure an Evaluator.
type Options struct {
	// Tree is the kernel tree the corpus applies to ("" skips every
	// measurement that needs it).
	Tree string
	// Index is Tree's opened index (opened once by the caller, shared by
	// every case).
	Index *index.Index
	// Rules are the rules to measure (nil: all.Rules(RuleOptions)).
	Rules []*rules.Rule
	// RuleOptions are passed to every rule.
	RuleOptions rules.Options
	// Jobs is the number of cases analysed at once (default GOMAXPROCS).
	Jobs int
	// Summaries stores whole-tree summaries before the first case, as
	// index.summaries does for the bot (pipeline.AnalysisOptions.Prepare).
	Summaries bool
	// IndexWarm bounds the functions of the index kept decoded between
	// cases, as index.warm does for the bot (pipeline.AnalysisOptions.
	// IndexWarm); 0 keeps everything.
	IndexWarm int
}

// Evaluator runs the analysis stage on corpus cases: one Analysis over
// the tree and its index, one without a tree. A patch that must be
// analysed on top of another (a fix on its bug, an ordinary patch on its
// own reversal) is patch 2 of a two-patch series: the pipeline compares
// each patch with the tree as the earlier patches left it.
type Evaluator struct {
	opts            Options
	tree, patchOnly *pipeline.Analysis
}

// NewEvaluator builds the analyses.
func NewEvaluator(opts Options) (*Evaluator, error) {
	if opts.Rules == nil {
		rs, err := all.Rules(opts.RuleOptions)
		if err != nil {
			return nil, err
		}
		opts.Rules = rs
	}
	if opts.Tree != "" && opts.Index == nil {
		return nil, fmt.Errorf("eval: a tree needs its opened index")
	}
	e := &Evaluator{opts: opts}
	var err error
	if opts.Tree != "" {
		e.tree, err = pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: opts.Rules, RuleOptions: opts.RuleOptions, Tree: opts.Tree, Index: opts.Index, Prepare: opts.Summaries, IndexWarm: opts.IndexWarm}, nil)
		if err != nil {
			return nil, err
		}
	}
	if e.patchOnly, err = pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: opts.Rules, RuleOptions: opts.RuleOptions}, nil); err != nil {
		return nil, err
	}
	return e, nil
}

// Run evaluates every case of c.
func (e *Evaluator) Run(ctx context.Context, c *Corpus) (*Results, error) {
	start := time.Now()
	res := &Results{Corpus: c,
		Bugs:       make([]*CaseResult, len(c.Bugs)),
		NearMisses: make([]*CaseResult, len(c.NearMisses)),
		Ordinary:   make([]*OrdinaryResult, len(c.Ordinary)),
		Variants:   make([]*VariantResult, len(c.Variants)),
	}
	var jobs []func()
	for i, cs := range c.Bugs {
		jobs = append(jobs, func() { res.Bugs[i] = e.bug(ctx, cs) })
	}
	for i, cs := range c.NearMisses {
		jobs = append(jobs, func() { res.NearMisses[i] = e.nearMiss(ctx, cs) })
	}
	for i, o := range c.Ordinary {
		jobs = append(jobs, func() { res.Ordinary[i] = e.ordinary(ctx, o) })
	}
	for i, v := range c.Variants {
		jobs = append(jobs, func() { res.Variants[i] = e.variant(ctx, v) })
	}
	n := e.opts.Jobs
	if n <= 0 {
		n = runtime.GOMAXPROCS(0)
	}
	ch := make(chan func())
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			for job := range ch {
				job()
			}
		})
	}
	for _, job := range jobs {
		if ctx.Err() != nil {
			break
		}
		ch <- job
	}
	close(ch)
	wg.Wait()
	res.Elapsed = time.Since(start)
	return res, ctx.Err()
}

// bug analyses bug.patch with the tree, then [bug.patch, fix.patch]; the
// risk findings on patch 2 are false alarms.
func (e *Evaluator) bug(ctx context.Context, cs *Case) *CaseResult {
	out := &CaseResult{Case: cs, Got: LevelNone}
	bug := patchText{cs.Bug.Subject, cs.Bug.Message, cs.Bug.Diff}
	o, err := analyse(ctx, e.tree, cs.Name, []patchText{bug})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Err = o.applyErr
	out.Family, out.Other = splitFamily(o.hits[0], cs.Family)
	out.Got = expected(out.Family, cs.Expect)
	o, err = analyse(ctx, e.tree, cs.Name, []patchText{bug, {cs.Fix.Subject, cs.Fix.Message, cs.Fix.Diff}})
	if err != nil {
		out.Err = joinErr(out.Err, "fix: "+err.Error())
		return out
	}
	out.Err = joinErr(out.Err, o.applyErr)
	out.FixRisk, _ = bySeverity(o.hits[1])
	return out
}

func joinErr(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// expected is the level the findings reach on the expected function.
func expected(hs []Hit, want Expect) Level {
	got := LevelNone
	for _, h := range hs {
		if !want.names(h.Func) || (want.File != "" && h.Func == want.Function && h.File != want.File) {
			continue
		}
		if want.Category != "" && !hasCategory(h, want.Category) {
			continue
		}
		switch {
		case h.Severity == report.SeverityRisk:
			got = LevelRisk
		case h.Severity == report.SeverityNote && got == LevelNone:
			got = LevelNote
		}
	}
	return got
}

// highest is the highest level of the findings.
func highest(hs []Hit) Level {
	got := LevelNone
	for _, h := range hs {
		if h.Severity == report.SeverityRisk {
			return LevelRisk
		}
		got = LevelNote
	}
	return got
}

// nearMiss analyses the near miss with the tree; one the tree already
// contains (InTree) is analysed on top of its own reversal.
func (e *Evaluator) nearMiss(ctx context.Context, cs *Case) *CaseResult {
	out := &CaseResult{Case: cs, Got: LevelNone}
	ps := []patchText{{cs.Bug.Subject, cs.Bug.Message, cs.Bug.Diff}}
	if cs.InTree {
		rev, err := Reverse(cs.Bug.Diff)
		if err != nil {
			out.Err = "reverse: " + err.Error()
			return out
		}
		ps = append([]patchText{{"Revert \"" + cs.Bug.Subject + "\"", "", rev}}, ps...)
	}
	o, err := analyse(ctx, e.tree, cs.Name, ps)
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Err = o.applyErr
	out.Family, out.Other = splitFamily(o.hits[len(ps)-1], cs.Family)
	out.Got = highest(out.Family)
	return out
}

// variant analyses bug.patch with the tree (the expected function must be
// named) and ok.patch, when there is one (no risk of the family expected).
func (e *Evaluator) variant(ctx context.Context, v *Variant) *VariantResult {
	out := &VariantResult{Variant: v, Got: LevelNone, OK: LevelNone}
	o, err := analyse(ctx, e.tree, v.Name, []patchText{{v.Bug.Subject, v.Bug.Message, v.Bug.Diff}})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Err = o.applyErr
	out.Family, _ = splitFamily(o.hits[0], v.Family)
	out.Got = expected(out.Family, v.Expect)
	if v.OKPatch == nil {
		return out
	}
	o, err = analyse(ctx, e.tree, v.Name+"/ok", []patchText{{v.OKPatch.Subject, v.OKPatch.Message, v.OKPatch.Diff}})
	if err != nil {
		out.Err = joinErr(out.Err, "ok: "+err.Error())
		return out
	}
	out.Err = joinErr(out.Err, o.applyErr)
	out.OKFamily, _ = splitFamily(o.hits[0], v.Family)
	out.OK = highest(out.OKFamily)
	return out
}

// ordinary analyses [reverse(patch), patch] with the tree (patch 1
// rebuilds the pre-image, the findings on patch 2 count) and the patch
// alone without the tree.
func (e *Evaluator) ordinary(ctx context.Context, o *Ordinary) *OrdinaryResult {
	out := &OrdinaryResult{Ordinary: o}
	rev, err := Reverse(o.Patch.Diff)
	if err != nil {
		out.Err = "reverse: " + err.Error()
		return out
	}
	ps := []patchText{{"Revert \"" + o.Patch.Subject + "\"", "", rev}, {o.Patch.Subject, o.Patch.Message, o.Patch.Diff}}
	var errs []string
	if e.tree != nil {
		oc, err := analyse(ctx, e.tree, o.Name, ps)
		if err == nil {
			if oc.applyErr != "" {
				errs = append(errs, oc.applyErr)
			}
			out.TreeRisk, out.TreeNote = bySeverity(oc.hits[1])
		} else {
			errs = append(errs, "with tree: "+err.Error())
		}
	}
	oc, err := analyse(ctx, e.patchOnly, o.Name, ps[1:])
	if err != nil {
		errs = append(errs, "patch-only: "+err.Error())
	} else {
		out.PatchOnlyRisk, out.PatchOnlyNote = bySeverity(oc.hits[0])
	}
	out.Err = strings.Join(errs, "; ")
	return out
}

// patchText is one patch of a synthetic series.
type patchText struct{ subject, message, diff string }

// outcome is what a stage reported on a series: the findings of each
// patch (hits[i] for patch i+1) and the notes saying a patch did not apply.
type outcome struct {
	hits     [][]Hit
	applyErr string
}

// analyse runs an on a series built in memory from ps.
func analyse(ctx context.Context, an *pipeline.Analysis, id string, ps []patchText) (*outcome, error) {
	if an == nil {
		return nil, fmt.Errorf("no analysis configured")
	}
	s := &series.Series{ID: id + "@eval", Title: ps[0].subject, Version: 1, Total: len(ps)}
	for i, p := range ps {
		subj := "[PATCH] " + p.subject
		if len(ps) > 1 {
			subj = fmt.Sprintf("[PATCH %d/%d] %s", i+1, len(ps), p.subject)
		}
		s.Patches = append(s.Patches, &series.Patch{Number: i + 1, Msg: &mail.Message{
			MessageID: fmt.Sprintf("%d.%s@eval", i+1, id),
			Subject:   mail.ParseSubject(subj),
			From:      mail.Address{Name: "eval", Addr: "eval@autosel-bot.invalid"},
			Body:      p.message + p.diff,
			CommitMsg: p.message,
			Diff:      p.diff,
			DiffLine:  strings.Count(p.message, "\n") + 1,
		}})
	}
	out := &outcome{hits: make([][]Hit, len(ps))}
	r := pipeline.NewReport(s)
	if err := an.Run(ctx, s, r); err != nil {
		return nil, err
	}
	for i, pr := range r.Patches {
		if pr.Error != "" {
			return nil, fmt.Errorf("patch %d: %s", pr.Number, pr.Error)
		}
		for _, f := range pr.Findings {
			out.hits[i] = append(out.hits[i], hit(f))
		}
	}
	out.applyErr = applyErrors(r)
	return out, nil
}

// applyErrors returns the notes saying a patch did not apply to the tree.
func applyErrors(r *report.Report) string {
	var out []string
	for _, pr := range r.Patches {
		for _, n := range pr.Notes {
			if strings.HasPrefix(n, "tree:") || strings.Contains(n, "does not apply") {
				out = append(out, fmt.Sprintf("patch %d: %s", pr.Number, firstLine(n)))
			}
		}
	}
	return strings.Join(out, "; ")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// splitFamily splits hits into fam's and the others'.
func splitFamily(hs []Hit, fam *Family) (in, other []Hit) {
	for _, h := range hs {
		if h.Family == fam.Rule {
			in = append(in, h)
		} else {
			other = append(other, h)
		}
	}
	return in, other
}

// bySeverity splits hits into risk and other findings.
func bySeverity(hs []Hit) (risk, note []Hit) {
	for _, h := range hs {
		if h.Severity == report.SeverityRisk {
			risk = append(risk, h)
		} else {
			note = append(note, h)
		}
	}
	return risk, note
}

func hit(f report.Finding) Hit {
	h := Hit{Family: f.Rule, Severity: f.Severity, Func: f.Func, File: f.File, Line: f.Line, Message: f.Message, Category: f.Category}
	for _, s := range f.Chain {
		h.Chain = append(h.Chain, fmt.Sprintf("%s:%d %s(): %s", s.File, s.Line, s.Func, s.What))
	}
	return h
}

// hasCategory reports whether h is of the sub-check cat.
func hasCategory(h Hit, cat string) bool {
	return h.Category == cat || h.Family == cat
}
