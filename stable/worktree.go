package stable

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/internal/flock"
	"github.com/autosel-bot/autosel-bot/internal/git"
)

// worktree is a detached git worktree of a stable tree. Patches are applied
// to its index only (git apply --cached --3way), and files are written out
// only when a build needs them. The user's checkout is never touched; the
// repository only gains worktree metadata.
//
// A tree with a build command and a cache directory gets a persistent
// worktree (openWorktree): kept across runs, locked while in use, reset to
// the tree's commit on every use (git.PrepareWorktree) with every
// untracked and ignored file removed, and written out
// only where the index changed (checkout), so that only the files a series
// changes get new mtimes and make rebuilds only what depends on them. Otherwise the worktree is throwaway (addWorktree):
// made without a checkout and removed again by remove.
type worktree struct {
	repo   *git.Git // the repository the worktree belongs to
	g      *git.Git // git running inside the worktree
	dir    string
	tmp    string // temp dir for index snapshots (and a throwaway worktree), removed at the end
	head   string // commit the worktree started at
	index  string // absolute path of the worktree's index file
	snaps  int    // snapshots taken (for unique names)
	unlock func() // releases a persistent worktree's lock; nil for a throwaway one
}

// openWorktree returns the persistent worktree of the tree called name under
// cacheDir/src, reset to commit, holding its lock until remove. The
// worktree is named after the tree and its repository, like the tree's
// build directory, so that kbuild sees the same source path every time.
func openWorktree(ctx context.Context, repo *git.Git, workDir, cacheDir, name, commit string) (*worktree, error) {
	abs, err := filepath.Abs(repo.Dir())
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	sum := sha256.Sum256([]byte(abs))
	dir := filepath.Join(cacheDir, "src", sanitize(name)+"-"+hex.EncodeToString(sum[:4]))
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	unlock, err := flock.Lock(ctx, dir+".lock")
	if err != nil {
		return nil, fmt.Errorf("worktree lock for %s: %w", name, err)
	}
	tmp, err := os.MkdirTemp(workDir, "autosel-stable-"+sanitize(name)+"-")
	if err != nil {
		unlock()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	w := &worktree{repo: repo, g: repo.WithDir(dir), dir: dir, tmp: tmp, head: commit, unlock: unlock}
	if err := repo.PrepareWorktree(ctx, dir, commit); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	// Ignored files too (in-tree build output): what a patched build
	// wrote in the worktree must not reach the next build.
	if _, err := w.g.Run(ctx, "clean", "-q", "-ffdx"); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	if err := w.findIndex(ctx); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	return w, nil
}

// addWorktree creates a throwaway detached worktree of commit in a new
// temporary directory under workDir and fills its index from commit.
func addWorktree(ctx context.Context, repo *git.Git, workDir, name, commit string) (*worktree, error) {
	tmp, err := os.MkdirTemp(workDir, "autosel-stable-"+sanitize(name)+"-")
	if err != nil {
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	// A unique base name: git names the worktree's metadata after it, and
	// concurrent runs must not race for the same name.
	dir := filepath.Join(tmp, filepath.Base(tmp))
	w := &worktree{repo: repo, g: repo.WithDir(dir), dir: dir, tmp: tmp, head: commit}
	if err := repo.AddWorktree(ctx, dir, commit, false); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	if _, err := w.g.Run(ctx, "read-tree", commit); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	if err := w.findIndex(ctx); err != nil {
		w.remove()
		return nil, fmt.Errorf("worktree for %s: %w", name, err)
	}
	return w, nil
}

// findIndex sets w.index to the worktree's index file.
func (w *worktree) findIndex(ctx context.Context) error {
	idx, err := w.g.Run(ctx, "rev-parse", "--path-format=absolute", "--git-path", "index")
	if err != nil {
		return err
	}
	w.index = strings.TrimSpace(idx)
	return nil
}

// remove deletes a throwaway worktree and its metadata, or releases a
// persistent one (left as it is: the next use resets it). It runs with its
// own short-lived context so that it still works after the caller's
// context was cancelled.
func (w *worktree) remove() {
	if w.unlock != nil {
		os.RemoveAll(w.tmp)
		w.unlock()
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	w.repo.RemoveWorktree(ctx, w.dir)
	os.RemoveAll(w.tmp)
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
	_, err := w.g.RunInput(ctx, diff, "apply", "--cached", "--3way", "--whitespace=nowarn", "-")
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
// git writes only the entries whose stat data do not match the file: all of
// them in a throwaway worktree (nothing is checked out, the index is fresh
// from read-tree), only the ones the patches changed in a persistent one,
// whose other files keep their mtimes. Files the patches deleted are
// removed (checkout-index does not).
func (w *worktree) checkout(ctx context.Context) error {
	if _, err := w.g.Run(ctx, "checkout-index", "--all", "--force"); err != nil {
		return err
	}
	if w.unlock == nil {
		return nil
	}
	out, err := w.g.Output(ctx, nil, "diff-index", "--cached", "--no-renames", "--diff-filter=D", "--name-only", "-z", w.head, "--")
	if err != nil {
		return err
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		if !filepath.IsLocal(p) {
			return fmt.Errorf("checkout: deleted path %q outside the worktree", p)
		}
		if err := os.Remove(filepath.Join(w.dir, filepath.FromSlash(p))); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("checkout: %w", err)
		}
	}
	return nil
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
