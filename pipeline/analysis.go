package pipeline

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sort"
	"strings"
	"sync"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/series"
)

// NotePatchOnly is the series note of an analysis without a tree.
const NotePatchOnly = "patch-only analysis (no --tree): functions are seen only as far as the hunks show them; callers and callees outside the patch were not checked"

// AnalysisOptions configure the analysis stage.
type AnalysisOptions struct {
	// Rules to run; nil means rules.All(RuleOptions).
	Rules []*rules.Rule
	// RuleOptions are passed to every rule (and to rules.All).
	RuleOptions rules.Options
	// Tree is a kernel checkout to apply patches onto (in memory) and to
	// index; "" analyses the patches alone.
	Tree string
	// Index is an already opened index of Tree (optional; opened lazily
	// with IndexOptions on first use otherwise).
	Index *index.Index
	// IndexOptions are used to open Tree's index.
	IndexOptions index.Options
	// Log receives rule failures; nil discards them.
	Log *slog.Logger
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

	idxOnce sync.Once
	idx     *index.Index
	idxErr  error
}

// NewAnalysis returns the analysis stage. It fails when the rules cannot be
// built (bad table files) or the tree is not a directory.
func NewAnalysis(opts AnalysisOptions) (*Analysis, error) {
	a := &Analysis{opts: opts, rules: opts.Rules, log: opts.Log}
	if a.log == nil {
		a.log = slog.New(slog.DiscardHandler)
	}
	if a.rules == nil {
		rs, err := rules.All(opts.RuleOptions)
		if err != nil {
			return nil, err
		}
		a.rules = rs
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
	}
}

// Name returns "analysis".
func (a *Analysis) Name() string { return "analysis" }

// Rules returns the rules the stage runs.
func (a *Analysis) Rules() []*rules.Rule { return a.rules }

// index opens the tree's index once.
func (a *Analysis) index(ctx context.Context) (*index.Index, error) {
	a.idxOnce.Do(func() {
		a.idx, a.idxErr = index.Open(ctx, a.opts.Tree, a.opts.IndexOptions)
	})
	return a.idx, a.idxErr
}

// Run analyses every patch of s into r.
func (a *Analysis) Run(ctx context.Context, s *series.Series, r *report.Report) error {
	if a.tree == nil {
		r.Notes = appendOnce(r.Notes, NotePatchOnly)
	}
	var base diffcheck.Tree = a.tree // stacks patch after patch
	var seriesTree diffcheck.Tree
	patches := Patches(s)
	for i, p := range patches {
		if err := ctx.Err(); err != nil {
			return err
		}
		if i == len(s.Patches) && seriesTree == nil {
			seriesTree = base // review patches go on top of the whole series
		}
		if p.InReview && seriesTree != nil {
			base = seriesTree
		}
		pr := &r.Patches[i]
		cs := a.analysePatch(ctx, p, pr, r, base)
		if cs != nil && cs.Tree != nil && !p.InReview {
			base = cs.Tree
		}
	}
	return nil
}

// analysePatch fills pr for one patch and returns its change set (nil when
// the diff could not be parsed).
func (a *Analysis) analysePatch(ctx context.Context, p *series.Patch, pr *report.PatchReport, r *report.Report, base diffcheck.Tree) *diffcheck.ChangeSet {
	m := p.Msg
	if m == nil {
		pr.Error = "no message"
		return nil
	}
	if m.Diff == "" {
		pr.Error = fmt.Sprintf("message <%s> carries no diff", m.MessageID)
		return nil
	}
	cs, err := diffcheck.Parse(m.Diff)
	if err != nil {
		pr.Error, r.Errors = diffError(m, err, r.Errors)
		return nil
	}
	// Repairs of a mail-damaged diff (at parse and apply time) are noted.
	defer func() { pr.Notes = append(pr.Notes, cs.Notes...) }()
	fillFiles(pr, cs)
	var ix *index.Index
	if base != nil {
		if err := diffcheck.ApplyTree(cs, base); err != nil {
			pr.Notes = append(pr.Notes, "tree: "+err.Error())
		}
		if cs.ApplyError != "" {
			pr.Notes = append(pr.Notes, applyNote(m, cs, base))
		}
		fillFiles(pr, cs) // functions from the real file boundaries
		baseIdx, err := a.index(ctx)
		switch {
		case err != nil:
			pr.Notes = appendOnce(pr.Notes, "tree index unavailable, callers not checked: "+err.Error())
		case baseIdx != nil:
			ix = baseIdx
			if pt, ok := cs.Tree.(*diffcheck.PatchedTree); ok {
				if files := pt.Files(); len(files) > 0 {
					ix = baseIdx.Overlay(files)
				}
			}
		}
	}
	for _, rule := range a.rules {
		pass := &rules.Pass{Change: cs, Index: ix, Options: a.opts.RuleOptions, Patch: pr.Number}
		fs, err := runRule(rule, pass)
		if err != nil {
			a.log.Warn("rule failed", "rule", rule.Name, "message_id", m.MessageID, "err", err)
			pr.Notes = append(pr.Notes, fmt.Sprintf("rule %s failed: %v", rule.Name, err))
		}
		for _, f := range fs {
			if f.Patch == 0 {
				f.Patch = pr.Number
			}
			if f.Rule == "" {
				f.Rule = rule.Name
			}
			pr.Findings = append(pr.Findings, f)
		}
		for _, n := range pass.Notes {
			pr.Notes = appendOnce(pr.Notes, n)
		}
	}
	SortFindings(pr.Findings)
	return cs
}

// runRule runs one rule, turning a panic into an error.
func runRule(rule *rules.Rule, pass *rules.Pass) (fs []report.Finding, err error) {
	defer func() {
		if e := recover(); e != nil {
			fs, err = nil, fmt.Errorf("panic: %v\n%s", e, debug.Stack())
		}
	}()
	return rule.Run(pass)
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
	fmt.Fprintf(&b, "does not apply cleanly to %s; the touched functions were analysed from the hunks' post-image and everything else from the tree:", tree.Root())
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

// SortFindings orders findings: risks first, then by file, line and rule.
func SortFindings(fs []report.Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Severity.Rank() != b.Severity.Rank() {
			return a.Severity.Rank() > b.Severity.Rank()
		}
		if a.File != b.File {
			return a.File < b.File
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Rule < b.Rule
	})
}

func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}
