package patchguard

import (
	"path"
	"regexp"
	"strings"
)

var (
	// includeAny is any preprocessor or assembler include, with the path
	// in m[1] (quoted) or m[2] (angle brackets). #import is an include
	// that gcc reads once.
	includeAny = regexp.MustCompile(`(?:#\s*(?:include(?:_next)?|import)|__has_include(?:_next)?\s*\(|(?i:\.include))\s*(?:"([^"]*)"|<([^>]*)>)`)
	incbin     = regexp.MustCompile(`(?i:\.incbin)\b|#\s*embed\b|__has_embed\b`)
	// pragmaDep is #pragma GCC dependency, which stats a file of the
	// host (its date shows in the build's warnings); the _Pragma form is
	// found in the decoded strings.
	pragmaDep = regexp.MustCompile(`#\s*pragma\s+GCC\s+dependency\b`)
	depString = regexp.MustCompile(`^\s*GCC\s+dependency\b`)
	// ldFileCmd are the linker-script commands that read a file.
	ldFileCmd = regexp.MustCompile(`\b(?:INCLUDE|INPUT|GROUP|STARTUP)\b`)
	// statement is one assembler statement of a decoded asm() string.
	statement = regexp.MustCompile(`[^\n;]+`)
)

const (
	reasonIncbin = "adds an .incbin/#embed (embeds a file at build time)"
	reasonDep    = "adds a #pragma GCC dependency (checks a file at build time)"
	reasonLd     = "adds a linker-script INCLUDE/INPUT/GROUP/STARTUP (reads a file at link time)"
)

// contentRefusals refuses what the patches added to newData (lines not in
// oldData) that pulls files into the build from outside the tree:
// #include/#import/.include of an absolute path or one whose ".." leaves
// the tree, .incbin (or #embed) anywhere, #pragma GCC dependency, and the
// file commands of linker scripts. Each line is checked as written and as
// the preprocessor reads it (comments, line continuations and digraphs
// removed, adjacent strings of an asm() concatenated and unescaped). A
// macro that builds a path or a directive is beyond it: the sandbox, which
// does not show the build anything outside the tree and the toolchain,
// contains those.
func contentRefusals(file string, oldData, newData []byte) []Refusal {
	added := addedLines(oldData, newData)
	var out []Refusal
	seen := map[Refusal]bool{}
	refuse := func(line int, reason string) {
		r := Refusal{Line: line + 1, Reason: reason}
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	for i, l := range strings.Split(string(newData), "\n") {
		if added[i] {
			for _, r := range lineProblems(file, []byte(l)) {
				refuse(i, r)
			}
		}
	}
	src := normalize(newData)
	for _, sp := range src.logicalLines() {
		if ln, ok := firstAdded(sp.line, added); ok {
			for _, r := range lineProblems(file, sp.text) {
				refuse(ln, r)
			}
		}
	}
	for _, g := range src.stringGroups() {
		for _, f := range stringProblems(file, g, added) {
			refuse(f.line, f.reason)
		}
	}
	return out
}

// addedLines marks the lines of newData that are not in oldData (as a
// multiset: a line the patches duplicate counts once as added).
func addedLines(oldData, newData []byte) []bool {
	old := map[string]int{}
	for _, l := range strings.Split(string(oldData), "\n") {
		old[l]++
	}
	lines := strings.Split(string(newData), "\n")
	added := make([]bool, len(lines))
	for i, l := range lines {
		if old[l] > 0 {
			old[l]--
			continue
		}
		added[i] = true
	}
	return added
}

// firstAdded returns the first of lines that is added.
func firstAdded(lines []int, added []bool) (int, bool) {
	for _, ln := range lines {
		if ln < len(added) && added[ln] {
			return ln, true
		}
	}
	return 0, false
}

// lineProblems are the reasons to refuse one line (physical or logical).
func lineProblems(file string, l []byte) []string {
	var out []string
	if incbin.Match(l) {
		out = append(out, reasonIncbin)
	}
	if pragmaDep.Match(l) {
		out = append(out, reasonDep)
	}
	if isLinkerScript(file) && ldFileCmd.Match(l) {
		out = append(out, reasonLd)
	}
	for _, m := range includeAny.FindAllSubmatch(l, -1) {
		p, angle := string(m[1]), false
		if m[2] != nil {
			p, angle = string(m[2]), true
		}
		if r := includeProblem(file, p, angle); r != "" {
			out = append(out, r)
		}
	}
	return out
}

// finding is a reason to refuse at a 0-based physical line.
type finding struct {
	line   int
	reason string
}

// stringProblems checks what a group of concatenated string literals
// hands to the assembler (asm) or to _Pragma: an .incbin, an .include of
// a host path, a GCC dependency. A statement (up to the next newline or
// ;) counts when the patches added a line it comes from.
func stringProblems(file string, g span, added []bool) []finding {
	var out []finding
	stmts := statement.FindAllIndex(g.text, -1)
	for _, st := range stmts {
		ln, ok := firstAdded(g.line[st[0]:st[1]], added)
		if !ok {
			continue
		}
		stmt := g.text[st[0]:st[1]]
		if depString.Match(stmt) {
			out = append(out, finding{ln, reasonDep})
		}
		for _, r := range lineProblems(file, stmt) {
			out = append(out, finding{ln, r})
		}
	}
	return out
}

// isLinkerScript reports whether file is a linker script or a header
// made for them, by the kernel's names (vmlinux.lds.S, module.lds.h,
// *.ld).
func isLinkerScript(file string) bool {
	b := path.Base(file)
	return strings.Contains(b, ".lds") || strings.HasSuffix(b, ".ld") || strings.HasSuffix(b, ".ld.S") || strings.HasSuffix(b, "lds.h")
}

// includeProblem checks an included path: quoted ones are resolved next
// to the including file, angle ones against include/ (the shallowest
// directory kbuild searches).
func includeProblem(file, inc string, angle bool) string {
	inc = strings.TrimSpace(inc)
	if strings.HasPrefix(inc, "/") || strings.HasPrefix(inc, "~") {
		return "adds an #include of an absolute host path (" + inc + ")"
	}
	base := path.Dir(file)
	if angle {
		base = "include"
	}
	if p := path.Join(base, inc); p == ".." || strings.HasPrefix(p, "../") {
		return "adds an #include whose .. leaves the tree (" + inc + ")"
	}
	return ""
}
