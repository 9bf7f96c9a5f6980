package sleep

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/report"
	"github.com/autosel-bot/autosel-bot/rules"
	"github.com/autosel-bot/autosel-bot/rules/rulestest"
)

// memTree is a tree with a few files replaced (a tree with a patch
// applied, for running the fix on top of the bug).
type memTree struct {
	base  diffcheck.Tree
	files map[string][]byte
}

func (t *memTree) Root() string { return t.base.Root() }

func (t *memTree) ReadFile(p string) ([]byte, error) {
	if b, ok := t.files[p]; ok {
		return b, nil
	}
	return t.base.ReadFile(p)
}

// runOn applies patch to tree and runs the rule with the post-patch
// overlay of ix.
func runOn(t *testing.T, patch string, tree diffcheck.Tree, ix *index.Index) ([]report.Finding, map[string][]byte) {
	t.Helper()
	cs, err := diffcheck.Parse(patch)
	if err != nil {
		t.Fatal(err)
	}
	if err := diffcheck.ApplyTree(cs, tree); err != nil {
		t.Fatal(err)
	}
	if cs.ApplyError != "" {
		t.Fatalf("patch does not apply: %s", cs.ApplyError)
	}
	files := cs.Tree.(*diffcheck.PatchedTree).Files()
	return rulestest.RunPass(t, sleepRule(t), rules.NewPass(cs, ix, rules.Options{}, 1)), files
}

// reverseDiff swaps the sides of a one-file unified diff (the fix of a
// re-introduced bug).
func reverseDiff(d string) string {
	var out []string
	for _, l := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(l, "--- a/"):
			out = append(out, l)
		case strings.HasPrefix(l, "+++ b/"):
			out = append(out, l)
		case strings.HasPrefix(l, "@@ "):
			// @@ -a,b +c,d @@ -> @@ -c,d +a,b @@
			f := strings.Fields(l)
			rest := strings.Join(f[4:], " ")
			out = append(out, "@@ -"+f[2][1:]+" +"+f[1][1:]+" @@"+strings.TrimPrefix(" "+rest, " @@"))
		case strings.HasPrefix(l, "+"):
			out = append(out, "-"+l[1:])
		case strings.HasPrefix(l, "-"):
			out = append(out, "+"+l[1:])
		default:
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestSleepHistory re-introduces sleep-in-atomic bugs into Linux 6.1 in the
// shape their upstream fixes removed (a GFP_KERNEL allocation where the
// lock forbids it; a schedule() left inside an RCU read-side section) and
// checks the finding and its chain; the fix (the reverse patch, applied on
// top of the bug) gives none.
func TestSleepHistory(t *testing.T) {
	dir, ix := kernelIndexFor(t)
	tests := []struct {
		patch string
		// want: the finding's function, the sleeping primitive, and
		// chain steps (func, what) that must appear.
		fn, prim string
		chain    [][2]string
		min      int
	}{
		{"inotify-idr-gfp-kernel.patch", "inotify_add_to_idr", "idr_alloc_cyclic",
			[][2]string{{"inotify_add_to_idr", "spin_lock(idr_lock)"}}, 1},
		{"hw-addr-create-gfp-kernel.patch", "__hw_addr_create", "kmalloc",
			[][2]string{{"dev_uc_add", "calls netif_addr_lock_bh()"}, {"netif_addr_lock_bh", "spin_lock_nested("},
				{"dev_uc_add", "calls __hw_addr_add()"}, {"__hw_addr_add", "calls __hw_addr_add_ex()"},
				{"__hw_addr_add_ex", "calls __hw_addr_create()"}}, 3},
		{"msgsnd-schedule-under-rcu.patch", "do_msgsnd", "schedule",
			[][2]string{{"do_msgsnd", "rcu_read_lock()"}}, 1},
	}
	for _, tc := range tests {
		t.Run(tc.patch, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.patch))
			if err != nil {
				t.Fatal(err)
			}
			fs, bugFiles := runOn(t, string(b), diffcheck.DirTree(dir), ix)
			var hits []report.Finding
			for _, f := range fs {
				if f.Func == tc.fn && f.Severity == report.SeverityRisk && len(f.Chain) > 0 &&
					strings.HasPrefix(f.Chain[len(f.Chain)-1].What, tc.prim+"(") {
					hits = append(hits, f)
				}
			}
			if len(hits) < tc.min {
				t.Fatalf("want >= %d risk findings in %s for %s, got:\n%s", tc.min, tc.fn, tc.prim, describe(fs))
			}
			found := false
			for _, f := range hits {
				ok := true
				for _, w := range tc.chain {
					if !chainHas(f, w[0], w[1]) {
						ok = false
					}
				}
				found = found || ok
			}
			if !found {
				t.Errorf("no finding with chain %v:\n%s", tc.chain, describeChains(hits))
			}
			t.Logf("%d findings, first:\n%s", len(hits), describeChains(hits[:1]))
			// The fix, on top of the bug, gives no finding.
			buggy := ix.Overlay(bugFiles)
			fix := reverseDiff(string(b))
			fs, _ = runOn(t, fix, &memTree{base: diffcheck.DirTree(dir), files: bugFiles}, buggy)
			if len(fs) > 0 {
				t.Errorf("fix gives findings:\n%s", describe(fs))
			}
		})
	}
}

func describeChains(fs []report.Finding) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Message + "\n")
		for _, s := range f.Chain {
			b.WriteString("    " + s.Func + " " + s.File + ":" + strconv.Itoa(s.Line) + " " + s.What + "\n")
		}
	}
	return b.String()
}
