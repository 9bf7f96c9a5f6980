package stable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// worktree is a throwaway, detached git worktree of a stable tree. It is
// created without a checkout: patches are applied to its index only
// (git apply --cached --3way), and files are written out only when a build
// needs them. The user's checkout is never touched; the repository only
// gains worktree metadata, removed again by remove.
type worktree struct {
	repo  *git // the repository the worktree belongs to
	g     *git // git running inside the worktree
	dir   string
	tmp   string // parent temp dir, removed at the end
	head  string // commit the worktree started at
	index string // absolute path of the worktree's index file
	snaps int    // snapshots taken (for unique names)
}

// addWorktree creates a detached worktree of commit in a new temporary
// directory under workDir and fills its index from commit.
func addWorktree(ctx context.Context, repo *git, workDir, name, commit string) (*worktree, error) {
	tmp, err := os.MkdirTemp(workDir, "autosel-stable-"+sanitize(name)+"-")
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	// A unique base name: git names the worktree's metadata after it, and
	// concurrent runs must not race for the same name.
	dir := filepath.Join(tmp, filepath.Base(tmp))
	w := &worktree{repo: repo, g: repo.with(dir), dir: dir, tmp: tmp, head: commit}
	if _, err := repo.run(ctx, "worktree", "add", "--detach", "--no-checkout", dir, commit); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	if _, err := w.g.run(ctx, "read-tree", commit); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	idx, err := w.g.run(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	w.index = strings.TrimSpace(idx)
	return w, nil
}

// remove deletes the worktree and its metadata. It runs with its own
// short-lived context so that it still works after the caller's context
// was cancelled.
func (w *worktree) remove() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w.repo.run(ctx, "worktree", "remove", "--force", w.dir)
	os.RemoveAll(w.tmp)
	w.repo.run(ctx, "worktree", "prune")
}

// snapshot saves the index (a file copy: much cheaper than read-tree on a
// kernel-sized index) and returns the saved copy's path.
func (w *worktree) snapshot() (string, error) {
	w.snaps++
	path := filepath.Join(w.tmp, fmt.Sprintf("index.%d", w.snaps))
	if err := copyFile(w.index, path); err != nil {
		return "", fmt.Errorf("snapshot index: %w", err)
	}
	return path, nil
}

// restore puts a snapshot back as the index (atomically, by rename of a
// copy, so the snapshot stays usable).
func (w *worktree) restore(snap string) error {
	tmp := w.index + ".autosel"
	if err := copyFile(snap, tmp); err != nil {
		return fmt.Errorf("restore index: %w", err)
	}
	if err := os.Rename(tmp, w.index); err != nil {
		return fmt.Errorf("restore index: %w", err)
	}
	return nil
}

// applyRaw applies a diff to the index with a 3-way fallback; on failure
// the index may hold conflict stages (the caller restores a snapshot).
func (w *worktree) applyRaw(ctx context.Context, diff []byte) error {
	_, err := w.g.runInput(ctx, diff, "apply", "--cached", "--3way", "--whitespace=nowarn", "-")
	return err
}

// apply applies a diff to the index with a 3-way fallback. The index is
// unchanged on failure.
func (w *worktree) apply(ctx context.Context, diff []byte) error {
	snap, err := w.snapshot()
	if err != nil {
		return err
	}
	defer os.Remove(snap)
	if err := w.applyRaw(ctx, diff); err != nil {
		if rerr := w.restore(snap); rerr != nil {
			return fmt.Errorf("%w (and %v)", err, rerr)
		}
		return err
	}
	return nil
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// checkout writes the index out to the worktree's files (for a build).
func (w *worktree) checkout(ctx context.Context) error {
	_, err := w.g.run(ctx, "checkout-index", "--all", "--force")
	return err
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() > 40 {
		return b.String()[:40]
	}
	return b.String()
}
