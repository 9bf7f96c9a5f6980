// Package buildlog picks the lines worth quoting out of a build log: the
// compiler's and linker's error lines with their context, for the "Build
// failed!" sections of the stable and VM reports.
package buildlog

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
)

// maxLineLen caps one quoted line; longer lines end in "...".
const maxLineLen = 300

var (
	errorLine   = regexp.MustCompile(`(: (fatal )?error: |: undefined reference to |^ld(\.lld)?: (error|cannot)|: multiple definition of |Error: |^ERROR: )`)
	contextLine = regexp.MustCompile(`(: In function |: In file included from |^\s+from |^\s*\d* \| |^\s+\|)`)
	makeFail    = regexp.MustCompile(`^make(\[\d+\])?: \*\*\* `)
	ansi        = regexp.MustCompile("\x1b\\[[0-9;]*[a-zA-Z]")
)

// ErrorLines returns at most limit lines from a build log: each compiler
// or linker error line with the "In function" line before it and the
// source/caret lines after it, duplicates dropped, colour codes removed.
// With no error line it falls back to make's first "***" line and the
// log's last lines. When lines are left out, the last one says how many.
//
// dirs are the worktree and the build directories: only diagnostics
// positively about files inside them are kept (the file exists there, its
// real path too, and no reading of a name holding spaces or ':' leaves
// them), with paths relative to them (a relative path in the log is
// resolved against each); the source lines under a diagnostic are kept
// only where they are the tree file's own text. A diagnostic about any
// other file is dropped with its source lines, and so are the linker's
// "cannot find" lines and any line naming a host path, so a reply never
// quotes a host file nor names the host's directories.
func ErrorLines(log []byte, limit int, dirs ...string) []string {
	if limit < 2 {
		limit = 2
	}
	lines := strings.Split(string(bytes.ReplaceAll(log, []byte("\r"), nil)), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(ansi.ReplaceAllString(l, ""), " \t")
	}
	lines = newRoots(dirs).scrub(lines)
	var out []string
	seen := map[string]bool{}
	add := func(l string) {
		if l == "" || seen[l] {
			return
		}
		seen[l] = true
		if len(l) > maxLineLen {
			l = l[:maxLineLen] + "..."
		}
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
	if len(out) == 0 {
		for _, l := range lines {
			if makeFail.MatchString(l) {
				add(l)
				break
			}
		}
	}
	if len(out) == 0 {
		tail := lines
		if len(tail) > 10 {
			tail = tail[len(tail)-10:]
		}
		for _, l := range tail {
			add(l)
		}
	}
	if len(out) > limit {
		out = append(out[:limit-1:limit-1], fmt.Sprintf("... (%d more error lines)", len(out)-limit+1))
	}
	return out
}
