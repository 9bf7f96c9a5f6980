package diffcheck

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// MaxDiffSize bounds the diff text Parse accepts; patch mail is untrusted.
const MaxDiffSize = 32 << 20

// gitdiffLineRe extracts the line number go-gitdiff puts in its errors.
var gitdiffLineRe = regexp.MustCompile(`^gitdiff: line (\d+): (.*)$`)

// Parse parses a unified diff (git format-patch output or a traditional
// diff) into a ChangeSet with files, hunks, line numbers and the C functions
// the hunks touch as far as the patch shows them (patch-only mode; see
// ApplyTree for the tree mode). Errors are *Error values naming the diff
// line: malformed hunks, miscounted hunk headers, lines without an op
// character (typically mail-client damage) and hostile paths.
//
// Damage a mail client does to an inline diff (wrapped lines, tabs turned
// into spaces) is repaired first, as a maintainer would (see recover.go);
// line numbers still name lines of the diff as given, and cs.Notes says
// what was repaired.
func Parse(diff string) (*ChangeSet, error) {
	if len(diff) > MaxDiffSize {
		return nil, errorf(0, "diff is %d bytes, more than the %d-byte limit", len(diff), MaxDiffSize)
	}
	rec := recoverDiff(diff)
	if !rec.changed() {
		return parse(diff)
	}
	cs, err := parse(rec.text)
	if err != nil {
		var de *Error
		if errors.As(err, &de) && de.Line > 0 && de.Line <= len(rec.orig) {
			de.Line = rec.orig[de.Line-1]
		}
		return nil, err
	}
	mapLine := func(n int) int {
		if n > 0 && n <= len(rec.orig) {
			return rec.orig[n-1]
		}
		return n
	}
	for _, f := range cs.Files {
		for _, h := range f.Hunks {
			h.DiffLine = mapLine(h.DiffLine)
			for i := range h.Lines {
				h.Lines[i].DiffLine = mapLine(h.Lines[i].DiffLine)
			}
		}
	}
	cs.Recovered = true
	cs.Notes = append(cs.Notes, rec.note())
	return cs, nil
}

// parse is Parse without the recovery of mail damage.
func parse(diff string) (*ChangeSet, error) {
	lines := splitLines(diff)
	if err := checkHunkHeaders(lines); err != nil {
		return nil, err
	}
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return nil, gitdiffError(err, lines)
	}
	if len(files) == 0 {
		return nil, errorf(0, "no file changes found in diff")
	}
	gitStyle := strings.HasPrefix(diff, "diff --git ") || strings.Contains(diff, "\ndiff --git ")
	cs := &ChangeSet{}
	cur := 0 // next raw line to search for a hunk header
	for i, f := range files {
		var np prefixless
		if gitStyle {
			np = noPrefixNames(lines, fileHeaderLine(lines, i, gitStyle)-1)
		}
		fc, err := convertFile(f, gitStyle, np)
		if err != nil {
			return nil, &Error{Line: fileHeaderLine(lines, i, gitStyle), Err: err}
		}
		for _, frag := range f.TextFragments {
			h, next, err := convertHunk(frag, lines, cur)
			if err != nil {
				return nil, err
			}
			cur = next
			if err := checkAfterHunk(lines, next); err != nil {
				return nil, err
			}
			fc.Hunks = append(fc.Hunks, h)
		}
		cs.Files = append(cs.Files, fc)
	}
	cs.Funcs = patchFuncs(cs.Files)
	return cs, nil
}

// checkHunkHeaders rejects a hunk header that is cut short or malformed,
// naming the file and line: go-gitdiff takes a final "@@" (a mail cut in
// the middle of the header) as the end of the diff and would drop the
// hunk silently. Outside headers no diff line starts with '@'.
func checkHunkHeaders(lines []string) error {
	file := ""
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			if j := strings.LastIndex(l, " b/"); j >= 0 {
				file = l[j+3:]
			}
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			old, neu := headerPath(l[4:]), headerPath(lines[i+1][4:])
			if file = neu; neu == "/dev/null" {
				file = old
			}
		case l == "@" || strings.HasPrefix(l, "@@"):
			if _, _, _, _, ok := parseHunkHeader(l); ok {
				continue
			}
			what := "malformed"
			if i == len(lines)-1 || !strings.Contains(l, " @@") {
				what = "truncated"
			}
			name := file
			if name == "" {
				name = "(no file header)"
			}
			return &Error{Line: i + 1, File: file, Err: fmt.Errorf("%s: %s hunk header %q (a fragment header reads \"@@ -a,b +c,d @@\")", name, what, truncate(l, 60))}
		}
	}
	return nil
}

// headerPath is the path of a "--- "/"+++ " line without its a/ or b/
// prefix and trailing timestamp.
func headerPath(p string) string {
	if i := strings.IndexByte(p, '\t'); i >= 0 {
		p = p[:i]
	}
	p = strings.TrimSpace(p)
	if strings.HasPrefix(p, "a/") || strings.HasPrefix(p, "b/") {
		p = p[2:]
	}
	return p
}

// gitdiffError turns a go-gitdiff error into an *Error with its line.
func gitdiffError(err error, lines []string) error {
	m := gitdiffLineRe.FindStringSubmatch(err.Error())
	if m == nil {
		return &Error{Err: err}
	}
	n, _ := strconv.Atoi(m[1])
	msg := m[2]
	if strings.Contains(msg, "miscounts lines") {
		msg += " (the hunk is truncated, or a line lost its leading ' ', '+' or '-' to a mail client)"
		// Name the hunk header whose counts are wrong.
		for i := min(n, len(lines)) - 1; i >= 0; i-- {
			if strings.HasPrefix(lines[i], "@@ -") {
				n = i + 1
				break
			}
		}
	}
	if strings.HasPrefix(msg, "patch fragment without file header") && n >= 2 && n-2 < len(lines) && !structural(lines[n-2]) {
		return &Error{Line: n - 1, Err: fmt.Errorf("unexpected line %q between hunks (a hunk line must start with ' ', '+' or '-'; the patch may be line-wrapped or whitespace-damaged by a mail client)", truncate(lines[n-2], 60))}
	}
	if strings.HasPrefix(msg, "invalid line operation") {
		msg += " (a hunk line must start with ' ', '+' or '-'; the patch may be whitespace-damaged or line-wrapped by a mail client)"
	}
	return &Error{Line: n, Err: errors.New(msg)}
}

// splitLines splits s into lines without their newlines.
func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// convertFile converts a go-gitdiff file diff; np holds its paths when it
// was written without a/ and b/ prefixes.
func convertFile(f *gitdiff.File, gitStyle bool, np prefixless) (*FileChange, error) {
	fc := &FileChange{
		OldPath:  f.OldName,
		NewPath:  f.NewName,
		IsNew:    f.IsNew,
		IsDelete: f.IsDelete,
		IsRename: f.IsRename,
		IsCopy:   f.IsCopy,
		IsBinary: f.IsBinary,
		OldMode:  uint32(f.OldMode),
		NewMode:  uint32(f.NewMode),
		OldOID:   f.OldOIDPrefix,
		NewOID:   f.NewOIDPrefix,
	}
	if f.IsBinary {
		fc.HasBinaryData = f.BinaryFragment != nil
	}
	fc.file = f
	if !gitStyle {
		for _, p := range []string{fc.OldPath, fc.NewPath} {
			if strings.HasPrefix(p, "/") && p != "/dev/null" {
				return nil, fmt.Errorf("%w %q: absolute path", ErrHostilePath, p)
			}
		}
		// Traditional diffs keep their "a/" and "b/" prefixes: strip one
		// component like "patch -p1" and "git apply".
		fc.OldPath = stripP1(fc.OldPath)
		fc.NewPath = stripP1(fc.NewPath)
	} else if np.ok {
		fc.OldPath, fc.NewPath = np.oldPath, np.newPath
	}
	if fc.IsNew {
		fc.OldPath = ""
	}
	if fc.IsDelete {
		fc.NewPath = ""
	}
	if fc.OldPath == "" && fc.NewPath == "" {
		return nil, errors.New("file diff names no path")
	}
	for _, p := range []string{fc.OldPath, fc.NewPath} {
		if p == "" {
			continue
		}
		if err := CheckPath(p); err != nil {
			return nil, err
		}
	}
	return fc, nil
}

func stripP1(p string) string {
	if i := strings.IndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}

// fileHeaderLine returns the diff line of the header of file number idx:
// its "diff --git" line, or its "--- " line in a traditional diff.
func fileHeaderLine(lines []string, idx int, gitStyle bool) int {
	n := 0
	for i, l := range lines {
		var hdr bool
		if gitStyle {
			hdr = strings.HasPrefix(l, "diff --git ")
		} else {
			hdr = strings.HasPrefix(l, "--- ") && i+2 < len(lines) &&
				strings.HasPrefix(lines[i+1], "+++ ") && strings.HasPrefix(lines[i+2], "@@ -")
		}
		if hdr {
			if n == idx {
				return i + 1
			}
			n++
		}
	}
	return 0
}

// structural reports whether l may follow a hunk in a well-formed diff.
func structural(l string) bool {
	if l == "" {
		return true
	}
	for _, p := range []string{"diff ", "@@ -", "--- ", "+++ ", "-- ", "--", "index ", "Index: ", "===",
		"new file", "deleted file", "old mode", "new mode", "similarity", "dissimilarity",
		"rename ", "copy ", "Binary files", "GIT binary patch", "Only in ", "From "} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// checkAfterHunk catches a line-wrapped or whitespace-damaged line right
// after a hunk whose counts happened to be satisfied: go-gitdiff would
// silently skip it as text between files. The line is an error when the
// diff goes on after it (another hunk or file follows, or hunk-like lines
// follow it).
func checkAfterHunk(lines []string, next int) error {
	if next >= len(lines) || structural(lines[next]) {
		return nil
	}
	junk := next
	for i := next + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "-- ") || l == "--" {
			return nil // mail signature: the diff is over
		}
		if strings.HasPrefix(l, "@@ -") || strings.HasPrefix(l, "diff --git ") ||
			i == next+1 && l != "" && (l[0] == '+' || l[0] == '-' || l[0] == ' ') {
			return &Error{Line: junk + 1, Err: fmt.Errorf("unexpected line %q after a hunk (a hunk line must start with ' ', '+' or '-'; the patch may be line-wrapped or whitespace-damaged by a mail client)", truncate(lines[junk], 60))}
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}

// convertHunk converts one fragment, locating its header in the raw lines at
// or after cur to give every line its diff line number. It returns the index
// of the first raw line after the hunk.
func convertHunk(frag *gitdiff.TextFragment, lines []string, cur int) (*Hunk, int, error) {
	h := &Hunk{
		OldStart: int(frag.OldPosition),
		OldLines: int(frag.OldLines),
		NewStart: int(frag.NewPosition),
		NewLines: int(frag.NewLines),
		Section:  frag.Comment,
		frag:     frag,
	}
	hdr := -1
	for i := cur; i < len(lines); i++ {
		if o, ol, n, nl, ok := parseHunkHeader(lines[i]); ok &&
			o == frag.OldPosition && ol == frag.OldLines && n == frag.NewPosition && nl == frag.NewLines {
			hdr = i
			break
		}
	}
	if hdr < 0 {
		return nil, cur, errorf(0, "cannot locate hunk %s in the diff text", strings.TrimSpace(frag.Header()))
	}
	h.DiffLine = hdr + 1
	raw := hdr + 1
	oldN, newN := h.OldStart, h.NewStart
	if h.OldLines == 0 {
		// "-N,0" names the line after which lines are inserted.
		oldN++
	}
	if h.NewLines == 0 {
		newN++
	}
	h.Lines = make([]Line, 0, len(frag.Lines))
	for _, fl := range frag.Lines {
		for raw < len(lines) && strings.HasPrefix(lines[raw], `\ `) {
			raw++
		}
		l := Line{Text: strings.TrimSuffix(fl.Line, "\n"), DiffLine: raw + 1}
		if !strings.HasSuffix(fl.Line, "\n") {
			l.NoEOL = true
		}
		switch fl.Op {
		case gitdiff.OpContext:
			l.Op, l.OldLine, l.NewLine = OpContext, oldN, newN
			oldN++
			newN++
		case gitdiff.OpDelete:
			l.Op, l.OldLine = OpDel, oldN
			oldN++
		case gitdiff.OpAdd:
			l.Op, l.NewLine = OpAdd, newN
			newN++
		}
		h.Lines = append(h.Lines, l)
		raw++
	}
	for raw < len(lines) && strings.HasPrefix(lines[raw], `\ `) {
		raw++
	}
	return h, raw, nil
}

// parseHunkHeader parses "@@ -a,b +c,d @@ section".
func parseHunkHeader(l string) (o, ol, n, nl int64, ok bool) {
	if !strings.HasPrefix(l, "@@ -") {
		return
	}
	rest := l[len("@@ -"):]
	end := strings.Index(rest, " @@")
	if end < 0 {
		return
	}
	parts := strings.Split(rest[:end], " +")
	if len(parts) != 2 {
		return
	}
	var err1, err2 error
	o, ol, err1 = parseRange(parts[0])
	n, nl, err2 = parseRange(parts[1])
	return o, ol, n, nl, err1 == nil && err2 == nil
}

func parseRange(s string) (start, count int64, err error) {
	a, b, found := strings.Cut(s, ",")
	if start, err = strconv.ParseInt(a, 10, 64); err != nil {
		return
	}
	count = 1
	if found {
		count, err = strconv.ParseInt(b, 10, 64)
	}
	return
}

// Header renders the hunk's "@@ -a,b +c,d @@" without the section.
func (h *Hunk) Header() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
}

// String renders the hunk header as in the diff.
func (h *Hunk) String() string {
	s := fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.OldStart, h.OldLines, h.NewStart, h.NewLines)
	if h.Section != "" {
		s += " " + h.Section
	}
	return s
}
