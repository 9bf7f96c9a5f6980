package wakeup

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/autosel-bot/autosel-bot/diffcheck"
	"github.com/autosel-bot/autosel-bot/index"
	"github.com/autosel-bot/autosel-bot/rules"
)

// BenchmarkWakeupTree measures per-patch wakeup analysis against the whole
// Linux 6.1 tree with a warm index (the index is opened, from its cache when
// warm, before the timer starts), on the patch of the case
// linux61-pipe-release-narrowed: "rule" is the rule's Run alone on a
// prepared pass, "patch" adds parsing, the in-memory apply and the overlay.
func BenchmarkWakeupTree(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	b.Logf("index: %d files, %d funcs (scanned %d, cached %d) in %v", idx.Stats.Files, idx.Stats.Funcs, idx.Stats.Scanned, idx.Stats.Cached, idx.Stats.Duration)
	benchTree(b, dir, idx, "linux61-pipe-release-narrowed")
}

// BenchmarkWakeupTreeRemoved is BenchmarkWakeupTree on a removed wake-up
// (fs/eventfd.c, eventfd_write; the case linux61-eventfd-write-wake-removed):
// the waiters of the queue, the covering wakers in callees and callers and
// the ordering checks are all consulted.
func BenchmarkWakeupTreeRemoved(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	benchTree(b, dir, idx, "linux61-eventfd-write-wake-removed")
}

// benchTree runs the benchmark on the patch of the case name.
func benchTree(b *testing.B, dir string, idx *index.Index, name string) {
	diff := casePatch(b, name)
	rule, err := New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// Warm the per-tree memo (primitive call sites) once.
	if _, err := treePass(b, diff, idx, dir).Run(rule); err != nil {
		b.Fatal(err)
	}
	b.Run("rule", func(b *testing.B) {
		pass := treePass(b, diff, idx, dir)
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			fs, err := pass.Run(rule)
			if err != nil || len(fs) == 0 {
				b.Fatalf("findings %d, err %v", len(fs), err)
			}
		}
	})
	b.Run("patch", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			checkPatch(b, diff, dir, idx, rule)
		}
	})
}

// benchPatches are eval bug cases of the mechanisms the obligation
// checks decide (barrier with a lockless waker, a write barrier between
// two stores, a weakened sleeper check, a signal moved into a branch, a
// removed wake-up): BenchmarkWakeupPatch runs the rule on each.
var benchPatches = []string{
	"blk-mq-mark-tag-wait-add-queue-barrier",
	"xenbus-process-writes-err-before-state",
	"printk-wake-up-klogd-wq-has-sleeper",
	"ceph-handle-reply-safe-umount-complete-unsafe-only",
	"tracing-rb-simple-write-off-wake-waiters",
}

// BenchmarkWakeupPatch is the per-patch wakeup analysis with a warm tree
// index (target <= 200 ms a patch): parsing, the in-memory apply, the
// overlay and the rule's Run, over the bug.patch of each benchPatches
// case; it reports ms/patch.
func BenchmarkWakeupPatch(b *testing.B) {
	dir, idx := kernelIndexFor(b)
	rule, err := New(rules.Options{})
	if err != nil {
		b.Fatal(err)
	}
	var diffs []string
	for _, n := range benchPatches {
		d, err := os.ReadFile(filepath.Join("..", "..", "eval", "bugs", "wakeup", n, "bug.patch"))
		if err != nil {
			b.Fatal(err)
		}
		diffs = append(diffs, string(d))
	}
	run := func() {
		for _, d := range diffs {
			checkPatch(b, d, dir, idx, rule)
		}
	}
	run() // warm the per-tree memo and the decoded index views
	b.ResetTimer()
	start, cpu0 := time.Now(), cpuTime()
	for i := 0; i < b.N; i++ {
		run()
	}
	n := float64(b.N * len(diffs))
	b.ReportMetric(float64(time.Since(start).Milliseconds())/n, "ms/patch")
	// CPU time of the process (all threads, GC included): on a loaded
	// machine the wall time above overstates the cost.
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/n, "cpu-ms/patch")
}

// checkPatch is what the bot does for one patch: parse it, apply it to
// the tree in memory and run the rule over the overlay.
func checkPatch(b *testing.B, diff, dir string, idx *index.Index, rule *rules.Rule) {
	cs, err := diffcheck.Parse(diff)
	if err != nil {
		b.Fatal(err)
	}
	if err := diffcheck.ApplyTree(cs, diffcheck.DirTree(dir)); err != nil {
		b.Fatal(err)
	}
	if _, err := rules.NewPass(cs, idx, rules.Options{}, 1).Run(rule); err != nil {
		b.Fatal(err)
	}
}

// cpuTime returns the user and system CPU time the process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
