package gitsrc

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
)

// CommitTree is a diffcheck.Tree that reads files of one commit from the
// git objects of a repository, not from its working directory: patches
// apply onto exactly the commit they were made for (the base of a range,
// or the base-commit of `git format-patch --base`) whatever is checked out.
type CommitTree struct {
	repo   string
	commit string
}

// fileTimeout bounds reading one file from git.
const fileTimeout = 30 * time.Second

// NewCommitTree returns the tree of rev (any revision naming a commit) in
// repo. It fails when repo is not a git repository or has no such commit.
func NewCommitTree(ctx context.Context, repo, rev string) (*CommitTree, error) {
	if strings.HasPrefix(rev, "-") || rev == "" {
		return nil, fmt.Errorf("revision %q: not a commit", rev)
	}
	abs, err := filepath.Abs(repo)
	if err != nil {
		abs = repo
	}
	out, err := gitOut(ctx, abs, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return nil, fmt.Errorf("%s has no commit %s", repo, rev)
	}
	return &CommitTree{repo: abs, commit: strings.TrimSpace(string(out))}, nil
}

// Commit is the full hash of the tree's commit.
func (t *CommitTree) Commit() string { return t.commit }

// Root names the tree: "<repository>@<abbreviated commit>".
func (t *CommitTree) Root() string { return t.repo + "@" + t.commit[:min(12, len(t.commit))] }

// ReadFile returns the content of path in the commit. Only regular files
// are read (not symbolic links or submodules), up to
// diffcheck.MaxTreeFileSize bytes; a missing path wraps fs.ErrNotExist.
func (t *CommitTree) ReadFile(path string) ([]byte, error) {
	if err := diffcheck.CheckPath(path); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), fileTimeout)
	defer cancel()
	out, err := gitOut(ctx, t.repo, "ls-tree", "-z", "--long", t.commit, "--", path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	entry, _, _ := bytes.Cut(out, []byte{0})
	meta, name, ok := bytes.Cut(entry, []byte{'\t'})
	if !ok || string(name) != path {
		return nil, fmt.Errorf("%s at %s: %w", path, t.Root(), fs.ErrNotExist)
	}
	f := strings.Fields(string(meta)) // mode type oid size
	if len(f) != 4 || f[1] != "blob" || (f[0] != "100644" && f[0] != "100755") {
		return nil, fmt.Errorf("%s at %s: not a regular file", path, t.Root())
	}
	var size int64
	fmt.Sscan(f[3], &size)
	if size > diffcheck.MaxTreeFileSize {
		return nil, fmt.Errorf("%s: %d bytes, more than the %d-byte limit", path, size, diffcheck.MaxTreeFileSize)
	}
	b, err := gitOut(ctx, t.repo, "cat-file", "blob", f[2])
	if err != nil {
		return nil, fmt.Errorf("%s at %s: %w", path, t.Root(), err)
	}
	return b, nil
}

// RangeBase is the commit the patches of rng (A..B) in repo apply to: the
// merge base of A and B (A itself when A is an ancestor of B).
func RangeBase(ctx context.Context, repo, rng string) (string, error) {
	from, to, err := ValidateRange(rng)
	if err != nil {
		return "", err
	}
	out, err := gitOut(ctx, repo, "merge-base", "--end-of-options", from, to)
	if err != nil {
		return "", fmt.Errorf("range %s: no merge base: %w", rng, err)
	}
	return strings.TrimSpace(string(out)), nil
}

var _ diffcheck.Tree = (*CommitTree)(nil)
