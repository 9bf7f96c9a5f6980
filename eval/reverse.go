package eval

import (
	"fmt"
	"strings"
)

// Reverse returns the reverse of a unified diff (git or plain style): old and
// new names, modes and blob ids swapped, '+' and '-' lines swapped (each
// change block keeps its removed lines first) and hunk ranges swapped.
// Applying Reverse(d) undoes d. Text outside the file diffs (a commit
// message, a diffstat) must not be passed in; binary diffs are refused.
func Reverse(diff string) (string, error) {
	lines := strings.SplitAfter(diff, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out []string
	for i := 0; i < len(lines); {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "@@ "):
			h, next, err := reverseHunk(lines, i)
			if err != nil {
				return "", err
			}
			out = append(out, h...)
			i = next
			continue
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			oldName := strings.TrimPrefix(eol(l), "--- ")
			newName := strings.TrimPrefix(eol(lines[i+1]), "+++ ")
			out = append(out, "--- "+swapPrefix(newName, "b/", "a/")+"\n", "+++ "+swapPrefix(oldName, "a/", "b/")+"\n")
			i += 2
			continue
		case strings.HasPrefix(l, "diff --git "):
			out = append(out, reverseGitHeader(l))
		case strings.HasPrefix(l, "GIT binary patch"), strings.HasPrefix(l, "Binary files "):
			return "", fmt.Errorf("line %d: binary diff cannot be reversed", i+1)
		default:
			out = append(out, reverseExtended(l))
		}
		i++
	}
	return strings.Join(out, ""), nil
}

// eol strips the line terminator (and a trailing tab-separated timestamp,
// which plain diffs put after names).
func eol(l string) string {
	l = strings.TrimRight(l, "\r\n")
	if i := strings.IndexByte(l, '\t'); i >= 0 {
		l = l[:i]
	}
	return l
}

// swapPrefix turns "b/x" into "a/x" (from, to); /dev/null and unprefixed
// names stay as they are.
func swapPrefix(name, from, to string) string {
	if strings.HasPrefix(name, from) {
		return to + name[len(from):]
	}
	return name
}

// reverseGitHeader swaps the two names of "diff --git a/X b/Y". Names with
// spaces are split at " b/", which is what git itself assumes.
func reverseGitHeader(l string) string {
	rest := strings.TrimPrefix(strings.TrimRight(l, "\r\n"), "diff --git ")
	i := strings.Index(rest, " b/")
	if !strings.HasPrefix(rest, "a/") || i < 0 {
		return l
	}
	oldName, newName := rest[2:i], rest[i+3:]
	return "diff --git a/" + newName + " b/" + oldName + "\n"
}

// extendedSwaps pairs git extended header keywords with their reverse.
var extendedSwaps = [][2]string{
	{"new file mode ", "deleted file mode "},
	{"old mode ", "new mode "},
	{"rename from ", "rename to "},
	{"copy from ", "copy to "},
}

// reverseExtended reverses one git extended header line; other lines are
// returned unchanged.
func reverseExtended(l string) string {
	for _, p := range extendedSwaps {
		if strings.HasPrefix(l, p[0]) {
			return p[1] + l[len(p[0]):]
		}
		if strings.HasPrefix(l, p[1]) {
			return p[0] + l[len(p[1]):]
		}
	}
	if strings.HasPrefix(l, "index ") {
		f := strings.Fields(strings.TrimPrefix(strings.TrimRight(l, "\r\n"), "index "))
		if len(f) > 0 {
			if ids := strings.SplitN(f[0], "..", 2); len(ids) == 2 {
				f[0] = ids[1] + ".." + ids[0]
				return "index " + strings.Join(f, " ") + "\n"
			}
		}
	}
	return l
}

// reverseHunk reverses the hunk starting at lines[i] and returns its lines
// and the index of the first line after it.
func reverseHunk(lines []string, i int) ([]string, int, error) {
	hdr := strings.TrimRight(lines[i], "\r\n")
	end := strings.Index(hdr[3:], " @@")
	if end < 0 {
		return nil, 0, fmt.Errorf("line %d: bad hunk header %q", i+1, hdr)
	}
	ranges := strings.Fields(hdr[3 : 3+end])
	if len(ranges) != 2 || !strings.HasPrefix(ranges[0], "-") || !strings.HasPrefix(ranges[1], "+") {
		return nil, 0, fmt.Errorf("line %d: bad hunk header %q", i+1, hdr)
	}
	oldCount, err := rangeLen(ranges[0][1:])
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: %w", i+1, err)
	}
	newCount, err := rangeLen(ranges[1][1:])
	if err != nil {
		return nil, 0, fmt.Errorf("line %d: %w", i+1, err)
	}
	out := []string{"@@ -" + ranges[1][1:] + " +" + ranges[0][1:] + hdr[3+end:] + "\n"}
	// Collect the body: old/new counts tell where it ends.
	var removed, added []string // of the reversed hunk
	flush := func() {
		out = append(out, removed...)
		out = append(out, added...)
		removed, added = removed[:0], added[:0]
	}
	j := i + 1
	for ; j < len(lines) && (oldCount > 0 || newCount > 0 || strings.HasPrefix(lines[j], `\`)); j++ {
		l := lines[j]
		switch {
		case strings.HasPrefix(l, `\`): // "\ No newline at end of file" follows its line
			switch prev := lines[j-1]; {
			case strings.HasPrefix(prev, "-"):
				added = append(added, l)
			case strings.HasPrefix(prev, "+"):
				removed = append(removed, l)
			default:
				out = append(out, l)
			}
		case strings.HasPrefix(l, "+"):
			newCount--
			removed = append(removed, "-"+l[1:])
		case strings.HasPrefix(l, "-"):
			oldCount--
			added = append(added, "+"+l[1:])
		case strings.HasPrefix(l, " "), l == "\n", l == "\r\n":
			oldCount--
			newCount--
			flush()
			out = append(out, l)
		default:
			return nil, 0, fmt.Errorf("line %d: unexpected line in hunk: %q", j+1, strings.TrimRight(l, "\n"))
		}
		if oldCount < 0 || newCount < 0 {
			return nil, 0, fmt.Errorf("line %d: hunk longer than its header says", j+1)
		}
	}
	if oldCount > 0 || newCount > 0 {
		return nil, 0, fmt.Errorf("line %d: hunk truncated", i+1)
	}
	flush()
	return out, j, nil
}

// rangeLen returns the line count of a hunk range "start[,count]".
func rangeLen(r string) (int, error) {
	_, count, ok := strings.Cut(r, ",")
	if !ok {
		return 1, nil
	}
	n := 0
	for _, c := range count {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("bad hunk range %q", r)
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
