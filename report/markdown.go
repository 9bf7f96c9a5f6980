package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// MarkdownOptions configure WriteMarkdown.
type MarkdownOptions struct {
	// Heading is the first line (e.g. "autosel-bot review of abc123").
	Heading string
	// Notes includes note-level findings in full (risks always are).
	Notes bool
	// Inline marks findings that are also posted as line comments: they
	// are listed in one line each with "(see the line comment)".
	Inline func(f *Finding) bool
	// FindingURL gives the address of a finding's web page (web.base_url);
	// nil or "": no link. Each finding then links its page.
	FindingURL func(id string) string
}

// PageLink is the Markdown link to a finding's web page that follows
// it, "" when link is nil or gives no address.
func PageLink(f *Finding, link func(id string) string) string {
	if link == nil || f.ID == "" {
		return ""
	}
	u := link(f.ID)
	if u == "" {
		return ""
	}
	return "[finding page](<" + strings.NewReplacer("<", "%3C", ">", "%3E", " ", "%20", "\n", "").Replace(u) + ">)"
}

// WriteMarkdown renders one report as GitHub-flavoured Markdown, for a
// pull-request review body or a check run summary: a count line, per patch
// its findings (call chains and evidence in collapsed blocks), series notes,
// stable and VM results, and input errors. It reads the same model as the
// text and mail renderers; everything from the patch is escaped or fenced.
// Findings without an id get one (AssignIDs).
func WriteMarkdown(w io.Writer, r *Report, opts MarkdownOptions) error {
	AssignIDs(r)
	var b strings.Builder
	if opts.Heading != "" {
		b.WriteString("### " + mdEscape(opts.Heading) + "\n\n")
	}
	risks, notes := r.count()
	summary := textfmt.Plural(len(r.Patches), "patch", "patches")
	if risks+notes == 0 {
		summary += ", no findings"
	} else {
		summary += ": **" + textfmt.Plural(risks, "risk", "risks") + "**, " + textfmt.Plural(notes, "note", "notes")
	}
	if n := r.CountSuppressed(); n > 0 {
		summary += fmt.Sprintf(" (%d suppressed)", n)
	}
	b.WriteString(summary + ".\n")
	if r.Incomplete != "" {
		b.WriteString("\nIncomplete: " + mdEscape(r.Incomplete) + "\n")
	}
	if c := r.Changes; c != nil {
		fmt.Fprintf(&b, "\nChanges since v%d: %s.\n", c.PreviousVersion, mdEscape(c.Summary()))
		if lines := c.RangeDiffLines(); len(lines) > 0 {
			b.WriteString("\n" + fence(lines, "") + "\n")
		}
	}
	for _, p := range r.Patches {
		shown := 0
		for i := range p.Findings {
			if p.Findings[i].Severity == SeverityRisk || opts.Notes {
				shown++
			}
		}
		if shown == 0 && p.Error == "" && len(p.Notes) == 0 && len(p.Suppressed) == 0 {
			continue
		}
		fmt.Fprintf(&b, "\n#### %s\n\n", mdEscape(p.Subject))
		if p.Error != "" {
			b.WriteString("- error: " + mdEscape(p.Error) + "\n")
		}
		for _, n := range p.Notes {
			b.WriteString("- note: " + mdEscape(n) + "\n")
		}
		for i := range p.Findings {
			f := &p.Findings[i]
			if f.Severity != SeverityRisk && !opts.Notes {
				continue
			}
			link := PageLink(f, opts.FindingURL)
			if opts.Inline != nil && opts.Inline(f) {
				if link != "" {
					link = ", " + link
				}
				fmt.Fprintf(&b, "- %s (see the line comment%s)\n", findingHead(f), link)
				continue
			}
			if link != "" {
				link = "\n\n  " + link
			}
			b.WriteString("- " + FindingMarkdown(f) + link + "\n")
		}
		for _, sp := range p.Suppressed {
			by := sp.By
			if sp.Reason != "" {
				by += ": " + sp.Reason
			}
			fmt.Fprintf(&b, "- suppressed (%s): %s\n", mdEscape(by), findingHead(&sp.Finding))
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\n")
		for _, n := range r.Notes {
			b.WriteString("> " + mdEscape(n) + "\n")
		}
	}
	if r.Stable != nil && len(r.Stable.Trees) > 0 {
		b.WriteString("\n#### Stable trees\n\n")
		writeStableMarkdown(&b, r.Stable)
	}
	if r.VM != nil {
		b.WriteString("\n#### VM regression suite\n\n")
		writeVMMarkdown(&b, r.VM)
	}
	if len(r.Errors) > 0 {
		b.WriteString("\n#### Errors\n\n")
		for _, e := range r.Errors {
			b.WriteString("- " + mdEscape(e.String()) + "\n")
		}
	}
	if rp := r.Reproduce; rp != nil {
		b.WriteString("\n#### How to reproduce\n\n")
		b.WriteString(fence(rp.Lines(), ""))
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// findingHead is "**risk** `sleep-in-atomic` `file:line` `func()` (id
// `0123456789ab`): message".
func findingHead(f *Finding) string {
	loc := f.File
	if f.Line > 0 {
		loc += fmt.Sprintf(":%d", f.Line)
	}
	s := fmt.Sprintf("**%s** %s %s", mdEscape(string(f.Severity)), code(f.Rule), code(loc))
	if f.Func != "" {
		s += " " + code(f.Func+"()")
	}
	if f.ID != "" {
		s += " (id " + code(f.ID) + ")"
	}
	s += ": " + mdEscape(f.Message)
	if f.NeedsTree {
		s += " (needs a tree to confirm)"
	}
	return s
}

// FindingMarkdown renders one finding: its head line, then the object,
// the explanation, and the call chain and evidence in a collapsed block.
// It is the body of a line comment and of a summary list item.
func FindingMarkdown(f *Finding) string {
	var b strings.Builder
	b.WriteString(findingHead(f))
	if f.Key != "" {
		b.WriteString("\n\n  on " + code(f.Key))
	}
	if e := strings.TrimSpace(f.Explanation); e != "" {
		b.WriteString("\n\n  " + mdEscape(strings.Join(strings.Fields(e), " ")))
	}
	if len(f.Chain) > 0 || len(f.Evidence) > 0 || len(f.Old) > 0 {
		b.WriteString("\n\n  <details><summary>call chain and evidence</summary>\n\n")
		var lines []string
		for _, s := range f.Chain {
			lines = append(lines, fmt.Sprintf("%s:%d %s(): %s", s.File, s.Line, s.Func, s.What))
		}
		if len(f.Evidence) > 0 {
			if len(lines) > 0 {
				lines = append(lines, "")
			}
			lines = append(lines, f.Evidence...)
		}
		if len(f.Old) > 0 {
			lines = append(lines, "", "was:")
			lines = append(lines, f.Old...)
		}
		b.WriteString(fence(lines, "  "))
		b.WriteString("\n  </details>")
	}
	if c := f.Confirmed; c != nil {
		fmt.Fprintf(&b, "\n\n  **Confirmed in a VM**: %s report with %s on its stack while %s ran (patched kernel)\n\n", mdEscape(c.Kind), code(c.Function+"()"), code(c.Test))
		b.WriteString(fence(strings.Split(strings.TrimRight(c.Excerpt, "\n"), "\n"), "  "))
	}
	return b.String()
}

func writeStableMarkdown(b *strings.Builder, s *StableReport) {
	for _, t := range s.Trees {
		state := "failed to apply"
		if t.Applied {
			state = "applied"
			if t.Build != "" {
				state += ", build " + t.Build
			}
		}
		fmt.Fprintf(b, "- %s: %s\n", code(t.Name), mdEscape(state))
		for _, d := range t.Dependencies {
			fmt.Fprintf(b, "  - possible dependency %s %s\n", code(shortSHA(d.SHA)), mdEscape(d.Subject))
		}
	}
	if !s.Upstream {
		b.WriteString("- not upstream yet\n")
	}
}

func writeVMMarkdown(b *strings.Builder, v *VMReport) {
	fmt.Fprintf(b, "%s (build %s", mdEscape(v.Summary), mdEscape(v.Build))
	if v.Backend != "" {
		fmt.Fprintf(b, ", backend %s", code(v.Backend))
	}
	if v.Accel != "" {
		fmt.Fprintf(b, ", %s", mdEscape(v.Accel))
	}
	b.WriteString(")\n")
	if len(v.BuildErrors) > 0 {
		b.WriteString("\n" + fence(v.BuildErrors, ""))
	}
	if len(v.Kselftests) > 0 {
		b.WriteString("\nKernel selftests, chosen by the files the patch touches:\n\n")
		for _, l := range v.Kselftests {
			fmt.Fprintf(b, "- %s\n", mdEscape(l))
		}
	}
	if t := v.KselftestTally(); t != "" {
		fmt.Fprintf(b, "\nKernel selftest results: %s\n", mdEscape(t))
	}
	var rows []string
	for _, t := range v.Tests {
		if t.Baseline == t.Patched && !t.Regression && t.Detail == "" {
			continue
		}
		mark := ""
		if t.Regression {
			mark = " **regression**"
		}
		rows = append(rows, fmt.Sprintf("| %s | %s | %s%s | %s |", code(t.Name), mdEscape(t.Baseline), mdEscape(t.Patched), mark, mdEscape(t.Detail+" "+t.Reason)))
	}
	if len(rows) > 0 {
		b.WriteString("\n| test | baseline | patched | detail |\n| --- | --- | --- | --- |\n")
		b.WriteString(strings.Join(rows, "\n") + "\n")
	}
	for _, t := range v.Tests {
		if t.Splat != "" && t.Regression {
			fmt.Fprintf(b, "\n<details><summary>%s: kernel splat</summary>\n\n%s\n</details>\n", mdEscape(t.Name),
				fence(strings.Split(strings.TrimRight(t.Splat, "\n"), "\n"), ""))
		}
	}
}

func shortSHA(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// mdEscape escapes Markdown and HTML in one line of text from a patch.
func mdEscape(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '|', '#', '~', '&':
			b.WriteByte('\\')
		case '\n', '\r':
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// code renders s as inline code, with a fence longer than any backtick run
// in s.
func code(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// fence renders lines as a fenced code block, each line indented by ind,
// with a fence longer than any backtick run in the lines.
func fence(lines []string, ind string) string {
	f := "```"
	for _, l := range lines {
		for strings.Contains(l, f) {
			f += "`"
		}
	}
	var b strings.Builder
	b.WriteString(ind + f + "\n")
	for _, l := range lines {
		b.WriteString(ind + strings.ReplaceAll(l, "\r", "") + "\n")
	}
	b.WriteString(ind + f + "\n")
	return b.String()
}
