package runner

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// git runs git in dir and returns its stdout; errors carry stderr.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "LC_ALL=C")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// resolveCommit returns the full commit id of ref in tree.
func resolveCommit(ctx context.Context, tree, ref string) (string, error) {
	if ref == "" {
		ref = "HEAD"
	}
	out, err := git(ctx, tree, "rev-parse", "--verify", "--end-of-options", ref+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("runner: %s: no commit %q: %w", tree, ref, err)
	}
	return strings.TrimSpace(out), nil
}

// prepareWorktree makes wt a clean checkout of commit from tree, reusing
// an existing worktree so that only files that differ get new mtimes (and
// only their objects are rebuilt). The tree's own checkout is not touched;
// git records the worktree in the tree's .git/worktrees.
func prepareWorktree(ctx context.Context, tree, wt, commit string) error {
	if _, err := os.Stat(filepath.Join(wt, ".git")); err == nil {
		if _, err := git(ctx, wt, "checkout", "-q", "-f", "--detach", commit); err == nil {
			if _, err := git(ctx, wt, "clean", "-q", "-f", "-d"); err != nil {
				return fmt.Errorf("runner: worktree %s: %w", wt, err)
			}
			return nil
		}
		// A broken worktree (its tree moved or was re-created): start over.
		if err := os.RemoveAll(wt); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(wt), 0o755); err != nil {
		return err
	}
	if _, err := git(ctx, tree, "worktree", "add", "-q", "-f", "--detach", wt, commit); err != nil {
		return fmt.Errorf("runner: worktree for %s: %w", tree, err)
	}
	return nil
}

// applyPatch applies one patch to the worktree with git apply, which
// refuses paths outside the tree and changes beyond symbolic links.
func applyPatch(ctx context.Context, wt string, name string, diff []byte) error {
	f, err := os.CreateTemp("", "autosel-patch-*.diff")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(diff); err != nil {
		f.Close()
		return err
	}
	f.Close()
	if _, err := git(ctx, wt, "apply", "--whitespace=nowarn", f.Name()); err != nil {
		return fmt.Errorf("%s does not apply: %w", name, err)
	}
	return nil
}
