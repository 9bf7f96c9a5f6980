package pipeline

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/internal/testkernel"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/all"
	"github.com/autosel-bot/autosel-bot/series"
)

// corpusDiff returns the diff of a patch of the evaluation corpus (from
// its first "diff --git"; bug patches are bare diffs).
func corpusDiff(t *testing.T, rel string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "eval", rel))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	i := strings.Index(s, "diff --git ")
	if i < 0 {
		t.Fatalf("%s: no diff", rel)
	}
	return s[i:]
}

// kernelReport analyses diff as a one-patch series over Linux 6.1 (base:
// the tree it applies onto, nil for the checkout) with every rule.
func kernelReport(t *testing.T, dir string, base diffcheck.Tree, name, diff string) *report.PatchReport {
	t.Helper()
	rs, err := all.Rules(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	an, err := NewAnalysis(AnalysisOptions{Rules: rs, Tree: dir,
		IndexOptions: index.Options{CacheDir: filepath.Join(filepath.Dir(dir), "index-cache")}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	an.SetBaseTree(base)
	id := name + "@eval.example.org"
	s := &series.Series{ID: id, Total: 1, Patches: []*series.Patch{{Number: 1, Msg: msg(id, "[PATCH] "+name, diff, 1)}}}
	r, err := (&Pipeline{Stages: []Stage{an}}).Run(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Patches) != 1 {
		t.Fatalf("%d patch reports", len(r.Patches))
	}
	return &r.Patches[0]
}

// TestAlreadyInTreeCorpus: real patches of the evaluation corpus (train
// split) on Linux 6.1. A patch the tree already holds is detected as git am
// would (it does not apply, its reverse does) and analysed against the
// tree with it reversed: Debian's "resources: Add lookup_resource()" on
// 6.1 itself, whose header prototype makes no function of the prototype
// before it; and a maintainer's branch, the e1000e bug patch checked on
// 6.1 with that patch applied, gives the same sleep-in-atomic risk as on
// its parent. The same bug patch on its parent is not "already in".
func TestAlreadyInTreeCorpus(t *testing.T) {
	dir := testkernel.Dir(t)

	t.Run("ordinary patch in 6.1", func(t *testing.T) {
		p := kernelReport(t, dir, nil, "lookup-resource", corpusDiff(t, "ordinary/0125-resources-add-lookup-resource.patch"))
		if !strings.Contains(p.AlreadyApplied, "already in") {
			t.Errorf("already_applied %q, notes %q", p.AlreadyApplied, p.Notes)
		}
		if strings.Join(p.Funcs, " ") != "kernel/resource.c:lookup_resource" {
			t.Errorf("functions %q, want only kernel/resource.c:lookup_resource", p.Funcs)
		}
		for _, f := range p.Findings {
			for _, s := range f.Chain {
				if s.File == "include/linux/ioport.h" {
					t.Errorf("finding through a declaration in the header: %+v", f)
				}
			}
		}
	})

	bug := corpusDiff(t, "bugs/sleep/e1000e-hw-semaphore-usleep/bug.patch")
	const fn, file = "e1000e_get_hw_semaphore", "drivers/net/ethernet/intel/e1000e/mac.c"
	risk := func(p *report.PatchReport) bool {
		for _, f := range p.Findings {
			if f.Rule == "sleep-in-atomic" && f.Severity == report.SeverityRisk && f.Func == fn && f.File == file {
				return true
			}
		}
		return false
	}
	parent := kernelReport(t, dir, nil, "e1000e-parent", bug)
	if parent.AlreadyApplied != "" {
		t.Errorf("bug patch on its parent: already_applied %q", parent.AlreadyApplied)
	}
	if !risk(parent) {
		t.Fatalf("no sleep-in-atomic risk in %s() on the parent: the test follows nothing; findings %+v", fn, parent.Findings)
	}
	cs, err := diffcheck.Parse(bug)
	if err != nil {
		t.Fatal(err)
	}
	if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil || cs.ApplyError != "" {
		t.Fatalf("bug patch does not apply to 6.1: %v %s", err, cs.ApplyError)
	}
	branch := kernelReport(t, dir, cs.Tree, "e1000e-branch", bug)
	if !strings.Contains(branch.AlreadyApplied, "already in") {
		t.Errorf("bug patch on the branch holding it: already_applied %q, notes %q", branch.AlreadyApplied, branch.Notes)
	}
	if !risk(branch) {
		t.Errorf("bug patch on the branch holding it: no sleep-in-atomic risk in %s(); findings %+v", fn, branch.Findings)
	}
}
