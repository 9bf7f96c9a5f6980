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
// and a corpus with one bug (a mutex taken under a spinlock, test split),
// its fix, two near misses (the spinlock taken under the mutex; a mutex the
// tree already has, in_tree), a variant (the mutex one helper deeper, with
// its correct counterpart) and one ordinary patch that added a function
// which already takes a mutex under the spinlock (so it must count as a
// false alarm, with the tree and patch-only).
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
	ev, err := NewEvaluator(Options{Tree: treeDir, Index: ix, RuleOptions: rules.Options{}})
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
	if len(res.NearMisses) != 2 {
		t.Fatalf("%d near misses, want 2", len(res.NearMisses))
	}
	for _, nm := range res.NearMisses {
		if nm.Err != "" || nm.Got == LevelRisk {
			t.Errorf("near miss %s: got %s, err %q, findings %v", nm.Case.Name, nm.Got, nm.Err, nm.Family)
		}
	}
	if len(res.Variants) != 1 {
		t.Fatalf("%d variants, want 1", len(res.Variants))
	}
	if v := res.Variants[0]; v.Err != "" || v.Got != LevelRisk || v.OK != LevelNone || !v.Pass() {
		t.Errorf("variant: got %s, ok.patch %s, err %q, findings %v %v", v.Got, v.OK, v.Err, v.Family, v.OKFamily)
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
		"fixes (fix.patch on top of bug.patch, any rule) 0/0 0/1 (0%)",
		"near misses (risk of the family) 0/2 (0%) 0/0",
		"ordinary patches, with the tree (any rule) 0/0 1/1 (100%)",
		"ordinary patches, patch-only (any rule) 0/0 1/1 (100%)",
		"sleep-in-atomic test 1/1 (100%) 1/1 (100%)",
		"sleep-in-atomic/depth 1/1 (100%) 1/1 (100%) -",
		"sleep/depth/deeper-1 foo_update risk none",
		"bug cases 1 (train 0, test 1), near misses 2 (train 2, test 0), ordinary patches 1 (train 0, test 1), variants 1",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
	// The test split's cases are counted, never named, unless asked.
	for _, hidden := range []string{"sleep/foo-mutex-under-spinlock", "0001-foo-add-foo-bar.patch"} {
		if strings.Contains(text, hidden) {
			t.Errorf("report names test case %s:\n%s", hidden, b.String())
		}
	}
	res.ShowTest = true
	b.Reset()
	if err := res.Write(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sleep/foo-mutex-under-spinlock", "0001-foo-add-foo-bar.patch", "sleep/foo-reset-mutex-in-tree"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report with ShowTest lacks %q:\n%s", want, b.String())
		}
	}
}

// TestEvaluatorIndexWarm checks that IndexWarm reaches the analysis: with
// a budget of one function the index keeps at most one decoded function
// after the cases (it releases them past the budget), without one it keeps
// every function the cases decoded.
func TestEvaluatorIndexWarm(t *testing.T) {
	c, err := Load(filepath.Join("testdata", "run", "corpus"))
	if err != nil {
		t.Fatal(err)
	}
	treeDir := filepath.Join("testdata", "run", "tree")
	for _, tc := range []struct {
		warm    int
		bounded bool
	}{{warm: 0}, {warm: 1, bounded: true}} {
		ix, err := index.Open(context.Background(), treeDir, index.Options{CacheDir: "-"})
		if err != nil {
			t.Fatal(err)
		}
		ev, err := NewEvaluator(Options{Tree: treeDir, Index: ix, IndexWarm: tc.warm})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ev.Run(context.Background(), c); err != nil {
			t.Fatal(err)
		}
		if n, _ := ix.Warm(); (n <= 1) != tc.bounded {
			t.Errorf("IndexWarm %d: %d functions decoded after the run, want at most one: %v", tc.warm, n, tc.bounded)
		}
	}
}
