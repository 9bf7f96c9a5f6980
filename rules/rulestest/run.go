package rulestest

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
)

// Pass parses patch and returns the pass over it as the pipeline builds
// it: patch-only when base is nil, else applied onto the tree in directory
// tree (in memory) with base as the tree's index.
func Pass(tb testing.TB, patch, tree string, base *index.Index) *rules.Pass {
	tb.Helper()
	if base == nil {
		return PassOn(tb, patch, nil, nil)
	}
	return PassOn(tb, patch, diffcheck.DirTree(tree), base)
}

// PassOn is Pass over any tree: patch-only when base is nil, else applied
// onto tree (in memory) with base as the tree's index. A patch that does
// not apply cleanly is analysed as the pipeline does (the pass's
// Change.ApplyError says so).
func PassOn(tb testing.TB, patch string, tree diffcheck.Tree, base *index.Index) *rules.Pass {
	tb.Helper()
	cs, err := diffcheck.Parse(patch)
	if err != nil {
		tb.Fatalf("parse patch: %v", err)
	}
	if base != nil {
		if err := diffcheck.ApplyTree(cs, tree); err != nil {
			tb.Fatalf("apply: %v", err)
		}
	}
	return rules.NewPass(cs, base, rules.Options{}, 1)
}

// RunPass runs rule over pass and returns its findings in report order.
func RunPass(tb testing.TB, rule *rules.Rule, pass *rules.Pass) []report.Finding {
	tb.Helper()
	fs, err := pass.Run(rule)
	if err != nil {
		tb.Fatal(err)
	}
	report.SortFindings(fs)
	return fs
}

// Run runs rule over patch (see Pass) and returns the findings in report
// order and the pass's notes.
func Run(tb testing.TB, rule *rules.Rule, patch, tree string, base *index.Index) ([]report.Finding, []string) {
	tb.Helper()
	p := Pass(tb, patch, tree, base)
	return RunPass(tb, rule, p), p.Notes
}

var (
	kernelOnce  sync.Once
	kernelIndex *index.Index
	kernelErr   error
)

// Kernel returns the shared Linux 6.1 tree and its index, cached next to
// the tree so later runs load it in seconds; the test is skipped when the
// tree is unavailable (see internal/testkernel).
func Kernel(tb testing.TB) (string, *index.Index) {
	tb.Helper()
	dir := testkernel.Dir(tb)
	kernelOnce.Do(func() {
		kernelIndex, kernelErr = index.Open(context.Background(), dir, index.Options{
			CacheDir: filepath.Join(filepath.Dir(dir), "index-cache"),
		})
	})
	if kernelErr != nil {
		tb.Fatal(kernelErr)
	}
	return dir, kernelIndex
}
