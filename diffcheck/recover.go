package diffcheck

import (
	"fmt"
	"path"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/textfmt"
)

// Mail clients damage inline diffs in two common ways: they wrap long
// lines (the rest of a hunk line continues on a line of its own, without
// an op character) and they turn tabs into spaces. A maintainer repairs
// both by hand before applying such a patch; Recover does the same:
//
//   - a line inside a hunk that is not a hunk line, while the hunk's
//     counts say more lines are due, is the wrapped rest of the line
//     before it and is joined to it (with the one space the wrap replaced);
//   - in a file diff of a tab-indented language (C, assembler, Kconfig,
//     Makefiles, device trees) whose hunk lines hold no tab at all but are
//     indented by runs of spaces, leading spaces are turned back into tabs
//     at the tab stops a mail client expands to (the first one 7 columns
//     after the op character, then every 8).
//
// ApplyTree then restores the exact text of context and removed lines
// from the tree when a hunk matches it with white space ignored.

// RecoveredNote starts every note (ChangeSet.Notes) that says a diff was
// repaired from mail-client damage; reports and replies look for it.
const RecoveredNote = "recovered a mail-damaged diff"

// recovery is the outcome of recoverDiff.
type recovery struct {
	// text is the repaired diff.
	text string
	// orig[i] is the 1-based line of the original diff that line i+1 of
	// text starts at.
	orig []int
	// joined are the original lines that were wrapped continuations.
	joined []int
	// retabbed counts lines whose leading spaces became tabs.
	retabbed int
	files    []string
}

// changed reports whether anything was repaired.
func (r *recovery) changed() bool { return len(r.joined) > 0 || r.retabbed > 0 }

// note describes the repair for the report.
func (r *recovery) note() string {
	var parts []string
	if n := len(r.joined); n > 0 {
		where := "diff lines "
		if n == 1 {
			where = "diff line "
		}
		parts = append(parts, fmt.Sprintf("re-joined %s (%s%s)", textfmt.Plural(n, "line-wrapped line", "line-wrapped lines"),
			where, joinInts(r.joined)))
	}
	if r.retabbed > 0 {
		parts = append(parts, fmt.Sprintf("turned leading spaces back into tabs in %s of %s",
			textfmt.Plural(r.retabbed, "line", "lines"), strings.Join(r.files, ", ")))
	}
	return RecoveredNote + ": " + strings.Join(parts, "; ") +
		"; findings on this patch rest on the recovered text"
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// recoverDiff undoes line wrapping and tab expansion (see above).
func recoverDiff(diff string) *recovery {
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	r := &recovery{}
	out := make([]string, 0, len(lines))
	oldN, newN := 0, 0
	inHunk, joinable := false, false
	// lastLine is set right after the line that completed a hunk's counts:
	// that line too may have been wrapped (see wrappedLast).
	lastLine := false
	for i, l := range lines {
		t := strings.TrimRight(l, "\r\n")
		wasLast := lastLine
		lastLine = false
		switch {
		case strings.HasPrefix(t, "@@ "):
			_, ol, _, nl, ok := parseHunkHeader(t)
			inHunk = ok
			oldN, newN = int(ol), int(nl)
			joinable = ok && completesJoined(lines[i+1:], oldN, newN)
		case joinable && len(out) > 0 && ((inHunk && (oldN > 0 || newN > 0) && wrappedRest(t, out[len(out)-1])) ||
			(wasLast && wrappedLast(t, out[len(out)-1], lines[i+1:]))):
			prev := strings.TrimRight(out[len(out)-1], "\r\n")
			eol := out[len(out)-1][len(prev):]
			out[len(out)-1] = prev + " " + strings.TrimLeft(t, " ") + eol
			r.joined = append(r.joined, i+1)
			continue
		case inHunk && (oldN > 0 || newN > 0):
			switch {
			case t == "" || t[0] == ' ':
				oldN--
				newN--
			case t[0] == '-':
				oldN--
			case t[0] == '+':
				newN--
			}
			lastLine = oldN <= 0 && newN <= 0
		default:
			inHunk = false
		}
		out = append(out, l)
		r.orig = append(r.orig, i+1)
	}
	r.retab(out)
	r.text = strings.Join(out, "")
	return r
}

// completesJoined reports whether a hunk with counts oldN, newN comes out
// exact over lines when wrapped rests are joined to the line before them:
// only then is a line without op character taken for a wrapped rest.
func completesJoined(lines []string, oldN, newN int) bool {
	prev := ""
	for _, l := range lines {
		if oldN <= 0 && newN <= 0 {
			break
		}
		t := strings.TrimRight(l, "\r\n")
		switch {
		case wrappedRest(t, prev):
			continue
		case t == "" || t[0] == ' ':
			oldN--
			newN--
		case t[0] == '-':
			oldN--
		case t[0] == '+':
			newN--
		case t[0] == '\\':
		default:
			return false
		}
		prev = t
	}
	return oldN == 0 && newN == 0
}

// wrappedRest reports whether t is the wrapped rest of hunk line prev.
func wrappedRest(t, prev string) bool {
	prev = strings.TrimRight(prev, "\r\n")
	if prev == "" || (prev[0] != ' ' && prev[0] != '+' && prev[0] != '-') {
		return false
	}
	return t != "" && t[0] != ' ' && t[0] != '\t' && t[0] != '+' && t[0] != '-' && t[0] != '\\' && t[0] != '@' &&
		!strings.HasPrefix(t, "diff ") && !strings.HasPrefix(t, "index ") && !strings.HasPrefix(t, "Index: ")
}

// wrappedLast reports whether t, the line after the one that completed a
// hunk, is the wrapped rest of that last hunk line: it must look like a
// wrapped rest, not like a trailer ("base-commit: ..."), and what follows
// it must be where a hunk may end (the end of the diff, the next hunk or
// file, the signature separator).
func wrappedLast(t, prev string, rest []string) bool {
	if !wrappedRest(t, prev) || trailerLike(t) {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	n := strings.TrimRight(rest[0], "\r\n")
	return n == "" || n == "--" || n == "-- " || strings.HasPrefix(n, "@@ ") || strings.HasPrefix(n, "diff ") ||
		strings.HasPrefix(n, "Index: ") || strings.HasPrefix(n, "--- ") || strings.HasPrefix(n, "\\ ")
}

// trailerLike reports whether t looks like a "key: value" line that
// format-patch or a mailer adds after a diff (base-commit:, prerequisite-patch-id:).
func trailerLike(t string) bool {
	k, _, ok := strings.Cut(t, ": ")
	if !ok || k == "" {
		return false
	}
	for _, c := range k {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Repaired returns diff with the damage of a mail client undone (see
// above; the white space of context lines is left to git apply
// --ignore-whitespace or ApplyTree) and whether anything was repaired.
// Stages that hand a mailed diff to git apply use it, so a patch the
// analysis could read also applies.
func Repaired(diff string) (string, bool) {
	if len(diff) > MaxDiffSize {
		return diff, false
	}
	r := recoverDiff(diff)
	if !r.changed() {
		return diff, false
	}
	return r.text, true
}

// tabIndented reports whether files at p are indented with tabs by
// convention.
func tabIndented(p string) bool {
	base := path.Base(p)
	switch path.Ext(base) {
	case ".c", ".h", ".S", ".s", ".dts", ".dtsi", ".lds", ".mk":
		return true
	}
	return strings.HasPrefix(base, "Makefile") || strings.HasPrefix(base, "Kconfig") || strings.HasPrefix(base, "Kbuild")
}

// retab turns leading spaces into tabs in the hunk lines of tab-indented
// files that carry no tab at all but space-runs of 7 or more after the op
// character (a mail client's tab expansion).
func (r *recovery) retab(lines []string) {
	type span struct {
		file       string
		start, end int // hunk lines of the file diff
	}
	var spans []span
	cur := span{start: -1}
	flush := func(end int) {
		if cur.start >= 0 {
			cur.end = end
			spans = append(spans, cur)
		}
		cur = span{start: -1}
	}
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff "):
			flush(i)
		case strings.HasPrefix(l, "+++ "):
			flush(i)
			cur = span{file: headerPath(strings.TrimRight(l[4:], "\r\n")), start: i + 1}
		}
	}
	flush(len(lines))
	for _, sp := range spans {
		if !tabIndented(sp.file) {
			continue
		}
		hasTab, deep := false, false
		for _, l := range lines[sp.start:sp.end] {
			if !isBodyLine(l) {
				continue
			}
			if strings.ContainsRune(l[1:], '\t') {
				hasTab = true
				break
			}
			if leadingSpaces(l[1:]) >= 7 {
				deep = true
			}
		}
		if hasTab || !deep {
			continue
		}
		n := 0
		for i := sp.start; i < sp.end; i++ {
			l := lines[i]
			if !isBodyLine(l) {
				continue
			}
			sp := leadingSpaces(l[1:])
			if sp < 7 {
				continue
			}
			tabs, rest := 1+(sp-7)/8, (sp-7)%8
			lines[i] = l[:1] + strings.Repeat("\t", tabs) + strings.Repeat(" ", rest) + l[1+sp:]
			n++
		}
		if n > 0 {
			r.retabbed += n
			r.files = append(r.files, sp.file)
		}
	}
}

// isBodyLine reports whether l is a hunk line with content after its op.
func isBodyLine(l string) bool {
	return len(l) > 1 && (l[0] == ' ' || l[0] == '+' || l[0] == '-') &&
		!strings.HasPrefix(l, "--- ") && !strings.HasPrefix(l, "+++ ")
}

func leadingSpaces(s string) int {
	n := 0
	for n < len(s) && s[n] == ' ' {
		n++
	}
	return n
}

// Repair returns diff with mail-client damage undone (wrapped lines
// re-joined where the hunk counts require it, expanded tabs turned back in
// tab-indented files) and a note saying what was repaired; diff itself and
// "" when nothing was. Stages that hand the diff to git apply (stable
// trees, VM builds) use it so that they apply what Parse analysed.
func Repair(diff string) (string, string) {
	r := recoverDiff(diff)
	if !r.changed() {
		return diff, ""
	}
	return r.text, r.note()
}
