package buildlog

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

var (
	// located is a diagnostic that names a file: gcc's
	// "file:line[:col]: ...", "In file included from file:line" and
	// "from file:line" chains, and "file: In function 'f':" headers.
	located = regexp.MustCompile(`^(In file included from |\s+from )?([^\s:]+):(\d+[:,]|\s*In (?:function|member function|static function|constructor|destructor)|\s*At (?:top level|global scope))`)
	// contextOf is a source or caret line gcc prints under a diagnostic.
	contextOf = regexp.MustCompile(`^\s*\d*\s*\|`)
)

// roots are the directories whose files a reply may name and quote: the
// worktree first, then build directories. Relative paths in the log are
// resolved against each (the compiler's working directory is one of them).
type roots []string

func newRoots(dirs []string) roots {
	var r roots
	for _, d := range dirs {
		if d == "" {
			continue
		}
		if abs, err := filepath.Abs(d); err == nil {
			r = append(r, filepath.Clean(abs))
		}
	}
	return r
}

// resolve returns p relative to the root it lies in, or ok=false when it
// is outside every root.
func (r roots) resolve(p string) (string, bool) {
	if filepath.IsAbs(p) {
		return r.inside(filepath.Clean(p))
	}
	// Prefer a root where the file exists; else the first one it falls in.
	var first string
	found := false
	for _, base := range r {
		abs := filepath.Join(base, p)
		rel, ok := r.inside(abs)
		if !ok {
			continue
		}
		if _, err := os.Stat(abs); err == nil {
			return rel, true
		}
		if !found {
			first, found = rel, true
		}
	}
	return first, found
}

// inside returns abs relative to the first root containing it.
func (r roots) inside(abs string) (string, bool) {
	for _, root := range r {
		if abs == root {
			return ".", true
		}
		if strings.HasPrefix(abs, root+string(filepath.Separator)) {
			return abs[len(root)+1:], true
		}
	}
	return "", false
}

// scrub keeps what a reply may quote: diagnostics about files inside the
// roots, with their paths made relative to the root; a diagnostic about a
// file outside them is dropped with the source and caret lines that follow
// it (they would quote a host file). Other lines lose the roots' prefixes.
func (r roots) scrub(lines []string) []string {
	if len(r) == 0 {
		return lines
	}
	out := lines[:0:0]
	dropping := false
	for _, l := range lines {
		if m := located.FindStringSubmatchIndex(l); m != nil {
			p := l[m[4]:m[5]]
			rel, ok := r.resolve(p)
			if !ok {
				dropping = true
				continue
			}
			dropping = false
			l = l[:m[4]] + rel + l[m[5]:]
			out = append(out, r.strip(l))
			continue
		}
		if dropping && contextOf.MatchString(l) {
			continue
		}
		dropping = false
		out = append(out, r.strip(l))
	}
	return out
}

// strip removes the roots' absolute prefixes from a line.
func (r roots) strip(l string) string {
	for _, root := range r {
		l = strings.ReplaceAll(l, root+"/", "")
	}
	return l
}
