package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// TerseOptions tune WriteTerse.
type TerseOptions struct {
	// GCC writes the lines as gcc prints diagnostics, for editors'
	// problem matchers: the location first, "warning:" for a risk,
	// "note:" for a note, "error:" for a patch that could not be
	// analysed, and the patch named at the end in brackets.
	GCC bool
}

// WriteTerse writes one line per finding, "PATCH: file:line: severity:
// rule: message [id]", like checkpatch --terse and compiler diagnostics,
// for editors and CI logs. PATCH names the patch: the file that held it
// alone (PatchReport.File) or its <Message-ID>. A finding without a line
// has "file:", one without a file (about the patch) no location. Findings
// on a diff recovered from mail damage end with "[diff recovered from mail
// damage]". Patches that could not be analysed get an "error" line, patches
// already in the tree an "already-applied" note line. With
// opts.GCC the location comes first (see TerseOptions).
func WriteTerse(w io.Writer, reports []*Report, opts TerseOptions) error {
	ensureIDs(reports)
	bw := bufio.NewWriter(w)
	for _, r := range reports {
		for _, p := range r.Patches {
			name := tersePatch(p)
			if p.Error != "" {
				fmt.Fprintf(bw, "%s: error: %s\n", name, oneLine(p.Error))
			}
			if p.AlreadyApplied != "" {
				fmt.Fprintf(bw, "%s: note: already-applied: %s\n", name, oneLine(p.AlreadyApplied))
			}
			tail := ""
			for _, n := range p.Notes {
				if strings.HasPrefix(n, diffcheck.RecoveredNote) {
					tail = " [diff recovered from mail damage]"
				}
			}
			for _, f := range p.Findings {
				id := ""
				if f.ID != "" {
					id = " [" + oneLine(f.ID) + "]"
				}
				what := fmt.Sprintf("%s: %s%s%s", oneLine(f.Rule), oneLine(f.Message), id, tail)
				where := terseWhere(f)
				switch {
				case !opts.GCC && where == "":
					fmt.Fprintf(bw, "%s: %s: %s\n", name, f.Severity, what)
				case !opts.GCC:
					fmt.Fprintf(bw, "%s: %s: %s: %s\n", name, where, f.Severity, what)
				case where == "":
					fmt.Fprintf(bw, "%s: %s: %s\n", name, gccSeverity(f.Severity), what)
				default:
					fmt.Fprintf(bw, "%s: %s: %s [%s]\n", where, gccSeverity(f.Severity), what, name)
				}
			}
		}
	}
	return bw.Flush()
}

// tersePatch names a patch: its file, else its <Message-ID>.
func tersePatch(p PatchReport) string {
	if p.File != "" {
		return oneLine(p.File)
	}
	return "<" + oneLine(p.MessageID) + ">"
}

// terseWhere is "file:line", "file", or "" for a finding about the patch.
func terseWhere(f Finding) string {
	switch {
	case f.File == "":
		return ""
	case f.Line <= 0:
		return oneLine(f.File)
	}
	return fmt.Sprintf("%s:%d", oneLine(f.File), f.Line)
}

// gccSeverity is the word gcc uses for a severity: a risk is a warning.
func gccSeverity(s Severity) string {
	if s == SeverityRisk {
		return "warning"
	}
	return string(s)
}

// oneLine makes text from mail safe for a one-line record: control
// characters escaped, line breaks turned into spaces.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)), " ")
	return EscapeControls(s)
}
