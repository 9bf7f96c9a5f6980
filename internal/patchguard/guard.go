package patchguard

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Patch is one diff to check.
type Patch struct {
	// Name names the patch in refusals.
	Name string
	// Diff is the patch text as git apply reads it.
	Diff []byte
}

// Guard decides which patches may be built. Build it with New; it caches
// the host-tool list of the last commits it saw and is safe for
// concurrent use.
type Guard struct {
	// Deny are globs of paths whose change runs code on the host
	// (Makefiles, Kconfig, scripts, ...).
	Deny []string
	// Allow are globs exempted from Deny and from the derived host tools
	// (not from the symlink, mode, binary and content checks).
	Allow []string

	cache *toolCache
}

type toolCache struct {
	mu    sync.Mutex
	order []string
	tools map[string]*HostTools // repo common dir + commit
}

// New returns a guard with the configured globs.
func New(deny, allow []string) Guard {
	return Guard{Deny: deny, Allow: allow, cache: &toolCache{tools: map[string]*HostTools{}}}
}

// HostTools returns the host-tool files of commit in repo (cached).
func (g Guard) HostTools(ctx context.Context, repo, commit string) (*HostTools, error) {
	c := g.cache
	if c == nil {
		return deriveHostTools(ctx, repo, commit)
	}
	common, err := gitCmd(ctx, repo, nil, nil, "rev-parse", "--path-format=absolute", "--git-common-dir")
	if err != nil {
		return nil, err
	}
	key := strings.TrimSpace(string(common)) + "\x00" + commit
	c.mu.Lock()
	defer c.mu.Unlock()
	if ht, ok := c.tools[key]; ok {
		return ht, nil
	}
	ht, err := deriveHostTools(ctx, repo, commit)
	if err != nil {
		return nil, err
	}
	c.tools[key] = ht
	c.order = append(c.order, key)
	if len(c.order) > 8 {
		delete(c.tools, c.order[0])
		c.order = c.order[1:]
	}
	return ht, nil
}

// Check applies patches in order to a scratch index of repo at commit
// (the repository is not modified) and returns every reason to refuse
// them; nil means they may be built. The paths of a patch git cannot apply
// are still checked (git apply --numstat); the build's own apply then
// reports the failure.
func (g Guard) Check(ctx context.Context, repo, commit string, patches []Patch) ([]Refusal, error) {
	ht, err := g.HostTools(ctx, repo, commit)
	if err != nil {
		return nil, fmt.Errorf("patch guard: host tools: %w", err)
	}
	out, names := g.textRefusals(ctx, ht, patches)
	s, err := scratchFor(ctx, repo, commit, names, patches)
	if err != nil {
		return nil, fmt.Errorf("patch guard: %w", err)
	}
	defer s.close()
	more, err := g.checkChanges(ctx, s.repo, s.env, ht, commit, s.changes)
	if err != nil {
		return nil, err
	}
	return merge(out, more), nil
}

// CheckIndex checks the index of the git worktree dir (patches already
// applied with git apply --cached) against commit; patches are the diffs
// that were applied, for the checks of the patch text.
func (g Guard) CheckIndex(ctx context.Context, dir, commit string, patches []Patch) ([]Refusal, error) {
	ht, err := g.HostTools(ctx, dir, commit)
	if err != nil {
		return nil, fmt.Errorf("patch guard: host tools: %w", err)
	}
	out, _ := g.textRefusals(ctx, ht, patches)
	list := func(ctx context.Context, base string) ([]change, error) {
		b, err := gitCmd(ctx, dir, nil, nil, "diff-index", "--cached", "--raw", "-z", "--no-renames", "--full-index", base)
		if err != nil {
			return nil, err
		}
		return parseRaw(b)
	}
	more, err := g.checkChanges(ctx, dir, nil, ht, commit, list)
	if err != nil {
		return nil, err
	}
	return merge(out, more), nil
}

// merge appends the refusals of b not already in a (same path and reason).
func merge(a, b []Refusal) []Refusal {
	seen := map[string]bool{}
	for _, r := range a {
		seen[r.Path+"\x00"+r.Reason] = true
	}
	for _, r := range b {
		if !seen[r.Path+"\x00"+r.Reason] {
			a = append(a, r)
		}
	}
	return a
}

// scratchFor returns a scratch index of commit with patches applied in
// order (stopping at the first that does not apply): a partial index of
// the paths they name when that suffices, else a full one.
func scratchFor(ctx context.Context, repo, commit string, names []string, patches []Patch) (*scratch, error) {
	paths := append([]string(nil), names...)
	for _, p := range patches {
		paths = append(paths, headerPaths(p.Diff)...)
	}
	if s, err := newPartialScratch(ctx, repo, commit, paths); err == nil {
		ok := true
		for _, p := range patches {
			if err := s.apply(ctx, p.Diff); err != nil {
				ok = false
				break
			}
		}
		if ok {
			return s, nil
		}
		s.close()
	}
	s, err := newScratch(ctx, repo, commit)
	if err != nil {
		return nil, err
	}
	for _, p := range patches {
		if err := s.apply(ctx, p.Diff); err != nil {
			break
		}
	}
	return s, nil
}

// textRefusals are the checks git's parse of the patch text answers:
// patches git cannot parse, binary patches, and the paths each patch
// writes (even when it would not apply). It also returns those paths.
func (g Guard) textRefusals(ctx context.Context, ht *HostTools, patches []Patch) ([]Refusal, []string) {
	var (
		out []Refusal
		all []string
	)
	for _, p := range patches {
		names, bin, err := numstat(ctx, p.Diff)
		all = append(all, names...)
		if err != nil {
			msg := err.Error()
			if i := strings.LastIndex(msg, ": "); i >= 0 {
				msg = msg[i+2:]
			}
			out = append(out, Refusal{Patch: p.Name, Reason: "git cannot parse the patch: " + msg})
			continue
		}
		for _, b := range bin {
			out = append(out, Refusal{Patch: p.Name, Path: b, Reason: reasonBinary})
		}
		// Whatever git makes of odd spacing (it may abort or ignore the
		// mode), a header asking for a symlink or gitlink is refused.
		for _, m := range specialMode.FindAllStringSubmatch(string(p.Diff), -1) {
			what := "creates a symbolic link (mode 120000; could point outside the tree)"
			if strings.HasSuffix(m[1], "160000") {
				what = "adds a gitlink (submodule, mode 160000)"
			}
			out = append(out, Refusal{Patch: p.Name, Reason: what})
		}
		for _, n := range names {
			if r := g.pathReason(ht, n); r != "" {
				out = append(out, Refusal{Patch: p.Name, Path: n, Reason: r})
			}
		}
	}
	return out, all
}

// specialMode is an extended header line giving a symlink or gitlink
// mode, with any spacing (hunk lines start with +, - or space instead).
var specialMode = regexp.MustCompile(`(?m)^(?:new file|new|old|deleted file) mode[ \t]+(0*1[26]0000)[ \t]*\r?$`)

// Refusal reasons shared by the text and index checks.
const (
	reasonBinary = "binary patch (its content cannot be reviewed)"
	reasonDenied = "changes code that runs on the host during the build (runner.deny_paths); allow it with runner.allow_paths"
)

// pathReason refuses a path outside the tree, a derived host-tool file or
// a denied glob ("" when the path may change).
func (g Guard) pathReason(ht *HostTools, p string) string {
	if r := pathProblem(p); r != "" {
		return r
	}
	if g.allowed(p) {
		return ""
	}
	if prog, ok := ht.Files[p]; ok {
		return fmt.Sprintf("changes a host tool the build compiles and runs (%s, from the tree's Kbuild hostprogs/userprogs); allow it with runner.allow_paths", prog)
	}
	if g.denied(p) {
		return reasonDenied
	}
	return ""
}

// checkChanges refuses the changed index entries that are symlinks,
// gitlinks, new executables, host code, or whose added lines pull files
// from outside the tree into the build.
func (g Guard) checkChanges(ctx context.Context, repo string, env []string, ht *HostTools, commit string, list func(context.Context, string) ([]change, error)) ([]Refusal, error) {
	changes, err := list(ctx, commit)
	if err != nil {
		return nil, fmt.Errorf("patch guard: %w", err)
	}
	if len(changes) == 0 {
		return nil, nil
	}
	cf, err := newCatFile(ctx, repo, env)
	if err != nil {
		return nil, err
	}
	defer cf.close()
	var out []Refusal
	for _, c := range changes {
		refuse := func(line int, reason string) {
			out = append(out, Refusal{Path: c.path, Line: line, Reason: reason})
		}
		switch {
		case c.newMode == "120000":
			refuse(0, "creates a symbolic link (mode 120000; could point outside the tree)")
			continue
		case c.newMode == "160000":
			refuse(0, "adds a gitlink (submodule, mode 160000)")
			continue
		case c.newMode == "100755" && c.oldMode != "100755":
			refuse(0, "makes a file executable (mode 100755)")
		}
		if r := g.pathReason(ht, c.path); r != "" {
			refuse(0, r)
			continue
		}
		if c.status == 'D' || c.newMode == "000000" {
			continue
		}
		newData, ok, err := cf.read(c.newSHA)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		var oldData []byte
		if c.oldMode != "000000" {
			oldData, _, err = cf.read(c.oldSHA)
			if err != nil {
				return nil, err
			}
		}
		for _, r := range contentRefusals(c.path, oldData, newData) {
			refuse(r.Line, r.Reason)
		}
	}
	return out, nil
}

// pathProblem rejects paths that leave the tree (git itself refuses most).
func pathProblem(p string) string {
	switch {
	case strings.ContainsRune(p, 0):
		return "path contains a NUL byte"
	case filepath.IsAbs(p):
		return "absolute path"
	}
	for _, e := range strings.Split(p, "/") {
		if e == ".." {
			return "path leaves the tree (..)"
		}
		if strings.EqualFold(e, ".git") {
			return "path inside .git"
		}
	}
	return ""
}

// allowed reports whether the operator exempted p (runner.allow_paths)
// from the path checks: the globs and the derived host tools.
func (g Guard) allowed(p string) bool {
	for _, a := range g.Allow {
		if matchGlob(a, p) {
			return true
		}
	}
	return false
}

func (g Guard) denied(p string) bool {
	for _, d := range g.Deny {
		if matchGlob(d, p) {
			return true
		}
	}
	return false
}
