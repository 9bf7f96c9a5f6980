package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// WriteTerse writes one line per finding, "file:line: severity: rule:
// message [id]", like checkpatch --terse and compiler diagnostics, for
// editors and CI logs (the finding's id in brackets). A finding without a line is "file: ..."; one without a file
// (about the series) is named by the series' Message-ID. Findings on a
// diff recovered from mail damage end with "[diff recovered from mail
// damage]". Patches that
// could not be analysed get an "error" line naming their Message-ID.
func WriteTerse(w io.Writer, reports []*Report) error {
	ensureIDs(reports)
	bw := bufio.NewWriter(w)
	for _, r := range reports {
		for _, p := range r.Patches {
			if p.Error != "" {
				fmt.Fprintf(bw, "<%s>: error: %s\n", oneLine(p.MessageID), oneLine(p.Error))
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
				fmt.Fprintf(bw, "%s: %s: %s: %s%s%s\n", terseWhere(r, f), f.Severity, oneLine(f.Rule), oneLine(f.Message), id, tail)
			}
		}
	}
	return bw.Flush()
}

// terseWhere is "file:line" (or "file", or the series' Message-ID).
func terseWhere(r *Report, f Finding) string {
	switch {
	case f.File == "":
		return "<" + oneLine(r.SeriesID) + ">"
	case f.Line <= 0:
		return oneLine(f.File)
	}
	return fmt.Sprintf("%s:%d", oneLine(f.File), f.Line)
}

// oneLine makes text from mail safe for a one-line record: control
// characters escaped, line breaks turned into spaces.
func oneLine(s string) string {
	s = strings.Join(strings.Fields(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)), " ")
	return EscapeControls(s)
}
