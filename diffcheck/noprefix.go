package diffcheck

import "strings"

// prefixless holds the paths of a git file diff written without the a/
// and b/ prefixes (git diff --no-prefix, diff.noprefix=true).
type prefixless struct {
	oldPath, newPath string
	ok               bool
}

// noPrefixNames reads the paths of the git file diff whose "diff --git"
// line is lines[at], when it has no a/ and b/ prefixes: go-gitdiff then
// takes the first element of each path for a prefix and drops it. The
// paths come from the "--- "/"+++ " lines, or, without them (a mode
// change, a binary), from the header naming one path twice. ok is false
// for a prefixed diff, a quoted name, or paths it cannot tell.
func noPrefixNames(lines []string, at int) prefixless {
	if at < 0 || at >= len(lines) {
		return prefixless{}
	}
	hdr := strings.TrimPrefix(lines[at], "diff --git ")
	if strings.HasPrefix(hdr, `"`) || prefixed(hdr) {
		return prefixless{}
	}
	var np prefixless
	for i := at + 1; i < len(lines); i++ {
		l := lines[i]
		if strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@") {
			break
		}
		switch {
		case strings.HasPrefix(l, "--- "):
			np.oldPath = plainHeaderPath(l[4:])
		case strings.HasPrefix(l, "+++ "):
			np.newPath = plainHeaderPath(l[4:])
		}
	}
	if np.oldPath != "" && np.newPath != "" {
		np.ok = true
		return np
	}
	// "diff --git P P": the same path twice, split at the middle space.
	if n := len(hdr); n%2 == 1 && hdr[n/2] == ' ' && hdr[:n/2] == hdr[n/2+1:] {
		return prefixless{oldPath: hdr[:n/2], newPath: hdr[:n/2], ok: true}
	}
	return prefixless{}
}

// plainHeaderPath is the path of a "--- "/"+++ " line, prefix kept,
// without a trailing timestamp.
func plainHeaderPath(p string) string {
	if i := strings.IndexByte(p, '\t'); i >= 0 {
		p = p[:i]
	}
	return strings.TrimSpace(p)
}

// gitPrefixes are the one-letter prefixes git writes: a/ and b/, the
// reverse of a diff (b/ then a/), and diff.mnemonicPrefix's c/, i/, o/,
// w/.
var gitPrefixes = []string{"a/", "b/", "c/", "i/", "o/", "w/"}

// prefixed reports whether a "diff --git" header's paths carry git's
// prefixes: the first path starts with one and the second one follows it.
func prefixed(hdr string) bool {
	for _, p := range gitPrefixes {
		if !strings.HasPrefix(hdr, p) {
			continue
		}
		for _, q := range gitPrefixes {
			if strings.Contains(hdr, " "+q) {
				return true
			}
		}
	}
	return false
}
