package rules

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
)

// Pass is the input and output of rule runs over one patch: the ChangeSet
// and the post-patch index in, findings (Report) and notes (Note) out.
type Pass struct {
	// Change is the patch's ChangeSet.
	Change *diffcheck.ChangeSet
	// Index is the post-patch tree index, nil in patch-only mode.
	Index *index.Index
	// Options are the shared rule options.
	Options Options
	// Patch is the 1-based number of the patch in its series (for findings).
	Patch int
	// Notes collects remarks for the report, such as "callers of X need a
	// tree"; rules append to it with Note.
	Notes []string

	rule     *Rule
	findings []report.Finding
	seen     map[string]bool
	// newLines holds the post-patch lines the patch's functions show,
	// per file; files caches whole files read from the tree.
	newLines map[string]map[int]string
	files    map[string][]string
}

// NewPass returns the pass over change for patch number patch. base is the
// index of the tree the patch was applied onto (nil in patch-only mode);
// when diffcheck.ApplyTree gave change a patched tree, the pass's Index
// overlays the patched files on base.
func NewPass(change *diffcheck.ChangeSet, base *index.Index, opts Options, patch int) *Pass {
	p := &Pass{Change: change, Index: base, Options: opts, Patch: patch}
	if base != nil && change != nil {
		if pt, ok := change.Tree.(*diffcheck.PatchedTree); ok {
			if files := pt.Files(); len(files) > 0 {
				p.Index = base.Overlay(files)
			}
		}
	}
	return p
}

// Run runs rule r over the pass and returns the findings it reported, in
// report order (the pipeline sorts them).
func (p *Pass) Run(r *Rule) ([]report.Finding, error) {
	p.rule, p.findings, p.seen = r, nil, map[string]bool{}
	err := r.Run(p)
	fs := p.findings
	p.rule, p.findings, p.seen = nil, nil, nil
	return fs, err
}

// Findings returns what the running rule reported so far.
func (p *Pass) Findings() []report.Finding { return p.findings }

// Note appends a remark to the pass's report notes.
func (p *Pass) Note(s string) { p.Notes = append(p.Notes, s) }

// Report records a finding of the running rule: it stamps the rule name
// and the patch number, drops a finding whose category and chain were
// already reported (the same chain found from two ends), and fills the
// evidence from the chain's post-patch lines when the rule gave none.
func (p *Pass) Report(f report.Finding) {
	if p.rule != nil {
		f.Rule = p.rule.Name
	}
	if f.Patch == 0 {
		f.Patch = p.Patch
	}
	if len(f.Chain) > 0 {
		var b strings.Builder
		b.WriteString(f.Category)
		for _, s := range f.Chain {
			fmt.Fprintf(&b, "|%s:%d", s.Func, s.Line)
		}
		if p.seen == nil {
			p.seen = map[string]bool{}
		}
		if p.seen[b.String()] {
			return
		}
		p.seen[b.String()] = true
		if len(f.Evidence) == 0 {
			for _, s := range f.Chain {
				if t := p.Line(s.File, s.Line); t != "" {
					e := fmt.Sprintf("%s:%d: %s", s.File, s.Line, t)
					if len(f.Evidence) == 0 || f.Evidence[len(f.Evidence)-1] != e {
						f.Evidence = append(f.Evidence, e)
					}
				}
			}
		}
	}
	p.findings = append(p.findings, f)
}

// Line returns line (1-based) of file in the post-patch view, trimmed:
// from the patch's function text, else from the patched tree or the
// index; "" when no source shows it.
func (p *Pass) Line(file string, line int) string {
	if p.newLines == nil {
		p.newLines = map[string]map[int]string{}
		if p.Change != nil {
			for _, fc := range p.Change.Funcs {
				m := p.newLines[fc.File]
				if m == nil {
					m = map[int]string{}
					p.newLines[fc.File] = m
				}
				text := strings.Split(fc.New.Text, "\n")
				for i, l := range fc.New.Lines {
					if _, ok := m[l]; !ok && i < len(text) {
						m[l] = strings.TrimSpace(text[i])
					}
				}
			}
		}
	}
	if t, ok := p.newLines[file][line]; ok {
		return t
	}
	if p.Index == nil {
		return ""
	}
	if p.files == nil {
		p.files = map[string][]string{}
	}
	ls, ok := p.files[file]
	if !ok {
		var b []byte
		var err error
		if p.Change != nil && p.Change.Tree != nil {
			b, err = p.Change.Tree.ReadFile(file)
		} else {
			b, err = p.Index.ReadFile(file)
		}
		if err == nil {
			ls = strings.Split(string(b), "\n")
		}
		p.files[file] = ls
	}
	if line >= 1 && line <= len(ls) {
		return strings.TrimSpace(ls[line-1])
	}
	return ""
}
