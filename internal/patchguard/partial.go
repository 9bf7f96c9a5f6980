package patchguard

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A full scratch index of a kernel tree (read-tree, then git apply
// rewriting 75,000 entries) costs most of a second on a busy machine. A
// patch only needs the entries of the paths it names, so the guard first
// tries an index holding just those (paths from git's own numstat parse
// plus every path a header line might name); if git apply then misses an
// entry, the guard falls back to the full index.

// baseEntry is an index entry of the base commit.
type baseEntry struct{ mode, sha string }

// headerPaths returns every path the diff headers might name (a superset:
// unknown names are simply absent from the base tree).
func headerPaths(diff []byte) []string {
	var out []string
	add := func(s string) {
		s = strings.TrimSpace(s)
		if i := strings.IndexByte(s, '\t'); i >= 0 {
			s = s[:i]
		}
		if strings.HasPrefix(s, `"`) {
			u, err := strconv.Unquote(s)
			if err != nil {
				return
			}
			s = u
		}
		// git apply -p1 strips the first component, whatever it is.
		if _, rest, ok := strings.Cut(s, "/"); ok {
			out = append(out, rest)
		}
		out = append(out, s)
	}
	for _, l := range strings.Split(string(diff), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			rest := strings.TrimPrefix(l, "diff --git ")
			if strings.HasPrefix(rest, `"`) {
				if end := closingQuote(rest); end > 0 {
					add(rest[:end+1])
					add(rest[end+1:])
					continue
				}
			}
			if i := strings.Index(rest, " b/"); i >= 0 {
				add(rest[:i])
				add(rest[i+1:])
			} else if i := strings.Index(rest, ` "b/`); i >= 0 {
				add(rest[:i])
				add(rest[i+1:])
			}
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "):
			add(l[4:])
		default:
			for _, pre := range []string{"rename from ", "rename to ", "copy from ", "copy to "} {
				if strings.HasPrefix(l, pre) {
					add(strings.TrimPrefix(l, pre))
				}
			}
		}
	}
	return out
}

// closingQuote returns the index of the quote ending a C-quoted string
// that starts at s[0].
func closingQuote(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// newPartialScratch makes a scratch index holding only the entries of
// commit at paths.
func newPartialScratch(ctx context.Context, repo, commit string, paths []string) (*scratch, error) {
	common, err := gitCmd(ctx, repo, nil, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "autosel-guard-")
	if err != nil {
		return nil, err
	}
	s := &scratch{repo: repo, dir: dir, base: map[string]baseEntry{}, env: []string{
		"GIT_INDEX_FILE=" + filepath.Join(dir, "index"),
		"GIT_OBJECT_DIRECTORY=" + filepath.Join(dir, "objects"),
		"GIT_ALTERNATE_OBJECT_DIRECTORIES=" + filepath.Join(strings.TrimSpace(string(common)), "objects"),
	}}
	if err := os.MkdirAll(filepath.Join(dir, "objects"), 0o755); err != nil {
		s.close()
		return nil, err
	}
	seen := map[string]bool{}
	args := []string{"--literal-pathspecs", "ls-tree", "-z", "--full-tree", commit, "--"}
	for _, p := range paths {
		if pathProblem(p) != "" {
			continue // refused anyway; and outside the repository for git
		}
		if p != "" && !seen[p] {
			seen[p] = true
			args = append(args, p)
		}
	}
	var list []byte
	if len(seen) > 0 {
		if list, err = s.git(ctx, nil, args...); err != nil {
			s.close()
			return nil, err
		}
	}
	var info bytes.Buffer
	for _, rec := range bytes.Split(list, []byte{0}) {
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 || f[1] == "tree" {
			continue
		}
		s.base[string(path)] = baseEntry{mode: f[0], sha: f[2]}
		info.Write(rec)
		info.WriteByte(0)
	}
	if _, err := s.git(ctx, info.Bytes(), "update-index", "-z", "--index-info"); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// partialChanges compares the partial index with the base entries it
// started from.
func (s *scratch) partialChanges(ctx context.Context, _ string) ([]change, error) {
	out, err := s.git(ctx, nil, "ls-files", "-s", "-z")
	if err != nil {
		return nil, err
	}
	var cs []change
	inIndex := map[string]bool{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		meta, p, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 {
			return nil, fmt.Errorf("git ls-files: unexpected record %q", rec)
		}
		path := string(p)
		inIndex[path] = true
		b, had := s.base[path]
		switch {
		case !had:
			cs = append(cs, change{oldMode: "000000", newMode: f[0], oldSHA: zeroSHA, newSHA: f[1], status: 'A', path: path})
		case b.mode != f[0] || b.sha != f[1]:
			st := byte('M')
			if b.mode[:2] != f[0][:2] {
				st = 'T'
			}
			cs = append(cs, change{oldMode: b.mode, newMode: f[0], oldSHA: b.sha, newSHA: f[1], status: st, path: path})
		}
	}
	for path, b := range s.base {
		if !inIndex[path] {
			cs = append(cs, change{oldMode: b.mode, newMode: "000000", oldSHA: b.sha, newSHA: zeroSHA, status: 'D', path: path})
		}
	}
	return cs, nil
}

const zeroSHA = "0000000000000000000000000000000000000000"
