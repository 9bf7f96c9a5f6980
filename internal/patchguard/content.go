package patchguard

import (
	"path"
	"regexp"
	"strings"
)

var (
	// includeAny is any preprocessor or assembler include, with the path
	// in m[2] (quoted) or m[3] (angle brackets).
	includeAny = regexp.MustCompile(`(?:#\s*include(?:_next)?|__has_include(?:_next)?\s*\(|\.include)\s*(?:"([^"]*)"|<([^>]*)>)`)
	incbin     = regexp.MustCompile(`\.incbin\b|#\s*embed\b|__has_embed\b`)
)

// contentRefusals refuses lines of newData that are not in oldData (added
// by the patches) and pull files into the build from outside the tree:
// #include/.include of an absolute path or one whose ".." leaves the
// tree, and .incbin (or #embed) anywhere.
func contentRefusals(file string, oldData, newData []byte) []Refusal {
	old := map[string]int{}
	for _, l := range strings.Split(string(oldData), "\n") {
		old[l]++
	}
	var out []Refusal
	for i, l := range strings.Split(string(newData), "\n") {
		if old[l] > 0 {
			old[l]--
			continue
		}
		if incbin.MatchString(l) {
			out = append(out, Refusal{Line: i + 1, Reason: "adds an .incbin/#embed (embeds a file at build time)"})
			continue
		}
		for _, m := range includeAny.FindAllStringSubmatch(l, -1) {
			p, angle := m[1], false
			if p == "" {
				p, angle = m[2], true
			}
			if r := includeProblem(file, p, angle); r != "" {
				out = append(out, Refusal{Line: i + 1, Reason: r})
			}
		}
	}
	return out
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
