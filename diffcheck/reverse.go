package diffcheck

import (
	"errors"
	"fmt"
	"strings"
)

// ReverseDiff returns the unified diff that undoes diff (like "git apply
// -R" reads it): removed and added lines, old and new paths, modes and
// hunk ranges swapped. A binary patch cannot be reversed here (an error).
func ReverseDiff(diff string) (string, error) {
	lines := strings.SplitAfter(diff, "\n")
	out := make([]string, 0, len(lines))
	oldLeft, newLeft := int64(0), int64(0) // lines left in the current hunk
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		body := strings.TrimRight(l, "\n")
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(body, "-"):
				oldLeft--
				out = append(out, "+"+l[1:])
				continue
			case strings.HasPrefix(body, "+"):
				newLeft--
				out = append(out, "-"+l[1:])
				continue
			case strings.HasPrefix(body, " ") || body == "":
				oldLeft--
				newLeft--
				out = append(out, l)
				continue
			case strings.HasPrefix(body, `\`):
				out = append(out, l)
				continue
			}
			oldLeft, newLeft = 0, 0
		}
		switch {
		case strings.HasPrefix(body, "@@ -"):
			o, ol, n, nl, ok := parseHunkHeader(body)
			if !ok {
				return "", fmt.Errorf("line %d: malformed hunk header", i+1)
			}
			rest := body[strings.Index(body[3:], " @@")+3+3:]
			out = append(out, fmt.Sprintf("@@ -%d,%d +%d,%d @@%s\n", n, nl, o, ol, rest))
			oldLeft, newLeft = ol, nl
		case strings.HasPrefix(body, "diff --git "):
			a, b, ok := splitGitHeader(strings.TrimPrefix(body, "diff --git "))
			if !ok {
				return "", fmt.Errorf("line %d: cannot read the paths of %q", i+1, body)
			}
			out = append(out, "diff --git "+swapPrefix(b, "b/", "a/")+" "+swapPrefix(a, "a/", "b/")+"\n")
		case strings.HasPrefix(body, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			oldP, newP := body[4:], strings.TrimRight(lines[i+1][4:], "\n")
			out = append(out, "--- "+swapPrefix(newP, "b/", "a/")+"\n", "+++ "+swapPrefix(oldP, "a/", "b/")+"\n")
			i++
		case strings.HasPrefix(body, "GIT binary patch") || strings.HasPrefix(body, "Binary files "):
			return "", errors.New("a binary patch cannot be reversed")
		default:
			out = append(out, swapHeader(l))
		}
	}
	return strings.Join(out, ""), nil
}

// headerSwaps pairs the extended header lines of a git diff that trade
// places when the diff is reversed.
var headerSwaps = [][2]string{
	{"new file mode ", "deleted file mode "},
	{"old mode ", "new mode "},
	{"rename from ", "rename to "},
	{"copy from ", "copy to "},
}

// swapHeader reverses one extended header line (others are kept).
func swapHeader(l string) string {
	for _, s := range headerSwaps {
		switch {
		case strings.HasPrefix(l, s[0]):
			return s[1] + l[len(s[0]):]
		case strings.HasPrefix(l, s[1]):
			return s[0] + l[len(s[1]):]
		}
	}
	if rest, ok := strings.CutPrefix(l, "index "); ok {
		if from, to, ok := strings.Cut(rest, ".."); ok {
			mode := ""
			if i := strings.IndexAny(to, " \n"); i >= 0 {
				to, mode = to[:i], to[i:]
			}
			return "index " + to + ".." + from + mode
		}
	}
	return l
}

// splitGitHeader splits the paths of a "diff --git" line: "a/X b/Y", or
// two equal halves without prefixes.
func splitGitHeader(s string) (a, b string, ok bool) {
	if i := strings.Index(s, " b/"); strings.HasPrefix(s, "a/") && i > 0 {
		return s[:i], s[i+1:], true
	}
	if n := len(s); n%2 == 1 && s[n/2] == ' ' && s[:n/2] == s[n/2+1:] {
		return s[:n/2], s[n/2+1:], true
	}
	return "", "", false
}

// swapPrefix replaces prefix from of p by to (a path without it, or
// /dev/null, is kept).
func swapPrefix(p, from, to string) string {
	if rest, ok := strings.CutPrefix(p, from); ok {
		return to + rest
	}
	return p
}
