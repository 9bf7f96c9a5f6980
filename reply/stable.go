package reply

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/report"
)

// The stable bot's fixed sentences.
const (
	automated  = "[This is an automated email]"
	testedPfx  = "The bot has tested the following trees: "
	noteLine   = "NOTE: The patch will not be queued to stable trees until it is upstream."
	notesLine  = "NOTE: The patches will not be queued to stable trees until they are upstream."
	proceed    = "How should we proceed with this patch?"
	proceedAll = "How should we proceed with these patches?"
	unableCalc = "Unable to calculate"
)

// writeStableTrees writes the part of the stable bot's mail that is about
// one patch: the reason, the tested trees, one line (or block) per tree.
// Blank lines are exactly the stable bot's.
func writeStableTrees(b *strings.Builder, sr *report.StableReport) {
	b.WriteString(clean(sr.Reason))
	b.WriteString("\n\n")
	var names []string
	for _, t := range sr.Trees {
		names = append(names, cleanLine(t.Name))
	}
	b.WriteString(testedPfx + strings.Join(names, ", ") + ".\n\n")
	for _, t := range sr.Trees {
		writeTree(b, t)
	}
}

// writeTree writes one tree's result line; multi-line results (failed
// apply, failed build) end with a blank line as the stable bot's do.
func writeTree(b *strings.Builder, t report.TreeResult) {
	name := cleanLine(t.Name)
	switch {
	case t.Error != "":
		fmt.Fprintf(b, "%s: Failed to test! %s\n", name, firstLine(t.Error))
	case t.Present != nil:
		fmt.Fprintf(b, "%s: Already applied as %s\n", name, commitLine(*t.Present))
	case !t.Applied:
		fmt.Fprintf(b, "%s: Failed to apply! Possible dependencies:\n", name)
		if len(t.Dependencies) == 0 {
			b.WriteString("    " + unableCalc + "\n")
		}
		for _, d := range t.Dependencies {
			b.WriteString("    " + commitLine(d) + "\n")
		}
		b.WriteString("\n")
	case t.Build == "ok":
		fmt.Fprintf(b, "%s: Build OK!\n", name)
	case t.Build == "refused":
		fmt.Fprintf(b, "%s: Applied OK, not built! The patch changes code that runs on the build host:\n", name)
		for _, e := range t.BuildErrors[min(1, len(t.BuildErrors)):] {
			b.WriteString("    " + cleanLine(e) + "\n")
		}
		b.WriteString("\n")
	case t.Build == "failed":
		fmt.Fprintf(b, "%s: Build failed! Errors:\n", name)
		for _, e := range t.BuildErrors {
			b.WriteString("    " + cleanLine(e) + "\n")
		}
		b.WriteString("\n")
	default:
		fmt.Fprintf(b, "%s: Applied OK!\n", name)
	}
}

// writeStableEnd writes the NOTE (when not upstream) and the question.
func writeStableEnd(b *strings.Builder, upstream, plural bool) {
	b.WriteString("\n")
	if !upstream {
		if plural {
			b.WriteString(notesLine + "\n\n")
		} else {
			b.WriteString(noteLine + "\n\n")
		}
	}
	if plural {
		b.WriteString(proceedAll + "\n")
	} else {
		b.WriteString(proceed + "\n")
	}
}

// backportNotes are this bot's additions about one patch's trees:
// prerequisite chains that make it apply, backports in other trees, the
// failing hunks, and the upstream commit when there is one.
func backportNotes(sr *report.StableReport, prefix string) []string {
	var out []string
	for _, t := range sr.Trees {
		name := prefix + cleanLine(t.Name)
		if n := len(t.Prerequisites); n > 0 {
			s := "s"
			if n == 1 {
				s = ""
			}
			out = append(out, fmt.Sprintf("%s: applies with %d prerequisite%s:", name, n, s))
			for _, c := range t.Prerequisites {
				out = append(out, "    "+commitLine(c))
			}
		} else if !t.Applied && t.Present == nil && t.Error == "" && len(t.Dependencies) > 0 {
			out = append(out, name+": does not apply on top of the possible dependencies either")
		}
		for _, bp := range t.Backports {
			out = append(out, fmt.Sprintf("%s: a backport exists in %s: %s", name, cleanLine(bp.Tree), commitLine(bp.Commit)))
		}
		if !t.Applied && t.Present == nil && len(t.FailedHunks) > 0 {
			out = append(out, fmt.Sprintf("%s: failed hunks: %s", name, cleanLine(strings.Join(limit(t.FailedHunks, 10), ", "))))
		}
	}
	if sr.UpstreamCommit != nil {
		how := "same subject"
		switch sr.UpstreamMatch {
		case "patch-id":
			how = "same patch-id"
		case "upstream-commit":
			how = "named in the patch"
		}
		out = append(out, fmt.Sprintf("%supstream as %s (%s)", prefix, commitLine(*sr.UpstreamCommit), how))
	}
	return out
}

func commitLine(c report.Commit) string {
	return cleanLine(c.String())
}

func limit(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return append(append([]string(nil), s[:n]...), fmt.Sprintf("... (%d more)", len(s)-n))
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return cleanLine(s)
}

// clean strips control characters other than tab and newline from text
// taken from hostile input.
func clean(s string) string {
	return report.StripControls(s)
}

// cleanLine is clean for text that must stay on one line: newlines become
// spaces.
func cleanLine(s string) string {
	return report.StripControlsLine(s)
}
