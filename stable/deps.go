package stable

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
)

// dep is a possible dependency: an upstream commit that last touched a line
// a failing hunk needs, and that the stable tree lacks.
type dep struct {
	report.Commit
	time int64 // author time, for oldest-first order
}

// depFinder computes "Possible dependencies" like git-deps: blame the
// failing hunks' pre-image lines in the patch's upstream base and keep the
// commits the tree does not have (neither as ancestors nor as backports
// with the same subject).
type depFinder struct {
	opts     Options
	up       *git.Git // upstream repository
	upRef    string   // resolved upstream commit
	tg       *git.Git // tree repository
	head     string   // resolved tree commit
	sameRepo bool
	// baseCommit is the patch's own "base-commit:" (git format-patch
	// --base), used for every file when upstream has it.
	baseCommit string

	treeSubjects map[string]bool // subjects of tree commits not upstream
}

// base returns the upstream commit the patch was made against for f: its
// base-commit when it names one upstream has, else the commit whose version
// of the file is the diff's pre-image blob, when the blob is known
// upstream, else the upstream ref.
func (d *depFinder) base(ctx context.Context, f fileDiff) string {
	if d.baseCommit != "" {
		if c, err := d.up.RevParse(ctx, d.baseCommit); err == nil {
			return c
		}
	}
	if f.oldBlob == "" || strings.Trim(f.oldBlob, "0") == "" {
		return d.upRef
	}
	out, err := d.up.Run(ctx, "rev-parse", "--verify", "--quiet", f.oldBlob+"^{blob}")
	if err != nil {
		return d.upRef
	}
	blob := strings.TrimSpace(out)
	cands, err := d.up.Run(ctx, "log", "--format=%H", "--max-count=8", "--find-object="+blob, d.upRef, "--", f.oldName)
	if err != nil {
		return d.upRef
	}
	for _, c := range strings.Fields(cands) {
		for _, rev := range []string{c, c + "^"} {
			if got, err := d.up.Run(ctx, "rev-parse", "--verify", "--quiet", rev+":"+f.oldName); err == nil && strings.TrimSpace(got) == blob {
				if full, err := d.up.RevParse(ctx, rev); err == nil {
					return full
				}
			}
		}
	}
	return d.upRef
}

// find returns the possible dependencies of the failed hunks, ordered as
// opts.DepsOrder says, at most opts.MaxDeps of them. With opts.DepsDepth
// above 1 it goes on like git-deps: the dependencies' own hunks that the
// tree cannot take are blamed at their parents, level by level.
func (d *depFinder) find(ctx context.Context, files []fileDiff, failed []hunk) ([]dep, error) {
	bases := map[string]string{}
	for _, f := range files {
		bases[f.oldName] = d.base(ctx, f)
	}
	found := map[string]*dep{}
	if err := d.blameHunks(ctx, func(path string) string { return bases[path] }, failed, found); err != nil {
		return nil, err
	}
	direct, err := d.keepMissing(ctx, found)
	if err != nil {
		return nil, err
	}
	all := map[string]dep{}
	for _, c := range direct {
		all[c.SHA] = c
	}
	frontier := direct
	for level := 2; level <= d.opts.DepsDepth && len(frontier) > 0 && len(all) < d.opts.MaxDeps; level++ {
		var next []dep
		for _, c := range frontier {
			more, err := d.depsOf(ctx, c)
			if err != nil {
				return nil, err
			}
			for _, m := range more {
				if _, ok := all[m.SHA]; !ok {
					all[m.SHA] = m
					next = append(next, m)
				}
			}
		}
		frontier = next
	}
	var out []dep
	for _, c := range all {
		out = append(out, c)
	}
	sortDeps(out, d.opts.DepsOrder)
	if len(out) > d.opts.MaxDeps {
		out = out[:d.opts.MaxDeps]
	}
	return out, nil
}

// depsOf returns the dependencies of upstream commit c on the tree: the
// commits, missing from the tree, that last touched the lines of c's hunks
// the tree does not have, blamed at c's parent.
func (d *depFinder) depsOf(ctx context.Context, c dep) ([]dep, error) {
	parent, err := d.up.RevParse(ctx, c.SHA+"^")
	if err != nil {
		return nil, nil // a root commit depends on nothing
	}
	out, err := d.up.Run(ctx, "diff-tree", "-p", "--no-renames", "--full-index", parent, c.SHA)
	if err != nil {
		return nil, err
	}
	files, err := parseDiff(out)
	if err != nil {
		return nil, nil // binary or odd: no further dependencies
	}
	failed, err := failingHunks(ctx, d.tg, d.head, files)
	if err != nil {
		return nil, err
	}
	found := map[string]*dep{}
	if err := d.blameHunks(ctx, func(string) string { return parent }, failed, found); err != nil {
		return nil, err
	}
	delete(found, c.SHA)
	return d.keepMissing(ctx, found)
}

// blameHunks blames each hunk's pre-image lines in base(file) (the
// upstream ref when base returns ""), found by content near the hunk's
// position, and adds the commits to found.
func (d *depFinder) blameHunks(ctx context.Context, base func(path string) string, hunks []hunk, found map[string]*dep) error {
	for _, h := range hunks {
		rev := base(h.file)
		if rev == "" {
			rev = d.upRef
		}
		content, err := d.up.Run(ctx, "cat-file", "blob", rev+":"+h.file)
		if err != nil {
			continue // the file does not exist there either
		}
		lines := splitLines(content)
		start := findBlock(lines, h.pre, h.oldStart-1)
		n := len(h.pre)
		if start < 0 {
			start = h.oldStart - 1
		}
		if n == 0 {
			n = 1
		}
		start = max(0, min(start, len(lines)-1))
		end := min(len(lines), start+n)
		if end <= start {
			continue
		}
		if err := d.blame(ctx, rev, h.file, start+1, end, found); err != nil {
			return err
		}
	}
	return nil
}

// keepMissing returns the commits of found the tree lacks.
func (d *depFinder) keepMissing(ctx context.Context, found map[string]*dep) ([]dep, error) {
	var out []dep
	for _, c := range found {
		keep, err := d.missing(ctx, c)
		if err != nil {
			return nil, err
		}
		if keep {
			out = append(out, *c)
		}
	}
	sortDeps(out, "sha")
	return out, nil
}

func sortDeps(ds []dep, order string) {
	sort.Slice(ds, func(i, j int) bool {
		if order != "sha" && ds[i].time != ds[j].time {
			return ds[i].time < ds[j].time
		}
		return ds[i].SHA < ds[j].SHA
	})
}

// blame adds the commits that last touched lines [from, to] of path at rev.
// A boundary commit is the root of the blamed history: everything the tree
// forked from. It is never a dependency.
func (d *depFinder) blame(ctx context.Context, rev, path string, from, to int, found map[string]*dep) error {
	cs, err := d.up.Blame(ctx, rev, path, from, to)
	if err != nil {
		return fmt.Errorf("blame %s at %.12s: %w", path, rev, err)
	}
	for _, c := range cs {
		if c.Boundary {
			delete(found, c.SHA)
			continue
		}
		if _, ok := found[c.SHA]; !ok {
			found[c.SHA] = &dep{Commit: report.Commit{SHA: c.SHA, Subject: c.Summary}, time: c.AuthorTime}
		}
	}
	return nil
}

// missing reports whether the tree lacks commit c (as an ancestor, or as a
// backport carrying the same subject).
func (d *depFinder) missing(ctx context.Context, c *dep) (bool, error) {
	if _, err := d.tg.RevParse(ctx, c.SHA); err == nil {
		in, err := d.tg.IsAncestor(ctx, c.SHA, d.head)
		if err != nil {
			return false, err
		}
		if in {
			return false, nil
		}
	}
	if d.treeSubjects == nil {
		args := []string{"log", "--format=%s"}
		if d.sameRepo {
			args = append(args, d.head, "^"+d.upRef)
		} else {
			args = append(args, fmt.Sprintf("--max-count=%d", d.opts.SearchLimit), d.head)
		}
		out, err := d.tg.Run(ctx, append(args, "--")...)
		if err != nil {
			return false, err
		}
		d.treeSubjects = map[string]bool{}
		for _, s := range strings.Split(out, "\n") {
			if s = strings.TrimSpace(s); s != "" {
				d.treeSubjects[s] = true
			}
		}
	}
	return !d.treeSubjects[c.Subject], nil
}
