package stable

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostileBuild stands for a kernel build whose Makefiles a patch may
// change: the tree's own build makes fixdep once; a worktree whose foo.c
// says PLANT (the hostile patch) replaces fixdep in the build dir, drops
// a file dated in the future there and an ignored object in the
// worktree. A build that finds any of them fails, as a poisoned kernel
// build would.
const hostileBuild = `B=$AUTOSEL_BUILD_DIR
test -e $B/fixdep || echo genuine > $B/fixdep
if ! grep -q genuine $B/fixdep || test -e $B/planted || test -e planted.o; then echo "foo.c:1:1: error: poisoned by an earlier build" >&2; exit 1; fi
if grep -q PLANT foo.c; then echo evil > $B/fixdep; touch -d 2099-01-01 $B/planted; touch -d 2099-01-01 planted.o; fi
` + buildCmd

// TestHostileStableBuildDir replays issue 37 point 2 on the stable stage:
// one patch's stable build poisons the tree's build dir and worktree; the
// next patch's build does not see it (it builds in a throwaway copy of the
// trusted baseline build dir, in a worktree cleaned of ignored files).
func TestHostileStableBuildDir(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	w.opts.Trees[0].Build = hostileBuild
	// Build output the tree ignores, as a kernel tree does *.o.
	if err := os.WriteFile(filepath.Join(w.repo.Dir, ".git", "info", "exclude"), []byte("*.o\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.repo.Git("checkout", "-q", "--detach", w.v663)
	w.repo.Replace("foo.c", "int beta(int x)\n", "/* PLANT */\nint beta(int x)\n")
	hostile := w.repo.Commit("foo: a comment\n\nCc: stable@vger.kernel.org\nSigned-off-by: Mallory <m@example.org>")
	w.repo.Git("checkout", "-q", "master")

	sr := w.run(t, w.repo.PatchMail(hostile)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); !tr.Applied || tr.Build != "ok" {
		t.Fatalf("hostile patch: %+v", tr)
	}
	// The next, innocent patch builds as if the hostile one never had.
	for i := 0; i < 2; i++ {
		sr = w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
		if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
			t.Fatalf("innocent patch after the hostile one (run %d): %s %s", i, tr.Build, strings.Join(tr.BuildErrors, "\n"))
		}
	}
	base := baselineDir(w.opts, w.opts.Trees[0])
	if b, err := os.ReadFile(filepath.Join(base, "fixdep")); string(b) != "genuine\n" {
		t.Errorf("baseline fixdep is %q (%v)", b, err)
	}
	if m, _ := filepath.Glob(base + ".patched-*"); len(m) != 0 {
		t.Errorf("throwaway build dirs left behind: %v", m)
	}
}

// TestHostileStableDiskFill (issue 37 point 7): a patch whose build keeps
// writing to the build dir is killed at the disk budget; the tree's
// result says the build failed and names the setting, and the next patch
// builds normally (the throwaway dir is gone).
func TestHostileStableDiskFill(t *testing.T) {
	w := newWorld(t)
	w.opts.Trees = w.opts.Trees[:1]
	w.opts.Sandbox.DiskBudget = 16 << 20
	w.opts.Trees[0].Build = `B=$AUTOSEL_BUILD_DIR
if grep -q FILL foo.c; then i=0; while :; do head -c 1048576 /dev/zero > $B/fill$i; i=$((i+1)); sleep 0.02; done; fi
` + buildCmd
	w.repo.Git("checkout", "-q", "--detach", w.v663)
	w.repo.Replace("foo.c", "int beta(int x)\n", "/* FILL */\nint beta(int x)\n")
	hostile := w.repo.Commit("foo: a comment\n\nCc: stable@vger.kernel.org\nSigned-off-by: Mallory <m@example.org>")
	w.repo.Git("checkout", "-q", "master")

	sr := w.run(t, w.repo.PatchMail(hostile)).Patches[0].Stable
	tr := treeResult(t, sr, "v6.6.3")
	if tr.Build != "failed" || len(tr.BuildErrors) == 0 || !strings.Contains(tr.BuildErrors[0], "sandbox.disk_budget") {
		t.Fatalf("disk-filling build: %s %q", tr.Build, tr.BuildErrors)
	}
	sr = w.run(t, w.repo.PatchMail(w.pA)).Patches[0].Stable
	if tr := treeResult(t, sr, "v6.6.3"); tr.Build != "ok" {
		t.Fatalf("the next patch: %s %s", tr.Build, strings.Join(tr.BuildErrors, "\n"))
	}
	if m, _ := filepath.Glob(baselineDir(w.opts, w.opts.Trees[0]) + ".patched-*"); len(m) != 0 {
		t.Errorf("throwaway build dirs left behind: %v", m)
	}
}
