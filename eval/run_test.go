package eval

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
)

// TestEvaluatorRun runs the real rules on testdata/run: a one-file tree
// and a corpus with one bug (a mutex taken under a spinlock), its fix, a
// near miss (the spinlock taken under the mutex) and one ordinary patch
// that added a function which already takes a mutex under the spinlock
// (so it must count as a false alarm, with the tree and patch-only).
func TestEvaluatorRun(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "run", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Problems) > 0 {
		t.Fatal(c.Problems)
	}
	treeDir := filepath.Join("testdata", "run", "tree")
	ix, err := index.Open(context.Background(), treeDir, index.Options{CacheDir: "-"})
	if err != nil {
		t.Fatal(err)
	}
	ev, err := NewEvaluator(Options{Tree: treeDir, Index: ix, RuleOptions: rules.Options{Depth: 4}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ev.Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	bug := res.Bugs[0]
	if bug.Err != "" || bug.Got != LevelRisk {
		t.Errorf("bug: got %s, err %q, family findings %v", bug.Got, bug.Err, bug.Family)
	}
	if len(bug.FixRisk) != 0 {
		t.Errorf("fix: risk findings %v", bug.FixRisk)
	}
	nm := res.NearMisses[0]
	if nm.Err != "" || nm.Got == LevelRisk {
		t.Errorf("near miss: got %s, err %q, findings %v", nm.Got, nm.Err, nm.Family)
	}
	o := res.Ordinary[0]
	if o.Err != "" || len(o.TreeRisk) == 0 || len(o.PatchOnlyRisk) == 0 {
		t.Errorf("ordinary: tree %v, patch-only %v, err %q", o.TreeRisk, o.PatchOnlyRisk, o.Err)
	}
	for _, h := range append(o.TreeRisk, o.PatchOnlyRisk...) {
		if h.Func != "foo_bar" {
			t.Errorf("ordinary: risk on %s, want foo_bar", h.Func)
		}
	}
	var b strings.Builder
	if err := res.Write(&b); err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(b.String()), " ")
	for _, want := range []string{
		"fixes (fix.patch on top of bug.patch, any rule) 0/1 (0%)",
		"near misses (risk of the family) 0/1 (0%)",
		"ordinary patches, with the tree (any rule) 1/1 (100%)",
		"ordinary patches, patch-only (any rule) 1/1 (100%)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	for _, want := range []string{
		"sleep-in-atomic  1/1 (100%)",
		"sleep-in-atomic/direct",
		"fixes (fix.patch on top of bug.patch, any rule)",
		"near misses (risk of the family)",
		"ordinary patches, with the tree (any rule)",
		"ordinary patches, patch-only (any rule)",
		"sleep/foo-mutex-under-spinlock",
		"0001-foo-add-foo-bar.patch",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}
