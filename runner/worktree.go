package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/autosel-bot/autosel-bot/internal/git"
)

// treeKey names a tree's persistent worktree and build dir: the checkout's
// base name and a hash of its absolute path. kbuild records absolute
// source paths, so the same tree must always map to the same worktree.
func treeKey(tree string) (string, error) {
	abs, err := filepath.Abs(tree)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_' {
			return r
		}
		return '_'
	}, filepath.Base(abs))
	return base + "-" + hex.EncodeToString(sum[:])[:8], nil
}

// resolveCommit returns the full commit id of ref in tree.
func resolveCommit(ctx context.Context, tree, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	c, err := git.New(tree).RevParse(ctx, ref)
	if err != nil {
		return "", fmt.Errorf("runner: %s: no commit %q: %w", tree, ref, err)
	}
	return c, nil
}

// prepareWorktree makes wt a clean checkout of commit from tree, reusing
// an existing worktree so that only files that differ get new mtimes (and
// only their objects are rebuilt); see git.PrepareWorktree.
func prepareWorktree(ctx context.Context, tree, wt, commit string) error {
	if err := git.New(tree).PrepareWorktree(ctx, wt, commit); err != nil {
		return fmt.Errorf("runner: worktree for %s: %w", tree, err)
	}
	return nil
}

// applyPatch applies one patch to the worktree with git apply, which
// refuses paths outside the tree and changes beyond symbolic links.
func applyPatch(ctx context.Context, wt string, name string, diff []byte) error {
	if err := git.New(wt).Apply(ctx, diff, "--whitespace=nowarn"); err != nil {
		return fmt.Errorf("%s does not apply: %w", name, err)
	}
	return nil
}
