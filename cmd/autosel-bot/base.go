package main

import (
	"context"
	"fmt"

	"github.com/autosel-bot/autosel-bot/gitsrc"
	"github.com/autosel-bot/autosel-bot/mail"
	"github.com/autosel-bot/autosel-bot/pipeline"
	"github.com/autosel-bot/autosel-bot/report"
)

// baseTree picks the commit the patches are analysed against when --tree
// is a git repository holding it: the base of --range (whatever the tree
// has checked out), or the base-commit of the input (git format-patch
// --base writes it in the cover letter or the last patch) when all the
// input names the same one. It returns nil and no note otherwise (the tree's
// working directory is used).
func baseTree(ctx context.Context, tree, repo, rng string, msgs []*mail.Message) (*gitsrc.CommitTree, string) {
	if tree == "" {
		return nil, ""
	}
	if rng != "" {
		base, err := gitsrc.RangeBase(ctx, repo, rng)
		if err != nil {
			return nil, ""
		}
		t, err := gitsrc.NewCommitTree(ctx, tree, base)
		if err != nil {
			return nil, ""
		}
		return t, fmt.Sprintf("analysed against %s, the base of %s, read from the git objects of %s (not its working directory)", t.Commit()[:12], rng, tree)
	}
	base := ""
	for _, m := range msgs {
		if m.InlineReview {
			continue
		}
		switch {
		case m.BaseCommit == "":
			// git format-patch --base writes it once per series: in the
			// cover letter or the last patch.
		case base == "":
			base = m.BaseCommit
		case m.BaseCommit != base:
			return nil, "" // series on different bases: the working directory
		}
	}
	if base == "" {
		return nil, ""
	}
	t, err := gitsrc.NewCommitTree(ctx, tree, base)
	if err != nil {
		return nil, ""
	}
	return t, fmt.Sprintf("analysed against base-commit %s (git format-patch --base), read from the git objects of %s", t.Commit()[:12], tree)
}

// setBaseTree makes the analysis stages of p apply patches onto t, the
// base of a range (rng set) or a base-commit.
func setBaseTree(p *pipeline.Pipeline, t *gitsrc.CommitTree, rng string) {
	for _, st := range p.Stages {
		if an, ok := st.(*pipeline.Analysis); ok {
			an.SetBaseTree(t)
			if rng != "" {
				an.SetBaseFrom(report.BaseRange)
			}
		}
	}
}
