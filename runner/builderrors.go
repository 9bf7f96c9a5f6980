package runner

import (
	"regexp"
	"strings"
)

// maxBuildErrorLines caps the error lines a report carries.
const maxBuildErrorLines = 20

var (
	errorLine   = regexp.MustCompile(`(: (fatal )?error: |: undefined reference to |^ld: |^ld\.lld: |: multiple definition of |Error: |^ERROR: )`)
	contextLine = regexp.MustCompile(`(: In function |: In file included from |^\s+from |^\s*\d* \| |^\s+\|)`)
	makeFail    = regexp.MustCompile(`^make(\[\d+\])?: \*\*\* `)
)

// buildErrors extracts the compiler's error lines (with the "In function"
// line before and the source/caret lines after each) from a build log,
// with the worktree and build directory prefixes removed, at most
// maxBuildErrorLines lines. When there are none it falls back to the
// first make failure line and the log's last lines.
func buildErrors(log []byte, dirs ...string) []string {
	lines := strings.Split(string(log), "\n")
	clean := func(l string) string {
		for _, d := range dirs {
			if d != "" {
				l = strings.ReplaceAll(l, strings.TrimSuffix(d, "/")+"/", "")
			}
		}
		return strings.TrimRight(l, " \r")
	}
	var out []string
	seen := map[string]bool{}
	add := func(l string) {
		l = clean(l)
		if l == "" || seen[l] || len(out) >= maxBuildErrorLines {
			return
		}
		seen[l] = true
		out = append(out, l)
	}
	for i, l := range lines {
		if !errorLine.MatchString(l) {
			continue
		}
		if i > 0 && strings.Contains(lines[i-1], ": In function ") {
			add(lines[i-1])
		}
		add(l)
		for j := i + 1; j < len(lines) && j <= i+2; j++ {
			if errorLine.MatchString(lines[j]) || !contextLine.MatchString(lines[j]) {
				break
			}
			add(lines[j])
		}
	}
	if len(out) > 0 {
		return out
	}
	for _, l := range lines {
		if makeFail.MatchString(l) {
			add(l)
			break
		}
	}
	tail := lines
	if len(tail) > 10 {
		tail = tail[len(tail)-10:]
	}
	for _, l := range tail {
		add(l)
	}
	return out
}
