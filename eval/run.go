package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/series"
)

// Level is what the analysis reported for a case's expected function.
type Level string

const (
	// LevelRisk: a risk finding of the family names the expected function.
	LevelRisk Level = "risk"
	// LevelNote: only a note-level finding of the family names it.
	LevelNote Level = "note"
	// LevelNone: no finding of the family names it.
	LevelNone Level = "none"
)

// Hit is one finding, reduced to what the report prints.
type Hit struct {
	Rule     string
	Severity report.Severity
	Func     string
	File     string
	Message  string
	// Category is the finding's sub-check, when the report model has one.
	Category string
}

func (h Hit) String() string { return fmt.Sprintf("%s %s %s", h.Severity, h.Rule, h.Func) }

// CaseResult is the outcome of one bug case or near miss.
type CaseResult struct {
	Case *Case
	// Got is the level reached on the expected function (bug cases).
	Got Level
	// Family holds the family's findings on bug.patch (or the near miss).
	Family []Hit
	// Other holds findings of other families on bug.patch.
	Other []Hit
	// FixRisk holds the risk findings on fix.patch (bug cases).
	FixRisk []Hit
	// Err says why the case could not be evaluated, or notes a patch that
	// did not apply to the tree.
	Err string
}

// OrdinaryResult is the outcome of one ordinary patch.
type OrdinaryResult struct {
	Ordinary *Ordinary
	// TreeRisk and PatchOnlyRisk are the risk findings on the patch, with
	// the tree and without it.
	TreeRisk, PatchOnlyRisk []Hit
	// TreeNote and PatchOnlyNote are the note-level findings (information).
	TreeNote, PatchOnlyNote []Hit
	Err                     string
}

// Results are the evaluation of a corpus.
type Results struct {
	Corpus     *Corpus
	Bugs       []*CaseResult
	NearMisses []*CaseResult
	Ordinary   []*OrdinaryResult
	// Elapsed is the wall time of Run.
	Elapsed time.Duration
}

// Options configure an Evaluator.
type Options struct {
	// Tree is the kernel tree the corpus applies to ("" skips every
	// measurement that needs it).
	Tree string
	// Index is Tree's opened index (opened once by the caller, shared by
	// every case).
	Index *index.Index
	// Rules are the rules to measure (nil: rules.All(RuleOptions)).
	Rules []*rules.Rule
	// RuleOptions are passed to every rule.
	RuleOptions rules.Options
	// Jobs is the number of cases analysed at once (default GOMAXPROCS).
	Jobs int
}

// Evaluator runs the analysis stage on corpus cases. It holds one Analysis
// over the tree and its index and one without a tree, and makes a cheap
// per-case Analysis where a patch must be analysed on top of another (see
// onPreImage).
type Evaluator struct {
	opts            Options
	tree, patchOnly *pipeline.Analysis
}

// NewEvaluator builds the analyses.
func NewEvaluator(opts Options) (*Evaluator, error) {
	if opts.Rules == nil {
		rs, err := rules.All(opts.RuleOptions)
		if err != nil {
			return nil, err
		}
		opts.Rules = rs
	}
	e := &Evaluator{opts: opts}
	var err error
	if opts.Tree != "" {
		if opts.Index == nil {
			return nil, fmt.Errorf("eval: a tree needs its opened index")
		}
		if e.tree, err = pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: opts.Rules, RuleOptions: opts.RuleOptions, Tree: opts.Tree, Index: opts.Index}); err != nil {
			return nil, err
		}
	}
	if e.patchOnly, err = pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: opts.Rules, RuleOptions: opts.RuleOptions}); err != nil {
		return nil, err
	}
	return e, nil
}

// onPreImage returns an Analysis whose tree index is the tree with diff
// applied (in memory), for a series [diff, patch] whose patch 2 must be
// compared with the tree+diff view. (In a series the analysis compares
// every patch with the unpatched tree's index, so patch 2 analysed on the
// plain tree would see its own post-image, already in the tree, as its
// pre-patch state.)
func (e *Evaluator) onPreImage(diff string) (*pipeline.Analysis, error) {
	if e.tree == nil {
		return nil, fmt.Errorf("no tree")
	}
	cs, err := diffcheck.Parse(diff)
	if err != nil {
		return nil, err
	}
	if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(e.opts.Tree)); err != nil {
		return nil, err
	}
	if cs.ApplyError != "" {
		return nil, fmt.Errorf("%s", firstLine(cs.ApplyError))
	}
	pt, ok := cs.Tree.(*diffcheck.PatchedTree)
	if !ok {
		return nil, fmt.Errorf("no patched tree")
	}
	return pipeline.NewAnalysis(pipeline.AnalysisOptions{Rules: e.opts.Rules, RuleOptions: e.opts.RuleOptions,
		Tree: e.opts.Tree, Index: e.opts.Index.Overlay(pt.Files())})
}

// Run evaluates every case of c.
func (e *Evaluator) Run(ctx context.Context, c *Corpus) (*Results, error) {
	start := time.Now()
	res := &Results{Corpus: c,
		Bugs:       make([]*CaseResult, len(c.Bugs)),
		NearMisses: make([]*CaseResult, len(c.NearMisses)),
		Ordinary:   make([]*OrdinaryResult, len(c.Ordinary)),
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

// bug analyses bug.patch with the tree, then [bug.patch, fix.patch] on
// the tree+bug.patch index; the risk findings on patch 2 are false alarms.
func (e *Evaluator) bug(ctx context.Context, cs *Case) *CaseResult {
	out := &CaseResult{Case: cs, Got: LevelNone}
	bug := patchText{cs.Bug.Subject, cs.Bug.Message, cs.Bug.Diff}
	r, err := analyse(ctx, e.tree, cs.Name, []patchText{bug})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Err = applyErrors(r)
	out.Family, out.Other = splitFamily(r.Patches[0].Findings, cs.Family)
	for _, h := range out.Family {
		if h.Func != cs.Expect.Function || (cs.Expect.File != "" && h.File != cs.Expect.File) {
			continue
		}
		if cs.Expect.Category != "" && !hasCategory(h, cs.Expect.Category) {
			continue
		}
		switch {
		case h.Severity == report.SeverityRisk:
			out.Got = LevelRisk
		case h.Severity == report.SeverityNote && out.Got == LevelNone:
			out.Got = LevelNote
		}
	}
	an, err := e.onPreImage(cs.Bug.Diff)
	if err != nil {
		out.Err = joinErr(out.Err, "fix: "+err.Error())
		return out
	}
	r, err = analyse(ctx, an, cs.Name, []patchText{bug, {cs.Fix.Subject, cs.Fix.Message, cs.Fix.Diff}})
	if err != nil {
		out.Err = joinErr(out.Err, "fix: "+err.Error())
		return out
	}
	out.Err = joinErr(out.Err, applyErrors(r))
	out.FixRisk = risks(r.Patches[1].Findings)
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

// nearMiss analyses the near miss with the tree.
func (e *Evaluator) nearMiss(ctx context.Context, cs *Case) *CaseResult {
	out := &CaseResult{Case: cs, Got: LevelNone}
	r, err := analyse(ctx, e.tree, cs.Name, []patchText{{cs.Bug.Subject, cs.Bug.Message, cs.Bug.Diff}})
	if err != nil {
		out.Err = err.Error()
		return out
	}
	out.Err = applyErrors(r)
	out.Family, out.Other = splitFamily(r.Patches[0].Findings, cs.Family)
	for _, h := range out.Family {
		if h.Severity == report.SeverityRisk {
			out.Got = LevelRisk
		} else if out.Got == LevelNone {
			out.Got = LevelNote
		}
	}
	return out
}

// ordinary analyses [reverse(patch), patch] with the tree (on the
// tree+reverse index: the pre-image) and patch-only; patch 1 rebuilds the
// pre-image, the findings on patch 2 count.
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
		an, err := e.onPreImage(rev)
		if err == nil {
			var r *report.Report
			if r, err = analyse(ctx, an, o.Name, ps); err == nil {
				if s := applyErrors(r); s != "" {
					errs = append(errs, s)
				}
				out.TreeRisk, out.TreeNote = bySeverity(r.Patches[1].Findings)
			}
		}
		if err != nil {
			errs = append(errs, "with tree: "+err.Error())
		}
	}
	r, err := analyse(ctx, e.patchOnly, o.Name, ps[1:])
	if err != nil {
		errs = append(errs, "patch-only: "+err.Error())
	} else {
		out.PatchOnlyRisk, out.PatchOnlyNote = bySeverity(r.Patches[0].Findings)
	}
	out.Err = strings.Join(errs, "; ")
	return out
}

// patchText is one patch of a synthetic series.
type patchText struct{ subject, message, diff string }

// analyse runs an on a series built in memory from ps.
func analyse(ctx context.Context, an *pipeline.Analysis, id string, ps []patchText) (*report.Report, error) {
	if an == nil {
		return nil, fmt.Errorf("no analysis configured")
	}
	s := &series.Series{ID: id + "@eval", Title: ps[0].subject, Version: 1, Total: len(ps)}
	for i, p := range ps {
		subj := p.subject
		if len(ps) > 1 {
			subj = fmt.Sprintf("[PATCH %d/%d] %s", i+1, len(ps), p.subject)
		} else {
			subj = "[PATCH] " + subj
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
	r := pipeline.NewReport(s)
	if err := an.Run(ctx, s, r); err != nil {
		return nil, err
	}
	for _, pr := range r.Patches {
		if pr.Error != "" {
			return r, fmt.Errorf("patch %d: %s", pr.Number, pr.Error)
		}
	}
	return r, nil
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

// inFamily reports whether a finding's rule belongs to fam: the family's
// rule name itself or a sub-check named "<rule>-<check>".
func inFamily(rule string, fam *Family) bool {
	return rule == fam.Rule || strings.HasPrefix(rule, fam.Rule+"-")
}

// splitFamily splits findings into fam's and the others'.
func splitFamily(fs []report.Finding, fam *Family) (in, other []Hit) {
	for _, f := range fs {
		h := hit(f)
		if inFamily(f.Rule, fam) {
			in = append(in, h)
		} else {
			other = append(other, h)
		}
	}
	return in, other
}

// bySeverity splits fs into risk and other findings.
func bySeverity(fs []report.Finding) (risk, note []Hit) {
	for _, f := range fs {
		if f.Severity == report.SeverityRisk {
			risk = append(risk, hit(f))
		} else {
			note = append(note, hit(f))
		}
	}
	return risk, note
}

// risks returns the risk findings of fs.
func risks(fs []report.Finding) []Hit {
	var out []Hit
	for _, f := range fs {
		if f.Severity == report.SeverityRisk {
			out = append(out, hit(f))
		}
	}
	return out
}

func hit(f report.Finding) Hit {
	return Hit{Rule: f.Rule, Severity: f.Severity, Func: f.Func, File: f.File, Message: f.Message, Category: category(f)}
}

// category returns the finding's sub-check: its "category" JSON field
// when the report model has one (read through JSON so that this package
// builds with and without the field), else "".
func category(f report.Finding) string {
	b, err := json.Marshal(f)
	if err != nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	if c, ok := m["category"].(string); ok {
		return c
	}
	return ""
}

// hasCategory reports whether h is of the sub-check cat.
func hasCategory(h Hit, cat string) bool {
	return h.Category == cat || h.Rule == cat || strings.HasSuffix(h.Rule, "-"+cat)
}
