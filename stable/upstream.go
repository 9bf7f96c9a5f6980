package stable

import (
	"context"
	"fmt"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
)

// patchID returns git's stable patch-id of a diff ("" if git finds none).
func patchID(ctx context.Context, g *git.Git, diff []byte) (string, error) {
	out, err := g.RunInput(ctx, diff, "patch-id", "--stable")
	if err != nil {
		return "", err
	}
	f := strings.Fields(out)
	if len(f) == 0 {
		return "", nil
	}
	return f[0], nil
}

// findUpstream looks for the patch in upstream: the commit a backport
// names in its "[ Upstream commit <sha> ]" line, else a commit with the same
// subject (reported as "patch-id" when its patch-id also matches, else
// "subject"), or failing that a commit with the same patch-id among the
// recent commits touching the patch's files.
func findUpstream(ctx context.Context, up *git.Git, upRef, title, upstreamSHA string, diff []byte, files []fileDiff, limit int) (*report.Commit, string, error) {
	// A backport names its upstream commit ("[ Upstream commit <sha> ]").
	if upstreamSHA != "" {
		if full, err := up.RevParse(ctx, upstreamSHA); err == nil {
			if in, err := up.IsAncestor(ctx, full, upRef); err == nil && in {
				s, _ := commitSubject(ctx, up, full)
				return &report.Commit{SHA: full, Subject: s}, "upstream-commit", nil
			}
		}
	}
	id, err := patchID(ctx, up, diff)
	if err != nil {
		return nil, "", fmt.Errorf("patch-id: %w", err)
	}
	if sha, err := findSubject(ctx, up, upRef, title, limit); err != nil {
		return nil, "", err
	} else if sha != "" {
		c := &report.Commit{SHA: sha, Subject: title}
		cd, err := up.Run(ctx, "diff-tree", "-p", "--root", sha)
		if err == nil && id != "" {
			if cid, _ := patchID(ctx, up, []byte(cd)); cid == id {
				return c, "patch-id", nil
			}
		}
		return c, "subject", nil
	}
	ps := paths(files)
	if id == "" || len(ps) == 0 {
		return nil, "", nil
	}
	args := append([]string{"log", "-p", "--no-merges", fmt.Sprintf("--max-count=%d", min(limit, 500)), upRef, "--"}, ps...)
	logp, err := up.Run(ctx, args...)
	if err != nil {
		return nil, "", err
	}
	ids, err := up.RunInput(ctx, []byte(logp), "patch-id", "--stable")
	if err != nil {
		return nil, "", err
	}
	for _, l := range strings.Split(ids, "\n") {
		f := strings.Fields(l)
		if len(f) == 2 && f[0] == id {
			s, _ := commitSubject(ctx, up, f[1])
			return &report.Commit{SHA: f[1], Subject: s}, "patch-id", nil
		}
	}
	return nil, "", nil
}
