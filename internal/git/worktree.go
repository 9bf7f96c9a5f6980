package git

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// AddWorktree adds a detached worktree of commit at dir to the repository
// g runs in (forcing over stale metadata of a worktree once at dir). With
// checkout false the worktree's files and index are left empty (fill the
// index with read-tree; write files with checkout-index).
func (g *Git) AddWorktree(ctx context.Context, dir, commit string, checkout bool) error {
	args := []string{"worktree", "add", "-q", "-f", "--detach"}
	if !checkout {
		args = append(args, "--no-checkout")
	}
	_, err := g.Run(ctx, append(args, "--", dir, commit)...)
	return err
}

// RemoveWorktree deletes the worktree at dir and its metadata in the
// repository g runs in, and prunes metadata of worktrees that no longer
// exist. Removing a worktree that is already gone is not an error.
func (g *Git) RemoveWorktree(ctx context.Context, dir string) error {
	_, rmErr := g.Run(ctx, "worktree", "remove", "--force", "--", dir)
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if _, err := g.Run(ctx, "worktree", "prune"); err != nil {
		return err
	}
	if _, err := os.Stat(dir); rmErr != nil && err == nil {
		return rmErr
	}
	return nil
}

// Reset makes the worktree (or checkout) g runs in a clean, detached
// checkout of commit: tracked files and the index as in commit,
// untracked files and directories removed (ignored files, such as in-tree
// build output, stay). Only files that differ are written, so their
// mtimes are the only ones that change and make rebuilds only what they
// feed.
func (g *Git) Reset(ctx context.Context, commit string) error {
	if _, err := g.Run(ctx, "checkout", "-q", "-f", "--detach", commit); err != nil {
		return err
	}
	_, err := g.Run(ctx, "clean", "-q", "-f", "-d")
	return err
}

// PrepareWorktree makes dir a clean checkout of commit from the repository
// g runs in, reusing the worktree already at dir (Reset) and
// re-creating it when it is unusable (its repository moved or was made
// again). The repository's own checkout is not touched; git records the
// worktree in the repository's worktree metadata.
func (g *Git) PrepareWorktree(ctx context.Context, dir, commit string) error {
	if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
		if err := g.WithDir(dir).Reset(ctx, commit); err == nil {
			return nil
		} else if ctx.Err() != nil {
			return err
		}
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return err
	}
	if err := g.AddWorktree(ctx, dir, commit, true); err != nil {
		return fmt.Errorf("worktree %s: %w", dir, err)
	}
	return nil
}
