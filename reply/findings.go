package reply

import (
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

// writeFindings writes findings in plain kernel-mail style
// (report.PlainFindings), at most 12 evidence and removed lines each; link
// (may be nil) gives the address of a finding's web page.
func writeFindings(b *strings.Builder, fs []report.Finding, link func(id string) string) {
	writeFindingsLimit(b, fs, 12, link)
}

// writeFindingsLimit is writeFindings with at most max evidence and
// removed lines per finding (0: all of them).
func writeFindingsLimit(b *strings.Builder, fs []report.Finding, max int, link func(id string) string) {
	b.WriteString(report.PlainFindings(fs, report.PlainOptions{MaxLines: max, Link: link, NeedsTree: needsTreeAdvice}))
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
