package report

import (
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// This file renders findings as plain text for mail (package reply's
// replies and command answers): kernel-mail style, control characters
// stripped, code lines cut so that mail clients and quoting keep them
// readable. WriteText is check's own text format, one greppable line per
// finding.

// MaxCodeColumns is the widest a line of code quoted in plain text may
// be, its indent included: longer lines are cut with CodeCutMarker.
const MaxCodeColumns = 100

// CodeCutMarker ends a code line cut at MaxCodeColumns.
const CodeCutMarker = " [...]"

// PlainOptions shape PlainFindings.
type PlainOptions struct {
	// MaxLines bounds the evidence and removed lines of each finding
	// (0: all of them); the rest is counted in a "... (N more)" line.
	MaxLines int
	// Link returns the address of a finding's web page ("" or a nil Link:
	// no "Web:" line).
	Link func(id string) string
	// NeedsTree closes a finding that needs a kernel tree to be decided
	// (Finding.NeedsTree), wrapped ("": a short default). Replies word it
	// for the patch's author.
	NeedsTree string
}

// PlainFindings renders findings in plain kernel-mail style, one block
// each, blocks separated by an empty line:
//
//	[risk] sleep-in-atomic: kernel/watch_queue.c:98 post_one_notification()
//	    Finding id: 0123456789ab
//	    Web: https://autosel.example.org/finding/0123456789ab (with Link)
//	    message
//	    explanation, wrapped
//	    Evidence: / Before: code lines (cut at MaxCodeColumns)
//	    Call chain: file:line func(): what, outermost first
func PlainFindings(fs []Finding, opts PlainOptions) string {
	var b strings.Builder
	for i := range fs {
		if i > 0 {
			b.WriteString("\n")
		}
		plainFinding(&b, &fs[i], opts)
	}
	return b.String()
}

func plainFinding(b *strings.Builder, f *Finding, opts PlainOptions) {
	lim := func(ls []string) []string {
		if opts.MaxLines <= 0 || len(ls) <= opts.MaxLines {
			return ls
		}
		return append(append([]string(nil), ls[:opts.MaxLines]...), fmt.Sprintf("... (%d more)", len(ls)-opts.MaxLines))
	}
	loc := StripControlsLine(f.File)
	if f.Line > 0 {
		loc = fmt.Sprintf("%s:%d", loc, f.Line)
	}
	if f.Func != "" {
		loc += " " + StripControlsLine(f.Func) + "()"
	}
	fmt.Fprintf(b, "[%s] %s: %s\n", StripControlsLine(string(f.Severity)), StripControlsLine(f.Check()), strings.TrimSpace(loc))
	if f.ID != "" {
		b.WriteString("    Finding id: " + StripControlsLine(f.ID) + "\n")
		if opts.Link != nil {
			if u := opts.Link(f.ID); u != "" {
				b.WriteString("    Web: " + StripControlsLine(u) + "\n")
			}
		}
	}
	for _, l := range textfmt.Wrap(StripControlsLine(f.Message), 72) {
		b.WriteString("    " + l + "\n")
	}
	if f.Key != "" {
		b.WriteString("    Object: " + StripControlsLine(f.Key) + "\n")
	}
	for _, l := range textfmt.Wrap(StripControls(f.Explanation), 68) {
		b.WriteString("    " + l + "\n")
	}
	for _, part := range []struct {
		head  string
		lines []string
	}{{"Before", f.Old}, {"Evidence", f.Evidence}} {
		if len(part.lines) == 0 {
			continue
		}
		b.WriteString("    " + part.head + ":\n")
		for _, l := range lim(part.lines) {
			b.WriteString(CodeLine("        ", l) + "\n")
		}
	}
	if len(f.Chain) > 0 {
		b.WriteString("    Call chain:\n")
		for _, s := range f.Chain {
			where := StripControlsLine(s.File)
			if s.Line > 0 {
				where = fmt.Sprintf("%s:%d", where, s.Line)
			}
			line := fmt.Sprintf("        %s %s()", where, StripControlsLine(s.Func))
			if s.What != "" {
				line += ": " + StripControlsLine(s.What)
			}
			b.WriteString(line + "\n")
		}
	}
	if f.NeedsTree {
		advice := opts.NeedsTree
		if advice == "" {
			advice = "(a kernel tree is needed to decide this: callers are outside the patch)"
		}
		for _, l := range textfmt.Wrap(advice, 68) {
			b.WriteString("    " + l + "\n")
		}
	}
}

// CodeLine is line l of code (evidence, removed lines) as quoted after
// indent: control characters stripped and, past MaxCodeColumns (tabs at
// every 8 columns), cut with CodeCutMarker.
func CodeLine(indent, l string) string {
	l = StripControlsLine(l)
	limit := MaxCodeColumns - len(CodeCutMarker)
	col := CodeColumns(indent, 0)
	if CodeColumns(l, col) <= MaxCodeColumns {
		return indent + l
	}
	var b strings.Builder
	for _, r := range l {
		next := CodeColumns(string(r), col)
		if next > limit {
			break
		}
		b.WriteRune(r)
		col = next
	}
	return indent + strings.TrimRight(b.String(), " \t") + CodeCutMarker
}

// CodeColumns returns the column after s written from column col: a tab
// moves to the next multiple of 8, other characters take their display
// width.
func CodeColumns(s string, col int) int {
	for _, r := range s {
		if r == '\t' {
			col = (col/8 + 1) * 8
			continue
		}
		col += textfmt.Width(string(r))
	}
	return col
}

// StripControls removes control characters other than tab and newline
// from text for mail (EscapeControls shows them instead, for a terminal).
func StripControls(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return r
		}
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// StripControlsLine is StripControls for text that must stay on one
// line: newlines become spaces.
func StripControlsLine(s string) string {
	return StripControls(strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", " "), "\n", " "))
}
