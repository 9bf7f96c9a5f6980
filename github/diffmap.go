package github

import (
	"strconv"
	"strings"
)

// hunk is one "@@ -a,b +c,d @@" hunk with its body lines.
type hunk struct {
	oldStart, oldLen, newStart, newLen int
	lines                              []string
}

// fileHunks parses a unified diff into hunks per post-image path (the
// pre-image path for deletions). A diff of one file without "+++" header
// lines (GitHub's per-file "patch" field) goes under path.
func fileHunks(diff, path string) map[string][]hunk {
	out := map[string][]hunk{}
	cur := path
	var h *hunk
	flush := func() {
		if h != nil && cur != "" {
			out[cur] = append(out[cur], *h)
		}
		h = nil
	}
	var oldPath string
	var oldLeft, newLeft int
	for _, l := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			flush()
			cur, oldPath = "", ""
		case h == nil && strings.HasPrefix(l, "--- "):
			oldPath = strings.TrimPrefix(strings.TrimSpace(l[4:]), "a/")
		case h == nil && strings.HasPrefix(l, "+++ "):
			p := strings.TrimSpace(l[4:])
			if p == "/dev/null" {
				cur = oldPath
			} else {
				cur = strings.TrimPrefix(p, "b/")
			}
		case strings.HasPrefix(l, "@@ "):
			flush()
			if nh, ok := parseHunkHeader(l); ok {
				h = &nh
				oldLeft, newLeft = nh.oldLen, nh.newLen
			}
		case h != nil:
			switch {
			case l != "" && l[0] == '\\':
				h.lines = append(h.lines, l)
			case l == "" || l[0] == ' ':
				h.lines = append(h.lines, l)
				oldLeft, newLeft = oldLeft-1, newLeft-1
			case l[0] == '-':
				h.lines = append(h.lines, l)
				oldLeft--
			case l[0] == '+':
				h.lines = append(h.lines, l)
				newLeft--
			default:
				flush()
			}
			if h != nil && oldLeft <= 0 && newLeft <= 0 {
				flush()
			}
		}
	}
	flush()
	return out
}

// parseHunkHeader parses "@@ -a,b +c,d @@ ...".
func parseHunkHeader(l string) (hunk, bool) {
	f := strings.Fields(l)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return hunk{}, false
	}
	var h hunk
	var ok1, ok2 bool
	h.oldStart, h.oldLen, ok1 = parseRange(f[1][1:])
	h.newStart, h.newLen, ok2 = parseRange(f[2][1:])
	return h, ok1 && ok2
}

func parseRange(s string) (start, n int, ok bool) {
	a, b, has := strings.Cut(s, ",")
	start, err := strconv.Atoi(a)
	if err != nil {
		return 0, 0, false
	}
	n = 1
	if has {
		if n, err = strconv.Atoi(b); err != nil {
			return 0, 0, false
		}
	}
	return start, n, true
}

// translate maps line (1-based, in the file before the hunks apply) to
// the file after them; ok is false when the line was removed or changed.
// Hunks are in file order. A pure insertion ("-a,0") adds lines after old
// line a.
func translate(hs []hunk, line int) (int, bool) {
	shift := 0
	for _, h := range hs {
		if h.oldLen == 0 {
			if line > h.oldStart {
				shift += h.newLen
				continue
			}
			break
		}
		if line < h.oldStart {
			break
		}
		if line >= h.oldStart+h.oldLen {
			shift += h.newLen - h.oldLen
			continue
		}
		// Inside the hunk: follow its lines.
		o, n := h.oldStart, h.newStart
		for _, l := range h.lines {
			op := byte(' ') // an empty line in a hunk is blank context
			if l != "" {
				op = l[0]
			}
			switch op {
			case ' ':
				if o == line {
					return n, true
				}
				o, n = o+1, n+1
			case '-':
				if o == line {
					return 0, false
				}
				o++
			case '+':
				n++
			}
		}
		return 0, false
	}
	return line + shift, true
}

// rightLines returns the post-image lines a review comment may be placed
// on (added and context lines of the hunks).
func rightLines(hs []hunk) map[int]bool {
	out := map[int]bool{}
	for _, h := range hs {
		n := h.newStart
		for _, l := range h.lines {
			if l != "" && l[0] == '\\' {
				continue
			}
			if l == "" || l[0] == ' ' || l[0] == '+' {
				out[n] = true
				n++
			}
		}
	}
	return out
}
