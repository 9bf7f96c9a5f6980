package mail

import (
	"strconv"
	"strings"
)

// ExtractDiff finds the first unified diff in body and returns it with the
// 1-based line of body where it starts ("" and 0 when there is none).
//
// A diff starts at a "diff --git " line, or at a "--- " line directly
// followed by a "+++ " line and a "@@ " hunk header. It extends over diff
// headers (index, mode, rename, similarity, binary lines) and hunks, whose
// line counts from the "@@ -a,b +c,d @@" header are followed; it ends at
// the first line that belongs to neither (a "-- " signature, quoted text of
// a reply, prose). Lines quoted with '>' never start a diff, so a reply's
// own diff is found and the quoted original is not.
//
// A hunk cut short (a mailer wrapped or dropped a line) ends the hunk where
// the damage is; the damaged diff is returned as is, for the diff parser to
// report with its line number.
func ExtractDiff(body string) (string, int) {
	lines := splitLinesKeep(body)
	for i := 0; i < len(lines); i++ {
		if !diffStartsAt(lines, i) {
			continue
		}
		end := diffEnd(lines, i)
		if end <= i {
			continue
		}
		return strings.Join(lines[i:end], ""), i + 1
	}
	return "", 0
}

// splitLinesKeep splits s into lines that keep their "\n".
func splitLinesKeep(s string) []string {
	if s == "" {
		return nil
	}
	n := strings.Count(s, "\n")
	lines := make([]string, 0, n+1)
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			lines = append(lines, s)
			break
		}
		lines = append(lines, s[:i+1])
		s = s[i+1:]
	}
	return lines
}

func trimEOL(l string) string {
	l = strings.TrimSuffix(l, "\n")
	return strings.TrimSuffix(l, "\r")
}

// diffStartsAt reports whether a diff starts at lines[i].
func diffStartsAt(lines []string, i int) bool {
	l := lines[i]
	if strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "diff -") {
		if strings.HasPrefix(l, "diff --git ") {
			return true
		}
		// "diff -urN a/x b/x" (non-git diff) followed by ---/+++.
		return i+2 < len(lines) && strings.HasPrefix(lines[i+1], "--- ") && strings.HasPrefix(lines[i+2], "+++ ")
	}
	if strings.HasPrefix(l, "Index: ") && i+2 < len(lines) && strings.HasPrefix(lines[i+1], "====") {
		return i+4 < len(lines) && strings.HasPrefix(lines[i+2], "--- ") && strings.HasPrefix(lines[i+3], "+++ ")
	}
	return strings.HasPrefix(l, "--- ") && i+2 < len(lines) &&
		strings.HasPrefix(lines[i+1], "+++ ") && strings.HasPrefix(lines[i+2], "@@ ")
}

// gitHeaderPrefixes are the extended header lines of a git diff.
var gitHeaderPrefixes = []string{
	"diff --git ", "diff -", "index ", "--- ", "+++ ", "old mode ", "new mode ",
	"deleted file mode ", "new file mode ", "similarity index ", "dissimilarity index ",
	"rename from ", "rename to ", "copy from ", "copy to ", "Binary files ",
	"GIT binary patch", "Index: ", "====",
}

func isDiffHeader(l string) bool {
	for _, p := range gitHeaderPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// diffEnd returns the index one past the last line of the diff starting at
// lines[start].
func diffEnd(lines []string, start int) int {
	i := start
	end := start
	for i < len(lines) {
		l := trimEOL(lines[i])
		switch {
		case l == "@" || strings.HasPrefix(l, "@@"):
			oldN, newN, ok := parseHunkCounts(l)
			if !ok {
				// A hunk header cut short (the mail was truncated) or
				// mangled: keep it in the diff, whose parser reports it,
				// rather than dropping the hunk silently.
				return i + 1
			}
			i++
			for i < len(lines) && (oldN > 0 || newN > 0) {
				h := trimEOL(lines[i])
				switch {
				case h == "" || h[0] == ' ':
					// Some mailers strip the space of empty context lines.
					oldN--
					newN--
				case h[0] == '-':
					oldN--
				case h[0] == '+':
					newN--
				case h[0] == '\\':
				default:
					// A line a mail client wrapped continues the hunk
					// line before it when the hunk's counts then come
					// out exact; any other damage stops the hunk here.
					if i > 0 && isHunkLine(lines[i-1]) && hunkCompletes(lines, i, oldN, newN) {
						i++
						continue
					}
					oldN, newN = 0, 0
					continue
				}
				i++
			}
			for i < len(lines) && strings.HasPrefix(lines[i], "\\") {
				i++ // "\ No newline at end of file"
			}
			end = i
		case strings.HasPrefix(l, "GIT binary patch"):
			// Binary patch: literal/delta blocks until an empty line pair.
			i++
			for i < len(lines) {
				b := trimEOL(lines[i])
				if b == "" {
					if i+1 < len(lines) && (strings.HasPrefix(lines[i+1], "literal ") || strings.HasPrefix(lines[i+1], "delta ")) {
						i++
						continue
					}
					i++
					break
				}
				i++
			}
			end = i
		case isDiffHeader(l):
			i++
			end = i
		default:
			return end
		}
	}
	return end
}

// maxWrapped bounds the wrapped continuation lines in a row that may
// follow one hunk line.
const maxWrapped = 3

// isHunkLine reports whether l is a context, removed or added line.
func isHunkLine(l string) bool {
	return l != "" && (l[0] == ' ' || l[0] == '+' || l[0] == '-')
}

// isContinuation reports whether l can be the wrapped rest of the hunk line
// before it: not empty (an empty context line), not quoted, not a line a
// hunk may hold, not a diff header.
func isContinuation(l string) bool {
	l = trimEOL(l)
	return l != "" && l[0] != '>' && l[0] != '\t' && l[0] != '\\' && l[0] != '@' && !isHunkLine(l) && !isDiffHeader(l)
}

// hunkCompletes reports whether the hunk whose remaining counts are oldN
// and newN comes out exact from lines[i] on when lines that cannot be hunk
// lines are taken as wrapped continuations (at most maxWrapped in a row):
// the counts reach zero at a line boundary. The mail client's wrapping is
// then undone by diffcheck (see diffcheck.Recover).
func hunkCompletes(lines []string, i, oldN, newN int) bool {
	wrapped := 0
	for ; i < len(lines) && (oldN > 0 || newN > 0); i++ {
		h := trimEOL(lines[i])
		switch {
		case isContinuation(h):
			wrapped++
			if wrapped > maxWrapped {
				return false
			}
			continue
		case h == "" || h[0] == ' ':
			oldN--
			newN--
		case h[0] == '-':
			oldN--
		case h[0] == '+':
			newN--
		case h[0] == '\\':
		default:
			return false
		}
		wrapped = 0
	}
	// A wrapped last line of a hunk is not recognised: its continuation
	// cannot be told from the prose after the diff.
	return oldN == 0 && newN == 0
}

// parseHunkCounts reads the old and new line counts of "@@ -a[,b] +c[,d] @@".
func parseHunkCounts(l string) (int, int, bool) {
	rest := strings.TrimPrefix(l, "@@ ")
	close := strings.Index(rest, " @@")
	if close < 0 {
		return 0, 0, false
	}
	f := strings.Fields(rest[:close])
	if len(f) != 2 || !strings.HasPrefix(f[0], "-") || !strings.HasPrefix(f[1], "+") {
		return 0, 0, false
	}
	o, ok1 := rangeCount(f[0][1:])
	n, ok2 := rangeCount(f[1][1:])
	return o, n, ok1 && ok2
}

func rangeCount(s string) (int, bool) {
	start, count, found := strings.Cut(s, ",")
	if _, err := strconv.Atoi(start); err != nil {
		return 0, false
	}
	if !found {
		return 1, true
	}
	c, err := strconv.Atoi(count)
	if err != nil || c < 0 || c > 1<<24 {
		return 0, false
	}
	return c, true
}
