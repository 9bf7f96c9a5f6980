package report

import (
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// seriesTagRe finds the n of "n/N" in a subject's leading tag.
var seriesTagRe = regexp.MustCompile(`^(\[[^\]]*?)\b\d+/(\d+)([^\]]*\])`)

// SeriesTag returns the series' tag with the patch number replaced by x,
// e.g. "[PATCH v5 x/2]" from "[PATCH v5 0/2] ...", or "[PATCH]".
func (r *Report) SeriesTag() string {
	if m := seriesTagRe.FindStringSubmatch(r.Subject); m != nil {
		return m[1] + "x/" + m[2] + m[3]
	}
	if strings.HasPrefix(r.Subject, "[") {
		if i := strings.IndexByte(r.Subject, ']'); i > 0 {
			return r.Subject[:i+1]
		}
	}
	tag := "[PATCH"
	if r.Version > 1 {
		tag += fmt.Sprintf(" v%d", r.Version)
	}
	if r.Total > 1 {
		tag += fmt.Sprintf(" x/%d", r.Total)
	}
	return tag + "]"
}

// WriteText renders reports as plain text in the style of kernel mail: per
// series a header (tag, title, author, date, Message-ID), then per patch its
// subject, files with the functions changed in them, findings ("risk:
// rule: file:line func(): message", its id, call chain steps and evidence
// indented), suppressed findings (one line each and what suppressed
// them), notes and errors; then stable and VM results when present.
// Findings without an id get one (AssignIDs).
func WriteText(w io.Writer, reports []*Report) error {
	ensureIDs(reports)
	tw := &textWriter{w: w}
	for i, r := range reports {
		if i > 0 {
			tw.line("")
			tw.line("%s", strings.Repeat("-", 72))
			tw.line("")
		}
		tw.report(r)
	}
	return tw.err
}

type textWriter struct {
	w   io.Writer
	err error
}

func (t *textWriter) line(format string, args ...any) {
	if t.err != nil {
		return
	}
	s := format
	if len(args) > 0 {
		s = fmt.Sprintf(format, args...)
	}
	_, t.err = io.WriteString(t.w, EscapeControls(strings.TrimRight(s, " \t"))+"\n")
}

// EscapeText is EscapeControls for multi-line text: each line is escaped
// and the line breaks are kept (a lone CR is escaped).
func EscapeText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = EscapeControls(l)
	}
	return strings.Join(lines, "\n")
}

// EscapeControls makes text that came from mail (subjects, names, file
// names, messages quoting them) safe to print on a terminal: C0 and C1
// control characters other than tab (ESC starting a terminal sequence,
// CR, BEL, backspace, CSI...), DEL and bytes that are not UTF-8 are shown
// as Go escapes ("\x1b", "\u009b") instead of being written raw.
func EscapeControls(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, "\\x%02x", s[i])
		case r < 0x80 && isControl(r):
			fmt.Fprintf(&b, "\\x%02x", r)
		case isControl(r):
			fmt.Fprintf(&b, "\\u%04x", r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// isControl reports whether r is a control character to escape (tab is
// kept) or stands for a byte that is not UTF-8.
func isControl(r rune) bool {
	return (r < 0x20 && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == utf8.RuneError
}

func (t *textWriter) report(r *Report) {
	t.line("%s %s", r.SeriesTag(), r.Title)
	if r.Author != "" {
		t.line("From: %s", r.Author)
	}
	if !r.Date.IsZero() {
		t.line("Date: %s", r.Date.UTC().Format(time.RFC1123Z))
	}
	if r.SeriesID != "" {
		t.line("Message-ID: <%s>", r.SeriesID)
	}
	n, review := 0, 0
	for _, p := range r.Patches {
		if p.InReview {
			review++
		} else {
			n++
		}
	}
	summary := textfmt.Plural(n, "patch", "patches")
	if r.Version > 0 {
		summary = fmt.Sprintf("version %d, %s", r.Version, summary)
	}
	if review > 0 {
		summary += fmt.Sprintf(", %d proposed in review", review)
	}
	if risks, notes := r.count(); risks+notes > 0 {
		summary += ", " + textfmt.Plural(risks, "risk", "risks") + ", " + textfmt.Plural(notes, "note", "notes")
	} else {
		summary += ", no findings"
	}
	if n := r.CountSuppressed(); n > 0 {
		summary += fmt.Sprintf(", %d suppressed", n)
	}
	t.line("%s", summary)
	if r.Incomplete != "" {
		t.wrap("Incomplete: "+r.Incomplete, "", "  ")
	}
	for _, n := range r.Notes {
		t.wrap("note: "+n, "", "  ")
	}
	if c := r.Changes; c != nil {
		t.changes(c)
	}
	if rp := r.Reproduce; rp != nil {
		t.line("reproduce:")
		for _, l := range rp.Lines() {
			t.line("  %s", l) // not wrapped: the command is copied and pasted
		}
	}
	for _, p := range r.Patches {
		t.line("")
		t.patch(&p)
	}
	if r.Stable != nil {
		t.line("")
		t.line("Stable trees:")
		t.stable(r.Stable, "  ")
	}
	if r.VM != nil {
		t.line("")
		t.vm(r.VM)
	}
	if len(r.Errors) > 0 {
		t.line("")
		for _, e := range r.Errors {
			t.wrap("error: "+e.String(), "", "  ")
		}
	}
}

func (r *Report) count() (risks, notes int) {
	for _, p := range r.Patches {
		for _, f := range p.Findings {
			switch f.Severity {
			case SeverityRisk:
				risks++
			default:
				notes++
			}
		}
	}
	return
}

// String renders "source:line <message-id>: error".
func (e InputError) String() string {
	s := e.Source
	if e.Line > 0 {
		s += fmt.Sprintf(":%d", e.Line)
	}
	if e.MessageID != "" && !strings.Contains(e.Source, e.MessageID) {
		s += " <" + e.MessageID + ">"
	}
	return s + ": " + e.Err
}

func (t *textWriter) patch(p *PatchReport) {
	subj := p.Subject
	if p.InReview {
		subj = "(proposed in review) " + subj
	}
	t.line("%s", subj)
	if p.MessageID != "" {
		t.line("  Message-ID: <%s>", p.MessageID)
	}
	if p.Error != "" {
		t.wrap("error: "+p.Error, "  ", "    ")
	}
	for _, f := range p.Files {
		var fns []string
		for _, id := range p.Funcs {
			if file, fn, ok := strings.Cut(id, ":"); ok && file == f {
				fns = append(fns, fn+"()")
			}
		}
		if len(fns) == 0 {
			t.line("  %s", f)
			continue
		}
		t.wrap(f+": "+strings.Join(fns, ", "), "  ", "      ")
	}
	for _, n := range p.Notes {
		t.wrap("note: "+n, "  ", "    ")
	}
	if len(p.Findings) == 0 && p.Error == "" {
		t.line("  No findings.")
	}
	for i := range p.Findings {
		t.line("")
		t.finding(&p.Findings[i])
	}
	if len(p.Suppressed) > 0 {
		t.line("")
	}
	for i := range p.Suppressed {
		t.suppressed(&p.Suppressed[i])
	}
	if p.Stable != nil {
		t.line("")
		t.line("  Stable trees:")
		t.stable(p.Stable, "    ")
	}
}

func (t *textWriter) finding(f *Finding) {
	head := fmt.Sprintf("%s: %s: %s: %s", f.Severity, f.Check(), where(f), f.Message)
	if f.NeedsTree {
		head += " (needs a tree to confirm)"
	}
	t.line("%s", head) // one line, greppable
	if f.ID != "" {
		t.line("  id: %s", f.ID)
	}
	if f.Key != "" {
		t.line("  on: %s", f.Key)
	}
	for _, s := range f.Chain {
		step := fmt.Sprintf("%s:%d %s(): %s", s.File, s.Line, s.Func, s.What)
		t.line("  %s", step)
	}
	for _, e := range f.Evidence {
		t.line("    %s", e)
	}
	if len(f.Old) > 0 {
		t.line("  was:")
		for _, e := range f.Old {
			t.line("    %s", e)
		}
	}
	if f.Explanation != "" {
		t.line("")
		t.wrap(f.Explanation, "  ", "  ")
	}
	if c := f.Confirmed; c != nil {
		t.line("")
		t.line("  confirmed in a VM: %s report with %s() on its stack while %s ran (patched kernel):", flat(c.Kind), flat(c.Function), flat(c.Test))
		for _, l := range excerpt(c.Excerpt, maxSplatLines) {
			t.line("    %s", l)
		}
	}
}

// changes writes what changed since the previous version: the counts,
// the fixed, new and unchanged findings one line each, the range-diff.
func (t *textWriter) changes(c *Changes) {
	t.line("changes since v%d <%s>: %s", c.PreviousVersion, c.PreviousID, c.Summary())
	for _, g := range []struct {
		what string
		refs []FindingRef
	}{{"fixed", c.Fixed}, {"new", c.New}, {"unchanged", c.Unchanged}} {
		for _, f := range g.refs {
			t.wrap(g.what+": "+f.Line(), "  ", "    ")
		}
	}
	for _, l := range c.RangeDiffLines() {
		t.line("  %s", l)
	}
}

// suppressed writes a suppressed finding in two lines: what it is, and
// what suppressed it.
func (t *textWriter) suppressed(s *Suppressed) {
	t.line("%s", "  suppressed: "+s.ID+" "+s.Check()+": "+where(&s.Finding)+": "+s.Message)
	by := "by " + s.By
	if s.Reason != "" {
		by += ": " + s.Reason
	}
	t.wrap(by, "    ", "      ")
}

// where is "file:line func()" of a finding.
func where(f *Finding) string {
	loc := f.File
	if f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
	}
	if f.Func != "" {
		loc += " " + f.Func + "()"
	}
	return loc
}

func (t *textWriter) stable(s *StableReport, ind string) {
	if s.Relevant != "" {
		t.line("%srelevant for: %s", ind, s.Relevant)
	}
	for _, tr := range s.Trees {
		switch {
		case tr.Applied && tr.Build != "":
			t.line("%s%s: applied, build %s", ind, tr.Name, tr.Build)
		case tr.Applied:
			t.line("%s%s: applied", ind, tr.Name)
		default:
			t.line("%s%s: failed to apply", ind, tr.Name)
		}
		for _, d := range tr.Dependencies {
			t.line("%s    possible dependency: %.12s (\"%s\")", ind, d.SHA, d.Subject)
		}
		for _, d := range tr.Prerequisites {
			t.line("%s    applies with prerequisite: %.12s (\"%s\")", ind, d.SHA, d.Subject)
		}
		for _, e := range tr.BuildErrors {
			t.line("%s    %s", ind, e)
		}
	}
	if !s.Upstream {
		t.line("%snot upstream yet", ind)
	}
}

// vm writes the VM section as VMReport.Text renders it.
func (t *textWriter) vm(v *VMReport) {
	for _, l := range strings.Split(strings.TrimRight(v.Text(), "\n"), "\n") {
		t.line("%s", l)
	}
}

// wrap writes s wrapped at 72 display columns, first line indented by
// first, the rest (and every further line of s) by rest. Words longer than
// the width are not broken.
func (t *textWriter) wrap(s, first, rest string) {
	const width = 72
	for pi, para := range strings.Split(s, "\n") {
		ind := first
		if pi > 0 {
			ind = rest
		}
		for _, l := range textfmt.Fill(para, width, ind, rest) {
			t.line("%s", l)
		}
	}
}
