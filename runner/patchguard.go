package runner

import (
	"bufio"
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
)

// Refusal says why a patch was not built. Building a kernel runs code from
// the tree on the host (make, scripts, host programs), so a patch that
// changes such code is hostile until a human says otherwise.
type Refusal struct {
	// Patch names the patch (Patch.Name), when known.
	Patch string `json:"patch,omitempty"`
	// Path is the offending path ("" for content problems).
	Path string `json:"path,omitempty"`
	// Line is the 1-based line in the patch.
	Line int `json:"line"`
	// Reason explains the refusal.
	Reason string `json:"reason"`
}

func (r Refusal) Error() string {
	where := fmt.Sprintf("line %d", r.Line)
	if r.Patch != "" {
		where = r.Patch + " " + where
	}
	if r.Path != "" {
		return fmt.Sprintf("%s: %s: %s", where, r.Path, r.Reason)
	}
	return fmt.Sprintf("%s: %s", where, r.Reason)
}

// Guard decides which patch paths may be built.
type Guard struct {
	// Deny are globs of paths whose change runs code on the host.
	Deny []string
	// Allow are globs exempted from Deny.
	Allow []string
}

var (
	absInclude = regexp.MustCompile(`^\+\s*#\s*include\s*[<"]\s*/`)
	incbin     = regexp.MustCompile(`^\+.*\.incbin\b`)
)

// Check returns every reason to refuse the patch (nil when it may be
// built): paths outside the tree, host-code paths, symlinks, and added
// lines that would pull host files into the build.
func (g Guard) Check(patch []byte) []Refusal {
	var out []Refusal
	seen := map[string]bool{}
	checkPath := func(n int, p string) {
		if p == "" || p == "/dev/null" || seen[p] {
			return
		}
		seen[p] = true
		if r := pathProblem(p); r != "" {
			out = append(out, Refusal{Path: p, Line: n, Reason: r})
			return
		}
		if g.denied(p) {
			out = append(out, Refusal{Path: p, Line: n, Reason: "changes code that runs on the host during the build (runner.deny_paths); allow it with runner.allow_paths"})
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(patch))
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	n := 0
	for sc.Scan() {
		n++
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "diff --git "):
			a, b := splitGitHeader(strings.TrimPrefix(l, "diff --git "))
			checkPath(n, a)
			checkPath(n, b)
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			p := strings.TrimSpace(l[4:])
			if i := strings.IndexByte(p, '\t'); i >= 0 {
				p = p[:i]
			}
			if p != "/dev/null" {
				p = stripPrefix(p)
			}
			checkPath(n, p)
		case strings.HasPrefix(l, "rename from "), strings.HasPrefix(l, "rename to "),
			strings.HasPrefix(l, "copy from "), strings.HasPrefix(l, "copy to "):
			f := strings.SplitN(l, " ", 3)
			checkPath(n, f[2])
		case strings.HasPrefix(l, "new file mode 120000"), strings.HasPrefix(l, "new mode 120000"):
			out = append(out, Refusal{Line: n, Reason: "creates a symbolic link (could point outside the tree)"})
		case absInclude.MatchString(l):
			out = append(out, Refusal{Line: n, Reason: "adds an #include of an absolute host path"})
		case incbin.MatchString(l):
			out = append(out, Refusal{Line: n, Reason: "adds an .incbin (embeds a file at build time)"})
		}
	}
	if err := sc.Err(); err != nil {
		out = append(out, Refusal{Line: n, Reason: "unreadable patch: " + err.Error()})
	}
	return out
}

// splitGitHeader splits "a/X b/Y" (the paths may not contain " b/").
func splitGitHeader(s string) (string, string) {
	if i := strings.Index(s, " b/"); i >= 0 {
		return stripPrefix(s[:i]), stripPrefix(s[i+1:])
	}
	f := strings.Fields(s)
	if len(f) == 2 {
		return stripPrefix(f[0]), stripPrefix(f[1])
	}
	return stripPrefix(s), ""
}

func stripPrefix(p string) string {
	p = strings.Trim(p, `"`)
	for _, pre := range []string{"a/", "b/"} {
		if strings.HasPrefix(p, pre) {
			return p[len(pre):]
		}
	}
	return p
}

// pathProblem rejects paths that leave the tree.
func pathProblem(p string) string {
	switch {
	case strings.ContainsRune(p, 0):
		return "path contains a NUL byte"
	case strings.HasPrefix(p, "/"):
		return "absolute path"
	case strings.HasPrefix(p, "~"):
		return "home-relative path"
	}
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return "path leaves the tree (..)"
		}
		if e == ".git" {
			return "path inside .git"
		}
	}
	return ""
}

func (g Guard) denied(p string) bool {
	for _, a := range g.Allow {
		if matchGlob(a, p) {
			return false
		}
	}
	for _, d := range g.Deny {
		if matchGlob(d, p) {
			return true
		}
	}
	return false
}

// matchGlob matches a slash-separated path against a glob where "*"
// matches within one element (path.Match) and "**" matches any number of
// elements, including none.
func matchGlob(pattern, name string) bool {
	return matchElems(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchElems(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchElems(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}
