package reply

import (
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
	"github.com/autosel-bot/autosel-bot/report"
)

// selectFindings returns the findings worth mailing, risks first (stable
// otherwise), notes only when opts.Notes.
func selectFindings(fs []report.Finding, opts Options) []report.Finding {
	var out []report.Finding
	for _, f := range fs {
		if f.Severity == report.SeverityRisk || opts.Notes {
			out = append(out, f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Severity.Rank() > out[j].Severity.Rank() })
	return out
}

// writeFindings writes findings in plain kernel-mail style:
//
//	[risk] sleep-in-atomic: kernel/watch_queue.c:98 post_one_notification()
//	    Finding id: 0123456789ab
//	    Web: https://autosel.example.org/finding/0123456789ab (with link)
//	    message
//	    explanation, wrapped
//	    Evidence: / Before: code lines (cut at maxCodeColumns)
//	    Call chain: file:line func(): what, outermost first
func writeFindings(b *strings.Builder, fs []report.Finding, link func(id string) string) {
	writeFindingsLimit(b, fs, 12, link)
}

// writeFindingsLimit is writeFindings with at most max evidence and
// removed lines per finding (0: all of them); link (may be nil) gives
// the address of a finding's web page.
func writeFindingsLimit(b *strings.Builder, fs []report.Finding, max int, link func(id string) string) {
	lim := func(ls []string) []string {
		if max <= 0 {
			return ls
		}
		return limit(ls, max)
	}
	for i, f := range fs {
		if i > 0 {
			b.WriteString("\n")
		}
		loc := cleanLine(f.File)
		if f.Line > 0 {
			loc = fmt.Sprintf("%s:%d", loc, f.Line)
		}
		if f.Func != "" {
			loc += " " + cleanLine(f.Func) + "()"
		}
		fmt.Fprintf(b, "[%s] %s: %s\n", cleanLine(string(f.Severity)), cleanLine(f.Check()), strings.TrimSpace(loc))
		if f.ID != "" {
			b.WriteString("    Finding id: " + cleanLine(f.ID) + "\n")
			if link != nil {
				if u := link(f.ID); u != "" {
					b.WriteString("    Web: " + cleanLine(u) + "\n")
				}
			}
		}
		for _, l := range textfmt.Wrap(cleanLine(f.Message), 72) {
			b.WriteString("    " + l + "\n")
		}
		if f.Key != "" {
			b.WriteString("    Object: " + cleanLine(f.Key) + "\n")
		}
		for _, l := range textfmt.Wrap(clean(f.Explanation), 68) {
			b.WriteString("    " + l + "\n")
		}
		if len(f.Old) > 0 {
			b.WriteString("    Before:\n")
			for _, l := range lim(f.Old) {
				b.WriteString(codeLine("        ", l) + "\n")
			}
		}
		if len(f.Evidence) > 0 {
			b.WriteString("    Evidence:\n")
			for _, l := range lim(f.Evidence) {
				b.WriteString(codeLine("        ", l) + "\n")
			}
		}
		if len(f.Chain) > 0 {
			b.WriteString("    Call chain:\n")
			for _, s := range f.Chain {
				where := cleanLine(s.File)
				if s.Line > 0 {
					where = fmt.Sprintf("%s:%d", where, s.Line)
				}
				line := fmt.Sprintf("        %s %s()", where, cleanLine(s.Func))
				if s.What != "" {
					line += ": " + cleanLine(s.What)
				}
				b.WriteString(line + "\n")
			}
		}
		if f.NeedsTree {
			for _, l := range textfmt.Wrap(needsTreeAdvice, 68) {
				b.WriteString("    " + l + "\n")
			}
		}
	}
}

// needsTreeAdvice closes a finding the bot could not decide from the
// patch alone. The reply goes to the patch's author, who does not run the
// bot: it says what the bot could not see and what to check, never how to
// run the bot.
const needsTreeAdvice = "(Not decided: the bot had the patch but not the kernel tree, so the " +
	"callers and other users outside the patch were not checked. Please check them as described above.)"

// writeSuppressed counts the patch's suppressed findings and says what
// suppressed them ("    1 finding suppressed, not reported (by
// .autosel-ignore:3)"); after no reported finding, it says so first.
func writeSuppressed(b *strings.Builder, p *report.PatchReport, after bool) {
	if len(p.Suppressed) == 0 {
		return
	}
	var by []string
	seen := map[string]bool{}
	for _, sp := range p.Suppressed {
		if !seen[sp.By] {
			seen[sp.By] = true
			by = append(by, cleanLine(sp.By))
		}
	}
	line := textfmt.Plural(len(p.Suppressed), "finding", "findings") + " suppressed, not reported (by " + strings.Join(by, "; ") + ")"
	if !after {
		line = "No findings reported; " + line
	} else {
		b.WriteString("\n")
	}
	for _, l := range textfmt.Wrap(line, 72) {
		b.WriteString("    " + l + "\n")
	}
}

// countFindings says "1 risk, 2 notes".
func countFindings(fs []report.Finding) string {
	var risk, note int
	for _, f := range fs {
		if f.Severity == report.SeverityRisk {
			risk++
		} else {
			note++
		}
	}
	var parts []string
	if risk > 0 {
		parts = append(parts, textfmt.Plural(risk, "risk", "risks"))
	}
	if note > 0 {
		parts = append(parts, textfmt.Plural(note, "note", "notes"))
	}
	return strings.Join(parts, ", ")
}

// writeVM quotes the VM regression-suite section as report renders it for
// mail (unchanged tests counted, long lists cut), control characters
// stripped.
func writeVM(b *strings.Builder, vm *report.VMReport) {
	b.WriteString(clean(vm.TextWith(report.VMTextOptions{Brief: true})))
}
