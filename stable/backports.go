package stable

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/autosel-bot/autosel-bot/internal/git"
	"github.com/autosel-bot/autosel-bot/report"
)

// backportFinder looks for commits carrying a patch (same subject) in the
// configured trees, outside upstream: the patch already present in the tree
// under test, or an existing backport in another tree to start from.
type backportFinder struct {
	opts  Options
	upRef string
	cache map[string]*report.Commit // tree index + "\x00" + title -> commit (nil: none)
}

// lookup returns the commit of tree i whose subject is title, looking only
// at commits not upstream when upstream shares the tree's repository.
func (b *backportFinder) lookup(ctx context.Context, i int, title string) (*report.Commit, error) {
	key := fmt.Sprintf("%d\x00%s", i, title)
	if c, ok := b.cache[key]; ok {
		return c, nil
	}
	t := b.opts.Trees[i]
	g := git.New(b.opts.treeRepo(t))
	head, err := treeHead(ctx, g, t)
	if err != nil {
		return nil, err
	}
	var exclude []string
	if b.upRef != "" && sameRepo(b.opts.upstreamRepo(), b.opts.treeRepo(t)) {
		exclude = append(exclude, b.upRef)
	}
	sha, err := findSubject(ctx, g, head, title, b.opts.SearchLimit, exclude...)
	if err != nil {
		return nil, err
	}
	var c *report.Commit
	if sha != "" {
		c = &report.Commit{SHA: sha, Subject: title}
	}
	b.cache[key] = c
	return c, nil
}

// present returns the commit of tree i that already carries the patch.
func (b *backportFinder) present(ctx context.Context, i int, title string) (*report.Commit, error) {
	return b.lookup(ctx, i, title)
}

// elsewhere returns the backports of the patch in the trees other than i.
func (b *backportFinder) elsewhere(ctx context.Context, i int, title string) ([]report.Backport, error) {
	var out []report.Backport
	for j, t := range b.opts.Trees {
		if j == i {
			continue
		}
		c, err := b.lookup(ctx, j, title)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue // that tree is broken; it reports its own error
		}
		if c != nil {
			out = append(out, report.Backport{Tree: t.Name, Commit: *c})
		}
	}
	return out, nil
}

// sameRepo reports whether two repository paths are the same directory.
func sameRepo(a, b string) bool {
	if a == b {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	if err1 != nil || err2 != nil {
		return false
	}
	fa, err1 := os.Stat(ra)
	fb, err2 := os.Stat(rb)
	return err1 == nil && err2 == nil && os.SameFile(fa, fb)
}
