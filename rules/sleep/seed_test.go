package sleep

import (
	"strings"
	"testing"

	"github.com/autosel-bot/autosel-bot/report"
)

// chainHas reports whether the chain has a step in fn whose What contains
// what.
func chainHas(f report.Finding, fn, what string) bool {
	for _, s := range f.Chain {
		if s.Func == fn && strings.Contains(s.What, what) {
			return true
		}
	}
	return false
}

// TestSleepSeed002Tree is the acceptance case: seed 002 patch 2/2 on
// Linux 6.1 (its watch_queue.c hunks do not apply there: they were written
// on top of patch 1/2 and a later kernel).
func TestSleepSeed002Tree(t *testing.T) {
	patch := seedPatch(t, "002-watch-queue-v5.mbox", 2)
	dir, ix := kernelIndexFor(t)
	fs, notes := runSleepPatch(t, patch, dir, ix)
	callers := map[string]report.Finding{}
	for _, f := range fs {
		if f.Rule != Name || f.Func != "post_one_notification" || f.Severity != report.SeverityRisk {
			t.Errorf("unexpected finding: %s %s %s:%d %s", f.Severity, f.Func, f.File, f.Line, f.Message)
			continue
		}
		if len(f.Chain) == 0 {
			t.Fatalf("finding without chain: %+v", f)
		}
		callers[f.Chain[0].Func] = f
	}
	for _, caller := range []string{"__post_watch_notification", "remove_watch_from_object"} {
		f, ok := callers[caller]
		if !ok {
			t.Errorf("no risk finding with a chain from %s; findings: %+v", caller, fs)
			continue
		}
		if f.File != "kernel/watch_queue.c" || f.Line == 0 {
			t.Errorf("%s: finding at %s:%d", caller, f.File, f.Line)
		}
		for _, want := range []struct{ fn, what string }{
			{caller, "rcu_read_lock()"},
			{caller, "calls post_one_notification()"},
			{"post_one_notification", "calls __pipe_lock()"},
			{"__pipe_lock", "mutex_lock_nested("},
		} {
			if !chainHas(f, want.fn, want.what) {
				t.Errorf("%s: chain lacks %s: %s; chain %+v", caller, want.fn, want.what, f.Chain)
			}
		}
		for _, s := range f.Chain {
			if s.File == "" || s.Line == 0 {
				t.Errorf("%s: chain step without file:line: %+v", caller, s)
			}
		}
		if !strings.Contains(f.Explanation, "rcu_read_unlock()") || !strings.Contains(f.Explanation, "unbalanced") {
			t.Errorf("%s: explanation does not name the callee's unbalanced rcu_read_unlock(): %s", caller, f.Explanation)
		}
		if !strings.Contains(f.Message, "mutex_lock_nested") || !strings.Contains(f.Message, caller) {
			t.Errorf("%s: message %q", caller, f.Message)
		}
	}
	for _, n := range notes {
		if strings.Contains(n, "no --tree") {
			t.Errorf("tree mode note claims no tree: %s", n)
		}
	}
}

// TestSleepSeed002PatchOnly: without a tree, the hunks show that
// post_one_notification() now sleeps after dropping an RCU read lock it
// never took; the callers need a tree.
func TestSleepSeed002PatchOnly(t *testing.T) {
	patch := seedPatch(t, "002-watch-queue-v5.mbox", 2)
	fs, notes := runSleepPatch(t, patch, "", nil)
	if len(fs) != 1 {
		t.Fatalf("want 1 finding, got %+v", fs)
	}
	f := fs[0]
	if f.Func != "post_one_notification" || !f.NeedsTree || f.Severity != report.SeverityNote ||
		!chainHas(f, "__pipe_lock", "mutex_lock_nested(") || !strings.Contains(f.Explanation, "rcu_read_unlock()") {
		t.Errorf("finding: %+v", f)
	}
	joined := strings.Join(notes, "\n")
	if !strings.Contains(joined, "callers of post_one_notification() were not checked: no --tree") {
		t.Errorf("notes do not say a tree is needed for the callers: %s", joined)
	}
	if strings.Contains(joined, "callers of __pipe_lock()") {
		t.Errorf("__pipe_lock() only moved to a header: %s", joined)
	}
}

// BenchmarkSleepPatch is the per-patch analysis with a warm tree index
// (target <= 2 s): seed 002 patch 2/2 applied in memory onto Linux 6.1,
// overlay, forward and reverse analysis.
func BenchmarkSleepPatch(b *testing.B) {
	patch := seedPatch(b, "002-watch-queue-v5.mbox", 2)
	dir, ix := kernelIndexFor(b)
	ix.Callers("x") // the caller map is built once per index, on first use
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		fs, _ := runSleepPatch(b, patch, dir, ix)
		if len(fs) < 2 {
			b.Fatalf("findings: %d", len(fs))
		}
	}
}

// BenchmarkSleepPatchOnly is the same patch without a tree.
func BenchmarkSleepPatchOnly(b *testing.B) {
	patch := seedPatch(b, "002-watch-queue-v5.mbox", 2)
	for i := 0; i < b.N; i++ {
		runSleepPatch(b, patch, "", nil)
	}
}
