package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
	"github.com/autosel-bot/autosel-bot/suppress"
)

// NotePatchOnly is the series note of an analysis without a tree.
const NotePatchOnly = "patch-only analysis (no --tree): functions are seen only as far as the hunks show them; callers and callees outside the patch were not checked"

// AnalysisOptions configure the analysis stage.
type AnalysisOptions struct {
	// Rules to run; nil means every family (all.Rules(RuleOptions)).
	Rules []*rules.Rule
	// RuleOptions are passed to every rule (and to all.Rules).
	RuleOptions rules.Options
	// Tree is a kernel checkout to apply patches onto (in memory) and to
	// index; "" analyses the patches alone.
	Tree string
	// Index is an already opened index of Tree (optional; opened lazily
	// with IndexOptions on first use otherwise).
	Index *index.Index
	// IndexOptions are used to open Tree's index.
	IndexOptions index.Options
	// IndexWarm bounds the functions of the index kept decoded between
	// series: after a series, when more are (index.Index.Warm), what the
	// index decoded and memoised is released (index.Index.Release), with
	// no analysis running. 0 keeps everything.
	IndexWarm int
	// Prepare runs the rules' Prepare over the tree's index before the
	// first patch (index.summaries): whole-tree summaries are stored once
	// per tree state and each patch reads them.
	Prepare bool
	// Workers, when above 0, bounds the patches whose rules run at once,
	// over every series the stage is given at once (check.workers), and
	// lets the patches of one series use them: the patches still stack
	// in order (each is applied onto the view the earlier ones left
	// before any rule runs), and only the rules of different patches
	// overlap, each over its own view, so the findings are those of one
	// at a time. 0: a series' patches one after the other, and no bound
	// but the callers' (watch runs watch.workers series at once).
	Workers int
	// Ignore are the RULE[/CATEGORY] suppressions of the command line and
	// the configuration (check.ignore); with the tree's .autosel-ignore
	// they move matching findings to each patch's Suppressed list.
	Ignore []suppress.Spec
	// Version is the bot's version, for the reports' Reproduce.
	Version string
}

// Analysis is the analysis stage: it parses each patch's diff, applies it
// onto the tree when there is one (patches of a series stack; review
// patches go on top of the series), and runs every rule. Create one per
// process and reuse it: the tree's index is opened once, on first use. It
// keeps no per-series state.
type Analysis struct {
	opts  AnalysisOptions
	rules []*rules.Rule
	tree  diffcheck.Tree
	log   *slog.Logger
	// baseFrom says where a base tree set by SetBaseTree came from
	// (report.BaseCommit or report.BaseRange).
	baseFrom string

	idxOnce sync.Once
	idx     *index.Index
	idxErr  error
	// prepOnce runs the rules' Prepare over the index once.
	prepOnce sync.Once
	// running is held for reading by every Run, for writing by a release
	// of the index (IndexWarm); opened is the index once open.
	running sync.RWMutex
	opened  atomic.Pointer[index.Index]
	// slots holds a token for every patch whose rules are running
	// (Workers of them at most); nil when Workers is 0.
	slots chan struct{}
}

// NewAnalysis returns the analysis stage for opts; rule failures go to log
// (nil: discarded). It fails when the rules cannot be built (bad table
// files) or the tree is not a directory.
func NewAnalysis(opts AnalysisOptions, log *slog.Logger) (*Analysis, error) {
	opts.Ignore = append([]suppress.Spec(nil), opts.Ignore...)
	a := &Analysis{opts: opts, rules: opts.Rules, log: log}
	if opts.Workers > 0 {
		a.slots = make(chan struct{}, opts.Workers)
	}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.rules == nil {
		rs, err := all.Rules(opts.RuleOptions)
		if err != nil {
			return nil, err
		}
		a.rules = rs
	}
	known := a.known()
	for i, sp := range opts.Ignore {
		r, err := known.Resolve(sp)
		if err != nil {
			return nil, fmt.Errorf("%s %w", sp.Source, err)
		}
		a.opts.Ignore[i] = r
	}
	if opts.Tree != "" {
		if st, err := os.Stat(opts.Tree); err != nil {
			return nil, fmt.Errorf("tree: %w", err)
		} else if !st.IsDir() {
			return nil, fmt.Errorf("tree %s: not a directory", opts.Tree)
		}
		a.tree = diffcheck.DirTree(opts.Tree)
	}
	if opts.Index != nil {
		a.idx = opts.Index
		a.idxOnce.Do(func() {})
		a.opened.Store(a.idx)
	}
	return a, nil
}

// SetBaseTree makes the patches apply onto t (for example a commit read
// from git objects: the base of a range, or the base-commit of a
// `git format-patch --base` series) instead of the checkout given as
// Tree, whose index still serves the rest of the tree. Call it before Run.
func (a *Analysis) SetBaseTree(t diffcheck.Tree) {
	if t != nil {
		a.tree = t
		a.baseFrom = report.BaseCommit
	}
}

// SetBaseFrom says where the base tree came from (report.BaseCommit, the
// default, or report.BaseRange) for the reports' Reproduce.
func (a *Analysis) SetBaseFrom(from string) { a.baseFrom = from }

// Name returns "analysis".
func (a *Analysis) Name() string { return "analysis" }

// Rules returns the rules the stage runs.
func (a *Analysis) Rules() []*rules.Rule { return a.rules }

// index opens the tree's index once.
func (a *Analysis) index(ctx context.Context) (*index.Index, error) {
	a.idxOnce.Do(func() {
		a.idx, a.idxErr = index.Open(ctx, a.opts.Tree, a.opts.IndexOptions)
		if a.idx != nil {
			a.opened.Store(a.idx)
		}
	})
	return a.idx, a.idxErr
}

// prepare runs every rule's Prepare over ix once, before the first
// patch analysed over it: each series holds a.running for reading, and
// prepOnce makes every other series wait until it is done, so no query is
// running while a Prepare releases what the index decoded.
func (a *Analysis) prepare(ctx context.Context, ix *index.Index) {
	a.prepOnce.Do(func() {
		for _, rule := range a.rules {
			if rule.Prepare == nil {
				continue
			}
			if err := rule.Prepare(ctx, ix.Underlying(), a.log); err != nil {
				a.log.Warn("rule prepare failed", "rule", rule.Name, "err", err)
			}
		}
	})
}

// Run analyses every patch of s into r.
func (a *Analysis) Run(ctx context.Context, s *series.Series, r *report.Report) error {
	a.running.RLock()
	defer a.trimIndex()
	defer a.running.RUnlock()
	return a.run(ctx, s, r)
}

// trimIndex releases what the index decoded when it exceeds IndexWarm.
func (a *Analysis) trimIndex() {
	if a.opts.IndexWarm <= 0 {
		return
	}
	ix := a.opened.Load()
	if ix == nil {
		return
	}
	if n, _ := ix.Warm(); n <= a.opts.IndexWarm {
		return
	}
	a.running.Lock()
	defer a.running.Unlock()
	if n, _ := ix.Warm(); n > a.opts.IndexWarm {
		a.log.Info("index release", "warm_funcs", n, "budget", a.opts.IndexWarm)
		ix.Release()
	}
}

func (a *Analysis) run(ctx context.Context, s *series.Series, r *report.Report) error {
	if a.tree == nil {
		r.Notes = appendOnce(r.Notes, NotePatchOnly)
	}
	// Patches stack: each is applied onto the tree as the earlier ones left
	// it, and its rules compare against the index of that same view. The
	// views are made in order; the rules then run over them, up to
	// Workers patches at once.
	base := stack{tree: a.tree}
	var seriesBase *stack
	patches := Patches(s)
	views := make([]*patchView, 0, len(patches))
	for i, p := range patches {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i == len(s.Patches) && seriesBase == nil {
			sb := base // review patches go on top of the whole series
			seriesBase = &sb
		}
		if p.InReview && seriesBase != nil {
			base = *seriesBase
		}
		v, next := a.applyPatch(ctx, p, &r.Patches[i], r, base)
		if v != nil {
			views = append(views, v)
		}
		if !p.InReview {
			base = next
		}
	}
	if err := a.runViews(ctx, views); err != nil {
		return err
	}
	// Ids before anything filters findings: a finding's id does not
	// depend on which others were reported.
	report.AssignIDs(r)
	a.suppress(r)
	r.Reproduce = a.reproduce(ctx, s)
	return nil
}

// known are the names of the stage's rules and their categories.
func (a *Analysis) known() suppress.Known {
	k := suppress.Known{}
	for _, r := range a.rules {
		k[r.Name] = nil
		for _, c := range r.Categories {
			k[r.Name] = append(k[r.Name], c.Name)
		}
	}
	return k
}

// suppress moves the findings the Ignore specs and the tree's
// .autosel-ignore match to their patches' Suppressed lists. The file is
// read from the tree the series applies onto, never from what a patch
// made of it: a patch cannot suppress its own findings. Its bad lines
// are series notes.
func (a *Analysis) suppress(r *report.Report) {
	set := &suppress.Set{Specs: a.opts.Ignore}
	if a.tree != nil {
		data, err := a.tree.ReadFile(suppress.FileName)
		switch {
		case err == nil:
			entries, errs := suppress.ParseFile(suppress.FileName, data)
			known := a.known()
			for _, e := range entries {
				sp, err := known.Resolve(e.Spec)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: %w", suppress.FileName, e.Line, err))
					continue
				}
				e.Spec = sp
				set.Entries = append(set.Entries, e)
			}
			for _, err := range errs {
				r.Notes = appendOnce(r.Notes, "line skipped: "+err.Error())
			}
		case !errors.Is(err, fs.ErrNotExist):
			r.Notes = appendOnce(r.Notes, fmt.Sprintf("%s not read: %v", suppress.FileName, err))
		}
	}
	if !set.Empty() {
		report.Suppress(r, set.Match)
	}
}

// runViews runs the rules over every view, in order, or up to Workers
// patches at once (counted over every series the stage runs), and
// returns ctx's error when it ends first.
func (a *Analysis) runViews(ctx context.Context, views []*patchView) error {
	var wg sync.WaitGroup
	for _, v := range views {
		if a.slots == nil {
			if err := ctx.Err(); err != nil {
				return err
			}
			a.runRules(v)
			continue
		}
		took := false
		select {
		case a.slots <- struct{}{}:
			took = true
		case <-ctx.Done():
		}
		// A slot and the end may both be ready, and select picks either:
		// no patch starts after the end.
		if err := ctx.Err(); err != nil {
			if took {
				<-a.slots
			}
			wg.Wait()
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-a.slots }()
			a.runRules(v)
		}()
	}
	wg.Wait()
	return ctx.Err()
}

// stack is the view a patch is applied onto: the tree with the series'
// earlier patches applied, and the index of that view (nil until the
// tree's index is opened, and in patch-only mode).
type stack struct {
	tree diffcheck.Tree
	idx  *index.Index
}

// patchView is one patch applied onto its view, ready for the rules: its
// report, the parsed change and the rules' pass over the view.
type patchView struct {
	msg  *mail.Message
	pr   *report.PatchReport
	cs   *diffcheck.ChangeSet
	pass *rules.Pass
}

// applyPatch parses p's diff and applies it onto base, filling what pr
// says of the diff and of the apply. It returns the patch ready for its
// rules (nil when the diff could not be parsed: pr says why) and the view
// after it (base itself without a parsed diff).
func (a *Analysis) applyPatch(ctx context.Context, p *series.Patch, pr *report.PatchReport, r *report.Report, base stack) (*patchView, stack) {
	m := p.Msg
	if m == nil {
		pr.Error = "no message"
		return nil, base
	}
	if m.Diff == "" {
		pr.Error = fmt.Sprintf("message <%s> carries no diff", m.MessageID)
		return nil, base
	}
	cs, err := diffcheck.Parse(m.Diff)
	if err != nil {
		pr.Error, r.Errors = diffError(m, err, r.Errors)
		return nil, base
	}
	fillFiles(pr, cs)
	if base.tree != nil {
		if err := diffcheck.ApplyTree(cs, base.tree); err != nil {
			pr.Notes = append(pr.Notes, "tree: "+err.Error())
		}
		if cs.ApplyError != "" {
			if rcs, rb, say, ok := a.applyReversed(ctx, m, base); ok {
				cs, base = rcs, rb
				pr.AlreadyApplied = say
				pr.Notes = append(pr.Notes, say)
			} else {
				pr.Notes = append(pr.Notes, applyNote(m, cs, base.tree))
			}
		}
		fillFiles(pr, cs) // functions from the real file boundaries
		if base.idx == nil {
			ix, err := a.index(ctx)
			if err != nil {
				pr.Notes = appendOnce(pr.Notes, "tree index unavailable, callers not checked: "+err.Error())
			}
			base.idx = ix
		}
		if base.idx != nil && a.opts.Prepare {
			a.prepare(ctx, base.idx)
		}
	}
	pass := rules.NewPass(cs, base.idx, a.opts.RuleOptions, pr.Number)
	next := base
	if cs.Tree != nil {
		next = stack{tree: cs.Tree, idx: pass.Index}
	}
	return &patchView{msg: m, pr: pr, cs: cs, pass: pass}, next
}

// runRules runs every rule over v's pass and fills its findings and notes
// (the repairs of a mail-damaged diff, made at parse and apply time, come
// last).
func (a *Analysis) runRules(v *patchView) {
	pr, pass := v.pr, v.pass
	// runRule turns a rule's panic into a note; a panic here besides is
	// the patch's error, whichever way the rules run, and the other
	// patches go on.
	defer func() {
		if e := recover(); e != nil {
			a.log.Error("analysis panic", "message_id", v.msg.MessageID, "panic", e, "stack", string(debug.Stack()))
			pr.Error = fmt.Sprintf("analysis failed: panic: %v", e)
		}
	}()
	for _, rule := range a.rules {
		notes := len(pass.Notes)
		fs, err := runRule(rule, pass)
		if err != nil {
			a.log.Warn("rule failed", "rule", rule.Name, "message_id", v.msg.MessageID, "err", err)
			pr.Notes = append(pr.Notes, fmt.Sprintf("rule %s failed: %v", rule.Name, err))
		}
		pr.Findings = append(pr.Findings, fs...)
		for _, n := range pass.Notes[notes:] {
			pr.Notes = appendOnce(pr.Notes, n)
		}
	}
	SortFindings(pr.Findings)
	pr.Notes = append(pr.Notes, v.cs.Notes...)
}

// runRule runs one rule, turning a panic into an error.
func runRule(rule *rules.Rule, pass *rules.Pass) (fs []report.Finding, err error) {
	defer func() {
		if e := recover(); e != nil {
			fs, err = nil, fmt.Errorf("panic: %v\n%s", e, debug.Stack())
		}
	}()
	return pass.Run(rule)
}

// diffError formats a diff error naming the message and the line of its
// body, and records it as an input error too.
func diffError(m *mail.Message, err error, errs []report.InputError) (string, []report.InputError) {
	ie := report.InputError{Source: "message <" + m.MessageID + ">", MessageID: m.MessageID, Err: err.Error()}
	msg := fmt.Sprintf("message <%s>: %v", m.MessageID, err)
	var de *diffcheck.Error
	if errors.As(err, &de) && de.Line > 0 {
		line := de.Line
		if m.DiffLine > 0 {
			line += m.DiffLine - 1
		}
		ie.Line = line
		ie.Err = de.Err.Error()
		msg = fmt.Sprintf("message <%s>: body line %d: malformed diff: %v", m.MessageID, line, de.Err)
	}
	return msg, append(errs, ie)
}

// applyNote says that the patch did not apply cleanly to the tree and why,
// naming each failing hunk by its line in the message body.
func applyNote(m *mail.Message, cs *diffcheck.ChangeSet, tree diffcheck.Tree) string {
	var b strings.Builder
	fmt.Fprintf(&b, "does not apply cleanly to %s; the touched functions were analysed from the hunks' post-image and everything else from the tree:", diffcheck.TreeName(tree))
	for _, e := range cs.ApplyErrors {
		b.WriteString("\n")
		if e.File != "" {
			b.WriteString(e.File + ": ")
		}
		if e.Line > 0 {
			line := e.Line
			if m.DiffLine > 0 {
				line += m.DiffLine - 1
			}
			fmt.Fprintf(&b, "body line %d: ", line)
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// fillFiles sets the patch's files and functions from cs.
func fillFiles(pr *report.PatchReport, cs *diffcheck.ChangeSet) {
	pr.Files = pr.Files[:0]
	for _, f := range cs.Files {
		pr.Files = append(pr.Files, f.Path())
	}
	pr.Funcs = pr.Funcs[:0]
	seen := map[string]bool{}
	for _, f := range cs.Funcs {
		if id := f.ID(); !seen[id] {
			seen[id] = true
			pr.Funcs = append(pr.Funcs, id)
		}
	}
}

// SortFindings orders findings as reports show them (report.SortFindings).
func SortFindings(fs []report.Finding) { report.SortFindings(fs) }

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
