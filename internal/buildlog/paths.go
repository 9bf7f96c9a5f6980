package buildlog

import (
	"path/filepath"
	"regexp"
	"strings"
)

var (
	// locPrefix starts gcc's include chains: "In file included from
	// file:line:" and "                 from file:line,".
	locPrefix = regexp.MustCompile(`^(In file included from |\s+from )`)
	// pathEnd is what follows the file name of a located diagnostic:
	// ":line[:col]:" (gcc, gas, ld scripts), ":line," (include chains),
	// ":(.section+off):" (ld), ": In function 'f':" and ": At top level:"
	// headers. The file name itself may hold spaces and ':', so every
	// place in a line where pathEnd matches is a candidate end.
	pathEnd = regexp.MustCompile(`^:(?:\d+(?::\d+)?[:,]|\(\.|\s*In (?:function|member function|static function|constructor|destructor)|\s*At (?:top level|global scope))`)
	// sourceLine is a source line gcc quotes under a diagnostic.
	sourceLine = regexp.MustCompile(`^\s*(\d+) \| ?(.*)$`)
	// caretLine is a caret/range line gcc prints under a source line.
	caretLine = regexp.MustCompile(`^\s*\|`)
	// caretOnly is a caret line that quotes nothing: carets, tildes and
	// range marks only (labels and fix-it hints are dropped).
	caretOnly = regexp.MustCompile(`^\s*\|[\s^~+\-|]*$`)
	// ldCannotFind names a file the linker looked for on the host.
	ldCannotFind = regexp.MustCompile(`^\S*ld(\.\w+)?: cannot (find|open)`)
	// absPath is an absolute path in a line (preceded by start, space,
	// quote, bracket, '=' or ':').
	absPath = regexp.MustCompile("(?:^|[\\s'\"`(\\[=:<])(/[A-Za-z0-9._~+-][^\\s'\"`)\\]:,>]*)")
	// relEscape is a relative path with a parent-directory step.
	relEscape = regexp.MustCompile("(?:^|[\\s'\"`(\\[=:<])((?:\\./)*\\.\\./[^\\s'\"`)\\]:,>]*)")
)

// pseudoFiles are the compiler's and assembler's names for input that is
// no file: diagnostics about them quote no host text.
var pseudoFiles = map[string]bool{"{standard input}": true, "<command-line>": true, "<built-in>": true, "<stdin>": true}

// verdict is what a candidate file name of a diagnostic resolves to.
type verdict int

const (
	unknown verdict = iota // inside the roots by name, but no such file
	outside                // names a file outside every root
	inTree                 // an existing file whose real path is inside a root
	pseudo                 // {standard input} and the like
)

// located is a diagnostic whose file is in the tree.
type located struct {
	rel  string // the path relative to its root
	file string // the real path of the file ("" for pseudo files)
	line int    // the line number, 0 when none
}

// classify resolves one candidate file name p of a diagnostic. A relative
// name is resolved against every root (the compiler ran in one of them);
// it is outside when it leaves any of them. A name inside the roots is in
// the tree only when the file exists and its real path (symlinks
// resolved) is inside a root too.
func (r *roots) classify(p string) (verdict, string, string) {
	if pseudoFiles[p] {
		return pseudo, p, ""
	}
	var cands []string
	if filepath.IsAbs(p) {
		cands = []string{filepath.Clean(p)}
	} else {
		for _, base := range r.dirs {
			cands = append(cands, filepath.Join(base, p))
		}
	}
	for _, c := range cands {
		if _, ok := r.inside(c); !ok {
			return outside, "", ""
		}
	}
	for _, c := range cands {
		real, ok := r.real(c)
		if !ok {
			continue
		}
		rel, _ := r.inside(c)
		return inTree, rel, real
	}
	return unknown, "", ""
}

// locate finds the file a diagnostic line names. ok is false when the
// line is no located diagnostic; keep is false when it is one about a file
// that is not positively in the tree (outside, missing, or ambiguous: any
// reading of the name that leaves the roots). start and end delimit the
// name in l.
func (r *roots) locate(l string) (loc located, start, end int, ok, keep bool) {
	if m := locPrefix.FindStringIndex(l); m != nil {
		start = m[1]
	}
	first := -1
	for i := start + 1; i < len(l); i++ {
		if l[i] != ':' || !pathEnd.MatchString(l[i:]) {
			continue
		}
		ok = true
		v, rel, real := r.classify(l[start:i])
		switch v {
		case outside:
			return located{}, 0, 0, true, false
		case inTree, pseudo:
			if first < 0 {
				first, loc = i, located{rel: rel, file: real, line: lineNumber(l[i:])}
			}
		}
	}
	if first < 0 {
		return located{}, 0, 0, ok, false
	}
	return loc, start, first, true, true
}

// lineNumber parses the line number at the start of ":N..." (0 if none).
func lineNumber(s string) int {
	n := 0
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			break
		}
		n = n*10 + int(c-'0')
		if n > 1<<24 {
			return 0
		}
	}
	return n
}

// scrub keeps what a reply may quote: diagnostics positively located in
// the tree (paths made relative to their root), the source lines under
// them only where they equal the file's own text, caret lines, and other
// lines that name no host file. A diagnostic about any other file is
// dropped with the lines under it, and so are the linker's "cannot find"
// lines. With no roots every located diagnostic is dropped.
func (r *roots) scrub(lines []string) []string {
	out := lines[:0:0]
	var cur *located // the diagnostic the following source lines belong to
	for _, l := range lines {
		if m := sourceLine.FindStringSubmatch(l); m != nil {
			if cur != nil && r.sameText(cur.file, m[1], m[2]) {
				out = append(out, l)
			}
			continue
		}
		if caretLine.MatchString(l) {
			if cur != nil && caretOnly.MatchString(l) {
				out = append(out, l)
			}
			continue
		}
		cur = nil
		if ldCannotFind.MatchString(l) {
			continue
		}
		loc, start, end, isDiag, keep := r.locate(l)
		if makeFail.MatchString(l) {
			isDiag = false // make's own "***" lines name targets, not sources
		}
		if isDiag {
			if !keep {
				continue
			}
			l = l[:start] + loc.rel + l[end:]
			cur = &loc
		}
		l = r.strip(l)
		if r.namesHost(l) {
			cur = nil
			continue
		}
		out = append(out, l)
	}
	return out
}

// namesHost reports whether l (roots already stripped) still names a
// file outside the roots: an absolute path or a relative one leaving them.
func (r *roots) namesHost(l string) bool {
	for _, m := range absPath.FindAllStringSubmatch(l, -1) {
		if _, ok := r.inside(filepath.Clean(m[1])); !ok {
			return true
		}
	}
	for _, m := range relEscape.FindAllStringSubmatch(l, -1) {
		if v, _, _ := r.classify(m[1]); v == outside || len(r.dirs) == 0 {
			return true
		}
	}
	return false
}

// strip removes the roots' absolute prefixes from a line; a root named on
// its own becomes ".".
func (r *roots) strip(l string) string {
	for _, root := range r.dirs {
		l = strings.ReplaceAll(l, root+"/", "")
		for i := strings.Index(l, root); i >= 0; i = strings.Index(l, root) {
			j := i + len(root)
			if j < len(l) && isPathByte(l[j]) {
				break
			}
			l = l[:i] + "." + l[j:]
		}
	}
	return l
}

func isPathByte(c byte) bool {
	return c == '/' || c == '.' || c == '-' || c == '_' || c == '~' || c == '+' ||
		'0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}
