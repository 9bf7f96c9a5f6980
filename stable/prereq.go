package stable

import (
	"context"
	"os"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
)

// prereqTrier retries a failed patch on top of its possible dependencies.
type prereqTrier struct {
	w     *worktree
	up    *git.Git
	max   int
	diffs map[string][]byte // dependency sha -> its diff
}

// commitDiff returns the diff of upstream commit sha against its first
// parent, with full blob ids so that git apply can fall back to 3-way.
func (p *prereqTrier) commitDiff(ctx context.Context, sha string) ([]byte, error) {
	if d, ok := p.diffs[sha]; ok {
		return d, nil
	}
	out, err := p.up.Run(ctx, "diff-tree", "-p", "--binary", "--full-index", "--root", "-m", "--first-parent", sha)
	if err != nil {
		return nil, err
	}
	// diff-tree prints the commit id first; git apply ignores it.
	p.diffs[sha] = []byte(out)
	return p.diffs[sha], nil
}

// attempt applies chain then patch onto the snapshot base; it reports
// success and always leaves the index at base.
func (p *prereqTrier) attempt(ctx context.Context, base string, chain []dep, patch []byte) (ok bool, err error) {
	defer func() {
		if rerr := p.w.restore(base); rerr != nil && err == nil {
			ok, err = false, rerr
		}
	}()
	for _, c := range chain {
		d, err := p.commitDiff(ctx, c.SHA)
		if err != nil {
			return false, err
		}
		if p.w.applyRaw(ctx, d) != nil {
			return false, ctx.Err()
		}
	}
	return p.w.applyRaw(ctx, patch) == nil, ctx.Err()
}

// smallest finds the smallest prerequisite chain, trying each dependency
// alone first, then all of them (oldest first, when there are at most max),
// then dropping each one that is not needed. It returns nil when no chain
// makes the patch apply. The index is left at its state on entry.
func (p *prereqTrier) smallest(ctx context.Context, deps []dep, patch []byte) ([]report.Commit, error) {
	if len(deps) == 0 {
		return nil, nil
	}
	base, err := p.w.snapshot()
	if err != nil {
		return nil, err
	}
	defer os.Remove(base)
	byAge := append([]dep(nil), deps...)
	sortDeps(byAge, "date")
	for _, d := range byAge {
		ok, err := p.attempt(ctx, base, []dep{d}, patch)
		if err != nil {
			return nil, err
		}
		if ok {
			return []report.Commit{d.Commit}, nil
		}
	}
	if len(byAge) < 2 || len(byAge) > p.max {
		return nil, nil
	}
	ok, err := p.attempt(ctx, base, byAge, patch)
	if err != nil || !ok {
		return nil, err
	}
	chain := byAge
	for i := 0; i < len(chain) && len(chain) > 1; {
		try := append(append([]dep(nil), chain[:i]...), chain[i+1:]...)
		ok, err := p.attempt(ctx, base, try, patch)
		if err != nil {
			return nil, err
		}
		if ok {
			chain = try
			continue
		}
		i++
	}
	var out []report.Commit
	for _, d := range chain {
		out = append(out, d.Commit)
	}
	return out, nil
}
