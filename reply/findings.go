package reply

import (
	"fmt"
	"sort"
	"strings"

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
//	    message
//	    explanation, wrapped
//	    Evidence: / Before: code lines
//	    Call chain: file:line func(): what, outermost first
func writeFindings(b *strings.Builder, fs []report.Finding) {
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
		for _, l := range wrap(cleanLine(f.Message), 72) {
			b.WriteString("    " + l + "\n")
		}
		if f.Key != "" {
			b.WriteString("    Object: " + cleanLine(f.Key) + "\n")
		}
		for _, l := range wrap(clean(f.Explanation), 68) {
			b.WriteString("    " + l + "\n")
		}
		if len(f.Old) > 0 {
			b.WriteString("    Before:\n")
			for _, l := range limit(f.Old, 12) {
				b.WriteString("        " + cleanLine(l) + "\n")
			}
		}
		if len(f.Evidence) > 0 {
			b.WriteString("    Evidence:\n")
			for _, l := range limit(f.Evidence, 12) {
				b.WriteString("        " + cleanLine(l) + "\n")
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
			b.WriteString("    (a kernel tree is needed to decide this: callers are outside the patch)\n")
		}
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
		parts = append(parts, plural(risk, "risk", "risks"))
	}
	if note > 0 {
		parts = append(parts, plural(note, "note", "notes"))
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// writeVM writes the VM regression-suite results: regressions in full,
// other tests with a remark one line each, the rest counted.
func writeVM(b *strings.Builder, vm *report.VMReport) {
	fmt.Fprintf(b, "VM regression suite on %s: build %s\n", cleanLine(vm.Tree), cleanLine(orDash(vm.Build)))
	for _, e := range limit(vm.BuildErrors, 20) {
		b.WriteString("    " + cleanLine(e) + "\n")
	}
	unchanged := 0
	for _, t := range vm.Tests {
		if !t.Regression && t.Detail == "" && t.Splat == "" && t.Baseline == t.Patched {
			unchanged++
			continue
		}
		line := fmt.Sprintf("    %s: %s -> %s", cleanLine(t.Name), cleanLine(orDash(t.Baseline)), cleanLine(orDash(t.Patched)))
		if t.Regression {
			line += "  REGRESSION"
		}
		b.WriteString(line + "\n")
		if t.Detail != "" {
			b.WriteString("        " + cleanLine(t.Detail) + "\n")
		}
		if t.Splat != "" {
			for _, l := range limit(strings.Split(strings.TrimRight(clean(t.Splat), "\n"), "\n"), 30) {
				b.WriteString("        " + l + "\n")
			}
		}
	}
	if unchanged > 0 {
		fmt.Fprintf(b, "    %s unchanged (same result before and after the patch)\n", plural(unchanged, "test", "tests"))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// wrap fills text into lines of at most width columns, keeping paragraph
// breaks (blank lines).
func wrap(text string, width int) []string {
	var out []string
	for i, para := range strings.Split(strings.TrimSpace(text), "\n\n") {
		if strings.TrimSpace(para) == "" {
			continue
		}
		if i > 0 && len(out) > 0 {
			out = append(out, "")
		}
		line := ""
		for _, w := range strings.Fields(para) {
			switch {
			case line == "":
				line = w
			case len(line)+1+len(w) > width:
				out = append(out, line)
				line = w
			default:
				line += " " + w
			}
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}
